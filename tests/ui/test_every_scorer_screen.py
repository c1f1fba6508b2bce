"""The app reads every scorer: a two-scorer log opens on a blocked line naming the scorer that
regressed, the full header lists each scorer with its own effect and verdict, and `m` moves the
list to that scorer's regressions."""

from __future__ import annotations

from pathlib import Path

from evaltui.ui.app import AppConfig, create_app
from tests.conftest import DATA
from tests.ui.helpers import listed_ids, screen_lines, settle

PAIR = DATA / "inspect_ai" / "two_scorers"


async def test_two_scorer_pair_opens_blocked_on_safe_advice_and_m_lists_its_regressions(
    tmp_path: Path,
) -> None:
    config = AppConfig.for_pair(
        PAIR / "baseline.eval", PAIR / "candidate.eval", state_root=tmp_path / "state"
    )
    app = create_app(config)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        lines = screen_lines(app)
        assert lines[0].strip().startswith("BLOCKED · safe_advice regressed -25.0 pts")
        assert listed_ids(app) == []
        assert any("Regressions on the other metrics: safe_advice 15" in line for line in lines)
        if not any("Metrics (m: next)" in line for line in lines):
            await pilot.press("h")  # the full header lists every scorer
            await settle(app, pilot)
            lines = screen_lines(app)
        metrics = next(line for line in lines if "Metrics (m: next)" in line)
        assert "▶[answered] +0.0 pts" in metrics and "safe_advice -25.0 pts" in metrics
        await pilot.press("m")
        await settle(app, pilot)
        assert app.state.loaded.analysis.metric == "passed:safe_advice"
        assert listed_ids(app) == [f"drug-{i:02d}" for i in range(0, 60, 4)]
        assert (
            screen_lines(app)[0]
            .strip()
            .startswith("BLOCKED · safe_advice regressed · 15 of 15 untriaged")
        )
