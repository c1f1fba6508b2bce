"""`evaltui BASE CAND CAND2 ...`: the k x k matrix of every pair; Enter reviews one of them.

The set's decision comes first (the words of `decide_run_set(...).line`, status word first, in
reverse video as the main screen's header draws it), then the omnibus test, then the matrix:
cell (row j, column i) is run j minus run i, with the mark, the effect and the interval the
pair's verdict rests on, exactly as the text report's matrix (`runset_report.matrix_cell`), so
meaning never rests on colour. The pair under the cursor is said in words below it.

Enter opens the pair's familiar two-run review (the app's main screen and everything behind
it), with the run set's own analysis of it (adjusted over the family of pairs) and the pair's
own journal; `m` comes back here. Both cells of two runs open the same pair, oriented as the
run set orients it: the run given first is the baseline. `x` here signs off the whole set (one
record naming every baseline pair). Run names come from file names, so every name is drawn
inertly (`safe.literal_line`): a file called `[bold]x.jsonl` reads as such.
"""

from __future__ import annotations

from typing import Any

from rich.style import Style
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.coordinate import Coordinate
from textual.screen import Screen
from textual.widgets import DataTable, Static

from evaltui.core.analysis.run_set import RunSetAnalysis
from evaltui.core.decide.run_set import compared_scorer, several_scorers
from evaltui.core.decide.vocabulary import VERDICT_SHORT, FirstLine
from evaltui.core.report.run_set import MatrixCell, matrix_cell, omnibus_lines
from evaltui.core.stats.multiplicity import ADJUST_LABELS
from evaltui.core.textsafe import one_line
from evaltui.core.words import format_p, plural
from evaltui.ui.messages import RunSetChanged
from evaltui.ui.safe import literal_line
from evaltui.ui.screens.given import GivenState
from evaltui.ui.screens.keys import PALETTE, FooterKeys, Shown
from evaltui.ui.styles import style_of
from evaltui.ui.widgets.header_pane import decision_text, first_line_text
from evaltui.ui.widgets.key_footer import KeyFooter

NAME_WIDTH = 24  # a run's name in the row and column labels (the words below say it whole)
MARK_STYLE: dict[str, str | Style] = {
    "▲": style_of("verdict--improved"),
    "▼": style_of("verdict--regressed"),
    "·": "",
}  # the mark says it without colour
MIRRORED_WORDS = {"improved": "worse", "regressed": "better"}  # the baseline's row reads back
LEGEND = "▲ row better · ▼ worse · · no significant difference"


