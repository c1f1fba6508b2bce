"""The main screen's search: what it covers so far, where a row matched, and the search box.

A mixin of `MainScreen` (`screens/main.py`); the index of outputs and targets is read by the
main screen's worker (`MainScreen.build_search_index`).
"""

from __future__ import annotations

from collections.abc import Callable

from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import Input

from evaltui.ui.after_keys import after_queued_keys, focus_at_once, typed_as_text
from evaltui.ui.listmodel import ListView
from evaltui.ui.search import SearchGrew, SearchIndex, snippet_around
from evaltui.ui.state import Loaded, ReviewState
from evaltui.ui.widgets.item_table import ItemTable

# What the search box says while empty, longest first: the longest that fits its width is shown
# (at 80 columns the box holds 71 characters, beside the 160-column preview 79).
SEARCH_HINTS = (
    "search ids, inputs, outputs, targets, graders, tags, notes "
    "(Enter: back to the list, n/N: next/previous, Esc: clear)",
    "search ids, inputs, outputs, targets, graders, tags, notes (Enter: list, n/N, Esc: clear)",
    "search ids, inputs, outputs, targets, graders, tags, notes (Esc: clear)",
    "search ids, inputs, outputs, targets, graders, tags, notes",
    "search",
)


def search_hint(width: int) -> str:
    """The longest of `SEARCH_HINTS` that fits `width` cells with the cursor after it."""
    return next((hint for hint in SEARCH_HINTS if len(hint) < width), SEARCH_HINTS[-1])


class SearchBox(Input):
    """The main screen's search box: its placeholder says as much as its width holds, instead
    of being cut in the middle of a key's name. Enter and Esc hand the keys back to the list as
    they are read (`ui/after_keys.py`): `/pharm<Enter>e` typed at once searched `pharme`; the
    search is then submitted, or cleared, once the keys typed before them are in the box. Tab
    and Shift+Tab hand them back the same way, the search kept."""

    BINDINGS = [
        Binding("enter", "submit", "Back to the list", show=False, priority=True),
        Binding("escape", "clear", "Clear filters", show=False, priority=True),
        Binding("tab,shift+tab", "to_list", "Back to the list", show=False, priority=True),
    ]

    def __init__(self, **kwargs) -> None:
        super().__init__(placeholder=SEARCH_HINTS[0], **kwargs)

    async def action_submit(self) -> None:
        screen = self.screen
        focus_at_once(screen.query_one(ItemTable))
        after_queued_keys(screen, lambda: self.post_message(self.Submitted(self, self.value)))

    def action_clear(self) -> None:
        screen = self.screen
        focus_at_once(screen.query_one(ItemTable))
        after_queued_keys(screen, lambda: screen.call_later(screen.run_action, "clear"))

    def action_to_list(self) -> None:
        """Tab / Shift+Tab: back to the list as the key is read, the search kept (`/pharm<Tab>e`
        typed at once left `e` in the box: the screen's Tab moved the focus too late)."""
        focus_at_once(self.screen.query_one(ItemTable))

    def on_resize(self) -> None:
        self.placeholder = search_hint(self.scrollable_content_region.width)


class MainSearch(Screen):
    """Search over the lists (see the module's docstring)."""

    state: ReviewState
    search_index: SearchIndex
    _index_started: bool
    concordant_where: Callable[[int, str], tuple[str, str] | None]  # (the unchanged lists')

    @property
    def view(self) -> ListView | None:
        raise NotImplementedError  # (the main screen's)

    def _reshow(self) -> None:
        raise NotImplementedError  # (the main screen's)

    def _update_title(self) -> None:
        raise NotImplementedError  # (the main screen's)

    def build_search_index(self, loaded: Loaded) -> object:
        raise NotImplementedError  # (the main screen's worker)

    def _start_search_index(self) -> None:
        """A fresh index for this pair's lists; filled once the inputs are read."""
        self.search_index = SearchIndex()
        self._index_started = False
        for view in self.state.views.values():
            view.text_hits = self.search_index.matches
            view.note_hits = self._note_hits
        self._maybe_index()

    def _maybe_index(self) -> None:
        """Once every input is read, read the outputs and targets for search (once)."""
        if self.state.previews_ready and self.state.loaded is not None and not self._index_started:
            self._index_started = True
            self.build_search_index(self.state.loaded)

    def on_search_grew(self, message: SearchGrew) -> None:
        view = self.view
        if view is not None and view.search:
            self._reshow()
        else:
            self._update_title()

    def _note_hits(self, needle: str) -> set[str]:
        loaded = self.state.loaded
        if loaded is None:
            return set()
        shown = self.state.shown  # (another reviewer's note: hidden until you tag the item)
        return {i for i in loaded.session.items if needle in shown(i)[0].note.lower()}

    def _match_where(self, row, needle: str) -> tuple[str, str] | None:
        """Where a row matched the search, for the list's input column: (field, stretch)."""
        if needle in row.item_id.lower():
            return None  # the id column shows it
        around = snippet_around(row.preview, needle)
        if around is not None:
            return "", around
        found = self.search_index.where(row.index, needle) or self.concordant_where(
            row.index, needle
        )
        if found is not None:
            return found
        if row.tag and needle in row.tag.lower():
            return "tag", row.tag
        loaded = self.state.loaded
        note = self.state.shown(row.item_id)[0].note if loaded is not None else ""
        if note and needle in note.lower():
            return "note", snippet_around(note, needle) or note
        if needle in row.search_text:
            return "input", "(further into the input)"
        return None

    def search_coverage(self) -> str:
        """What the search does not cover yet, for the list title ('' once it covers all)."""
        if not self.state.previews_ready:
            return "search: ids only, reading inputs…"
        index = self.search_index
        if not index.complete and index.total:
            share = index.covered / index.total
            return f"search: ids and inputs; outputs and targets {share:.0%}…"
        if not index.complete:
            return "search: ids and inputs; reading outputs and targets…"
        return ""

    def action_next_match(self, step: int) -> None:
        """n / N: the next or previous row of the list (every row shown is a match)."""
        table = self.query_one(ItemTable)
        table.action_cursor(step)
        table.focus()

    def action_search(self) -> None:
        """`/`, read as it comes (`into_field`): a `/` typed in the search box is a character."""
        typed_as_text(self)
        self.open_search()

    def open_search(self) -> None:
        """The search box shown and focused (`/`, the command palette)."""
        search = self.query_one("#search", Input)
        search.display = True
        focus_at_once(search)  # the keys read after `/` are the search (`ui/after_keys.py`)

    def on_input_changed(self, event: Input.Changed) -> None:
        if event.input.id == "search" and self.view is not None:
            self.view.search = event.value
            self.query_one(ItemTable).search_needle = event.value.strip().lower()
            self._reshow()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        if event.input.id == "search":
            self.query_one(ItemTable).focus()
            if not event.value:
                event.input.display = False
