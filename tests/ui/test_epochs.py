"""Every epoch is reachable: on the real Inspect pair (10 ids x 5 epochs), the item screen
shows each epoch's verdict for both runs and opens any epoch's transcripts."""

from __future__ import annotations

import polars as pl
import pytest

from evaltui.ui.app import AppConfig, create_app
from evaltui.ui.screens.item import ItemScreen
from tests.cli.test_graded_report import CLAUDE, GPT5
from tests.ui.helpers import screen_lines, settle, side_text, text_of


def epoch_rows(run, item_id: str) -> list[int]:
    table = run.table.filter(pl.col("item_id") == item_id).sort("epoch")
    return table["row"].to_list()


@pytest.mark.slow  # over a CPU-second: out of the default run's budget, in CI
async def test_each_epochs_verdicts_show_and_any_epochs_transcripts_open(tmp_path):
    app = create_app(AppConfig.for_pair(GPT5, CLAUDE, state_root=tmp_path / "state"))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        await pilot.press("i", "enter")
        await settle(app, pilot)
        screen = app.screen
        assert isinstance(screen, ItemScreen) and screen.row.item_id == "5"
        meta = text_of(app, "#item-meta")
        assert "0% of 5 epochs" in meta and "60% of 5 epochs" in meta
        paired = app.loaded.analysis.paired
        base_rows = epoch_rows(paired.baseline, "5")
        cand_rows = epoch_rows(paired.candidate, "5")
        assert len(base_rows) == len(cand_rows) == 5

        def labels() -> tuple[str, str]:
            return (
                side_text(app, "baseline").splitlines()[0],
                side_text(app, "candidate").splitlines()[0],
            )

        # gpt-5 failed all five epochs (IIIII), claude passed 1, 2 and 5 (CCIIC).
        base_label, cand_label = labels()
        assert "epoch 1/5 [✗] ✗  ✗  ✗  ✗" in base_label
        assert "epoch 1/5 [✓] ✓  ✗  ✗  ✓" in cand_label
        on_screen = "\n".join(screen_lines(app))
        assert "epoch 1/5" in on_screen and "[✓] ✓  ✗  ✗  ✓" in on_screen

        def shown_rows():
            return screen.transcripts

        for epoch in range(5):
            expected = (
                paired.baseline.transcripts.read(base_rows[epoch]),
                paired.candidate.transcripts.read(cand_rows[epoch]),
            )
            assert shown_rows() == expected, epoch
            assert f"epoch {epoch + 1}/5" in labels()[1]
            await pilot.press("greater_than_sign")
            await settle(app, pilot)
        assert "epoch 1/5" in labels()[0]  # round again to the first
        await pilot.press("less_than_sign")
        await settle(app, pilot)
        assert "epoch 5/5" in labels()[0] and "✗  ✗  ✗  ✗ [✗]" in labels()[0]
        assert "✓  ✓  ✗  ✗ [✓]" in labels()[1]
        assert screen.transcripts[1] == paired.candidate.transcripts.read(cand_rows[4])
        await pilot.press("comma")  # the unshifted key too
        await settle(app, pilot)
        assert "epoch 4/5" in labels()[1] and "[✗]" in labels()[1]


@pytest.mark.slow
async def test_a_single_epoch_item_says_there_is_no_other_epoch(tmp_path):
    from tests.ui.helpers import demo_app

    app = demo_app(tmp_path / "state")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        await pilot.press("enter")
        await settle(app, pilot)
        before = app.screen.transcripts
        await pilot.press("greater_than_sign")
        await settle(app, pilot)
        assert app.screen.transcripts == before
        assert "epoch" not in side_text(app, "baseline").splitlines()[0]