class MatrixScreen(GivenState, FooterKeys, Screen):
    """The matrix of every pair of the run set; Enter reviews the pair under the cursor."""

    BINDINGS = [
        Binding(
            "enter",
            "open",
            "Review the pair under the cursor (the run given first as its baseline)",
            priority=True,
            id="matrix.open",
        ),
        Binding(
            "x",
            "signoff",
            "Sign off the whole set: one record naming every baseline pair, each with its tags",
            id="matrix.signoff",
        ),
        # (the arrows too, not only the table's own: a key typed while the focus comes back
        # to the table, after a dialog closes, still moves the cursor)
        Binding("down,j", "move(1, 0)", "Down the matrix", show=False, id="matrix.down"),
        Binding("up,k", "move(-1, 0)", "Up the matrix", show=False, id="matrix.up"),
        Binding("left,h", "move(0, -1)", "Left in the matrix", show=False, id="matrix.left"),
        Binding("right,l", "move(0, 1)", "Right in the matrix", show=False, id="matrix.right"),
    ]
    FOOTER = (
        Shown("matrix.open", "Review pair"),
        Shown("matrix.down", "Move", key="←↑↓→"),
        Shown("matrix.signoff", "Sign off"),
        Shown("app.help", "Help"),
        Shown("app.quit", "Quit"),
        Shown(PALETTE, "Commands"),
    )

    def compose(self) -> ComposeResult:
        yield Static(id="matrix-decision")
        yield Static(id="matrix-omnibus")
        yield Static(id="matrix-title")
        yield DataTable(id="matrix-table", cursor_type="cell", cell_padding=2)
        yield Static(id="matrix-pair")
        yield KeyFooter()

    @property
    def run_set(self) -> RunSetAnalysis:
        run_set = self.state.run_set
        assert run_set is not None  # the screen is shown once the set is compared
        return run_set

    def on_mount(self) -> None:
        run_set = self.run_set
        names = run_set.names
        self.query_one("#matrix-title", Static).update(
            Text.assemble(("Row minus column", "bold"), " · ", (LEGEND, "italic"))
        )
        table = self.query_one(DataTable)
        for col, name in enumerate(names):
            table.add_column(literal_line(name, NAME_WIDTH, style="bold"), key=f"col{col}")
        for row, name in enumerate(names):
            cells = [self._cell(row, col) for col in range(len(names))]
            label = literal_line(name, NAME_WIDTH, style="bold")
            table.add_row(*cells, height=2, key=f"row{row}", label=label)
        self._show_decision()
        row, col = self.state.matrix_cursor
        table.move_cursor(row=row, column=col, animate=False)
        table.focus()
        self._show_pair(row, col)

    def _cell(self, row: int, col: int) -> Text:
        if row == col:
            return Text("—")
        cell = matrix_cell(self.run_set, row, col)
        text = Text()
        text.append(cell.mark, style=MARK_STYLE[cell.mark])
        text.append(f" {cell.estimate}", style="bold" if cell.mark != "·" else "")
        text.append(f"\n  {cell.interval}" if cell.interval else "\n  (no interval)")
        return text

    # -- the words ---------------------------------------------------------------------------

    def _show_decision(self) -> None:
        first = self.state.run_set_line()  # ("DECIDING…" while the set is decided anew)
        if first is not None:
            self.query_one("#matrix-decision", Static).update(first_line_text(first))
        lines = omnibus_lines(self.run_set, md=False)
        omnibus = Text()
        omnibus.append_text(literal_line(lines[0], 600, style="bold"))
        for line in lines[1:]:
            omnibus.append("\n")
            omnibus.append_text(literal_line(line, 600, style="italic"))
        self.query_one("#matrix-omnibus", Static).update(omnibus)

    def _show_pair(self, row: int, col: int) -> None:
        self.query_one("#matrix-pair", Static).update(pair_text(self.state, row, col))

    def on_data_table_cell_highlighted(self, event: DataTable.CellHighlighted) -> None:
        row, col = event.coordinate.row, event.coordinate.column
        self.state.matrix_cursor = (row, col)
        self._show_pair(row, col)

    def on_run_set_changed(self, message: RunSetChanged) -> None:
        """The set decided anew with the tags just made (the app has the decision already)."""
        self._show_decision()
        self._show_pair(*self.state.matrix_cursor)

    # -- actions ------------------------------------------------------------------------------

    def action_open(self) -> None:
        table = self.query_one(DataTable)
        self._open(table.cursor_coordinate)

    def on_data_table_cell_selected(self, event: DataTable.CellSelected) -> None:
        self._open(event.coordinate)  # (a click on the cell under the cursor)

    def _open(self, where: Coordinate) -> None:
        row, col = where.row, where.column
        if row == col:
            self.notify("a run against itself: move off the diagonal to a pair", timeout=3)
            return
        if self.state.opening_pair is not None:
            return
        names = self.run_set.names
        base, cand = min(row, col), max(row, col)
        opening = Text("opening the review of ", style="italic")
        opening.append_text(literal_line(names[cand], 80, style="bold italic"))
        opening.append(" against ", style="italic")
        opening.append_text(literal_line(names[base], 80, style="bold italic"))
        opening.append("…", style="italic")
        self.query_one("#matrix-pair", Static).update(opening)
        self.state.open_pair_review(row, col)

    def action_signoff(self) -> None:
        self.state.sign_off_run_set()

    def action_move(self, rows: int, cols: int) -> None:
        table = self.query_one(DataTable)
        row = min(max(table.cursor_row + rows, 0), table.row_count - 1)
        col = min(max(table.cursor_column + cols, 0), len(table.columns) - 1)
        table.move_cursor(row=row, column=col, animate=False)

    def current_matrix_cell(self) -> tuple[int, int]:
        """The (row, column) under the cursor."""
        coordinate = self.query_one(DataTable).cursor_coordinate
        return coordinate.row, coordinate.column


