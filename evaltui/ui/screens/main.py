"""The main screen: the header pane on top, then the regression or improvement list."""

from __future__ import annotations

from collections.abc import Iterable

from rich.text import Text
from textual import work
from textual.app import ComposeResult, SystemCommand
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.widgets import Input, ProgressBar, Static

from evaltui.core.errors import EvalTuiError
from evaltui.core.read.field_reads import Refusals
from evaltui.core.record.drafts import load_place, save_place
from evaltui.core.record.session import tag_meanings
from evaltui.core.words import plural
from evaltui.ui import prefs
from evaltui.ui.after_keys import into_field
from evaltui.ui.listmodel import ListRow, ListView, singular
from evaltui.ui.loading_words import OPENING, TICK, LoadingWords
from evaltui.ui.messages import (
    AnalysisChanged,
    LoadProgress,
    PreviewsGrew,
    ReviewChanged,
    WorkerProblem,
)
from evaltui.ui.safe import literal
from evaltui.ui.screens.bulk import bulk_tag
from evaltui.ui.screens.given import GivenState
from evaltui.ui.screens.keys import (
    PALETTE,
    TAGS,
    FooterKeys,
    Shown,
    has_gates,
    has_metrics,
    has_slices,
    shared_review,
)
from evaltui.ui.screens.main_concordant import DISCORDANT, MainConcordant
from evaltui.ui.screens.main_cost import MainCost
from evaltui.ui.screens.main_filters import MainFilters
from evaltui.ui.screens.main_header import MainHeader
from evaltui.ui.screens.main_search import MainSearch, SearchBox
from evaltui.ui.search import SearchGrew, SearchIndex, fill
from evaltui.ui.state import ReviewState
from evaltui.ui.widgets.header_pane import HeaderPane
from evaltui.ui.widgets.item_table import ItemTable
from evaltui.ui.widgets.key_footer import KeyFooter
from evaltui.ui.widgets.list_title import ListTitle
from evaltui.ui.widgets.preview import OutputsPreview

LISTS = DISCORDANT  # the unchanged items' lists follow them (`list_names`)
PREVIEW_WIDTH = 150  # from this many columns the selected item's outputs show beside the list
WIDE_TITLE = 120  # from this wide a list title also names the unchanged items' lists


