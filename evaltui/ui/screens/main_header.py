"""The main screen's header: the decision and the pair's numbers, full or folded to two lines.

The full header folds by itself on a terminal too short to leave the list `MIN_LIST_ROWS`
rows, and `h` folds or unfolds it (the reviewer's choice is remembered in ui.json; unfolding a
header that crowds the list is not). A mixin of `MainScreen`, kept apart so the screen's
module holds the list.
"""

from __future__ import annotations

from collections.abc import Callable

from textual.screen import Screen
from textual.widgets import Static

from evaltui.ui import prefs
from evaltui.ui.listmodel import ListView
from evaltui.ui.state import ReviewState
from evaltui.ui.widgets.header_pane import HeaderPane, collapsed_header_text, header_text
from evaltui.ui.widgets.item_table import ItemTable
from evaltui.ui.widgets.runs import runs_text

MIN_LIST_ROWS = 5  # the full header folds by itself rather than leave the list fewer rows
# Lines that are not the header or list rows: runs, list title, column names, footer, border.
CHROME_LINES = 6


class MainHeader(Screen):
    """Drawing the header full or folded, and `h`."""

    state: ReviewState
    current_list: str
    header_folded: bool  # the reviewer's choice (h), remembered in ui.json
    header_forced: bool  # folded because the full header would crowd the list out
    header_peek: bool  # unfolded by h although it crowds the list (not remembered)
    start_cost: Callable[[], None]
    _empty_text: Callable[[str, ListView], tuple[str, ...]]

    @property
    def view(self) -> ListView | None:
        raise NotImplementedError  # (the screen's)

    def refresh_header(self) -> None:
        loaded = self.state.loaded
        if loaded is None:
            return
        self.start_cost()  # (a worker: the header says the cost line is being computed)
        args = (loaded.analysis, self.state.triaged(), loaded.session.notices, loaded.gates)
        width = max(self.size.width - 2, 20)  # the pane's padding
        progress = self.state.deciding_progress
        full = header_text(
            *args,
            loaded.decision,
            progress,
            loaded.agreement,
            metric_key=self.state.run_set is None,
            hashed=self.state.inputs_hashed,
            width=width,
        )
        runs = runs_text(loaded.analysis, width, folded=False)
        spare = self.size.height - len(full.wrap(self.app.console, width)) - CHROME_LINES - 1
        self.header_forced = spare < MIN_LIST_ROWS and not self.header_peek
        pane = self.query_one(HeaderPane)
        if self.header_is_folded:
            folded = collapsed_header_text(
                *args,
                loaded.decision,
                width=width,
                progress=progress,
                hashed=self.state.inputs_hashed,
            )
            pane.update(folded)
            runs = runs_text(loaded.analysis, width, folded=True)
        else:
            pane.update(full)
        self.query_one("#runs", Static).update(runs)
        view = self.view
        if view is not None and not view.rows:  # its words name the other metrics' regressions
            table = self.query_one(ItemTable)
            table.empty_text = self._empty_text(self.current_list, view)
            table.refresh()

    @property
    def header_is_folded(self) -> bool:
        return self.header_folded or self.header_forced

    def action_toggle_header(self) -> None:
        """Fold the header to two lines, or unfold it; the choice is remembered. On a terminal
        too short for it the full header folds by itself, and h unfolds it anyway."""
        if self.state.loaded is None:
            return
        fold = not self.header_is_folded
        self.header_folded = fold
        self.header_peek = not fold
        prefs.save(self.state.config.state_root, header="folded" if fold else "full")
        self.refresh_header()
