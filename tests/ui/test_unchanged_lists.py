"""Every item browsable: besides regressions and improvements, the items both runs pass and
both fail, with the same search (ids, inputs, outputs) and the same item view."""

from __future__ import annotations

import pytest

from evaltui.ui.screens.item import ItemScreen
from tests.ui.helpers import listed_ids, settle, text_of
from tests.ui.test_agent_item import agent_app


@pytest.mark.slow
async def test_both_pass_and_both_fail_lists_open_search_and_drill_down(tmp_path):
    app = agent_app(tmp_path / "s")
    async with app.run_test(size=(130, 30)) as pilot:
        await settle(app, pilot)
        assert "Both pass (2)" in text_of(app, "#list-title")  # counted before it is built
        assert "both pass" not in app.state.views
        await pilot.press("b")
        await settle(app, pilot)
        assert listed_ids(app) == ["drug-1", "drug-3"]
        await pilot.press("B")
        await settle(app, pilot)
        assert listed_ids(app) == ["drug-4"]
        await pilot.press("b", "slash", *"parac", "enter")  # "paracetamol": in drug-1's output only
        await settle(app, pilot)
        assert listed_ids(app) == ["drug-1"]
        await pilot.press("enter")
        await settle(app, pilot)
        assert isinstance(app.screen, ItemScreen)
        assert text_of(app, "#item-meta").startswith("Item both runs pass 1/1 drug-1")
        await pilot.press("escape", "escape", "tab")  # Tab: the next list, as the help says
        await settle(app, pilot)
        assert app.screen.current_list == "both fail" and listed_ids(app) == ["drug-4"]
        await pilot.press("tab")  # round to the first
        await settle(app, pilot)
        assert app.screen.current_list == "regressions"
        assert listed_ids(app) == ["drug-2", "drug-5"]
        await pilot.press("shift+tab", "shift+tab")
        await settle(app, pilot)
        assert app.screen.current_list == "both pass" and listed_ids(app) == ["drug-1", "drug-3"]
