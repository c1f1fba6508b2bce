"""One item's two transcripts as plain text or Markdown (`evaltui show BASE CAND ITEM_ID`).

The same turns, marks and alignment as the app's item view (`core.report.turn_lines`,
`core.compare.trajectory`), for a pipe, a PR comment or a colleague's terminal: side by side at
a given width, or stacked (each aligned row's baseline turn, then its candidate turn). Every
line of run text is inert; the Markdown form puts the text in a fence longer than any run of
backticks it holds, inside a collapsible block, so nothing in it can become markup.
"""

from __future__ import annotations

import html
import re
import shlex
import textwrap
from collections.abc import Sequence
from dataclasses import dataclass

import polars as pl

from evaltui.core.compare.pairing import BASE_ROW, CAND_ROW, PairedRuns
from evaltui.core.compare.trajectory import Alignment, align
from evaltui.core.errors import UsageError
from evaltui.core.read.runs import EPOCH, ITEM_ID, PASSED, ROW, STATUS, Transcript
from evaltui.core.report.turn_lines import (
    MARK,
    Line,
    cost_words,
    gap_lines,
    scorer_lines,
    turn_lines,
)
from evaltui.core.textsafe import inert, one_line

DIVIDER = " │ "
UNFOLD_HINT = "--unfold shows all"
MIN_WIDTH = 40


@dataclass(frozen=True)
class ItemShow:
    """One item, one epoch: both transcripts, their alignment and the words of the header."""

    item_id: str
    epoch: int
    epochs: tuple[int, int]
    verdicts: tuple[str, str]
    epoch_marks: tuple[str, str]
    baseline: Transcript
    candidate: Transcript
    alignment: Alignment
    unfold: bool = False


def command_for(item_id: str, baseline: str = "BASE", candidate: str = "CAND") -> str:
    """The command that prints an item (the sign-off Markdown names it per regression), with
    the two runs' paths (or URLs) as given; each word quoted for a shell."""
    words = (baseline, candidate, item_id)
    return "evaltui show " + " ".join(shell_word(w) for w in words)


def shell_word(text: str) -> str:
    """`text` as one shell word (`shlex.quote`), control characters first made visible
    (`textsafe.one_line`) so a pasted command cannot carry a terminal escape."""
    return shlex.quote(one_line(text))


def item_show(paired: PairedRuns, item_id: str, epoch: int = 1, unfold: bool = False) -> ItemShow:
    """Read one item's two records (epoch `epoch` of each; a run with fewer epochs shows its
    last) and align them. An id neither run pairs is a usage error naming it."""
    items = paired.items.filter(pl.col(ITEM_ID) == item_id)
    if items.height == 0:
        near = paired.items[ITEM_ID].head(3).to_list()
        raise UsageError(
            f"item {one_line(item_id, 60)!r} is not among the {paired.n:,} paired items "
            f"(ids look like: {', '.join(one_line(str(i), 30) for i in near)})"
        )
    record = items.row(0, named=True)
    rows, counts, marks, verdicts = [], [], [], []
    for arm, run, first in (
        ("baseline", paired.baseline, record[BASE_ROW]),
        ("candidate", paired.candidate, record[CAND_ROW]),
    ):
        table = run.table.filter(pl.col(ITEM_ID) == item_id)
        if EPOCH in table.columns:
            table = table.sort(EPOCH)
        n = max(table.height, 1)
        counts.append(n)
        pick = table.row(min(epoch, n) - 1, named=True) if table.height else {ROW: first}
        rows.append(pick[ROW])
        marks.append(" ".join(_mark(r) for r in table.iter_rows(named=True)))
        verdicts.append(_verdict(record, arm))
    base = paired.baseline.transcripts.read(rows[0])
    cand = paired.candidate.transcripts.read(rows[1])
    return ItemShow(
        item_id=item_id,
        epoch=epoch,
        epochs=(counts[0], counts[1]),
        verdicts=(verdicts[0], verdicts[1]),
        epoch_marks=(marks[0], marks[1]),
        baseline=base,
        candidate=cand,
        alignment=align(base.messages, cand.messages),
        unfold=unfold,
    )


def _verdict(record: dict, arm: str) -> str:
    value = record.get(f"{arm}_pass")
    status = record.get(f"{arm}_status") or "ok"
    epochs = record.get(f"{arm}_epochs") or 1
    if value is None:
        word = "no verdict"
    elif epochs == 1:
        word = "PASS" if value >= 1.0 else "FAIL"
    else:
        word = f"{value:.0%} of {epochs} epochs pass"
    return word + (f" ({status})" if status != "ok" else "")


def _mark(row: dict) -> str:
    if row.get(STATUS) in ("error", "timeout"):
        return str(row[STATUS])[0].upper()
    value = row.get(PASSED)
    return "✓" if value is True else "✗" if value is False else "?"


def header_lines(show: ItemShow) -> list[str]:
    """What the item is, each arm's verdict (and every epoch's), the counts, where the runs
    diverge, and what each sample cost."""
    out = [f"item {one_line(show.item_id, 80)} · epoch {show.epoch}"]
    for arm, verdict, marks, n in zip(
        ("baseline", "candidate"), show.verdicts, show.epoch_marks, show.epochs, strict=True
    ):
        out.append(f"{arm}: {verdict}" + (f" · epochs {marks}" if n > 1 else ""))
    alignment = show.alignment
    words = alignment.counts.words()
    row = alignment.first_divergence
    if row is not None:
        turn = alignment.rows[row]
        side = (
            f"baseline #{turn.base + 1}"
            if turn.base is not None
            else f"candidate #{(turn.cand or 0) + 1}"
        )
        words += f" · {MARK['diverge']} first divergence at row {row + 1} ({side})"
    out.append(words)
    if show.baseline.cost is not None or show.candidate.cost is not None:
        for arm, t in (("baseline", show.baseline), ("candidate", show.candidate)):
            out.append(f"cost, {arm}: {cost_words(t.cost)}")
    return out


