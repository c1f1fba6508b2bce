"""`evaltui report --design independent|auto` on two runs of different items (issue 17), and the
refusals: the paired default, sign-off and the app never pair what cannot be paired.

Fixtures: tests/data/independent (made by its make_fixtures.py): 48/80 vs 56/70, Newcombe's
(1998) Table II example (a); graded scores on different items; two lm-eval tasks whose doc_ids
coincide by accident. Every JSON report is also checked against docs/schema by conftest.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from evaltui.cli.main import main
from tests.conftest import DATA, SAMPLE_RUNS, schema_errors

FIXTURES = DATA / "independent"
BASE, CAND = FIXTURES / "baseline.jsonl", FIXTURES / "candidate.jsonl"
BASE_SCORES, CAND_SCORES = FIXTURES / "baseline_scores.jsonl", FIXTURES / "candidate_scores.jsonl"
BOOLQ = next((FIXTURES / "lm_eval" / "boolq").glob("samples_boolq_*.jsonl"))
PIQA = next((FIXTURES / "lm_eval" / "piqa").glob("samples_piqa_*.jsonl"))
LABEL = "independent (unpaired) comparison"


def run(capsys, *args) -> tuple[int, str, str]:
    code = main([*map(str, args)])
    out, err = capsys.readouterr()
    return code, out, err


def report_json(capsys, *args) -> tuple[int, dict]:
    code, out, err = run(capsys, "report", *args, "--format", "json")
    assert out, err
    assert schema_errors("report", out) == []
    return code, json.loads(out)


def test_the_paired_default_refuses_runs_that_share_no_ids_in_one_line(capsys):
    code, out, err = run(capsys, "report", BASE, CAND)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "Traceback" not in err
    assert "share no item ids (baseline 80 items, candidate 70 items)" in err
    assert "--design independent" in err


def test_independent_report_as_json_holds_the_published_numbers(capsys):
    code, r = report_json(capsys, BASE, CAND, "--design", "independent")
    assert code == 0
    assert r["design"] == "independent" and r["design_label"] == LABEL
    assert r["design_choice"] == {
        "design": "independent",
        "requested": "independent",
        "rule": "D1",
        "reason": "the runs share no item ids (baseline 80 items, candidate 70 items)",
        "shared_ids": 0,
    }
    d = r["decision"]
    assert d["status"] == "needs_review" and d["exit_code"] == 0
    assert d["line"].startswith(f"NEEDS REVIEW · {LABEL} · overall +20.0 pts [+5.2, +33.4]")
    c = r["independent"]
    assert (c["candidate"]["passes"], c["candidate"]["n"]) == (56, 70)
    assert (c["baseline"]["passes"], c["baseline"]["n"]) == (48, 80)
    # Newcombe (1998) Table II (a), method 10: 0.0524 to 0.3339.
    assert [round(x, 4) for x in c["delta"]["ci"]] == [0.0524, 0.3339]
    assert c["delta"]["method"] == "newcombe"
    # R 4.2.2 prop.test(c(56, 48), c(70, 80), correct = FALSE) and fisher.test.
    assert c["test"]["name"] == "z_pooled"
    assert c["test"]["statistic"] ** 2 == pytest.approx(7.02341137123746, rel=1e-12)
    assert c["test"]["p"] == pytest.approx(0.00804508136819656, rel=1e-10)
    assert c["other_test"]["name"] == "fisher_exact"
    assert c["other_test"]["p"] == pytest.approx(0.0125211297492092, rel=1e-9)
    assert r["verdict"] == "improved" and r["gates"] is None
    assert "table" not in r and "mcnemar" not in r and "regressions" not in r  # no pairs
    assert r["spec"]["design"] == "independent"


def test_independent_report_text_and_markdown_open_with_the_decision_and_the_reason(capsys):
    code, out, _ = run(capsys, "report", BASE, CAND, "--design", "independent")
    lines = out.splitlines()
    assert code == 0 and lines[0].startswith(f"NEEDS REVIEW · {LABEL} · ")
    assert "the runs share no item ids" in lines[1]
    assert any(
        line.startswith("Independent (unpaired) comparison: candidate +20.0") for line in lines
    )
    assert any("Fisher exact, p = 0.013" in line for line in lines)
    code, out, _ = run(
        capsys, "report", BASE, CAND, "--design", "independent", "--format", "markdown"
    )
    assert out.startswith(f"## NEEDS REVIEW · {LABEL} · ")
    assert "- independent (unpaired) comparison: the runs share no item ids" in out
    assert "| candidate | 70 | 56 | 80.0% |" in out


def test_auto_compares_graded_runs_of_different_items_with_welch(capsys):
    code, r = report_json(capsys, BASE_SCORES, CAND_SCORES, "--design", "auto")
    assert code == 0 and r["analysis"] == "graded" and r["design_choice"]["rule"] == "D1"
    from scipy.stats import ttest_ind

    def scores(path):
        return np.array([json.loads(line)["score"] for line in path.read_text().splitlines()])

    expected = ttest_ind(scores(CAND_SCORES), scores(BASE_SCORES), equal_var=False)
    c = r["independent"]
    assert c["test"]["name"] == "welch_t" and c["other_test"] is None
    assert c["test"]["statistic"] == pytest.approx(expected.statistic, rel=1e-10)
    assert c["test"]["df"] == pytest.approx(expected.df, rel=1e-10)
    assert c["test"]["p"] == pytest.approx(expected.pvalue, rel=1e-9)


def test_two_datasets_whose_ids_coincide_are_never_paired(capsys):
    code, out, err = run(capsys, "report", BOOLQ, PIQA)
    assert code == 2 and out == "" and err.count("\n") == 1
    assert "task 'boolq' vs 'piqa'" in err and "40 shared item id(s) coincide by accident" in err
    assert "--design independent" in err and "--accept-mismatch" in err
    code, r = report_json(capsys, BOOLQ, PIQA, "--design", "auto")
    assert code == 0 and r["design_choice"]["rule"] == "D1-accidental"
    assert r["design_choice"]["shared_ids"] == 40
    reasons = [x["kind"] for x in r["decision"]["reasons"]]
    assert reasons[0] == "independent" and "different_sources" in reasons
    assert "coincide by accident" in r["decision"]["reasons"][0]["text"]


def test_a_regression_between_independent_runs_exits_one(capsys):
    code, r = report_json(capsys, CAND, BASE, "--design", "independent")
    assert code == 1 and r["decision"]["status"] == "blocked" and r["verdict"] == "regressed"


def test_small_independent_arms_exit_four(capsys, write_jsonl):
    base = write_jsonl("b.jsonl", [{"item_id": f"b{i}", "passed": i < 4} for i in range(12)])
    cand = write_jsonl("c.jsonl", [{"item_id": f"c{i}", "passed": i < 9} for i in range(12)])
    code, r = report_json(capsys, base, cand, "--design", "auto")
    assert code == 4 and r["decision"]["status"] == "not_enough_data"
    assert r["independent"]["test"]["name"] == "fisher_exact"  # small arms: Fisher leads
    assert "small_n" in r["flags"]


def test_a_policy_with_gates_on_independent_runs_exits_four(capsys):
    policy = SAMPLE_RUNS / "policy.toml"
    code, r = report_json(capsys, BASE, CAND, "--design", "independent", "--policy", policy)
    assert code == 4 and r["decision"]["status"] == "not_enough_data"
    assert any(x["kind"] == "gates_not_evaluated" for x in r["decision"]["reasons"])
    assert r["policy"]["hash"] and r["gates"] is None


@pytest.mark.parametrize("design", ["independent", "auto"])
def test_signoff_refuses_an_independent_comparison_and_names_the_report(
    capsys, tmp_path, monkeypatch, design
):
    monkeypatch.setenv("EVALTUI_STATE_DIR", str(tmp_path / "state"))
    code, out, err = run(
        capsys, "signoff", BASE, CAND, "--design", design, "--decision", "approve",
        "--rationale", "fine", "--reviewer", "dana", "--output", tmp_path / "so",
    )  # fmt: skip
    assert code == 2 and out == "" and err.count("\n") == 1
    assert "evaltui report BASE CAND --design independent" in err
    assert not list(tmp_path.glob("so.*"))


def test_the_app_takes_an_independent_comparison_but_not_of_three_runs(capsys):
    """Two runs: the app shows the comparison (tests/ui/test_independent_screen.py), so here,
    with no terminal, the only refusal is the terminal's. Three or more runs still refuse."""
    code, _, err = run(capsys, BASE, CAND, "--design", "independent")
    assert code == 2 and "needs a terminal" in err and "reviews item pairs" not in err
    code, _, err = run(capsys, BASE, CAND, CAND_SCORES, "--design", "independent")
    assert code == 2 and "the review app of three or more runs reviews item pairs" in err
    assert "evaltui report BASE CAND --design independent" in err
