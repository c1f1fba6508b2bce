"""Discoverable keys: each screen's footer shows the keys that matter there, most important
first and only whole ones (at 80 columns the first nine or so, at 200 all of them), and the help
screen shows every key as it is typed, in one column, with a glossary of the statistics words
on screen."""

from __future__ import annotations

import pytest
from rich.table import Table
from textual.widgets._footer import FooterKey

from evaltui.ui.app import AppConfig, create_app
from evaltui.ui.screens.help import GLOSSARY, HelpScreen, key_name
from evaltui.ui.screens.item import ItemScreen
from tests.ui.helpers import SAMPLE, screen_lines, settle

POLICY = SAMPLE[0].parent / "policy.toml"


def policy_app(tmp_path):
    config = AppConfig.for_pair(SAMPLE[0], SAMPLE[1], state_root=tmp_path / "state", policy=POLICY)
    return create_app(config)


def footer(app) -> str:
    """The footer as drawn: the screen's last line."""
    return screen_lines(app)[-1].rstrip()


MAIN_80 = "⏎ Open 1-5 Tag / Search x Sign off ? Help q Quit f Slice s Sort g Gates l Slices"
ITEM_80 = "esc Back 1-5 Tag n Next p Prev d Diff e Note x Sign off ? Help q Quit a Answer"
# From 200 columns every key a screen names shows; `?` lists the rest.
MAIN_200 = (
    f"{MAIN_80} t Tag filter u Untriaged e Note z Undo i Improvements b Both pass B Both fail"
    " T Tag all shown h Header ^p Commands"
)
ITEM_200 = (
    f"{ITEM_80} v Grader J Next msg K Prev msg D Diverge f Unfold A Auto-next z Undo ^p Commands"
)
MODALS = {  # the same at both widths: they are short
    "g": "esc Close ⏎ Show its items j/k Move",
    "l": "esc Close ⏎ Show its regressions T Tag them all j/k Move",
    "x": "^s Write record esc Cancel tab Next field",
    "question_mark": "esc Close help j/k Scroll",
    "T": "1-5 Choose the tag 0 Clear them y Yes, tag them esc Back j/k Move",
    "e": "^s Save esc Cancel",
}


@pytest.mark.slow
@pytest.mark.parametrize(
    "size, main, item", [((80, 24), MAIN_80, ITEM_80), ((200, 50), MAIN_200, ITEM_200)]
)
async def test_the_main_and_item_footers_show_their_keys_most_important_first(
    tmp_path, size, main, item
):
    app = policy_app(tmp_path)
    async with app.run_test(size=size) as pilot:
        await settle(app, pilot)
        assert footer(app) == main
        assert app.screen.footer_keys()[:3] == [("⏎", "Open"), ("1-5", "Tag"), ("/", "Search")]
        await pilot.press("enter")
        await settle(app, pilot)
        assert isinstance(app.screen, ItemScreen)
        assert footer(app) == item
        await pilot.press("d")  # the diff: the same keys
        await pilot.pause()
        assert footer(app) == item


@pytest.mark.parametrize(
    "size",
    [(80, 24), pytest.param((200, 50), marks=pytest.mark.slow)],  # the wide one in CI
)
async def test_every_dialog_footer_shows_its_keys(tmp_path, size):
    app = policy_app(tmp_path)
    async with app.run_test(size=size) as pilot:
        await settle(app, pilot)
        for key, expected in MODALS.items():
            await pilot.press(key)
            await settle(app, pilot)
            assert footer(app) == expected, key
            await pilot.press("escape")
            await settle(app, pilot)
            if key == "e":  # the note editor's Esc over unchanged text closes at once
                assert app.screen is app.main_screen


