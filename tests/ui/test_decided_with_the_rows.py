"""The analysis that decides, done before the list rows are: the loading worker takes it
(`Completion.ready`), so the first screen with a header shows the decision itself, never a
DECIDING… frame, computed once, the same decision as when it arrives after the first screen."""

from __future__ import annotations

import threading

import pytest

import evaltui.core.analysis.pipeline as pipeline
import evaltui.ui.lock_choice as lock_choice
from evaltui.core.decide.deciding import waiting_for
from evaltui.ui.app import create_app
from evaltui.ui.widgets.header_pane import HeaderPane
from tests.ui.helpers import BARRIER_TIMEOUT, demo_app, listed_ids, settle
from tests.ui.test_deciding import FrameLog, HeldClusters, clustered_app
from tests.ui.test_every_scorer_screen import pair_config


class RowsAfterTheDecision:
    """The rows are built only once the analysis that decides is complete (a test hook on
    `complete_analysis` and `lock_choice.list_rows`)."""

    def __init__(self, monkeypatch) -> None:
        self.completed = threading.Event()
        self.calls = 0
        complete, rows = pipeline.complete_analysis, lock_choice.list_rows

        def counted(*args, **kwargs):
            self.calls += 1
            try:
                return complete(*args, **kwargs)
            finally:
                self.completed.set()

        def held(*args, **kwargs):
            self.completed.wait(BARRIER_TIMEOUT)  # (bounded: a failing test never hangs)
            return rows(*args, **kwargs)

        monkeypatch.setattr(pipeline, "complete_analysis", counted)
        monkeypatch.setattr(lock_choice, "list_rows", held)


def header_of(app) -> str:
    return str(app.screen.query_one(HeaderPane).content)


async def test_a_decision_ready_before_the_rows_is_on_the_first_screen_without_deciding(
    tmp_path, monkeypatch
):
    hold = RowsAfterTheDecision(monkeypatch)
    app = demo_app(tmp_path / "state")
    log = FrameLog(app)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        header = header_of(app)
        assert app.loaded is not None and not waiting_for(app.loaded.analysis)
    with_header = [frame for frame in log.frames if frame.header]
    assert with_header, "no frame showed the header"
    assert not any("DECIDING…" in line for frame in with_header for line in frame.header)
    assert hold.calls == 1  # computed once, in the thread the loading worker started
    assert header.startswith(" NEEDS REVIEW ") and "NO SIGNIFICANT DIFFERENCE" in header


@pytest.mark.slow
async def test_the_decision_taken_with_the_rows_is_the_one_that_arrives_after_them(
    tmp_path, monkeypatch
):
    """The clustered pair decided both ways (the clusters held until the first screen is up,
    or done before its rows): the same header line, BLOCKED."""
    RowsAfterTheDecision(monkeypatch)
    app = clustered_app(tmp_path / "early")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        early = header_of(app).splitlines()[0]
    monkeypatch.undo()
    held = HeldClusters(monkeypatch)
    app = clustered_app(tmp_path / "late")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot, ignore=["complete"])
        assert "DECIDING…" in header_of(app)
        held.release()
        await settle(app, pilot)
        late = header_of(app).splitlines()[0]
    assert early == late and early.startswith(" BLOCKED ")


async def test_a_pair_decided_with_its_rows_still_opens_on_the_scorer_that_blocks(
    tmp_path, monkeypatch
):
    """As `test_every_scorer_screen`'s two-scorer pair, its decision taken with the rows: the
    first list is still safe_advice's 15 regressions (`open_on_blocking_metric` at adoption)."""
    RowsAfterTheDecision(monkeypatch)
    app = create_app(pair_config(tmp_path))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        assert app.state.loaded.analysis.metric == "passed:safe_advice"
        assert listed_ids(app) == [f"drug-{i:02d}" for i in range(0, 60, 4)]
        assert app.state.metric_chosen
