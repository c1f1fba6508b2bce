"""One turn of a transcript as lines of a known kind: what the item view draws (adding a style
per kind) and what `evaltui show` prints (as they are).

The kind of a line is said by a word or a symbol in the line itself (`→ call`, `✗ TOOL ERROR`,
`▸ reasoning`), never by colour alone. Run text is made inert here (controls made visible) so
both surfaces receive text that cannot restyle a terminal.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from evaltui.core.read.runs import Message, Transcript
from evaltui.core.read.turns import Block, SampleCost, reasoning_tokens_words
from evaltui.core.textsafe import inert, one_line

LineKind = Literal[
    "title",
    "text",
    "reasoning",
    "fold",
    "call",
    "args",
    "result",
    "error",
    "media",
    "note",
    "verdict",
]

FOLDED_REASONING = 120  # characters of a folded reasoning block shown (two lines of a pane)
LONG_VALUE = 160  # characters of one line of a tool call's arguments shown while folded
FOLDED_RESULT_LINES = 6  # lines of a long tool result shown while folded
FOLDED_RESULT_CHARS = 480  # and at most this many characters of them (a one-line page)
UNFOLD_KEY = "f"  # the key that unfolds (named in the fold marker)

MARK = {
    "call": "→",
    "result": "←",
    "error": "✗",
    "fold": "▸",
    "unfolded": "▾",
    "media": "▣",
    "limit": "⛔",
    "gap": "∅",
    "diverge": "◆",
}


@dataclass(frozen=True)
class Line:
    """One line (it may wrap when drawn) and its kind; `text` is inert. `unit`: on the first
    line of something that folds (a long reasoning block, a long tool-call argument, a long
    tool result), its
    number within the turn, counted from 0 in the order drawn (what `unfold` names)."""

    text: str
    kind: LineKind
    unit: int | None = None


Unfold = bool | frozenset[int]
"""What to unfold: everything (True), nothing (False), or these units of the turn."""


def _open(unfold: Unfold, unit: int) -> bool:
    return unfold if isinstance(unfold, bool) else unit in unfold


def turn_title(message: Message, number: int) -> str:
    """`#3 assistant`: the turn's number in its own run and its role (untrusted: one line)."""
    return f"#{number} {one_line(message.role or '?', 30)}"


def turn_lines(
    message: Message, number: int, unfold: Unfold = False, hint: str = f"{UNFOLD_KEY} unfolds"
) -> list[Line]:
    """The title line, then each block of the message; a message with no recorded structure
    is one text block. `hint`: how to unfold what is folded, named in the fold marks. The
    units that fold are numbered in the order drawn (`Line.unit`); `unfold` names which open."""
    out = [Line(turn_title(message, number), "title")]
    blocks = message.blocks or (Block("text", message.content),)
    units = 0
    for block in blocks:
        lines = block_lines(block, unfold, hint, first_unit=units)
        units += sum(1 for line in lines if line.unit is not None)
        out += lines
    return out


def block_lines(
    block: Block, unfold: Unfold = False, hint: str = f"{UNFOLD_KEY} unfolds", first_unit: int = 0
) -> list[Line]:
    """One block: text as written; reasoning folded unless `unfold`; redacted reasoning as its
    summary, its turn's reasoning tokens and the size withheld; a tool call as its name and its
    arguments one per line; a result or an error with the function it came from; media by
    type and size. `first_unit`: the number of the block's first unit that folds (a long
    reasoning block is one, each long argument one, a long result one)."""
    kind = block.kind
    if kind == "text":
        return [Line(inert(block.text), "text")] if block.text else []
    if kind == "reasoning":
        return _reasoning(block.text, _open(unfold, first_unit), hint, first_unit)
    if kind == "redacted":
        # The turn's reasoning tokens (what the withheld reasoning cost), then its size
        withheld = f"; {block.size:,} encrypted characters not shown" if block.size else ""
        tokens = one_line(reasoning_tokens_words(block.tokens), 80)
        head = f"{MARK['fold']} REASONING (SUMMARY) · redacted: {tokens}{withheld}"
        body = block.text or "(no summary recorded)"
        return [Line(head, "fold"), Line(inert(body), "reasoning")]
    if kind == "tool_call":
        lines = [Line(f"{MARK['call']} tool call: {one_line(block.name, 60)}", "call")]
        unit = first_unit
        for raw in block.text.splitlines() or [""]:
            text = inert(raw)
            if len(text) <= LONG_VALUE:
                lines.append(Line(text, "args"))
                continue
            if not _open(unfold, unit):
                more = len(text) - LONG_VALUE
                text = f"{text[:LONG_VALUE]}… (+{more:,} characters, {hint})"
            lines.append(Line(text, "args", unit))
            unit += 1
        return lines
    if kind == "tool_result":
        return _result(block, _open(unfold, first_unit), hint, first_unit)
    if kind == "tool_error":
        head = f"{MARK['error']} TOOL ERROR ({one_line(block.name, 60)}): {inert(block.text)}"
        return [Line(head, "error")]
    if kind == "media":
        size = f", {block.size:,} bytes" if block.size else ""
        return [Line(f"{MARK['media']} [{one_line(block.name, 40)}{size}]", "media")]
    return [Line(inert(block.text), "text")]


