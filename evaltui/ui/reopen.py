"""Reopening the item screen that was open when the last session ended (a crash, a dropped
SSH connection, a kill -9).

`place.json` (core/record/drafts.py) already brought the list back to the item under the
cursor; a reviewer reading an item's transcript came back to the list instead, and had to find
the item and scroll to where they were. So the item screen keeps its place there too (the item,
and how far its transcript is scrolled: checked every half second, written only when it
changed), says when it is closed, and the app opens it again when the review reopens, scrolled
back once the transcript is drawn. A draft note is offered on top of it (app.offer_draft).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from evaltui.core.record.drafts import load_place, save_place

if TYPE_CHECKING:
    from evaltui.ui.screens.item import ItemScreen
    from evaltui.ui.screens.item_navigation import Pane
    from evaltui.ui.state import ReviewState

CHECK_EVERY = 0.5  # seconds between two looks at the item screen's scroll


def reopen_item(app, state: ReviewState) -> ItemScreen | None:
    """Push the item screen kept in place.json, if it was open and its item is in its list:
    once per app, at the first pair shown (a pair loaded again, for another metric, keeps the
    screens the reviewer has now)."""
    from evaltui.ui.screens.item import ItemScreen

    if getattr(app, "item_reopen_tried", False):
        return None
    app.item_reopen_tried = True
    folder = state.draft_folder()
    place = load_place(folder) if folder is not None else None
    if place is None or not place.item_open:
        return None
    view = state.views.get(place.list_name)
    rows = list(view.visible) if view is not None else []
    index = next((i for i, row in enumerate(rows) if row.item_id == place.item_id), None)
    if index is None:  # filtered out or gone since: the list is where it reopens
        return None
    screen = ItemScreen(state, rows, index, place.list_name)
    screen.restore_scroll = place.scroll
    app.push_screen(screen)
    return screen


class KeepsPlace:
    """The item screen's part: where it is kept, and its closing said (Esc, q: back)."""

    restore_scroll: int | None = None  # reopened after a crash: scroll back once drawn
    kept_scroll: int | None = None  # the scroll last written to place.json
    follow_timer: Any = None  # looks at the scroll every CHECK_EVERY seconds

    def action_back(self) -> None:
        closed(self)  # type: ignore[arg-type]  # a reopened review shows the list, not the item
        super().action_back()  # type: ignore[misc]


def keep_item_place(screen: ItemScreen, scroll: int, item_open: bool = True) -> None:
    """Write where the item screen is (or, `item_open=False`, that it was closed)."""
    folder = screen.state.draft_folder()
    if folder is not None:
        save_place(folder, screen.list_name, screen.row.item_id, item_open, scroll)
        screen.kept_scroll = scroll


def _pane(screen: ItemScreen) -> Pane:
    from evaltui.ui.screens.item_navigation import Pane

    return screen.query_one("#sides-pane", Pane)


def item_shown(screen: ItemScreen) -> None:
    """Another item (or the first) is shown, from the top; a reopened one keeps its scroll
    until its transcript is drawn (`scroll_back`)."""
    if screen.follow_timer is None:
        screen.follow_timer = screen.set_interval(CHECK_EVERY, lambda: follow_scroll(screen))
    if screen.restore_scroll is None:
        keep_item_place(screen, 0)


def follow_scroll(screen: ItemScreen) -> None:
    """place.json follows the transcript's scroll (written only when it changed)."""
    if screen.restore_scroll is None and screen.is_current:
        scroll = round(_pane(screen).scroll_y)
        if scroll != screen.kept_scroll:
            keep_item_place(screen, scroll)


def scroll_back(screen: ItemScreen) -> None:
    """Where the reviewer was reading when the last session ended (once the transcript is
    drawn, so the pane is long enough)."""
    if screen.restore_scroll is None:
        return
    scroll, screen.restore_scroll = screen.restore_scroll, None
    _pane(screen).scroll_to(y=scroll, animate=False, immediate=True)
    keep_item_place(screen, scroll)


def closed(screen: ItemScreen) -> None:
    keep_item_place(screen, 0, item_open=False)
