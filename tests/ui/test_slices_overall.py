"""The slices screen's overall row reads the pair as the header does: with clustered items, the
cluster-aware interval, verdict and p, not the item-level ones that ignore the clusters."""

from __future__ import annotations

import pytest

from evaltui.core.words import format_p, interval_digits, points
from evaltui.ui.app import AppConfig, create_app
from evaltui.ui.screens.slices import SlicesScreen
from tests.ui.helpers import SAMPLE, settle


@pytest.mark.slow
async def test_the_overall_row_shows_the_headers_cluster_aware_interval(tmp_path):
    app = create_app(AppConfig.for_pair(SAMPLE[0], SAMPLE[1], state_root=tmp_path / "state"))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        analysis = app.loaded.analysis
        assert analysis.clustered
        await pilot.press("l")
        await pilot.pause()
        assert isinstance(app.screen, SlicesScreen)
        options = app.screen.query_one("#slice-list")
        overall = str(options.get_option_at_index(0).prompt)
        lo, hi = analysis.decision_ci
        digits = interval_digits(lo, hi, True)
        assert f"[{points(lo, digits)}, {points(hi, digits)}]" in overall  # [-0.7, +12.4]
        item_level = analysis.binary.delta_ci
        assert f"[{points(item_level.lower, digits)}," not in overall  # not [+0.6, ...]
        row = next(r for r in analysis.metrics if r.metric == analysis.metric)
        assert format_p(row.p_raw) in overall  # the cluster-aware p (0.061), not 0.043
        assert analysis.verdict == "no_significant_difference" and "▲" not in overall
        title = str(app.screen.query_one("#slices-title").render())
        assert "wild cluster bootstrap-t" in title
