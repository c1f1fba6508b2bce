"""The item's two transcripts as rows aligned by content (`core.compare.trajectory`), each
turn drawn as its blocks (`core.report.turn_lines`): a tool call, its result, a tool error, a
folded reasoning block, a gap where only the other run has a turn.

Rows after the turns: the output (when it is not the final turn's text), the target, every
scorer's verdict and explanation, what the sample cost, the rest of its metadata.
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.console import Console
from rich.style import Style
from rich.text import Text

from evaltui.core.compare.trajectory import Alignment, align
from evaltui.core.read.runs import Message, Transcript
from evaltui.core.report.turn_lines import (
    MARK,
    Line,
    Unfold,
    cost_words,
    gap_lines,
    scorer_lines,
    time_words,
    token_words,
    turn_lines,
)
from evaltui.ui.styles import style_of
from evaltui.ui.transcript import (
    MATCH_STYLE,
    MAX_SHOWN,
    OUTPUT_STYLE,
    ROLE_STYLE,
    TARGET_STYLE,
    Section,
    SideBySide,
    section_text,
    side_by_side,
)

KIND_STYLE: dict[str, Style] = {
    "title": Style(bold=True),
    "text": Style(),
    "reasoning": Style(dim=True, italic=True),
    "fold": Style(dim=True, bold=True),
    "call": Style(bold=True),
    "args": Style(),
    "result": Style(bold=True),
    "error": style_of("caution--strong") + Style(bold=True),
    "media": Style(italic=True),
    "note": Style(dim=True),
    "verdict": Style(bold=True),
}
HIDDEN_KEYS = ("id", "epoch", "record", "score_value", "answer", "error", "limit")


@dataclass(frozen=True)
class ItemRows:
    """What the side-by-side pane draws and what its keys need: the rows, each row's two
    sections (search), the alignment (None: the runs record no messages), and the rows of
    the first divergence and of the final answers."""

    sides: SideBySide
    pairs: list[tuple[Section | None, Section | None]]
    alignment: Alignment | None
    # Per turn row, each side's lines as drawn (None: a gap), for `f` to find a unit that folds.
    cell_lines: tuple[tuple[list[Line] | None, list[Line] | None], ...] = ()

    @property
    def divergence_row(self) -> int | None:
        return self.alignment.first_divergence if self.alignment is not None else None

    @property
    def answer_row(self) -> int | None:
        return self.alignment.final_row if self.alignment is not None else None


def lines_text(lines: list[Line], needle: str = "", title_style: Style | str = "bold") -> Text:
    """Lines as one inert Text: each kind in its style (the marks in the lines say the kind)."""
    text = Text()
    shown = 0
    for i, line in enumerate(lines):
        if i:
            text.append("\n")
        body = line.text
        if shown + len(body) > MAX_SHOWN:
            body = body[: max(MAX_SHOWN - shown, 0)]
            text.append(body, style=KIND_STYLE.get(line.kind, Style()))
            text.append("\n… the rest not shown", style=style_of("caution--strong"))
            break
        shown += len(body)
        if line.kind == "title":
            text.append(f"── {body}", style=title_style)
            if "  " not in body:  # a plain title gets a rule; one with marks needs the room
                text.append(" " + "─" * 8, style="dim")
        else:
            text.append(body, style=KIND_STYLE.get(line.kind, Style()))
    if needle:
        text.highlight_words([needle], MATCH_STYLE, case_sensitive=False)
    return text


def _turn_cell(
    message: Message, number: int, unfold: Unfold, needle: str, marks: list[str]
) -> tuple[Text, list[Line]]:
    lines = turn_lines(message, number, unfold)
    if marks:
        lines[0] = Line(lines[0].text + "  " + "  ".join(marks), "title")
    return lines_text(lines, needle, ROLE_STYLE.get(message.role, "bold")), lines


def align_pair(base: Transcript, cand: Transcript) -> Alignment | None:
    """The two transcripts' alignment (None: neither records messages). Up to ~0.3 s for two
    1,000-turn runs: the item screen computes it in the worker that reads the transcripts."""
    if not (base.messages or cand.messages):
        return None
    return align(base.messages, cand.messages)


def item_rows(
    base: Transcript,
    cand: Transcript,
    needle: str = "",
    unfold: bool = False,
    unfolded: frozenset[tuple[int, int, int]] = frozenset(),
    alignment: Alignment | None = None,
) -> ItemRows:
    """Both transcripts as aligned rows (see the module's docstring); two runs without messages
    keep the input/output rows of `side_by_side`. Reasoning and long arguments are folded but
    the units `unfolded` names, as (row, side 0/1, unit of the turn: `Line.unit`); every one
    with `unfold`. `alignment`: `align_pair`'s, computed
    here when not given (the app gives it: it is computed in a worker)."""
    if not (base.messages or cand.messages):
        return ItemRows(*side_by_side(base, cand, needle), None)
    if alignment is None:
        alignment = align(base.messages, cand.messages)
    rows: list[tuple[Text | None, Text | None]] = []
    keys: list[str] = []
    pairs: list[tuple[Section | None, Section | None]] = []
    cell_lines: list[tuple[list[Line] | None, list[Line] | None]] = []
    for k, row in enumerate(alignment.rows):
        marks = []
        if k == alignment.first_divergence:
            marks.append(f"{MARK['diverge']} runs diverge here")
        if k == alignment.final_row:
            marks.append("(final answer)")
        cells: list[Text | None] = []
        sections: list[Section | None] = []
        drawn: list[list[Line] | None] = []
        for side, (index, t) in enumerate(((row.base, base), (row.cand, cand))):
            if index is None:
                cells.append(lines_text(gap_lines(), needle))
                sections.append(None)
                drawn.append(None)
                continue
            message = t.messages[index]
            opened: Unfold = unfold or frozenset(u for r, s, u in unfolded if (r, s) == (k, side))
            cell, lines = _turn_cell(message, index + 1, opened, needle, marks)
            cells.append(cell)
            drawn.append(lines)
            sections.append(Section(f"t{k}", message.role, message.content, role=message.role))
        cell_lines.append((drawn[0], drawn[1]))
        rows.append((cells[0], cells[1]))
        pairs.append((sections[0], sections[1]))
        keys.append("answer" if k == alignment.final_row else f"t{k}")
    for key, left, right in _tail(base, cand):
        rows.append(
            (
                section_text(left, needle) if left is not None else None,
                section_text(right, needle) if right is not None else None,
            )
        )
        pairs.append((left, right))
        keys.append(key)
    sides = SideBySide(rows=rows, keys=keys)  # type: ignore[arg-type]
    return ItemRows(sides, pairs, alignment, tuple(cell_lines))


def _final_text(t: Transcript) -> str:
    for message in reversed(t.messages):
        if message.role == "assistant":
            texts = [b.text for b in message.blocks if b.kind == "text"]
            return "\n".join(texts) if message.blocks else message.content
    return ""


def _tail(base: Transcript, cand: Transcript) -> list[tuple[str, Section | None, Section | None]]:
    """The rows after the turns, each side's section or None."""
    out: list[tuple[str, Section | None, Section | None]] = []

    def side(t: Transcript, key: str) -> Section | None:
        if key == "output":
            shown = t.output and t.output.strip() != _final_text(t).strip()
            return Section("output", "output", t.output, OUTPUT_STYLE) if shown else None
        if key == "target" and t.target is not None:
            return Section("target", "target", t.target, TARGET_STYLE)
        if key == "grader":
            if t.scorers:
                body = "\n".join(
                    ("  " if line.kind == "text" else "") + line.text for line in scorer_lines(t)
                )
                return Section("grader", "scorers", body, style_of("section--grader"))
            if t.explanation is not None:
                return Section("grader", "grader", t.explanation, style_of("section--grader"))
        if key == "cost" and (base.cost is not None or cand.cost is not None):
            return Section("cost", "cost", cost_words(t.cost), "bold")
        if key == "metadata":
            shown_meta = {
                k: v for k, v in t.metadata.items() if k not in HIDDEN_KEYS or t.cost is None
            }
            if shown_meta:
                body = "\n".join(f"{k}: {v}" for k, v in shown_meta.items())
                return Section("metadata", "metadata", body, "dim")
        if key == "status" and not t.complete:
            return Section("status", "", "(reading the messages…)", "dim", note=True)
        return None

    for key in ("output", "target", "grader", "cost", "metadata", "status"):
        left, right = side(base, key), side(cand, key)
        if left is not None or right is not None:
            out.append((key, left, right))
    return out


def trajectory_meta(rows: ItemRows, base: Transcript, cand: Transcript) -> Text:
    """The item header's trajectory lines: the counts ("9 vs 7 messages, 3 vs 2 tool calls")
    and where the runs diverge, then what each sample cost (one line per run), then what
    stopped or retried them."""
    text = Text()
    if rows.alignment is not None:
        text.append(rows.alignment.counts.words(), style="bold")
        row = rows.divergence_row
        if row is not None:
            turn = rows.alignment.rows[row]
            if turn.base is not None:
                where = f"#{turn.base + 1}"
            else:
                where = f"candidate #{(turn.cand or 0) + 1}"
            text.append(f" · {MARK['diverge']} diverge at {where} (D)")
        else:
            text.append(" · the same turns")
    for label, cost in side_costs(base, cand):
        text.append("\n" if text.plain else "")
        text.append(label, style="bold")
        text.append(cost)
    stopped = compare_stops(base, cand)
    if stopped:
        text.append(("\n" if text.plain else "") + stopped)
    return text


def side_costs(base: Transcript, cand: Transcript) -> list[tuple[str, str]]:
    """Each sample's tokens (input, output, reasoning) and time (working time) in the short
    words of `core.report.turn_lines` (the ones `show` prints in full), one line per run
    that fits 80 columns, as (label, words); none when neither sample records a cost."""
    if base.cost is None and cand.cost is None:
        return []

    def words(t: Transcript) -> str:
        if t.cost is None:
            return "cost not recorded"
        parts = (token_words(t.cost, short=True), time_words(t.cost, short=True))
        return " · ".join(p for p in parts if p is not None) or "no tokens or time recorded"

    return [("baseline  ", words(base)), ("candidate ", words(cand))]


def compare_stops(base: Transcript, cand: Transcript) -> str:
    """What stopped or retried the two samples, `baseline vs candidate`: retries, the limit
    hit, the sample error (only those either records)."""
    a, b = base.cost, cand.cost
    parts = []
    retries = (a.retries if a else 0, b.retries if b else 0)
    if any(retries):
        parts.append(f"{retries[0]} vs {retries[1]} retries")
    limits = (a.limit if a else None, b.limit if b else None)
    if any(limits):
        parts.append(f"{MARK['limit']} limit " + " vs ".join(v or "none" for v in limits))
    errors = (a.error if a else None, b.error if b else None)
    if any(errors):
        parts.append(f"{MARK['error']} error " + " vs ".join("yes" if v else "no" for v in errors))
    return " · ".join(parts)


def units_at(
    rows: ItemRows,
    starts: list[int],
    widths: tuple[int, int],
    cursor: int,
    bottom: int,
    console: Console,
) -> list[tuple[int, int, int]]:
    """The units that fold (`Line.unit`) `f` acts on, as (row, side, unit): those whose lines
    hold screen line `cursor` (a reasoning block's or a long result's head and text; a long
    argument), else the first below it that starts before `bottom` (the end of the view). One
    per side at most: two units side by side at the same line are both taken."""
    spans: list[tuple[int, int, tuple[int, int, int]]] = []  # (first line, end, unit)
    for k, cells in enumerate(rows.cell_lines):
        if k >= len(starts) or starts[k] >= bottom:
            break
        if k + 1 < len(starts) and starts[k + 1] <= cursor:
            continue  # the whole row is above the cursor
        for side, lines in enumerate(cells):
            y = starts[k]
            for i, line in enumerate(lines or ()):
                height = _height(line, widths[side], console)
                if line.unit is not None:
                    end = y + height
                    if line.kind in ("fold", "result") and i + 1 < len(lines or ()):
                        end += _height((lines or [])[i + 1], widths[side], console)
                    spans.append((y, end, (k, side, line.unit)))
                y += height
    under = [unit for first, end, unit in spans if first <= cursor < end]
    if under:
        return under
    below = [(first, unit) for first, _, unit in spans if cursor < first < bottom]
    if not below:
        return []
    nearest = min(first for first, _ in below)
    return [unit for first, unit in below if first == nearest]


def _height(line: Line, width: int, console: Console) -> int:
    """How many screen lines one line takes in a column `width` wide (as the pane wraps it)."""
    return max(len(lines_text([line]).wrap(console, width)), 1)
