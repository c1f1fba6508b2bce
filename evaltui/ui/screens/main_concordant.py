"""The lists of items neither run changed on: both pass and both fail (or, for runs without
verdicts, unchanged), for a reviewer who reads a few answers the grader did not flag.

A mixin of `MainScreen`. The lists are built the first time one is opened (a big run has many
more unchanged items than changed ones), in a worker: until it is done the list opened says it
is being built (never an empty or partial list shown as the list). Their inputs, outputs and
targets are then read in another worker for the same search the other lists have.
"""

from __future__ import annotations

from collections.abc import Callable

from textual import work
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Input

from evaltui.core.analysis.pair_result import Analysis
from evaltui.core.errors import EvalTuiError
from evaltui.ui.loading import concordant_rows, fill_previews
from evaltui.ui.messages import WorkerProblem
from evaltui.ui.row_store import RowStore
from evaltui.ui.search import SearchGrew, SearchIndex, fill
from evaltui.ui.state import Loaded, ReviewState
from evaltui.ui.widgets.item_table import ItemTable

DISCORDANT = ("regressions", "improvements")


class ConcordantBuilt(Message):
    """The lists of unchanged items, built by a worker for the analysis `analysis`."""

    def __init__(self, analysis: Analysis, built: dict[str, RowStore]) -> None:
        super().__init__()
        self.analysis, self.built = analysis, built


class MainConcordant(Screen):
    """Opening the unchanged items' lists (see the module's docstring)."""

    state: ReviewState
    current_list: str
    concordant_index: SearchIndex | None = None
    _concordant_building: object = None  # the analysis a build worker runs for

    # (the main screen's)
    show_list: Callable[..., None]
    refresh_bindings: Callable[[], None]
    _update_title: Callable[[], None]

    # (the main screen's and its search mixin's)
    action_show_list: Callable[[str], None]
    _note_hits: Callable[[str], set[str]]

    def list_names(self) -> tuple[str, ...]:
        """Every list of the pair, in the order Tab visits them."""
        return (*DISCORDANT, *self.state.concordant_names())

    def list_count(self, name: str) -> int:
        """How many items a list holds, built or not (an unbuilt one: the analysis's count)."""
        view = self.state.views.get(name)
        if view is not None:
            return len(view.rows)
        loaded = self.state.loaded
        return dict(loaded.analysis.concordant).get(name, 0) if loaded is not None else 0

    def action_other_list(self, step: int) -> None:
        """Tab / Shift+Tab (→ / ←): the next (previous) list of `list_names`, as the help
        says, the unchanged items' lists included (built on the first visit); the search box
        hands the keys back to the list instead."""
        if self.state.loaded is None:
            return
        if self.query_one("#search", Input).has_focus:
            self.query_one(ItemTable).focus()
            return
        names = self.list_names()
        current = names.index(self.current_list) if self.current_list in names else 0
        self.open_list(names[(current + step) % len(names)])

    def action_show_concordant(self, which: int) -> None:
        """b: the items both runs pass (or the unchanged ones); B: those both fail."""
        names = self.state.concordant_names()
        if not names:
            return
        self.open_list(names[min(which, len(names) - 1)])

    def open_list(self, name: str) -> None:
        """Show a list; the unchanged items' lists are built first (in a worker) the first
        time one is opened, the list saying so meanwhile."""
        loaded = self.state.loaded
        if loaded is not None and name not in self.state.views:
            if name not in self.state.concordant_names():
                return
            self.current_list = name
            table = self.query_one(ItemTable)
            table.empty_text = (f'The "{name}" list is being built…',)
            table.set_rows([])
            self._update_title()
            self.refresh_bindings()
            table.focus()
            if self._concordant_building is not loaded.analysis:
                self._concordant_building = loaded.analysis
                self.build_concordant(loaded)
            return
        self.action_show_list(name)

    @work(thread=True, group="concordant-build")
    def build_concordant(self, loaded: Loaded) -> None:
        """Both lists of unchanged items at once (one pass over the items)."""
        try:
            built = concordant_rows(loaded.analysis, loaded.session)
        except (EvalTuiError, ValueError) as exc:
            self.app.post_message(WorkerProblem(f"unchanged items: {exc}", severity="warning"))
            built = {}
        self.post_message(ConcordantBuilt(loaded.analysis, built))

    def on_concordant_built(self, message: ConcordantBuilt) -> None:
        """Adopt the lists if the pair was not re-analysed meanwhile (else build anew for the
        list shown), with the tags given since the worker read them."""
        self._concordant_building = None
        loaded = self.state.loaded
        if loaded is None:
            return
        unbuilt = self.current_list in self.state.concordant_names()
        unbuilt = unbuilt and self.current_list not in self.state.views
        if loaded.analysis is not message.analysis:  # re-analysed meanwhile
            if unbuilt:
                self.open_list(self.current_list)
            return
        if not message.built:  # the worker failed (its warning says why)
            if unbuilt:
                self.query_one(ItemTable).empty_text = ("The list could not be built.",)
                self.query_one(ItemTable).refresh()
            return
        if any(name in self.state.views for name in message.built):
            return  # (already adopted)
        rows = self.state.adopt_concordant(message.built)
        self.concordant_index = SearchIndex()
        for listed_name in self.state.concordant_names():
            view = self.state.views[listed_name]
            view.text_hits = self.concordant_index.matches
            view.note_hits = self._note_hits
        if rows:
            self.read_concordant(rows, self.concordant_index)
        if self.current_list in message.built:
            self.action_show_list(self.current_list)

    @work(thread=True, exclusive=True, group="concordant")
    def read_concordant(self, rows: list[RowStore], index: SearchIndex) -> None:
        """The unchanged items' inputs (previews, search), then their outputs and targets."""
        loaded = self.state.loaded
        if loaded is None:
            return
        paired = loaded.analysis.paired
        try:
            refusals = fill_previews(
                loaded.analysis,
                rows,
                lambda: self.post_message(SearchGrew()),
                self.state.background.pass_through,
                said=self.state.said_refused,
            )
            fill(
                index,
                rows,
                paired.baseline.transcripts,
                paired.candidate.transcripts,
                done=lambda: self.post_message(SearchGrew()),
                pause=self.state.background.pass_through,
                refusals=refusals,
            )
        except (EvalTuiError, OSError) as exc:
            self.app.post_message(WorkerProblem(f"unchanged items: {exc}", severity="warning"))
        else:
            if (told := refusals.told("unchanged items")) is not None:
                self.app.post_message(WorkerProblem(told, severity="warning"))

    def concordant_where(self, index: int, needle: str) -> tuple[str, str] | None:
        return self.concordant_index.where(index, needle) if self.concordant_index else None
