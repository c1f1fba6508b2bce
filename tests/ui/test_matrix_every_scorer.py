"""A run set of two-scorer logs in the app (issue 24): the matrix's header is the set's decision
read over every scorer (the worst candidate and scorer that regressed, each candidate's number
named by its scorer), and the omnibus test and the matrix say which scorer they compare.

Runs: the real Inspect AI 0.3.285 logs of tests/data/inspect_ai/two_scorers (baseline,
candidate, candidate2), whose second scorer `safe_advice` regresses in both candidates."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evaltui.core.analysis.run_set import compare_runs
from evaltui.core.record.session import judge_run_set
from evaltui.core.verify.run_set import verify_run_set_record
from evaltui.ui.screens.matrix import MatrixScreen
from tests.conftest import DATA
from tests.ui.helpers import screen_lines, settle, text_of, written
from tests.ui.test_matrix_flow import matrix_app
from tests.ui.test_matrix_signoff import error_of, fill, open_set_signoff

SET = DATA / "inspect_ai" / "two_scorers"
RUNS = tuple(SET / f"{name}.eval" for name in ("baseline", "candidate", "candidate2"))
SIZES = [pytest.param((80, 24), id="80x24"), pytest.param((160, 48), id="160x48")]


@pytest.mark.parametrize("size", SIZES)
async def test_the_matrix_header_names_the_worst_candidate_and_scorer(
    tmp_path: Path, monkeypatch, size: tuple[int, int]
) -> None:
    monkeypatch.setenv("EVALTUI_STATE_DIR", str(tmp_path / "state"))
    app = matrix_app(tmp_path / "state", runs=RUNS)
    async with app.run_test(size=size) as pilot:
        await settle(app, pilot)
        assert isinstance(app.screen, MatrixScreen)
        expected = judge_run_set(compare_runs(app.config.run_set), state_root=tmp_path / "state")
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
        assert "Cochran's Q on answered" in text_of(app, "#matrix-omnibus")
        # The cells are the compared scorer's, and the words below them say so.
        assert text_of(app, "#matrix-pair").startswith("candidate vs baseline on answered: ")
        await pilot.press("down")
        words = text_of(app, "#matrix-pair")
        assert words.startswith("candidate2 vs baseline on answered: · +0.0 pts")
        assert "BLOCKED · safe_advice regressed -33.3 pts [-45.9, -22.7]" in words


async def _on_candidate2(pilot):
    await settle(pilot.app, pilot)
    assert isinstance(pilot.app.screen, MatrixScreen)
    await pilot.press("down")  # (2, 0): candidate2 against baseline, the worst pair
    await pilot.pause()


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
    assert [p["record"]["override"]["regressed_metrics"] for p in record["pairs"]] == [
        ["safe_advice"],
        ["safe_advice"],
    ]
    assert verify_run_set_record(record, list(RUNS)).ok
