"""The app with a release policy: gates in the header, failed gate's items and slices one key away,
the metric switcher, and gates that follow the reviewer's tags."""

from __future__ import annotations

import pytest

from evaltui.ui.app import AppConfig, create_app
from evaltui.ui.screens.gates import GatesScreen
from evaltui.ui.screens.main import MainScreen
from evaltui.ui.screens.slices import SlicesScreen
from tests.ui.helpers import SAMPLE, listed_ids, settle, text_of

POLICY = SAMPLE[0].parent / "policy.toml"


def policy_app(tmp_path):
    config = AppConfig.for_pair(SAMPLE[0], SAMPLE[1], state_root=tmp_path / "state", policy=POLICY)
    return create_app(config)


@pytest.mark.slow  # over a CPU-second: out of the default run's budget, in CI
async def test_failed_gate_and_its_items_are_one_key_away(tmp_path):
    app = policy_app(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        header = text_of(app, "#header")
        assert "gates (g): ✗ 2 failed" in header and "no regressions in drug_interactions" in header
        await pilot.press("g")
        await pilot.pause()
        assert isinstance(app.screen, GatesScreen)
        await pilot.press("enter")  # the first gate: no regressions in drug_interactions
        await pilot.pause()
        assert isinstance(app.screen, MainScreen)
        ids = listed_ids(app)
        assert len(ids) == 7
        assert {r.slice for r in app.screen.query_one("ItemTable").rows} == {"drug_interactions"}
        assert "gate: no regressions in drug_interactions" in text_of(app, "#list-title")


@pytest.mark.slow
async def test_slices_screen_shows_forest_and_filters_the_list(tmp_path):
    app = policy_app(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        await pilot.press("l")
        await pilot.pause()
        assert isinstance(app.screen, SlicesScreen)
        options = app.screen.query_one("#slice-list")
        prompts = [str(options.get_option_at_index(i).prompt) for i in range(options.option_count)]
        assert prompts[0].startswith("overall") and "●" in prompts[0]
        drug = next(i for i, p in enumerate(prompts) if p.startswith("drug_interacti"))
        assert "7/1" in prompts[drug] and "-20.0" in prompts[drug]
        options.highlighted = drug
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, MainScreen) and len(listed_ids(app)) == 7


@pytest.mark.slow
async def test_gates_follow_tags(tmp_path):
    app = policy_app(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        triage = next(g for g in app.loaded.gates if g.kind == "all_triaged")
        assert triage.status == "pending"
        for _ in range(9):
            await pilot.press("2", "j")  # acceptable
        await settle(app, pilot)  # gates are re-evaluated in a worker after each tag
        triage = next(g for g in app.loaded.gates if g.kind == "all_triaged")
        assert triage.status == "passed"
        await pilot.press("home", "1")  # a confirmed regression in drug_interactions
        await settle(app, pilot)
        tag_gate = next(g for g in app.loaded.gates if g.kind == "no_tag")
        assert tag_gate.status == "failed"
        assert "✗ 3 failed" in text_of(app, "#header")


@pytest.mark.slow
async def test_metric_switcher_reanalyses_on_the_next_metric(tmp_path, write_jsonl):
    base, cand = [], []
    for i in range(60):
        base.append({"item_id": f"m{i}", "passed": i % 3 != 0, "score:judge": 3 + i % 3})
        cand.append({"item_id": f"m{i}", "passed": i % 4 != 0, "score:judge": 2 + i % 3})
    app = create_app(
        AppConfig.for_pair(
            write_jsonl("b.jsonl", base),
            write_jsonl("c.jsonl", cand),
            state_root=tmp_path / "state",
        )
    )
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        # The judge score blocks and passed did not regress: the app opens on the judge's
        # regressions (every metric decides; the first line names it).
        assert app.loaded.analysis.metric == "score:judge"
        assert app.loaded.analysis.kind == "graded"
        header = text_of(app, "#header")
        assert header.lstrip().startswith("BLOCKED · judge regressed")
        assert "Candidate mean Δ -1.000" in header
        assert "Metrics (m: next): passed +8.3 pts" in header
        assert "│ ▶[judge] -1.000 [-1.000, -1.000], regressed" in header
        assert len(listed_ids(app)) == 60
        await pilot.press("m")
        await settle(app, pilot)
        assert app.loaded.analysis.metric == "passed"
        assert text_of(app, "#header").lstrip().startswith("BLOCKED · judge regressed -1.000")
        await pilot.press("m")
        await settle(app, pilot)
        assert app.loaded.analysis.metric == "score:judge"


@pytest.mark.slow  # over a CPU-second: out of the default run's budget, in CI
async def test_changed_policy_is_warned_about_in_the_app(tmp_path):
    app = policy_app(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
    edited = tmp_path / "policy.toml"
    edited.write_text(POLICY.read_text().replace("min_effect = 0.02", "min_effect = 0.01"))
    config = AppConfig.for_pair(SAMPLE[0], SAMPLE[1], state_root=tmp_path / "state", policy=edited)
    again = create_app(config)
    async with again.run_test(size=(120, 40)) as pilot:
        await settle(again, pilot)
        assert "the policy changed since this review started" in text_of(again, "#header")
