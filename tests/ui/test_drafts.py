"""Drafts survive: a note or a sign-off rationale being typed is kept beside the journal as it
changes and offered back when the review reopens after the session ended without Ctrl+S (a
crash, a dropped connection); the review reopens on the item that was under the cursor. The
kill -9 version through a real terminal is tests/ui/test_burst_terminal.py (slow)."""

from __future__ import annotations

import pytest
from textual.widgets import TextArea

from evaltui.core.record.drafts import Place, load_draft, load_place
from evaltui.ui.screens.item import ItemScreen
from evaltui.ui.screens.note import NoteScreen
from evaltui.ui.screens.signoff import SignoffScreen
from tests.ui.helpers import demo_app, listed_ids, settle, until


@pytest.mark.slow
async def test_an_unsaved_note_and_the_place_come_back_when_the_review_reopens(tmp_path):
    state = tmp_path / "state"
    app = demo_app(state)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(app, pilot)
        third = listed_ids(app)[2]
        await pilot.press("j", "j", "e", *"half a tho")
        await settle(app, pilot)
        folder = app.state.draft_folder()
        assert load_draft(folder).text == "half a tho" and load_draft(folder).item_id == third
        assert load_place(folder).item_id == third
        # the session ends here without Ctrl+S or Esc (the terminal went away)
    app = demo_app(state)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(app, pilot)
        assert isinstance(app.screen, NoteScreen) and app.screen.item_id == third
        assert app.screen.query_one(TextArea).text == "half a tho"
        await pilot.press(*"ught", "ctrl+s")
        await settle(app, pilot)
        assert app.loaded.session.review(third).note == "half a thought"
        assert load_draft(app.state.draft_folder()) is None
        assert app.screen.current_item_id() == third  # the list reopened on that item
        await pilot.press("x")
        await settle(app, pilot)
        app.screen.query_one("#rationale", TextArea).focus()
        await pilot.press(*"two confirmed")
        await settle(app, pilot)
    app = demo_app(state)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(app, pilot)
        assert not isinstance(app.screen, NoteScreen)  # saved: the note is not offered again
        await pilot.press("x")
        await settle(app, pilot)
        assert isinstance(app.screen, SignoffScreen)
        assert app.screen.query_one("#rationale", TextArea).text == "two confirmed"
        await pilot.press("escape", "escape")  # discarded on purpose: gone
        await settle(app, pilot)
        assert load_draft(app.state.draft_folder()) is None


@pytest.mark.slow  # a variant of a flow the default run covers (the suite's CPU budget); CI runs it
async def test_the_item_screen_open_when_the_session_ended_reopens_scrolled_where_it_was(tmp_path):
    state = tmp_path / "state"
    app = demo_app(state)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(app, pilot)
        second = listed_ids(app)[1]
        await pilot.press("j", "enter")
        await settle(app, pilot)
        assert isinstance(app.screen, ItemScreen) and app.screen.current_item_id() == second
        await pilot.press(*"jjjjjj")
        folder = app.state.draft_folder()
        await until(pilot, lambda: load_place(folder).scroll == 6, "the scroll kept")
        assert load_place(folder).item_open and load_place(folder).item_id == second
        # the session ends here with the item open (the terminal went away)
    app = demo_app(state)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(app, pilot)
        assert isinstance(app.screen, ItemScreen) and app.screen.current_item_id() == second
        assert app.screen.query_one("#sides-pane").scroll_y == 6
        app.adopt(app.state.loaded)  # the pair loaded again (another metric): not twice
        await settle(app, pilot)
        assert sum(isinstance(s, ItemScreen) for s in app.screen_stack) == 1
        await pilot.press("escape")
        await settle(app, pilot)
        assert not isinstance(app.screen, ItemScreen)
        assert app.screen.current_item_id() == second  # the list, on that item
        assert not load_place(app.state.draft_folder()).item_open  # closed: the list next time


@pytest.mark.slow  # a variant of a flow the default run covers (the suite's CPU budget); CI runs it
async def test_the_reopened_item_screen_stays_the_kept_place_after_its_recovered_note_is_saved(
    tmp_path,
):
    """The list beneath the item screen is redrawn when the recovered note is saved; it used to
    write "the list, item closed" over the item screen's place (Textual counts the screen under
    the top one as current), so a second crash reopened on the list (issue 29's flaky tmux test)."""
    state = tmp_path / "state"
    app = demo_app(state)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(app, pilot)
        third = listed_ids(app)[2]
        await pilot.press("j", "j", "enter")
        await settle(app, pilot)
        await pilot.press(*"jjjj")
        folder = app.state.draft_folder()
        await until(pilot, lambda: load_place(folder).scroll == 4, "the scroll kept")
        await pilot.press("e", *"read up to here")
        await settle(app, pilot)
        # the session ends here, the note unsaved (the terminal went away)
    app = demo_app(state)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(app, pilot)
        assert isinstance(app.screen, NoteScreen)
        await pilot.press(".", "ctrl+s")
        await settle(app, pilot)
        assert isinstance(app.screen, ItemScreen) and app.screen.current_item_id() == third
        assert app.loaded.session.review(third).note == "read up to here."
        assert load_place(folder) == Place("regressions", third, item_open=True, scroll=4)
        await pilot.press("1")  # a tag redraws the list beneath too (and shows the next item)
        await settle(app, pilot)
        shown = app.screen.current_item_id()
        assert load_place(folder) == Place("regressions", shown, item_open=True, scroll=0)
        await pilot.press("escape")  # back on the list: the list's cursor is the place
        await settle(app, pilot)
        assert load_place(folder) == Place("regressions", app.screen.current_item_id())
