"""Tens of thousands of discordant items: the lists still move, filter, search and open."""

from __future__ import annotations

import json

import pytest

from evaltui.ui.app import AppConfig, create_app
from evaltui.ui.screens.item import ItemScreen
from evaltui.ui.widgets.item_table import ItemTable
from tests.ui.helpers import listed_ids, settle, side_text


def big_pair(tmp_path, n=40_000):
    base_lines, cand_lines = [], []
    for i in range(n):
        flipped = i % 3 != 2  # two thirds of the items are discordant
        base = i % 2 == 0
        cand = (not base) if flipped else base
        word = "warfarin" if i % 10 == 0 else "shipping"
        record = {"item_id": f"q{i:05d}", "slice": f"s{i % 4}", "input": f"{word} question {i}"}
        base_lines.append(json.dumps({**record, "passed": base}))
        cand_lines.append(json.dumps({**record, "passed": cand}))
    paths = []
    for name, lines in (("b.jsonl", base_lines), ("c.jsonl", cand_lines)):
        path = tmp_path / name
        path.write_text("\n".join(lines) + "\n")
        paths.append(path)
    return paths


@pytest.mark.slow
async def test_lists_with_tens_of_thousands_of_rows_stay_usable(tmp_path):
    base, cand = big_pair(tmp_path)
    app = create_app(AppConfig.for_pair(base, cand, state_root=tmp_path / "state"))
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(app, pilot)
        table = app.screen.query_one(ItemTable)
        regressions = len(app.loaded.analysis.regressions)
        assert regressions > 10_000 and len(table.rows) == regressions
        await pilot.press("G")
        assert table.cursor == regressions - 1
        assert table.scroll_y > 0  # the window followed the cursor to the end
        await pilot.press("home", "pagedown")
        assert table.cursor > 10
        await pilot.press("f")
        assert {r.slice for r in table.rows} == {"s0"}
        await pilot.press("escape", "slash", *"warfarin")
        assert all("warfarin" in r.search_text for r in table.rows)
        assert 0 < len(listed_ids(app)) < regressions
        await pilot.press("enter", "G", "enter")
        await settle(app, pilot)
        assert isinstance(app.screen, ItemScreen)
        assert app.screen.row.item_id == listed_ids_from(app.screen)
        await pilot.press("p")
        await settle(app, pilot)
        assert "warfarin" in side_text(app, "baseline")


def listed_ids_from(screen: ItemScreen) -> str:
    return screen.rows[-1].item_id