@pytest.mark.slow
async def test_the_footer_is_remade_only_when_the_keys_it_shows_change(tmp_path):
    """Textual remakes a footer's keys at every change of the screen's bindings; a load
    refreshes them at each step. Unchanged keys keep their widgets; a list switched remakes
    them, with the other list's key."""
    app = policy_app(tmp_path)
    async with app.run_test(size=(200, 30)) as pilot:  # (wide enough for the list's key)
        await settle(app, pilot)
        keys = list(app.screen.query(FooterKey))
        shown = footer(app)
        app.screen.refresh_bindings()  # (as each step of a load does)
        await settle(app, pilot)
        assert list(app.screen.query(FooterKey)) == keys and footer(app) == shown
        await pilot.press("i")
        await settle(app, pilot)
        assert "r Regressions" in footer(app) and "i Improvements" not in footer(app)
        assert not set(app.screen.query(FooterKey)) & set(keys)


@pytest.mark.slow  # over a CPU-second: out of the default run's budget, in CI
async def test_the_footer_follows_the_list_the_filters_and_the_search(tmp_path):
    app = policy_app(tmp_path)
    async with app.run_test(size=(200, 50)) as pilot:
        await settle(app, pilot)
        assert "i Improvements" in footer(app) and "r Regressions" not in footer(app)
        assert "esc Clear filters" not in footer(app)  # nothing to clear
        await pilot.press("i")
        await settle(app, pilot)
        assert "r Regressions" in footer(app) and "i Improvements" not in footer(app)
        await pilot.press("f")
        await settle(app, pilot)
        assert "esc Clear filters" in footer(app)
        await pilot.press("escape", "slash", "w")  # typing a search: Enter goes back
        await settle(app, pilot)
        assert footer(app).startswith("⏎ Back to the list")


@pytest.mark.slow  # a variant of a flow the default run covers (the suite's CPU budget); CI runs it
async def test_the_footer_refits_when_the_terminal_is_resized(tmp_path):
    app = policy_app(tmp_path)
    async with app.run_test(size=(200, 50)) as pilot:
        await settle(app, pilot)
        assert footer(app) == MAIN_200
        await pilot.resize_terminal(80, 24)
        await settle(app, pilot)
        assert footer(app) == MAIN_80  # whole keys only, the most important ones
        await pilot.resize_terminal(60, 24)
        await settle(app, pilot)
        assert footer(app) == "⏎ Open 1-5 Tag / Search x Sign off ? Help q Quit f Slice"


def test_keys_are_named_as_they_are_typed():
    assert [key_name(k) for k in ("right_square_bracket", "question_mark", "slash")] == [
        "]",
        "?",
        "/",
    ]
    assert key_name("ctrl+s") == "Ctrl+S" and key_name("shift+tab") == "Shift+Tab"
    assert key_name("escape") == "Esc" and key_name("pagedown") == "PgDn"
    assert key_name("G") == "G" and key_name("greater_than_sign") == ">"


@pytest.mark.slow  # over a CPU-second: out of the default run's budget, in CI
async def test_help_shows_keys_as_typed_in_one_column_and_a_glossary(tmp_path):
    app = policy_app(tmp_path)
    async with app.run_test(size=(120, 200)) as pilot:
        await settle(app, pilot)
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        tables = [s.content for s in app.screen.query("Static") if isinstance(s.content, Table)]
        keys = [str(cell) for table in tables for cell in table.columns[0]._cells]
        assert {"]", "?", "/", "p, [", "Esc, ?, q", "Ctrl+S", "Ctrl+P", "1-9", "0-9"} <= set(keys)
        text = "\n".join(screen_lines(app))
        for spelled in ("square bracket", "question mark", "slash", "escape", "ctrl+"):
            assert spelled not in text, spelled
        # One column: every section's descriptions start at the same column.
        lines = screen_lines(app)
        starts = set()
        for table in tables:
            first = str(table.columns[1]._cells[0])
            line = next(line for line in lines if f"  {first}" in line)
            starts.add(line.index(f"  {first}") + 2)
        assert len(starts) == 1, starts
        # The glossary: each word on screen, one line each (at this width).
        for term, meaning in GLOSSARY:
            assert term in keys
            if len(term) <= 20:
                assert any(term in line and meaning in line for line in screen_lines(app)), term
        for word in (
            "mid-p",
            "Tango",
            "Newcombe",
            "Wilson",
            "McNemar",
            "wild cluster bootstrap-t",
            "design effect",
            "the verdict follows the cluster-aware interval",
            "BCa",
            "Holm",
        ):
            assert word in keys, word
