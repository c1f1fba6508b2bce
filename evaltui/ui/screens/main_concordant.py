"""The lists of items neither run changed on: both pass and both fail (or, for runs without
verdicts, unchanged), for a reviewer who reads a few answers the grader did not flag.

A mixin of `MainScreen`. The lists are built the first time one is opened (a big run has many
more unchanged items than changed ones); their inputs, outputs and targets are then read in a
worker for the same search the other lists have.
"""

from __future__ import annotations

from collections.abc import Callable

from textual import work
from textual.screen import Screen

from evaltui.core.errors import EvalTuiError
from evaltui.ui.listmodel import ListRow
from evaltui.ui.loading import concordant_rows, concordant_split, fill_previews
from evaltui.ui.messages import WorkerProblem
from evaltui.ui.search import SearchGrew, SearchIndex, fill
from evaltui.ui.state import ReviewState

DISCORDANT = ("regressions", "improvements")


class MainConcordant(Screen):
    """Opening the unchanged items' lists (see the module's docstring)."""

    state: ReviewState
    current_list: str
    concordant_index: SearchIndex | None = None
    _concordant_counts: tuple[object, dict[str, int]] | None = None

    # (the main screen's and its search mixin's)
    action_show_list: Callable[[str], None]
    _note_hits: Callable[[str], set[str]]

    def list_names(self) -> tuple[str, ...]:
        """Every list of the pair, in the order Tab visits them."""
        return (*DISCORDANT, *self.state.concordant_names())

    def list_count(self, name: str) -> int:
        """How many items a list holds, built or not (counted from the analysis)."""
        view = self.state.views.get(name)
        if view is not None:
            return len(view.rows)
        loaded = self.state.loaded
        if loaded is None:
            return 0
        cached = self._concordant_counts
        if cached is None or cached[0] is not loaded.analysis:
            split = concordant_split(loaded.analysis)
            cached = (loaded.analysis, {k: len(v) for k, v in split.items()})
            self._concordant_counts = cached
        return cached[1].get(name, 0)

    def action_show_concordant(self, which: int) -> None:
        """b: the items both runs pass (or the unchanged ones); B: those both fail."""
        names = self.state.concordant_names()
        if not names:
            return
        self.open_list(names[min(which, len(names) - 1)])

    def open_list(self, name: str) -> None:
        """Show a list, building the unchanged items' lists first if this is the first time."""
        loaded = self.state.loaded
        if loaded is not None and name not in self.state.views:
            if name not in self.state.concordant_names():
                return
            rows = self.state.adopt_concordant(concordant_rows(loaded.analysis, loaded.session))
            self.concordant_index = SearchIndex()
            for listed in self.state.concordant_names():
                view = self.state.views[listed]
                view.text_hits = self.concordant_index.matches
                view.note_hits = self._note_hits
            if rows:
                self.read_concordant(rows, self.concordant_index)
        self.action_show_list(name)

    @work(thread=True, exclusive=True, group="concordant")
    def read_concordant(self, rows: list[ListRow], index: SearchIndex) -> None:
        """The unchanged items' inputs (previews, search), then their outputs and targets."""
        loaded = self.state.loaded
        if loaded is None:
            return
        paired = loaded.analysis.paired
        try:
            fill_previews(loaded.analysis, rows, lambda: self.post_message(SearchGrew()))
            fill(
                index,
                rows,
                paired.baseline.transcripts,
                paired.candidate.transcripts,
                done=lambda: self.post_message(SearchGrew()),
            )
        except (EvalTuiError, OSError) as exc:
            self.app.post_message(WorkerProblem(f"unchanged items: {exc}", severity="warning"))

    def concordant_where(self, index: int, needle: str) -> tuple[str, str] | None:
        return self.concordant_index.where(index, needle) if self.concordant_index else None
