"""The app reads every scorer: a two-scorer log opens on a blocked line naming the scorer that
regressed, the full header lists each scorer with its own effect and verdict, and `m` moves the
list to that scorer's regressions."""

from __future__ import annotations

from pathlib import Path

import pytest

from evaltui.ui.app import AppConfig, create_app
from tests.conftest import DATA
from tests.ui.helpers import listed_ids, screen_lines, settle

PAIR = DATA / "inspect_ai" / "two_scorers"


def pair_config(tmp_path: Path) -> AppConfig:
    return AppConfig.for_pair(
        PAIR / "baseline.eval", PAIR / "candidate.eval", state_root=tmp_path / "state"
    )


@pytest.mark.slow
async def test_two_scorer_pair_opens_on_the_regressions_of_the_scorer_that_blocks(
    tmp_path: Path,
) -> None:
    """answered (the first scorer) has no regressions; safe_advice blocks: the first list a
    reviewer reads is safe_advice's 15, its title names the scorer, and `m` goes back."""
    app = create_app(pair_config(tmp_path))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        assert app.state.loaded.analysis.metric == "passed:safe_advice"
        assert listed_ids(app) == [f"drug-{i:02d}" for i in range(0, 60, 4)]
        lines = screen_lines(app)
        assert lines[0].strip().startswith("BLOCKED · safe_advice regressed · 15 of 15 untriaged")
        assert any(line.lstrip().startswith("safe_advice (m)  Regressions (15)") for line in lines)
        if not any("Metrics (m: next)" in line for line in lines):
            await pilot.press("h")  # the full header lists every scorer
            await settle(app, pilot)
            lines = screen_lines(app)
        metrics = next(line for line in lines if "Metrics (m: next)" in line)
        assert "answered +0.0 pts" in metrics and "▶[safe_advice] -25.0 pts" in metrics
        await pilot.press("m")  # the reviewer's choice: answered, and it stays there
        await settle(app, pilot)
        assert app.state.loaded.analysis.metric == "passed"
        assert listed_ids(app) == []
        lines = screen_lines(app)
        assert lines[0].strip().startswith("BLOCKED · safe_advice regressed -25.0 pts")
        assert any("Regressions on the other metrics: safe_advice 15" in line for line in lines)
        assert any(line.lstrip().startswith("answered (m)  Regressions (0)") for line in lines)


async def test_a_pair_whose_compared_scorer_blocks_stays_on_it(tmp_path: Path) -> None:
    """Opened on safe_advice (--metric): it regressed itself, so the app does not move."""
    config = AppConfig.for_pair(
        PAIR / "baseline.eval",
        PAIR / "candidate.eval",
        state_root=tmp_path / "state",
        metric="safe_advice",
    )
    app = create_app(config)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        assert len(listed_ids(app)) == 15
        assert app.state.metric_chosen  # (decided once: no later switch for the reviewer)