def pair_text(app: Any, row: int, col: int) -> Text:
    """Cell (row, col) in words: the pair's effect, p, adjusted p and verdict, then what Enter
    opens and, for the baseline's pairs, the pair's own decision (with its tags)."""
    run_set: RunSetAnalysis = app.run_set
    names = run_set.names
    text = Text()
    if row == col:
        text.append_text(literal_line(names[row], 80, style="bold"))
        text.append(" against itself: no pair. Move off the diagonal.", style="italic")
        return text
    cell = matrix_cell(run_set, row, col)
    pair = cell.pair
    method = ADJUST_LABELS.get(run_set.multiplicity, run_set.multiplicity)
    text.append_text(literal_line(names[row], 80, style="bold"))
    text.append(" vs ")
    text.append_text(literal_line(names[col], 80, style="bold"))
    if several_scorers(run_set):  # the cells are one scorer's; the pair's decision says the rest
        text.append(" on ")
        text.append_text(literal_line(compared_scorer(run_set), 80, style="bold"))
    text.append(": ")
    text.append(f"{cell.mark} {cell.estimate}", style=MARK_STYLE[cell.mark] or "bold")
    if cell.interval:
        text.append(f" {cell.interval}")
    text.append(f", p {format_p(pair.p_raw)} ({pair.p_test}), ")
    text.append(f"{method}-adjusted {format_p(pair.p_adjusted)}")
    if pair.p_rank_adjusted is not None:
        text.append(f", Wilcoxon {method}-adjusted {format_p(pair.p_rank_adjusted)}")
    text.append(": ")
    text.append(verdict_words(cell, names), style="bold")
    text.append("\n")
    base, cand = names[pair.baseline], names[pair.candidate]
    a = pair.analysis
    text.append("⏎ review ", style="bold")
    text.append_text(literal_line(cand, 80, style="bold"))
    text.append(" against ", style="bold")
    text.append_text(literal_line(base, 80, style="bold"))
    decided = _pair_decision(app, pair.baseline, pair.candidate)
    if decided is not None and app.run_set_deciding:  # (its tags may have just changed it)
        text.append(": ")
        text.append_text(first_line_text(FirstLine.deciding("with the tags just made")))
    elif decided is not None:  # the baseline's pair: its decision, with its tags
        text.append(": ")
        text.append_text(decision_text(decided))
    else:
        text.append(
            f" ({plural(len(a.regressions), 'regression')}, "
            f"{plural(len(a.improvements), 'improvement')}): "
        )
        text.append("two candidates, in the family but not in the decision", style="italic")
    return text


def verdict_words(cell: MatrixCell, names: tuple[str, ...]) -> str:
    """The pair's verdict read as the cell reads (row against column): "improved" for the
    candidate's row, "worse (candidate2 improved)" for the baseline's."""
    pair = cell.pair
    words = VERDICT_SHORT[pair.verdict]
    if cell.mirrored and pair.verdict in MIRRORED_WORDS:
        words = f"{MIRRORED_WORDS[pair.verdict]} ({one_line(names[pair.candidate], 80)} {words})"
    if pair.own_verdict != pair.verdict:
        words += f" ({VERDICT_SHORT[pair.own_verdict]} before adjustment)"
    return words


def _pair_decision(app: Any, baseline: int, candidate: int) -> Any:
    decision = app.run_set_decision
    if decision is None:
        return None
    return next(
        (d for p, d in decision.pairs if (p.baseline, p.candidate) == (baseline, candidate)),
        None,
    )
