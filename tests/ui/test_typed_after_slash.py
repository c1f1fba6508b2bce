"""Every key typed after `/` goes to the search box, in order, even when `/` and the words arrive
in one burst (a laggy SSH link): before, `/` moved the focus only once the list had let it bubble
up to the screen, and the keys read meanwhile were handled by the list: `/unfinished` switched
to the improvements (`i`), opened a note (`e`) and folded the header (`h`).

The keys are queued at the driver in one go, with no refresh and no wait between them (Pilot's
`press` lets the app handle each key before the next, which hides the race); the real pty
version is tests/ui/test_burst_terminal.py (slow)."""

from __future__ import annotations

import pytest
from textual import events
from textual.widgets import Input

from evaltui.ui.screens.main import MainScreen
from evaltui.ui.screens.note import NoteScreen
from evaltui.ui.widgets.item_table import ItemTable
from tests.ui.helpers import demo_app, listed_ids, screen_lines, settle

NAMED = {"/": "slash", " ": "space"}


def type_at_once(app, text: str, *then: str) -> None:
    """Queue every character of `text`, then the keys `then`, as one burst from the terminal:
    the app handles none of them before all are queued."""
    keys = [events.Key(NAMED.get(c, c), c) for c in text]
    keys += [events.Key(key, None) for key in then]
    for event in keys:
        event.set_sender(app)
        app._driver.send_message(event)


@pytest.mark.slow
async def test_the_words_typed_at_once_after_slash_are_the_search_and_act_on_nothing_else(
    tmp_path,
):
    app = demo_app(tmp_path / "state")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        screen = app.screen
        assert isinstance(screen, MainScreen) and isinstance(app.focused, ItemTable)
        folded = screen.header_folded
        type_at_once(app, "/unfinished")
        await settle(app, pilot)
        assert app.screen is screen, "a key of the search opened another screen"
        assert screen.query_one("#search", Input).value == "unfinished"
        assert screen.current_list == "regressions"  # (not `i`)
        assert screen.header_folded == folded  # (not `h`)
        assert listed_ids(app) == ["pharm-0063"]
        # A `/` typed in the search box is a character of the search, burst or not; Enter
        # takes the keys back to the list.
        await pilot.press("escape")
        await settle(app, pilot)
        type_at_once(app, "/a/b", "enter")
        await settle(app, pilot)
        assert screen.query_one("#search", Input).value == "a/b"
        assert isinstance(app.focused, ItemTable)


@pytest.mark.slow
async def test_a_slash_typed_in_a_note_is_a_character_of_the_note(tmp_path):
    app = demo_app(tmp_path / "state")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        first = listed_ids(app)[0]
        await pilot.press("e")
        await settle(app, pilot)
        assert isinstance(app.screen, NoteScreen)
        type_at_once(app, "either/or", "ctrl+s")
        await settle(app, pilot)
        assert not isinstance(app.screen, NoteScreen)
        assert app.loaded.session.review(first).note == "either/or"


@pytest.mark.slow
@pytest.mark.parametrize(("size", "keys_said"), [((80, 24), False), ((130, 40), True)])
async def test_the_search_box_says_what_it_searches_whole_at_its_width(tmp_path, size, keys_said):
    """Its placeholder was cut in the middle (`n/N:` at 100 columns, the Esc key lost at 80):
    now the longest that fits is shown, the graders always named."""
    app = demo_app(tmp_path / "state")
    async with app.run_test(size=size) as pilot:
        await settle(app, pilot)
        await pilot.press("slash")
        await settle(app, pilot)
        box = app.screen.query_one("#search", Input)
        shown = next(line for line in screen_lines(app) if "search ids" in line)
        assert box.placeholder in shown  # whole on screen
        assert "graders, tags, notes" in box.placeholder and "Esc: clear" in box.placeholder
        assert ("n/N: next/previous" in box.placeholder) == keys_said


@pytest.mark.slow
@pytest.mark.parametrize("key", ["enter", "tab"])
async def test_the_keys_typed_at_once_after_enter_or_tab_in_the_search_act_on_the_list(
    tmp_path, key
):
    """The mirror race: `/pharm<Enter>e` typed at once searched `pharme`, and with Tab left
    `e` in the box (the focus moved back to the list only after the keys read with them); `e`
    now opens the note of the one row found, and the search stays as typed."""
    app = demo_app(tmp_path / "state")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        screen = app.screen
        type_at_once(app, "/unfinished", key)
        type_at_once(app, "e")
        await settle(app, pilot)
        assert screen.query_one("#search", Input).value == "unfinished"
        assert isinstance(app.screen, NoteScreen)
        assert app.screen.item_id == "pharm-0063"  # the note of the one row found


@pytest.mark.slow
async def test_the_keys_typed_at_once_after_esc_in_the_search_act_on_the_list(tmp_path):
    """`/abc<Esc>i` typed at once left `i` in the hidden box; now Esc clears the search and
    `i` switches to the improvements."""
    app = demo_app(tmp_path / "state")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        screen = app.screen
        type_at_once(app, "/abc", "escape")
        type_at_once(app, "i")
        await settle(app, pilot)
        box = screen.query_one("#search", Input)
        assert box.value == "" and not box.display and screen.view.search == ""
        assert screen.current_list == "improvements"
        assert isinstance(app.focused, ItemTable)


@pytest.mark.slow
async def test_enter_on_a_row_the_search_filtered_away_meanwhile_opens_nothing(tmp_path):
    """Keys typed at once into the search box, then Esc and Enter (the sequence
    tests/ui/test_random_keys.py found): the list takes Enter as soon as Esc has handed the keys
    back, and the search those keys make can reach the screen before the list's Enter does;
    the item screen was then opened on a list that no longer held the row (IndexError on an
    empty one). Here that order is made certain: the list filtered to nothing, then the Enter
    the list took before. Nothing opens."""
    app = demo_app(tmp_path / "state")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        screen = app.screen
        table = screen.query_one(ItemTable)
        seen = table.rows[0]
        await pilot.press("slash", *"zq[x", "enter")
        await settle(app, pilot)
        assert listed_ids(app) == []
        table.post_message(ItemTable.Opened(seen, 0))
        await settle(app, pilot)
        assert not app.unexpected_errors
        assert app.screen is screen