class MainScreen(
    GivenState, FooterKeys, MainSearch, MainConcordant, MainHeader, MainCost, MainFilters
):
    """Header pane + one list; keys switch lists, filter, search, sort and open items."""

    BINDINGS = [
        Binding("r", "show_list('regressions')", "Regressions", id="main.regressions"),
        Binding("i", "show_list('improvements')", "Improvements", id="main.improvements"),
        Binding("b", "show_concordant(0)", "Items both runs pass", id="main.bothpass"),
        Binding("B", "show_concordant(1)", "Items both runs fail", show=False, id="main.bothfail"),
        into_field("slash", "search", "Search", key_display="/", id="main.search"),
        Binding("f", "filter_slice", "Slice filter", show=False, id="main.slice"),
        Binding("t", "filter_tag", "Tag filter", show=False, id="main.tagfilter"),
        Binding("u", "untriaged", "Untriaged only", show=False, id="main.untriaged"),
        Binding("w", "assigned_only", "Assigned to you only", show=False, id="main.assigned"),
        Binding("s", "sort", "Sort column", show=False, id="main.sort"),
        Binding("S", "reverse", "Reverse", show=False, id="main.reverse"),
        Binding("escape", "clear", "Clear filters", show=False, id="main.clear"),
        Binding("T", "bulk_tag", "Tag every item shown", show=False, id="main.bulktag"),
        Binding("h", "toggle_header", "Fold/unfold the header", show=False, id="main.header"),
        Binding("n", "next_match(1)", "Next match", show=False, id="main.nextmatch"),
        Binding("N", "next_match(-1)", "Previous match", show=False, id="main.prevmatch"),
        Binding("tab,right", "other_list(1)", "Next list", show=False, id="main.nextlist"),
        Binding("shift+tab,left", "other_list(-1)", "Previous list", show=False, id="main.prev"),
    ]
    # Most important first: what fits of these shows at 80 columns (Enter to Gates, or
    # Slices without a policy), the rest from about 120; `?` lists every key.
    FOOTER = (
        Shown("list.open", "Open"),
        Shown("action:submit", "Back to the list"),  # (typing a search)
        Shown(TAGS, "Tag"),
        Shown("app.adjudicate", "Settle", when=shared_review),  # (a shared review: disputes)
        Shown("main.search", "Search"),
        Shown("app.export", "Sign off"),
        Shown("app.help", "Help"),
        Shown("app.quit", "Quit"),
        Shown("app.matrix", "Matrix"),  # (three or more runs: back to the matrix of pairs)
        Shown("main.slice", "Slice", when=lambda s: bool(s.view and s.view.slices())),
        Shown("main.sort", "Sort"),
        Shown("app.gates", "Gates", when=has_gates),
        Shown("app.slices", "Slices", when=has_slices),
        Shown("app.metric", "Metric", when=has_metrics),
        Shown("main.tagfilter", "Tag filter"),
        Shown("main.untriaged", "Untriaged"),
        Shown("main.assigned", "Assigned", when=lambda screen: screen.has_assignment),
        Shown("app.note", "Note"),
        Shown("app.undo", "Undo"),
        Shown("main.clear", "Clear filters", when=lambda screen: screen.filtered),
        Shown("main.improvements", "Improvements", when=lambda s: s.current_list != LISTS[1]),
        Shown("main.regressions", "Regressions", when=lambda s: s.current_list != LISTS[0]),
        Shown("main.bothpass", "Both pass"),
        Shown("main.bothfail", "Both fail"),
        Shown("main.bulktag", "Tag all shown"),
        Shown("main.header", "Header"),
        Shown(PALETTE, "Commands"),
    )
    # Nothing takes focus by itself: while the pair loads, the first focusable widget would be
    # the hidden search box, which swallowed q (and every other key) until the list appeared.
    AUTO_FOCUS = ""

    def __init__(self, state: ReviewState) -> None:
        super().__init__(state)
        self.current_list = "regressions"
        self.header_folded = False  # the reviewer's choice (h), remembered in ui.json
        self.header_forced = False  # folded because the full header would crowd the list out
        self.header_peek = False  # unfolded by h although it crowds the list (not remembered)
        self.search_index = SearchIndex()  # outputs and targets, read after the inputs
        self._index_started = False
        self.loading_words = LoadingWords()  # (the line while the pair loads)

    def compose(self) -> ComposeResult:
        with Vertical(id="loading"):
            yield Static(OPENING, id="loading-label")
            yield ProgressBar(total=6, show_eta=False, id="loading-bar")
        yield HeaderPane(id="header")
        yield Static(id="runs")
        with Horizontal(id="list-area"):
            with Vertical(id="list-side"):
                yield ListTitle(id="list-title")
                yield SearchBox(id="search")
                yield ItemTable(id="items")
            yield OutputsPreview(self.state, id="preview")
        yield KeyFooter()

    def on_mount(self) -> None:
        for widget_id in ("#header", "#runs", "#list-title", "#search", "#items", "#preview"):
            self.query_one(widget_id).display = False
        self.header_folded = prefs.load(self.state.config.state_root).get("header") == "folded"
        self._loading_ticks = self.set_interval(TICK, self._redraw_loading)

    # -- loading ---------------------------------------------------------------------------

    def on_load_progress(self, message: LoadProgress) -> None:
        label = Text(self.loading_words.said(message.what))
        self.query_one("#loading-label", Static).update(label)
        self.query_one("#loading-bar", ProgressBar).update(
            total=message.total, progress=message.step
        )

    def _redraw_loading(self) -> None:
        """Every `TICK` while the pair loads: the line says how long it has stood (not while
        another screen opened over this one: a run set's matrix, two runs of different
        items)."""
        if self.is_current:
            self.query_one("#loading-label", Static).update(Text(self.loading_words.line()))

    def on_analysis_changed(self, message: AnalysisChanged) -> None:
        if message.first:
            self.show_loaded()
        else:
            self.refresh_header()
        self.refresh_bindings()  # the footer's g, l and m follow what the pair has

    def show_loaded(self) -> None:
        table = self.query_one(ItemTable)
        table.show_delta = self.state.require_loaded().analysis.kind == "graded"
        table.delta_points = self.state.require_loaded().analysis.in_points
        table.has_note = self._has_note
        table.match_where = self._match_where
        table.tag_meaning = tag_meanings(self.state.require_loaded().analysis).meaning
        table.show_assigned = self.has_assignment
        self._start_search_index()
        self._loading_ticks.stop()
        self.query_one("#loading").display = False
        for widget_id in ("#header", "#runs", "#list-title", "#items"):
            self.query_one(widget_id).display = True
        self.refresh_header()
        self._fit_preview()
        folder = self.state.draft_folder()
        place = load_place(folder) if folder is not None else None
        if place is not None and place.list_name in self.state.views:  # reopen where it was
            self.current_list = place.list_name
        self.show_list(self.current_list, keep_item=place.item_id if place else None)
        self.query_one(ItemTable).focus()

    # -- search ------------------------------------------------------------------------------

    @work(thread=True, exclusive=True, group="search-index")
    def build_search_index(self, loaded) -> None:
        from textual.worker import get_current_worker

        worker = get_current_worker()
        rows = [loaded.rows["regressions"], loaded.rows["improvements"]]
        paired = loaded.analysis.paired
        index = self.search_index
        try:
            refusals = fill(
                index,
                rows,
                paired.baseline.transcripts,
                paired.candidate.transcripts,
                done=lambda: self.post_message(SearchGrew()),
                cancelled=lambda: worker.is_cancelled,
                pause=self.state.background.pass_through,  # (an item opening goes first)
                refusals=Refusals(said=self.state.said_refused),  # (the previews said theirs)
            )
        except (EvalTuiError, OSError) as exc:  # search then covers ids and inputs only
            problem = WorkerProblem(f"search over outputs: {exc}", severity="warning")
            self.app.post_message(problem)
        else:
            if (told := refusals.told("search over outputs")) is not None:
                self.app.post_message(WorkerProblem(told, severity="warning"))

    def _has_note(self, item_id: str) -> bool:
        shown = self.state.shown(item_id)[0] if self.state.loaded is not None else None
        return bool(shown is not None and shown.note)  # (another's hidden until you tag)

    def on_resize(self, event: object = None) -> None:
        self.refresh_header()
        self._fit_preview()

    def on_list_title_width_changed(self, _: ListTitle.WidthChanged) -> None:
        if self.view is not None:  # nothing to title before the lists exist
            self._update_title()

    def _fit_preview(self) -> None:
        """The outputs preview beside the list, on terminals wide enough for both."""
        if self.state.loaded is None:
            return
        preview = self.query_one(OutputsPreview)
        wide = self.size.width >= PREVIEW_WIDTH
        if wide and not preview.display:
            preview.display = True
            preview.show(self.query_one(ItemTable).current, now=True)
        elif not wide:
            preview.display = False

    def on_item_table_highlighted(self, event: ItemTable.Highlighted) -> None:
        self._keep_place(event.row)
        preview = self.query_one(OutputsPreview)
        if preview.display:
            preview.show(event.row)

    def _keep_place(self, row: ListRow | None) -> None:
        """The list's cursor is the place kept for a reopen only while the list is the top
        screen: Textual's `is_current` is also true under an item screen, where a redrawn list
        (a tag or note saved there) wrote "list, item closed" over the item screen's place."""
        folder = self.state.draft_folder()
        if folder is not None and row is not None and self.app.screen is self:
            save_place(folder, self.current_list, row.item_id)

    def on_screen_resume(self) -> None:
        self._keep_place(self.query_one(ItemTable).current)  # back on top: where the cursor is

    # -- the list --------------------------------------------------------------------------

    @property
    def filtered(self) -> bool:
        """Whether a search or a filter narrows the list (Esc clears them)."""
        view = self.view
        return view is not None and view.describe_filters() != "no filter"

    @property
    def view(self) -> ListView | None:
        return self.state.views.get(self.current_list)

    def show_list(self, name: str, keep_item: str | None = None) -> None:
        self.current_list = name
        view = self.view
        if view is None:
            return
        table = self.query_one(ItemTable)
        table.empty_text = self._empty_text(name, view)
        table.search_needle = view.search.strip().lower()
        table.set_rows(view.visible, keep_item=keep_item)
        self._update_title()
        self.refresh_bindings()  # the footer's list and filter keys follow the list shown

    def _empty_text(self, name: str, view: ListView) -> tuple[str, ...]:
        """Why the list shows nothing, and the way back."""
        if not view.rows:
            if name not in LISTS:
                return (f"No {singular(name)} in this pair.", "r shows the regressions.")
            other = "improvements" if name == "regressions" else "regressions"
            lines: tuple[str, ...] = (f"No {name} in this pair.", f"{other[0]} shows the {other}.")
            loaded = self.state.loaded
            if loaded is None or len(loaded.analysis.metrics) < 2:
                return lines
            analysis = loaded.analysis
            here = next((r.name for r in analysis.metrics if r.metric == analysis.metric), "")
            elsewhere = [
                f"{r.name} {len(r.regressions):,}"
                for r in analysis.metrics
                if r.metric != analysis.metric and r.regressions
            ]
            lines = (f"No {name} on {here}.", lines[1])
            if name == "regressions" and elsewhere:
                how = (  # in a run set's pair, m goes back to the matrix
                    "; m shows the next metric."
                    if self.state.run_set is None
                    else "; open the set with --metric NAME to list them."
                )
                lines += ("Regressions on the other metrics: " + ", ".join(elsewhere) + how,)
            return lines
        filters = view.describe_filters()
        if not self.state.previews_ready and view.search:
            filters += " (the input texts are still being read)"
        n = len(view.rows)
        return (
            f"None of the {plural(n, singular(name))} match{'es' if n == 1 else ''}: {filters}.",
            "Esc clears the search and every filter.",
        )

    def _update_title(self) -> None:
        title = Text()
        # (0 before the first layout: the screen's width; `ListTitle` asks again once laid out)
        width = self.query_one("#list-title", Static).size.width or self.size.width
        loaded = self.state.loaded
        if loaded is not None and len(loaded.analysis.metrics) > 1:  # whose lists these are
            here = [r.name for r in loaded.analysis.metrics if r.metric == loaded.analysis.metric]
            title.append_text(literal(f" {here[0] if here else loaded.analysis.metric} ", "bold"))
            if self.state.run_set is None:  # (in a run set's pair, m goes back to the matrix)
                title.append("(m) ", style="dim")
        for name in self.list_names():
            if name not in LISTS and name != self.current_list and width < WIDE_TITLE:
                continue  # narrow: the unchanged lists are named once open (b, B)
            count = self.list_count(name)
            label = f" {name.capitalize()} ({count:,}) "
            if name == self.current_list:
                title.append(label, style="bold reverse")
            else:
                title.append(label, style="dim")
            title.append(" ")
        title.append_text(self.assigned_title())  # (before the filters: it matters more)
        view = self.view
        if view is not None:
            sort = f"sort: {view.sort_key}" + (" ↓" if view.reverse else "")
            title.append(
                f" showing {len(view.visible):,} · {view.describe_filters()} · {sort}",
                style="italic",
            )
            coverage = self.search_coverage()
            if coverage:
                title.append(f" · {coverage}", style="italic bold" if view.search else "italic")
        self.query_one("#list-title", Static).update(title)

    def _reshow(self) -> None:
        table = self.query_one(ItemTable)
        keep = table.current.item_id if table.current else None
        if self.view is not None:
            self.view.refresh()
        self.show_list(self.current_list, keep_item=keep)

    def on_previews_grew(self, message: PreviewsGrew) -> None:
        """More input text arrived: redraw, and re-filter when a text search is active; once
        every input is read, the outputs and targets are read for search."""
        self._maybe_index()
        view = self.view
        if view is not None and view.search:
            self._reshow()
        else:
            self.query_one(ItemTable).refresh()
            self._update_title()

    def on_review_changed(self, message: ReviewChanged) -> None:
        self.refresh_header()
        self._reshow()

    def current_item_id(self) -> str | None:
        row = self.query_one(ItemTable).current
        return row.item_id if row else None

    # -- actions ---------------------------------------------------------------------------

    def action_show_list(self, name: str) -> None:
        view = self.state.views.get(name)
        if view is not None:
            view.refresh()  # tags may have changed while the other list was shown
        self.show_list(name)
        self.query_one(ItemTable).focus()

    def action_clear(self) -> None:
        if not self.filtered and self.state.run_set is not None:
            self.state.back_to_matrix()  # nothing to clear: back to the matrix of every pair
            return
        search = self.query_one("#search", Input)
        if self.view is not None:
            self.view.search = ""
            self.view.slice_filter = None
            self.view.tag_filter = None
            self.view.untriaged_only = False
            self.view.assigned_only = False
            self.view.id_filter = None
            self.view.id_filter_label = ""
        search.value = ""
        search.display = False
        self.query_one(ItemTable).search_needle = ""
        self._reshow()
        self.query_one(ItemTable).focus()

    def action_bulk_tag(self) -> None:
        """Tag every item of the list as filtered (search, slice, tag, gate), after a
        confirmation naming how many and a few of their ids."""
        view = self.view
        if view is None or self.state.loaded is None or self.state.closing:
            return
        rows = list(view.visible)
        if not rows:
            self.notify("nothing to tag: the list is empty", timeout=3)
            return
        what = f"{self.current_list} · {view.describe_filters()}"
        bulk_tag(self, self.state, [r.item_id for r in rows], what, sum(1 for r in rows if r.tag))

    def on_item_table_opened(self, event: ItemTable.Opened) -> None:
        from evaltui.ui.screens.item import ItemScreen

        rows = self.query_one(ItemTable).rows
        at = event.position
        if at >= len(rows) or rows[at].item_id != event.row.item_id:
            # The list changed between the key and now (a search or a filter typed in the same
            # burst arrived first): that row is not where Enter saw it, so nothing opens.
            return
        self.app.push_screen(ItemScreen(self.state, rows, at, self.current_list))

    def palette_commands(self) -> Iterable[SystemCommand]:
        yield SystemCommand(
            "Show regressions",
            "Switch to the regression list (r)",
            lambda: self.action_show_list("regressions"),
        )
        yield SystemCommand(
            "Show improvements",
            "Switch to the improvement list (i)",
            lambda: self.action_show_list("improvements"),
        )
        yield SystemCommand(
            "Search",
            "Search ids, inputs, outputs, targets, graders, tags and notes (/)",
            self.open_search,
        )
        yield SystemCommand(
            "Filter by slice", "Cycle the slice filter (f)", self.action_filter_slice
        )
        yield SystemCommand("Filter by tag", "Cycle the tag filter (t)", self.action_filter_tag)
        yield SystemCommand(
            "Untriaged only",
            "Toggle untriaged only: untagged or tagged as still open (u)",
            self.action_untriaged,
        )
        if self.has_assignment:
            yield SystemCommand(
                "Assigned to you only",
                "Only your items, or all again (w)",
                self.action_assigned_only,
            )
        yield SystemCommand("Sort", "Cycle the sort column (s)", self.action_sort)
        yield SystemCommand("Reverse sort", "Reverse the order (S)", self.action_reverse)
        yield SystemCommand("Clear filters", "Clear search and filters (Esc)", self.action_clear)
        yield SystemCommand(
            "Tag every item shown", "Bulk tag the list as filtered (T)", self.action_bulk_tag
        )
        yield SystemCommand(
            "Next match", "The next row of the search (n)", lambda: self.action_next_match(1)
        )
        yield SystemCommand(
            "Previous match", "The previous row of the search (N)",
            lambda: self.action_next_match(-1),
        )  # fmt: skip
        yield SystemCommand(
            "Fold/unfold the header",
            "Two header lines, or all of it (h)",
            self.action_toggle_header,
        )
