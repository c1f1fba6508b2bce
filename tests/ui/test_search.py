"""Search finds what the reviewer remembers: the input, both outputs, the target, both graders'
explanations, the tag and the note; the list shows where each row matched; it says while the
outputs are still being read; and in an item n/N walk the matches, highlighted."""

from __future__ import annotations

import threading

import pytest

import evaltui.ui.screens.main as main_screen
from evaltui.ui.screens.item import ItemScreen, Pane
from evaltui.ui.transcript import MATCH_STYLE
from tests.ui.helpers import demo_app, listed_ids, screen_lines, settle, text_of, until


async def search(app, pilot, words: str) -> list[str]:
    await pilot.press("escape", "slash", *words, "enter")
    await settle(app, pilot)
    return listed_ids(app)


@pytest.mark.slow  # a variant of a flow the default run covers (the suite's CPU budget); CI runs it
async def test_search_covers_outputs_targets_graders_tags_and_notes(tmp_path):
    app = demo_app(tmp_path / "state")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        # The candidate said "protects your stomach"; the input never says it.
        assert await search(app, pilot, "protects") == ["pharm-0103"]
        row = next(line for line in screen_lines(app) if line[2:].startswith("pharm-0103"))
        assert "candidate output: " in row and "protects your stomach" in row
        # A phrase only the target has.
        assert "pharm-0112" in await search(app, pilot, "rhabdomyol")
        # Words only a grader's explanation has, the candidate's and the baseline's.
        assert await search(app, pilot, "unfinished") == ["pharm-0063"]
        row = next(line for line in screen_lines(app) if line[2:].startswith("pharm-0063"))
        assert "candidate grader: " in row and "unfinished" in row
        assert await search(app, pilot, "grounded") == ["pharm-0113"]
        row = next(line for line in screen_lines(app) if line[2:].startswith("pharm-0113"))
        assert "baseline grader: " in row and "grounded" in row
        await pilot.press("escape")
        # The tag and the note.
        await pilot.press("home", "j", "4", "e", *"zebra crossing", "ctrl+s")
        await pilot.pause()
        assert await search(app, pilot, "zebra") == ["pharm-0063"]
        assert "note: zebra crossing" in next(
            line for line in screen_lines(app) if line[2:].startswith("pharm-0063")
        )
        assert await search(app, pilot, "flaky") == ["pharm-0063"]
        assert "search: " not in text_of(app, "#list-title")  # everything is covered


@pytest.mark.slow  # a variant of a flow the default run covers (the suite's CPU budget); CI runs it
async def test_the_list_says_while_search_does_not_cover_the_outputs_yet(tmp_path, monkeypatch):
    release = threading.Event()
    real_fill = main_screen.fill

    def slow_fill(*args, **kwargs):
        release.wait(10)
        return real_fill(*args, **kwargs)

    monkeypatch.setattr(main_screen, "fill", slow_fill)
    app = demo_app(tmp_path / "state")
    try:
        async with app.run_test(size=(120, 40)) as pilot:
            ready = lambda: app.state.previews_ready and app.loaded is not None  # noqa: E731
            await until(pilot, ready, "the pair loaded with its previews")
            await pilot.press("slash", *"protects")
            await pilot.pause()
            assert listed_ids(app) == []  # only the ids and inputs are searchable so far
            title = text_of(app, "#list-title")
            assert "search: ids and inputs; reading outputs and targets…" in title
            assert "(the input texts are still being read)" not in "\n".join(screen_lines(app))
            release.set()
            await settle(app, pilot)
            assert listed_ids(app) == ["pharm-0103"]  # found once the outputs are in
            assert "search: " not in text_of(app, "#list-title")
    finally:
        release.set()


@pytest.mark.slow
async def test_n_and_N_walk_the_highlighted_matches_across_items(tmp_path):
    app = demo_app(tmp_path / "state")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        ids = await search(app, pilot, "maoi")
        assert ids == ["pharm-0020", "pharm-0187"]
        await pilot.press("enter")
        await settle(app, pilot)
        screen = app.screen
        assert isinstance(screen, ItemScreen) and screen.row.item_id == "pharm-0020"
        pane = screen.query_one("#sides-pane", Pane)
        rows = screen.match_rows
        assert len(rows) >= 3  # the user turn, the tool turn, the answer, the target...
        starts = screen._row_starts()
        assert pane.scroll_y == min(starts[rows[0]], pane.max_scroll_y)  # at the first match
        highlighted = [
            cell.plain[s.start : s.end]
            for row in screen.sides.rows
            for cell in row
            if cell is not None
            for s in cell.spans
            if s.style == MATCH_STYLE
        ]
        assert highlighted and all(h.lower() == "maoi" for h in highlighted)
        seen = [pane.scroll_y]
        for _ in range(len(rows) + 3):  # through this item's matches and on to the next item
            await pilot.press("n")
            await settle(app, pilot)
            if screen.row.item_id != "pharm-0020":
                break
            seen.append(pane.scroll_y)
        assert screen.row.item_id == "pharm-0187"
        assert seen == sorted(seen) and len(set(seen)) > 1  # moved down through the item
        assert pane.scroll_y == min(screen._row_starts()[screen.match_rows[0]], pane.max_scroll_y)
        await pilot.press("N")  # back: the previous item's last match
        await settle(app, pilot)
        assert screen.row.item_id == "pharm-0020"
        starts = screen._row_starts()
        assert pane.scroll_y == min(starts[screen.match_rows[-1]], pane.max_scroll_y)


def test_a_graders_match_is_shown_with_its_side_even_when_the_text_holds_a_nul():
    from evaltui.ui.search import SearchIndex

    index = SearchIndex(total=2)
    index.add(
        [7, 8],
        {
            "baseline output": ["a", "b"],
            "candidate output": ["c", "d"],
            "target": [None, None],
            "baseline grader": ["cites\x00the wrong page", None],
            "candidate grader": ["fine", "skips the dosage"],
        },
    )
    assert index.matches("wrong page") == frozenset({7})
    assert index.where(7, "wrong page") == ("baseline grader", "cites the wrong page")
    assert index.matches("dosage") == frozenset({8})
    assert index.where(8, "dosage") == ("candidate grader", "skips the dosage")
