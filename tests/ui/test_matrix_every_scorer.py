"""A run set of two-scorer logs in the app (issue 24): the matrix's header is the set's decision
read over every scorer (the worst candidate and scorer that regressed, each candidate's number
named by its scorer), the set opens on the scorer that blocks (as a pair does), so the matrix,
the omnibus test and each pair's list are that scorer's, and they say so.

Runs: the real Inspect AI 0.3.285 logs of tests/data/inspect_ai/two_scorers (baseline,
candidate, candidate2), whose second scorer `safe_advice` regresses in both candidates."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evaltui.core.analysis.run_set import compare_runs, on_metric
from evaltui.core.record.session import judge_run_set
from evaltui.core.verify.run_set import verify_run_set_record
from evaltui.ui.screens.matrix import MatrixScreen
from tests.conftest import DATA
from tests.ui.helpers import listed_ids, screen_lines, settle, text_of, written
from tests.ui.test_matrix_flow import matrix_app
from tests.ui.test_matrix_signoff import error_of, fill, open_set_signoff

SET = DATA / "inspect_ai" / "two_scorers"
RUNS = tuple(SET / f"{name}.eval" for name in ("baseline", "candidate", "candidate2"))
SIZES = [pytest.param((80, 24), id="80x24"), pytest.param((160, 48), id="160x48")]


@pytest.mark.slow
@pytest.mark.parametrize("size", SIZES)
async def test_the_matrix_header_names_the_worst_candidate_and_scorer(
    tmp_path: Path, monkeypatch, size: tuple[int, int]
) -> None:
    monkeypatch.setenv("EVALTUI_STATE_DIR", str(tmp_path / "state"))
    app = matrix_app(tmp_path / "state", runs=RUNS)
    async with app.run_test(size=size) as pilot:
        await settle(app, pilot)
        assert isinstance(app.screen, MatrixScreen)
        # Opened on safe_advice, the scorer that blocks (answered, the first, saw no change).
        assert app.run_set.metric == "passed:safe_advice"
        notes = [n.message for n in app._notifications]
        assert "showing safe_advice: the scorer that blocks (--metric NAME: another)" in notes
        moved = on_metric(compare_runs(app.config.run_set), "passed:safe_advice")
        expected = judge_run_set(moved, state_root=tmp_path / "state")
        header = text_of(app, "#matrix-decision").strip()
        assert header == expected.line
        assert header.startswith(
            "BLOCKED · 3 runs against baseline · candidate2 regressed on safe_advice"
        )
        assert "candidate2: blocked, safe_advice -33.3 pts [-45.9, -22.7], regressed" in header
        assert "candidate: blocked, safe_advice -25.0 pts [-37.2, -15.8], regressed" in header
        # On screen, whatever the width: the status word and the worst candidate and scorer.
        shown = " ".join(" ".join(screen_lines(app)).split())
        assert "BLOCKED · 3 runs against baseline · candidate2 regressed on safe_advice" in shown
        assert "Cochran's Q on safe_advice" in text_of(app, "#matrix-omnibus")
        # The cells are the compared scorer's, and the words below them say so.
        words = text_of(app, "#matrix-pair")
        assert words.startswith("candidate vs baseline on safe_advice: ▼ -25.0 pts")
        await pilot.press("down")
        words = text_of(app, "#matrix-pair")
        assert words.startswith("candidate2 vs baseline on safe_advice: ▼ -33.3 pts")
        assert "BLOCKED · safe_advice regressed · 20 of 20 untriaged" in words


@pytest.mark.slow  # a variant of a flow the default run covers (the suite's CPU budget); CI runs it
async def test_a_pair_of_the_set_lists_the_regressions_of_the_scorer_that_blocks(
    tmp_path: Path, monkeypatch
) -> None:
    monkeypatch.setenv("EVALTUI_STATE_DIR", str(tmp_path / "state"))
    app = matrix_app(tmp_path / "state", runs=RUNS)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        await pilot.press("down", "enter")  # candidate2 against baseline
        await settle(app, pilot)
        assert listed_ids(app) == [f"drug-{i:02d}" for i in range(0, 60, 3)]
        lines = screen_lines(app)
        assert lines[0].strip().startswith("BLOCKED · safe_advice regressed · 20 of 20 untriaged")
        # m goes back to the matrix here: no line offers it as the next metric.
        assert not any("m: next" in line or "(m)" in line for line in lines)


async def _on_candidate2(pilot):
    await settle(pilot.app, pilot)
    assert isinstance(pilot.app.screen, MatrixScreen)
    await pilot.press("down")  # (2, 0): candidate2 against baseline, the worst pair
    pilot.app.clear_notifications()  # (the toast times out: the Pilot test reads it)
    await pilot.pause()


@pytest.mark.slow
@pytest.mark.parametrize("size", SIZES)
def test_two_scorer_matrix_snapshot(snap_compare, tmp_path, monkeypatch, size):
    monkeypatch.setenv("EVALTUI_STATE_DIR", str(tmp_path / "state"))
    app = matrix_app(tmp_path / "state", runs=RUNS)
    assert snap_compare(app, terminal_size=size, run_before=_on_candidate2)


@pytest.mark.slow  # a variant of the sign-off flow test_matrix_signoff covers; CI runs it
async def test_the_set_dialog_refuses_an_approval_over_a_regressed_scorer_without_a_reason(
    tmp_path: Path, monkeypatch
) -> None:
    monkeypatch.setenv("EVALTUI_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.setenv("EVALTUI_REVIEWER", "dana")
    app = matrix_app(tmp_path / "state", runs=RUNS)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(app, pilot)
        screen = await open_set_signoff(app, pilot)
        over = " ".join(text_of(app, "#override-what").split())
        assert "candidate vs baseline: the candidate regressed on safe_advice" in over
        assert "candidate2 vs baseline: the candidate regressed on safe_advice" in over
        prefix = tmp_path / "approved"
        await fill(pilot, screen, "approve", prefix, "ship both")
        await pilot.press("ctrl+s")
        await written(app, pilot)
        assert app.screen is screen
        assert error_of(screen).startswith(
            "Not written: candidate vs baseline: the candidate regressed on safe_advice"
        )
        assert not list(tmp_path.glob("approved*"))
        screen.query_one("#override").value = "safe_advice misfires on these prompts"
        await pilot.press("ctrl+s")
        await written(app, pilot)
        assert isinstance(app.screen, MatrixScreen), error_of(screen)
    record = json.loads((tmp_path / "approved.json").read_text(encoding="utf-8"))
    # Opened on safe_advice, the compared scorer is the one overridden, named.
    overrides = [p["record"]["override"] for p in record["pairs"]]
    assert [o["regressed_scorer"] for o in overrides] == ["safe_advice", "safe_advice"]
    assert all(
        "the candidate regressed on safe_advice (the interval lies below zero)" in o["overrides"]
        for o in overrides
    )
    assert verify_run_set_record(record, list(RUNS)).ok
