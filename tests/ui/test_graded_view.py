"""The app on graded scores and epochs: bootstrap header, histogram, delta column and sort."""

from __future__ import annotations

import pytest

from evaltui.ui.app import AppConfig, create_app
from evaltui.ui.screens.item import ItemScreen
from evaltui.ui.widgets.item_table import ItemTable
from tests.cli.test_graded_report import CLAUDE, GPT5, rated_pair
from tests.ui.helpers import settle, text_of


@pytest.mark.slow
async def test_graded_header_shows_bootstrap_histogram_and_sorts_by_delta(tmp_path, write_jsonl):
    base, cand, _ = rated_pair(write_jsonl)
    app = create_app(AppConfig.for_pair(base, cand, state_root=tmp_path / "state"))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        header = text_of(app, "#header")
        # The drop sits in 2 of 20 clusters: the cluster-aware interval includes zero.
        assert header.lstrip().startswith("NEEDS REVIEW · 12 of 12 untriaged · overall mean Δ")
        assert "NO SIGNIFICANT DIFFERENCE" in header and "Candidate mean Δ -0.100" in header
        assert "wild cluster bootstrap-t 95%, 20 clusters" in header
        assert "item-level paired t [" in header
        assert "paired t [" in header and "Wilcoxon p" in header
        assert "per-item Δ −1" in header
        assert "20 clusters (design effect" in header
        table = app.screen.query_one(ItemTable)
        assert table.show_delta and len(table.rows) == 12
        assert [r.delta for r in table.rows] == sorted(r.delta for r in table.rows)
        await pilot.press("enter")
        await settle(app, pilot)
        assert isinstance(app.screen, ItemScreen)
        assert "Δ -1.000" in text_of(app, "#item-meta")


@pytest.mark.slow
async def test_epoch_pair_header_reports_epochs_and_within_item_variance(tmp_path):
    app = create_app(AppConfig.for_pair(GPT5, CLAUDE, state_root=tmp_path / "state"))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        header = text_of(app, "#header")
        assert "INSUFFICIENT DATA" in header and "Only 10 paired items" in header
        assert "epochs: baseline 5" in header and "of variance within items" in header
        await pilot.press("i", "enter")
        await settle(app, pilot)
        meta = text_of(app, "#item-meta")
        assert "0% of 5 epochs" in meta and "60% of 5 epochs" in meta
