"""The decision line leads the app, follows the reviewer's tags, and leads the sign-off dialog."""

from __future__ import annotations

import json

import pytest
from textual.widgets import Input, RadioButton, RadioSet, Static

from evaltui.cli.main import main
from evaltui.ui.screens.signoff import SignoffScreen
from tests.ui.helpers import SAMPLE, demo_app, settle, text_of, written

POLICY = SAMPLE[0].parent / "policy.toml"
DRUG = ("pharm-0020", "pharm-0103")  # two drug_interactions regressions (the list's 1st, 3rd)


def first_line(app) -> str:
    return text_of(app, "#header").strip().splitlines()[0]


@pytest.fixture(autouse=True)
def _reviewer(monkeypatch):
    monkeypatch.setenv("EVALTUI_REVIEWER", "dana")


@pytest.mark.slow  # over a CPU-second: out of the default run's budget, in CI
async def test_demo_with_policy_opens_blocked_naming_the_gates_and_tags_change_it(tmp_path):
    app = demo_app(tmp_path / "state", policy=POLICY)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        line = first_line(app)
        assert line.startswith("BLOCKED · 2 gates failed (no regressions in drug_interactions")
        assert app.loaded.decision.status == "blocked"
        assert "confirmed" not in line
        await pilot.press("1")  # tag the first regression "confirmed regression"
        await settle(app, pilot)
        await pilot.press("j", "j", "1")
        await settle(app, pilot)
        line = first_line(app)
        assert "2 confirmed regressions (drug_interactions)" in line
        assert "by tag: confirmed regression 2" in text_of(app, "#header")
        journal = app.loaded.session.path.read_text().splitlines()
        tags = [json.loads(x) for x in journal if '"kind":"tag"' in x]
        assert {t["item_id"] for t in tags} == set(DRUG)
        assert {t["by"] for t in tags} == {"dana"}  # who tagged is journalled


@pytest.mark.slow
async def test_grader_error_tags_show_a_labelled_sensitivity_line(tmp_path):
    app = demo_app(tmp_path / "state")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        before = app.loaded.analysis.headline
        await pilot.press("3")  # "grader error"
        await settle(app, pilot)
        header = text_of(app, "#header")
        assert "sensitivity without the 1 grader-error item:" in header
        assert app.loaded.analysis.headline == before  # beside the headline, not instead
        assert "1 grader error" in first_line(app)


@pytest.mark.slow
async def test_signoff_dialog_leads_with_the_decision_and_preselects_nothing(tmp_path):
    app = demo_app(tmp_path / "state", policy=POLICY)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        await pilot.press("x")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, SignoffScreen)
        decision = str(screen.query_one("#signoff-decision", Static).content)
        assert decision.strip() == app.loaded.decision.line
        assert not any(b.value for b in screen.query(RadioButton))
        assert screen.query_one("#signoff-box").scroll_y == 0  # opens at its top
        over = str(screen.query_one("#override-what", Static).content)
        assert "2 release gate(s) failed" in over and "9 of 9 regressions are untriaged" in over
        screen.query_one("#rationale").load_text("ship it")
        screen.query_one("#prefix", Input).value = str(tmp_path / "so")
        await pilot.press("ctrl+s")
        await written(app, pilot)
        error = str(screen.query_one("#signoff-error", Static).content)
        assert "choose your decision first" in error
        assert isinstance(app.focused.parent if app.focused else None, RadioSet) or isinstance(
            app.focused, RadioSet
        )
        screen.query_one("#decision-approve", RadioButton).value = True
        await pilot.press("ctrl+s")
        await written(app, pilot)
        error = str(screen.query_one("#signoff-error", Static).content)
        assert "override reason in this dialog" in error and "--override" not in error
        assert app.focused is screen.query_one("#override", Input)
        assert not (tmp_path / "so.json").exists()


def test_report_prints_the_decision_line_first_and_exits_with_its_code(capsys, tmp_path):
    args = ["report", *map(str, SAMPLE), "--policy", str(POLICY)]
    code = main(args)
    text = capsys.readouterr().out
    assert code == 1
    assert text.splitlines()[0].startswith("BLOCKED · 2 gates failed (no regressions in")
    assert main([*args, "--format", "markdown"]) == 1
    markdown = capsys.readouterr().out
    assert markdown.startswith("## BLOCKED · 2 gates failed (no regressions in drug\\_interactions")
    assert main([*args, "--format", "json"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert report["decision"]["exit_code"] == 1
    assert report["decision"]["line"].startswith("BLOCKED · 2 gates failed")


async def _signoff_open(pilot):
    await settle(pilot.app, pilot)
    await pilot.press("x")
    await pilot.pause()
    pilot.app.screen.query_one("#prefix", Input).value = "signoff-demo"
    await pilot.pause()


@pytest.mark.slow
def test_signoff_dialog_top_snapshot(snap_compare, tmp_path, monkeypatch):
    monkeypatch.setenv("EVALTUI_REVIEWER", "dana")
    app = demo_app(tmp_path / "state", policy=POLICY)
    assert snap_compare(app, terminal_size=(80, 24), run_before=_signoff_open)


@pytest.mark.slow  # over a CPU-second: out of the default run's budget, in CI
async def test_the_chosen_decision_is_marked_by_a_character_not_only_colour(tmp_path, monkeypatch):
    monkeypatch.setenv("NO_COLOR", "1")
    app = demo_app(tmp_path / "state")
    async with app.run_test(size=(100, 40)) as pilot:
        await settle(app, pilot)
        await pilot.press("x")
        await pilot.pause()
        buttons = {b.id: b for b in app.screen.query(RadioButton)}
        assert {str(b._button) for b in buttons.values()} == {"▐○▌"}
        buttons["decision-block"].value = True
        await pilot.pause()
        marks = {i: str(b._button) for i, b in buttons.items()}
        assert marks == {
            "decision-approve": "▐○▌",
            "decision-block": "▐●▌",
            "decision-needs-more-data": "▐○▌",
        }