def _reasoning(text: str, unfold: bool, hint: str, unit: int = 0) -> list[Line]:
    if not text:
        return [Line(f"{MARK['fold']} reasoning (not recorded)", "fold")]
    if len(text) <= FOLDED_REASONING:  # short: nothing to fold
        return [
            Line(f"{MARK['fold']} reasoning ({len(text):,} characters)", "fold"),
            Line(inert(text), "reasoning"),
        ]
    if unfold:
        return [
            Line(f"{MARK['unfolded']} reasoning ({len(text):,} characters)", "fold", unit),
            Line(inert(text), "reasoning"),
        ]
    cut = text[:FOLDED_REASONING].rsplit(" ", 1)[0] or text[:FOLDED_REASONING]
    head = f"{MARK['fold']} reasoning ({len(text):,} characters, folded: {hint})"
    return [Line(head, "fold", unit), Line(inert(cut) + " …", "reasoning")]


def _result(block: Block, unfold: bool, hint: str, unit: int) -> list[Line]:
    """A tool's result; a long one (a page, a file, a listing) folds to its first lines as a
    long reasoning block does, so the next call and the answer stay on screen."""
    title = f"{MARK['result']} result: {one_line(block.name, 60)}"
    text = block.text
    if not text:
        return [Line(title, "result"), Line("(empty)", "text")]
    rows = text.splitlines()
    if len(rows) <= FOLDED_RESULT_LINES and len(text) <= FOLDED_RESULT_CHARS:
        return [Line(title, "result"), Line(inert(text), "text")]
    size = f"{len(rows):,} line{'' if len(rows) == 1 else 's'}, {len(text):,} characters"
    if unfold:
        return [Line(f"{title} ({size})", "result", unit), Line(inert(text), "text")]
    shown = "\n".join(rows[:FOLDED_RESULT_LINES])[:FOLDED_RESULT_CHARS]
    head = f"{title} ({size}, folded: {hint})"
    return [Line(head, "result", unit), Line(inert(shown) + " …", "text")]


def gap_lines() -> list[Line]:
    """What stands in a row only the other run has a turn in."""
    return [Line(f"{MARK['gap']} (no matching turn in this run)", "note")]


def cost_words(cost: SampleCost | None) -> str:
    """One sample's cost in one line: tokens, time, working time, retries, the limit, the
    error; `cost not recorded` when the log has none of it."""
    if cost is None:
        return "cost not recorded"
    parts = [part for part in (token_words(cost), time_words(cost)) if part is not None]
    if cost.retries:
        parts.append(f"{cost.retries} {'retry' if cost.retries == 1 else 'retries'}")
    if cost.limit:
        parts.append(f"{MARK['limit']} LIMIT {one_line(cost.limit, 40)}")
    if cost.error:
        parts.append(f"{MARK['error']} SAMPLE ERROR: {one_line(cost.error, 80)}")
    return " · ".join(parts) or "cost not recorded"


# The token figures' words, as `show` prints them and (short) as the app's item header fits
# both runs' splits in 80 columns: "4,730 tokens (4,100 in, 630 out, 420 reasoning)" and
# "tok 4,730 (in 4,100 · out 630 · reas 420)".
_TOKEN_WORDS = {False: ("tokens", "in", "out", "reasoning"), True: ("tok", "in", "out", "reas")}


def token_words(cost: SampleCost, short: bool = False) -> str | None:
    """The sample's tokens, with the input, output and reasoning split it records (a recorded
    0 is said, an unrecorded count left out); None when it records no total."""
    if cost.total_tokens is None:
        return None
    total, *labels = _TOKEN_WORDS[short]
    counts = (cost.input_tokens, cost.output_tokens, cost.reasoning_tokens)
    known = [(label, n) for label, n in zip(labels, counts, strict=True) if n is not None]
    if short:
        split = " · ".join(f"{label} {n:,}" for label, n in known)
        return f"{total} {cost.total_tokens:,}" + (f" ({split})" if split else "")
    split = ", ".join(f"{n:,} {label}" for label, n in known)
    return f"{cost.total_tokens:,} {total}" + (f" ({split})" if split else "")


def time_words(cost: SampleCost, short: bool = False) -> str | None:
    """The sample's time and working time: "0.59 s (0.59 s working)", short "0.59 s (0.59
    working)"; None when it records no time."""
    if cost.total_time is None:
        return None
    words = f"{cost.total_time:.2f} s"
    if cost.working_time is not None:
        words += f" ({cost.working_time:.2f}{'' if short else ' s'} working)"
    return words


def scorer_lines(t: Transcript) -> list[Line]:
    """Every scorer's verdict on the sample, with its explanation (not only the compared one)."""
    out = []
    for verdict in t.scorers:
        out.append(Line(f"{one_line(verdict.name, 40)}: {one_line(verdict.value, 40)}", "verdict"))
        if verdict.explanation:
            out.append(Line(inert(verdict.explanation), "text"))
    return out
