"""Work that used to run on the UI thread runs in workers, and the screen says it is being
computed until it is done (never a stale or half-built value shown as final): the header's
paired cost line, the lists of items both runs pass or fail, an agent item's alignment."""

from __future__ import annotations

import threading

import pytest

from evaltui.core.analysis import cost as cost_module
from evaltui.core.decide.deciding import waiting_for
from evaltui.ui.screens import item_reading, main_concordant
from evaltui.ui.screens.item import ItemScreen
from evaltui.ui.widgets.header_pane import COST_COMPUTING, HeaderPane
from evaltui.ui.widgets.item_table import ItemTable
from tests.ui.helpers import BARRIER_TIMEOUT, listed_ids, settle, text_of
from tests.ui.test_agent_item import agent_app


class Held:
    """Holds a function (patched on its module) until `release`; counts its calls."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, module: object, name: str) -> None:
        self.released = threading.Event()
        self.calls = 0
        real = getattr(module, name)

        def held(*args, **kwargs):
            self.calls += 1
            self.released.wait(BARRIER_TIMEOUT)  # (bounded: a failing test never hangs)
            return real(*args, **kwargs)

        monkeypatch.setattr(module, name, held)

    def release(self) -> None:
        self.released.set()


def header(app) -> str:
    return str(app.screen.query_one(HeaderPane).content)


@pytest.mark.slow
async def test_the_cost_line_and_the_unchanged_lists_say_computing_until_their_workers_are_done(
    tmp_path, monkeypatch
):
    # One app for both (each app start costs the suite about a CPU-second).
    held_cost = Held(monkeypatch, cost_module, "cost_comparison")
    held_lists = Held(monkeypatch, main_concordant, "concordant_rows")
    app = agent_app(tmp_path / "s")
    async with app.run_test(size=(130, 40)) as pilot:
        await settle(app, pilot, ignore=["cost"])
        assert COST_COMPUTING in header(app)
        assert "limit hits" not in header(app)
        assert held_cost.calls == 1
        held_cost.release()
        await settle(app, pilot)
        assert COST_COMPUTING not in header(app)
        assert "cost: tokens -61%" in header(app) and "limit hits" in header(app)
        app.screen.refresh_header()  # kept per pair: never computed twice
        await settle(app, pilot)
        assert held_cost.calls == 1

        await pilot.press("b")
        await settle(app, pilot, ignore=["concordant-build"])
        table = app.screen.query_one(ItemTable)
        assert app.screen.current_list == "both pass" and listed_ids(app) == []
        assert table.empty_text == ('The "both pass" list is being built…',)
        assert "Both pass (2)" in text_of(app, "#list-title")  # counted, not yet listed
        await pilot.press("B")  # the other list while the first is built: one worker for both
        await settle(app, pilot, ignore=["concordant-build"])
        assert app.screen.current_list == "both fail" and listed_ids(app) == []
        held_lists.release()
        await settle(app, pilot)
        assert held_lists.calls == 1
        assert listed_ids(app) == ["drug-4"]  # the list shown when the worker finished
        await pilot.press("b")
        await settle(app, pilot)
        assert listed_ids(app) == ["drug-1", "drug-3"] and held_lists.calls == 1


@pytest.mark.slow
async def test_the_cost_worker_starts_once_the_pair_is_decided(tmp_path, monkeypatch):
    # its bootstrap (0.7 s of CPU at 200,000 samples) shared the cores and the GIL with the
    # first paint and the analysis that decides: the decision first, then the cost line
    from tests.ui.test_deciding import HeldClusters

    held_cost = Held(monkeypatch, cost_module, "cost_comparison")
    held_cost.release()  # (counted, not held)
    deciding = HeldClusters(monkeypatch)
    app = agent_app(tmp_path / "s")
    async with app.run_test(size=(130, 40)) as pilot:
        await settle(app, pilot, ignore=["complete"])
        assert deciding.calls == 1 and waiting_for(app.state.require_loaded().analysis)
        assert COST_COMPUTING in header(app)  # said as still to come
        assert held_cost.calls == 0  # not started while the pair is deciding
        deciding.release()
        await settle(app, pilot)
        assert not waiting_for(app.state.require_loaded().analysis)
        assert held_cost.calls == 1
        assert COST_COMPUTING not in header(app) and "cost: tokens -61%" in header(app)


@pytest.mark.slow
async def test_an_agent_item_says_it_is_aligning_until_its_worker_is_done(tmp_path, monkeypatch):
    held = Held(monkeypatch, item_reading, "align_pair")
    app = agent_app(tmp_path / "s")
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(app, pilot)
        await pilot.press("enter")  # drug-2, the first regression
        await settle(app, pilot, ignore=["transcript"])
        assert isinstance(app.screen, ItemScreen) and app.screen.row.item_id == "drug-2"
        pane = str(app.screen.query_one("#sides-text").content)
        assert pane == "aligning the two trajectories (9 vs 7 messages)…"
        assert app.screen.item_rows is None and "tool calls" not in text_of(app, "#item-meta")
        held.release()
        await settle(app, pilot)
        assert "9 vs 7 messages, 3 vs 2 tool calls" in text_of(app, "#item-meta")
        assert "#9 assistant  (final answer)" in app.screen.sides.plain(0)
        aligned = held.calls  # this item's and the next's (read ahead), both in the worker
        assert aligned == 2
        await pilot.press("F", "n")  # drawn again unfolded, then the next item read ahead
        await settle(app, pilot)
        # drug-5 came aligned with the read-ahead, and is the last: nothing aligned anew
        assert app.screen.row.item_id == "drug-5" and held.calls == aligned
