"""A headless command never prints before the decision is final (issue 24, item 2): `report`
and `signoff` complete the analysis (clusters, metric family) before they decide, so no
deciding line is ever made and what they print is the clustered demo's final line, not the
item-level one the app's first screen would have ("improved", [+0.6, +11.5])."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evaltui.cli.main import main
from evaltui.core.analysis.pipeline import compare_files
from evaltui.core.decide.pair import decide_unreviewed
from evaltui.core.decide.vocabulary import FirstLine
from tests.conftest import SAMPLE_RUNS

BASE, CAND = SAMPLE_RUNS / "baseline.jsonl", SAMPLE_RUNS / "candidate.jsonl"


@pytest.fixture
def deciding_lines(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every deciding line made while the test runs (there must be none), with the state
    folder and the reviewer the commands need."""
    monkeypatch.setenv("EVALTUI_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.setenv("EVALTUI_REVIEWER", "Rita Reviewer")
    made: list[str] = []
    real = FirstLine.deciding.__func__  # type: ignore[attr-defined]

    def deciding(cls, waiting_for, *args, **kwargs):
        made.append(waiting_for)
        return real(cls, waiting_for, *args, **kwargs)

    monkeypatch.setattr(FirstLine, "deciding", classmethod(deciding))
    return made


def test_report_prints_the_final_line_only(capsys, deciding_lines):
    final = decide_unreviewed(compare_files(BASE, CAND)).line
    assert final.startswith("NEEDS REVIEW") and "(clusters), no significant difference" in final
    code = main(["report", str(BASE), str(CAND)])
    out, err = capsys.readouterr()
    assert code == 0
    assert out.splitlines()[0] == final
    assert "DECIDING" not in out + err and "pending" not in out.splitlines()[0]
    assert deciding_lines == []


def test_signoff_records_the_final_decision_only(capsys, tmp_path, deciding_lines):
    prefix = tmp_path / "so"
    args = ["signoff", str(BASE), str(CAND), "--decision", "block", "--rationale", "r"]
    code = main([*args, "--output", str(prefix)])
    out, err = capsys.readouterr()
    assert code == 0, err
    record = json.loads(prefix.with_suffix(".json").read_text(encoding="utf-8"))
    line = record["decision"]["line"]
    assert line == decide_unreviewed(compare_files(BASE, CAND)).line
    assert "DECIDING" not in out + err + prefix.with_suffix(".md").read_text(encoding="utf-8")
    assert deciding_lines == []


def test_the_deciding_hook_sees_a_provisional_analysis(deciding_lines):
    """The hook the tests above rely on does see a deciding line when one is made."""
    decide_unreviewed(compare_files(BASE, CAND, complete=False))
    assert deciding_lines == ["clusters"]
