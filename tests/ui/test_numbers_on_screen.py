"""Numbers in the app keep their meaning: slice intervals to the decimal the report uses,
thousands separators on every count, plurals, a unit on every delta (points for pass rates,
never proportions beside points), and p-values whole however narrow the terminal."""

from __future__ import annotations

import pytest

from evaltui.core.words import format_p
from evaltui.ui.app import AppConfig, create_app
from evaltui.ui.screens.item import ItemScreen
from evaltui.ui.screens.slices import SlicesScreen
from tests.cli.test_graded_report import CLAUDE, GPT5
from tests.ui.helpers import SAMPLE, screen_lines, settle, text_of

POLICY = SAMPLE[0].parent / "policy.toml"


def policy_app(tmp_path):
    config = AppConfig.for_pair(SAMPLE[0], SAMPLE[1], state_root=tmp_path / "state", policy=POLICY)
    return create_app(config)


@pytest.mark.parametrize(
    "width",
    [80, 60, pytest.param(160, marks=pytest.mark.slow)],  # (the wide one in CI)
)
async def test_slice_intervals_keep_a_decimal_and_p_values_are_never_cut(tmp_path, width):
    app = policy_app(tmp_path)
    async with app.run_test(size=(width, 40)) as pilot:
        await settle(app, pilot)
        await pilot.press("l")
        await settle(app, pilot)
        assert isinstance(app.screen, SlicesScreen)
        lines = screen_lines(app)
        analysis = app.loaded.analysis
        primary = next(r for r in analysis.metrics if r.metric == analysis.metric)
        for s in analysis.slices:
            name = "overall" if s.is_overall else s.name[:7]
            row = next(line for line in lines if f"   {name}" in line or f"▶ {name}" in line)
            # whole, on the slice's line; the overall row's is the header's (cluster-aware) p
            p = primary.p_adjusted if s.is_overall else s.p_adjusted
            assert format_p(p) in row, (s.name, row)
        drug = next(line for line in lines if "drug_in" in line and "7/1" in line)
        assert "[-37.4, -1.3]" in drug and "-20.0" in drug  # not [-37, -1]
        overall = next(line for line in lines if "overall" in line and "9/21" in line)
        assert "[-0.7, +12.4]" in overall  # the header's interval, not the item-level [+0.6, ..]


@pytest.mark.slow  # over a CPU-second: out of the default run's budget, in CI
async def test_counts_carry_thousands_separators(tmp_path, write_jsonl):
    base = [
        {"item_id": f"q{i}", "passed": i < 1300 or i >= 1400, "slice": f"s{i % 2}"}
        for i in range(2400)
    ]
    cand = [{**r, "passed": 1200 <= i < 1400 or i >= 1400} for i, r in enumerate(base)]
    app = create_app(
        AppConfig.for_pair(
            write_jsonl("b.jsonl", base), write_jsonl("c.jsonl", cand), state_root=tmp_path / "s"
        )
    )
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(app, pilot)
        if app.screen.header_is_folded:
            await pilot.press("h")  # the full header
            await settle(app, pilot)
        header = text_of(app, "#header")
        assert "regressions 1,200" in header and "n 2,400" in header
        assert "both pass 1,100" in header
        assert "Triage: 0 of 1,200 regressions triaged" in header
        title = text_of(app, "#list-title")
        assert "Regressions (1,200)" in title and "showing 1,200" in title
        await pilot.press("enter")
        await settle(app, pilot)
        assert "Regression 1/1,200" in text_of(app, "#item-meta")
        await pilot.press("escape", "l")
        await settle(app, pilot)
        assert isinstance(app.screen, SlicesScreen)
        rows = [line for line in screen_lines(app) if "600/50" in line]  # s0 and s1
        assert len(rows) == 2 and all("1,200" in r for r in rows)
        assert any("2,400" in line and "1,200/100" in line for line in screen_lines(app))


@pytest.mark.slow
async def test_one_regression_is_one_regression(tmp_path, write_jsonl):
    base = [{"item_id": f"q{i}", "passed": i not in (1, 2)} for i in range(40)]
    cand = [{**r, "passed": i != 0} for i, r in enumerate(base)]  # q0 regressed
    app = create_app(
        AppConfig.for_pair(
            write_jsonl("b.jsonl", base), write_jsonl("c.jsonl", cand), state_root=tmp_path / "s"
        )
    )
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        assert len(app.views["regressions"].rows) == 1
        assert "Triage: 0 of 1 regression triaged" in text_of(app, "#header")
        await pilot.press("slash", *"zzz", "enter")
        await settle(app, pilot)
        assert "None of the 1 regression matches: search='zzz'." in "\n".join(screen_lines(app))


@pytest.mark.slow
async def test_every_delta_carries_its_unit_and_the_graded_header_one_scale(tmp_path):
    """A pass rate per item over epochs: the deltas are points everywhere, the means are
    percentages, never proportions beside points."""
    app = create_app(AppConfig.for_pair(GPT5, CLAUDE, state_root=tmp_path / "state"))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        header = text_of(app, "#header")
        assert "baseline mean 60.0% → candidate 66.0%" in header
        assert "percentile [+0.0, +18.0] pts" in header and "paired t [-7.6, +19.6] pts" in header
        assert "per-item Δ −60.0" in header and "+60.0 pts" in header
        assert "−0.6 " not in header  # the histogram's ends were proportions
        await pilot.press("i")
        await settle(app, pilot)
        lines = screen_lines(app)
        heading = next(line for line in lines if "input" in line and "tag" in line)
        assert "Δ pts" in heading
        assert any("+60.0" in line for line in lines) and not any("+0.60" in line for line in lines)
        await pilot.press("enter")
        await settle(app, pilot)
        assert isinstance(app.screen, ItemScreen)
        assert "Δ +60.0 pts" in text_of(app, "#item-meta")


@pytest.mark.slow
async def test_the_header_names_the_unit_of_its_intervals(tmp_path):
    app = policy_app(tmp_path)
    async with app.run_test(size=(200, 50)) as pilot:
        await settle(app, pilot)
        header = text_of(app, "#header")
        assert "unpaired (wrong test) [-2.1, +14.1] pts" in header
        clusters = "31 clusters (design effect 1.34): CI [-0.5, +11.8] pts, naive [+0.7, +11.3] pts"
        assert clusters in header
