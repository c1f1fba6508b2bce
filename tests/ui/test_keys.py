"""Keys work the same everywhere: j/k in every list, Tab and arrows between the two lists, q
while the pair is still loading, an empty list that says why, and a note editor that keeps
what was typed unless asked twice."""

from __future__ import annotations

import threading

import pytest

import evaltui.core.analysis.pipeline as compare_module
from evaltui.ui.screens.gates import GatesScreen
from evaltui.ui.screens.help import HelpScreen
from evaltui.ui.screens.main import MainScreen
from evaltui.ui.screens.note import NoteScreen
from evaltui.ui.screens.slices import SlicesScreen
from tests.ui.helpers import demo_app, listed_ids, screen_lines, settle, text_of, until
from tests.ui.test_policy_view import policy_app


@pytest.mark.slow  # over a CPU-second: out of the default run's budget, in CI
async def test_j_and_k_move_the_gate_and_slice_lists(tmp_path):
    app = policy_app(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        for key, screen_type in (("g", GatesScreen), ("l", SlicesScreen)):
            await pilot.press(key)
            await pilot.pause()
            assert isinstance(app.screen, screen_type)
            options = app.screen.query_one("OptionList")
            start = options.highlighted
            await pilot.press("j")
            assert options.highlighted == start + 1
            await pilot.press("j", "k")
            assert options.highlighted == start + 1
            await pilot.press("G")
            assert options.highlighted == options.option_count - 1
            await pilot.press("escape")
            assert isinstance(app.screen, MainScreen)


@pytest.mark.slow
async def test_j_and_k_scroll_the_help(tmp_path):
    app = demo_app(tmp_path / "state")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        box = app.screen.query_one("#help-box")
        await pilot.press("j", "j", "j")
        assert box.scroll_y == 3
        await pilot.press("k")
        assert box.scroll_y == 2


@pytest.mark.slow  # a variant of a flow the default run covers (the suite's CPU budget); CI runs it
async def test_tab_and_arrows_visit_every_list_in_turn(tmp_path):
    app = demo_app(tmp_path / "state")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        assert app.screen.current_list == "regressions"
        await pilot.press("tab")
        assert app.screen.current_list == "improvements" and len(listed_ids(app)) == 21
        assert "Improvements (21)" in text_of(app, "#list-title")
        await pilot.press("tab")  # the unchanged items' lists follow (built on the first visit)
        await settle(app, pilot)
        assert app.screen.current_list == "both pass" and listed_ids(app)
        await pilot.press("tab", "tab")  # both fail, then round to the first
        await settle(app, pilot)
        assert app.screen.current_list == "regressions" and len(listed_ids(app)) == 9
        await pilot.press("right")
        assert app.screen.current_list == "improvements"
        await pilot.press("left")
        assert app.screen.current_list == "regressions"
        await pilot.press("shift+tab")
        assert app.screen.current_list == "both fail"
        await pilot.press("left", "left")
        assert app.screen.current_list == "improvements"
        # In the search box Tab hands the keys back to the list instead.
        await pilot.press("slash", "w")
        await pilot.press("tab")
        assert app.screen.current_list == "improvements"
        assert app.focused is app.screen.query_one("ItemTable")
        await pilot.press("j")  # a list key again, not typed into the search
        assert app.views["improvements"].search == "w"


async def test_q_quits_while_the_pair_is_still_loading(tmp_path, monkeypatch):
    release = threading.Event()
    real_compare = compare_module.compare

    def slow_compare(*args, **kwargs):
        release.wait(10)
        return real_compare(*args, **kwargs)

    monkeypatch.setattr(compare_module, "compare", slow_compare)
    app = demo_app(tmp_path / "state")
    try:
        async with app.run_test(size=(80, 24)) as pilot:
            opening = lambda: "Opening the runs" in "\n".join(screen_lines(app))  # noqa: E731
            await until(pilot, opening, "the first screen")
            assert app.loaded is None
            assert "Opening the runs" in "\n".join(screen_lines(app))
            await pilot.press("q")
            await until(pilot, lambda: app.closing, "the app closing")
            assert app.closing
            assert app.return_code == 0
    finally:
        release.set()


@pytest.mark.slow  # over a CPU-second: out of the default run's budget, in CI
async def test_an_empty_filtered_list_says_why_and_how_to_clear_it(tmp_path):
    app = demo_app(tmp_path / "state")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        await pilot.press("slash", *"no such words", "enter")
        assert listed_ids(app) == []
        screen = "\n".join(screen_lines(app))
        assert "None of the 9 regressions match: search='no such words'." in screen
        assert "Esc clears the search and every filter." in screen
        await pilot.press("escape")
        assert len(listed_ids(app)) == 9


@pytest.mark.slow  # over a CPU-second: out of the default run's budget, in CI
async def test_the_note_editor_opens_at_the_end_and_asks_before_discarding(tmp_path):
    app = demo_app(tmp_path / "state")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        first = listed_ids(app)[0]
        await pilot.press("e", *"dose", "ctrl+s")
        await pilot.pause()
        assert app.loaded.session.review(first).note == "dose"
        await pilot.press("e")
        await pilot.pause()
        assert isinstance(app.screen, NoteScreen)
        await pilot.press(*" misread")  # typed at the end, after the existing note
        assert app.screen.query_one("TextArea").text == "dose misread"
        await pilot.press("escape")  # asks instead of throwing the text away
        assert isinstance(app.screen, NoteScreen)
        assert "Discard what you typed?" in text_of(app, "#note-hint")
        await pilot.press("!")  # typing again: Esc asks again
        await pilot.press("escape")
        assert isinstance(app.screen, NoteScreen)
        await pilot.press("escape")  # the second Esc discards
        assert isinstance(app.screen, MainScreen)
        assert app.loaded.session.review(first).note == "dose"
        journal = app.loaded.session.path.read_text()
        assert journal.count('"kind":"note"') == 1
        await pilot.press("e")
        await pilot.pause()
        await pilot.press("escape")  # nothing typed: closes at once
        assert isinstance(app.screen, MainScreen)
