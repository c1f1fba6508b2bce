"""Reopening the item screen that was open when the last session ended (a crash, a dropped
SSH connection, a kill -9).

`place.json` (core/record/drafts.py) already brought the list back to the item under the
cursor; a reviewer reading an item's transcript came back to the list instead, and had to find
the item and scroll to where they were. So the item screen keeps its place there too (the item,
and how far its transcript is scrolled: checked every half second, written only when it
changed), says when it is closed, and the app opens it again when the review reopens, scrolled
back once the transcript is drawn (`reopen_item` in app.py, which owns the screen stack). A
draft note is offered on top of it (app.offer_draft).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from evaltui.core.record.drafts import save_place

if TYPE_CHECKING:  # (a protocol would do; the item screen is the one user)
    ItemScreen = Any

CHECK_EVERY = 0.5  # seconds between two looks at the item screen's scroll
RESTORE_TRIES = 50  # at CHECK_EVERY / 5: five seconds shown for a transcript to be laid out


class KeepsPlace:
    """The item screen's part: where it is kept, and its closing said (Esc, q: back)."""

    restore_scroll: int | None = None  # reopened after a crash: scroll back once drawn
    kept_scroll: int | None = None  # the scroll last written to place.json
    follow_timer: Any = None  # looks at the scroll every CHECK_EVERY seconds
    restore_tries = 0  # looks at a pane not laid out yet for the scroll to restore

    def action_back(self) -> None:
        closed(self)  # a reopened review shows the list, not the item
        super().action_back()  # type: ignore[misc]


def keep_item_place(screen: ItemScreen, scroll: int, item_open: bool = True) -> None:
    """Write where the item screen is (or, `item_open=False`, that it was closed)."""
    folder = screen.state.draft_folder()
    if folder is not None:
        save_place(folder, screen.list_name, screen.row.item_id, item_open, scroll)
        screen.kept_scroll = scroll


def _pane(screen: ItemScreen) -> Any:
    return screen.query_one("#sides-pane")


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
    scroll, pane = screen.restore_scroll, _pane(screen)
    if screen.app.screen is not screen:
        # Under a recovered note a screen is laid out again when it is shown, and a scroll set
        # beneath the note could be lost to that layout (seen once in a loaded CI run: the
        # item reopened at the top). So the scroll is set only on the screen as shown:
        # `shown_again` calls this when the note is closed.
        return
    if pane.max_scroll_y < scroll and screen.restore_tries < RESTORE_TRIES:
        # not laid out yet: looked at again shortly, five seconds of being shown at most
        screen.restore_tries += 1
        screen.set_timer(CHECK_EVERY / 5, lambda: scroll_back(screen))
        return
    screen.restore_scroll = None
    pane.scroll_to(y=scroll, animate=False, immediate=True)
    keep_item_place(screen, scroll)


def shown_again(screen: ItemScreen) -> None:
    """The item screen is on top again (a recovered note closed): a kept scroll not yet set
    is set once this frame is laid out."""
    if screen.restore_scroll is not None:
        screen.call_after_refresh(scroll_back, screen)


def closed(screen: ItemScreen) -> None:
    keep_item_place(screen, 0, item_open=False)