def row_cells(show: ItemShow) -> list[tuple[str, list[Line], list[Line]]]:
    """Each aligned row's title and both sides' lines, then the scorers' row."""
    out = []
    a = show.alignment
    for k, row in enumerate(a.rows):
        title = f"row {k + 1}"
        if k == a.first_divergence:
            title += f" {MARK['diverge']} runs diverge here"
        if k == a.final_row:
            title += " (final answers)"
        cells = []
        for index, t in ((row.base, show.baseline), (row.cand, show.candidate)):
            if index is None:
                cells.append(gap_lines())
            else:
                cells.append(turn_lines(t.messages[index], index + 1, show.unfold, UNFOLD_HINT))
        out.append((title, cells[0], cells[1]))
    if not a.rows:
        for key in ("input", "output"):
            cells = [
                [Line(key, "title"), *block_lines_of(getattr(t, key))]
                for t in (show.baseline, show.candidate)
            ]
            out.append((key, cells[0], cells[1]))
    target = [
        [Line("target", "title"), *block_lines_of(t.target)]
        for t in (show.baseline, show.candidate)
    ]
    if any(t.target is not None for t in (show.baseline, show.candidate)):
        out.append(("target", target[0], target[1]))
    scorers = [_scorer_cell(t) for t in (show.baseline, show.candidate)]
    if any(len(s) > 1 for s in scorers):
        out.append(("scorers", scorers[0], scorers[1]))
    return out


def block_lines_of(text: str | None) -> list[Line]:
    return [Line(inert(text), "text")] if text else [Line("(none)", "note")]


def _scorer_cell(t: Transcript) -> list[Line]:
    lines = scorer_lines(t)
    if not lines and t.explanation is not None:
        lines = [Line("grader", "title"), Line(inert(t.explanation), "text")]
    return [Line("scorers", "title"), *lines] if lines else [Line("(no scorer recorded)", "note")]


def _wrap(lines: Sequence[Line], width: int) -> list[str]:
    """Lines wrapped at `width`, each keeping its indentation on its wrapped lines (pretty
    JSON stays readable)."""
    out: list[str] = []
    for line in lines:
        prefix = "── " if line.kind == "title" else ""
        for raw in (prefix + line.text).expandtabs(4).split("\n"):
            body = raw.lstrip(" ")
            indent = " " * min(len(raw) - len(body), width // 2)
            out += textwrap.wrap(
                body,
                width,
                initial_indent=indent,
                subsequent_indent=indent,
                break_on_hyphens=False,
            ) or [""]
    return out


def _wrapped_header(show: ItemShow, width: int) -> list[str]:
    out: list[str] = []
    for line in header_lines(show):
        out += textwrap.wrap(line, width, subsequent_indent="  ", break_on_hyphens=False)
    return out


def side_by_side_text(show: ItemShow, width: int) -> str:
    """Both sides in two columns of `width` characters in all (at least `MIN_WIDTH`)."""
    width = max(width, MIN_WIDTH)
    col = (width - len(DIVIDER)) // 2
    out = _wrapped_header(show, width)
    out.append("")
    out.append(f"{'BASELINE':<{col}}{DIVIDER}CANDIDATE")
    for title, left, right in row_cells(show):
        out.append(f"{'═' * 2} {title} ".ljust(width, "═"))
        lw, rw = _wrap(left, col), _wrap(right, col)
        for i in range(max(len(lw), len(rw))):
            a = lw[i] if i < len(lw) else ""
            b = rw[i] if i < len(rw) else ""
            out.append(f"{a:<{col}}{DIVIDER}{b}".rstrip())
    return "\n".join(out) + "\n"


def stacked_text(show: ItemShow, width: int) -> str:
    """Each aligned row's baseline turn, then its candidate turn, at full width."""
    width = max(width, MIN_WIDTH)
    out = _wrapped_header(show, width)
    for title, left, right in row_cells(show):
        out.append("")
        out.append(f"{'═' * 2} {title} ".ljust(width, "═"))
        for arm, cell in (("baseline", left), ("candidate", right)):
            out.append(f"[{arm}]")
            out += ["  " + line for line in _wrap(cell, width - 2)]
    return "\n".join(line.rstrip() for line in out) + "\n"


def markdown_text(show: ItemShow) -> str:
    """A collapsible block for a PR comment: the summary line says the item, the verdicts and
    the counts; the body is the stacked text in a fence no line inside can close."""
    body = stacked_text(show, 100)
    longest = max((len(m) for m in re.findall(r"`+", body)), default=0)
    fence = "`" * max(3, longest + 1)
    counts = show.alignment.counts.words()
    summary = html.escape(
        f"{one_line(show.item_id, 80)}: baseline {show.verdicts[0]}, "
        f"candidate {show.verdicts[1]} · {counts}"
    )
    return f"<details>\n<summary>{summary}</summary>\n\n{fence}text\n{body}{fence}\n\n</details>\n"
