"""The release policy end to end: report --policy, gates in JSON, exit codes, sign-off, plan."""

from __future__ import annotations

import json

import pytest

from evaltui.cli.main import main
from tests.conftest import SAMPLE_RUNS

POLICY = SAMPLE_RUNS / "policy.toml"


def run(capsys, *args):
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture(autouse=True)
def state(tmp_path, monkeypatch):
    monkeypatch.setenv("EVALTUI_STATE_DIR", str(tmp_path / "state"))


def test_sample_policy_fails_the_drug_interaction_gate_and_exits_1(capsys, sample_pair):
    code, out, _ = run(capsys, "report", *sample_pair, "--policy", POLICY, "--format", "json")
    report = json.loads(out)
    assert code == 1
    # The item-level interval lies above zero, but with 31 source documents the verdict
    # rests on the cluster-aware interval: no significant difference ...
    assert report["delta"]["ci"][0] > 0
    assert report["verdict"] == "no_significant_difference"
    # ... and the decision is blocked by the failed gates, first on the line.
    assert report["decision"]["status"] == "blocked" and report["decision"]["exit_code"] == 1
    assert report["decision"]["line"].startswith(
        "BLOCKED · 2 gates failed (no regressions in drug_interactions; overall gain worth "
        "shipping) · 9 of 9 untriaged"
    )
    gates = {g["kind"] + ":" + (g["slice"] or ""): g for g in report["gates"]}
    drug = gates["no_regressions:drug_interactions"]
    assert drug["status"] == "failed"  # ... and the safety gate still blocks (25 -> 19)
    assert "25 -> candidate 19" in drug["detail"]
    assert len(drug["item_ids"]) == 7
    assert gates["all_triaged:"]["status"] == "pending"
    assert report["policy"]["hash"] and report["policy"]["sha256"]
    slices = {s["name"]: s for s in report["slices"]}
    assert slices["drug_interactions"]["table"]["regressions"] == 7
    assert slices["drug_interactions"]["baseline_rate"] == pytest.approx(25 / 30)
    assert slices["drug_interactions"]["candidate_rate"] == pytest.approx(19 / 30)
    assert report["metrics"][0]["metric"] == "passed"
    # With clusters the metric's p is the cluster-aware test its interval inverts (one
    # metric: adjusting changes nothing).
    assert report["metrics"][0]["p_test"] == "wild cluster bootstrap-t"
    assert report["metrics"][0]["p_raw"] == pytest.approx(report["clusters"]["verdict_p"])
    assert report["metrics"][0]["p_adjusted"] == pytest.approx(report["metrics"][0]["p_raw"])


def test_report_without_policy_has_no_gates_and_exits_0(capsys, sample_pair):
    code, out, _ = run(capsys, "report", *sample_pair, "--format", "json")
    assert code == 0 and json.loads(out)["gates"] is None


def test_policy_gates_in_markdown_and_text(capsys, sample_pair):
    code, out, _ = run(capsys, "report", *sample_pair, "--policy", POLICY, "--format", "markdown")
    assert code == 1 and "✗ FAILED: no regressions in drug\\_interactions" in out
    assert "| drug\\_interactions | 30 | 83.3% → 63.3% | 7 | 1 |" in out
    code, out, _ = run(capsys, "report", *sample_pair, "--policy", POLICY)
    assert "✗ FAILED" in out and "drug_interactions" in out and "●" in out


def test_option_contradicting_the_policy_is_refused(capsys, sample_pair):
    code, _, err = run(capsys, "report", *sample_pair, "--policy", POLICY, "--ci-method", "wald")
    assert code == 2 and "contradicts the policy" in err


def test_bad_policy_file_is_a_one_line_error(capsys, sample_pair, tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text('alpha = 0.05\n[[gates]]\nkind = "no_regression"\n')
    code, _, err = run(capsys, "report", *sample_pair, "--policy", bad)
    assert code == 2 and err.count("\n") == 1 and "bad.toml" in err and "kind" in err


def test_signoff_records_policy_hash_and_gates_and_guards_failed_gates(
    capsys, sample_pair, tmp_path
):
    base = ["signoff", *sample_pair, "--policy", POLICY, "--reviewer", "dana"]
    code, _, err = run(
        capsys, *base, "--decision", "approve", "--rationale", "ok", "--output", tmp_path / "a"
    )
    assert code == 2 and "gate(s) failed" in err
    code, _, _ = run(
        capsys, *base, "--decision", "block", "--rationale", "safety", "--output", tmp_path / "b"
    )
    record = json.loads((tmp_path / "b.json").read_text())
    assert code == 0
    assert (
        record["policy_hash"]
        == json.loads(
            run(capsys, "report", *sample_pair, "--policy", POLICY, "--format", "json")[1]
        )["policy"]["hash"]
    )
    assert any(g["status"] == "failed" for g in record["gates"])
    assert "Release gates" in (tmp_path / "b.md").read_text()


def test_changed_policy_after_tagging_is_noticed(capsys, sample_pair, tmp_path):
    base = ["signoff", *sample_pair, "--reviewer", "dana", "--decision", "block"]
    run(capsys, *base, "--policy", POLICY, "--rationale", "x", "--output", tmp_path / "a")
    edited = tmp_path / "policy.toml"
    edited.write_text(POLICY.read_text().replace("min_effect = 0.02", "min_effect = 0.01"))
    code, _, err = run(
        capsys, *base, "--policy", edited, "--rationale", "y", "--output", tmp_path / "b"
    )
    assert code == 0 and "the policy changed since this review started" in err
    first = json.loads((tmp_path / "a.json").read_text())["policy_hash"]
    second = json.loads((tmp_path / "b.json").read_text())["policy_hash"]
    assert first != second


@pytest.mark.parametrize(
    ("args", "paired", "independent"),
    [
        (["--baseline-rate", "0.9", "--delta", "-0.05", "--discordance", "0.15"], 469, 686),
        (["--baseline-rate", "0.9", "--delta", "0.05", "--discordance", "0.15"], 469, 435),
        (["--baseline-rate", "0.8", "--delta", "-0.05", "--discordance", "0.30"], 940, None),
    ],
)
def test_plan_reproduces_the_reading_list(capsys, args, paired, independent):
    code, out, _ = run(capsys, "plan", *args, "--format", "json")
    plan = json.loads(out)
    assert code == 0
    assert plan["paired_n"] == paired
    if independent is not None:
        assert plan["independent_n_per_arm"] == independent


def test_plan_refuses_disagreements_the_baseline_cannot_hold(capsys):
    args = ["--baseline-rate", "0.97", "--delta", "0.02", "--discordance", "0.15"]
    code, _, err = run(capsys, "plan", *args)
    assert code == 2 and "needs 8.5% of items to improve" in err and err.count("\n") == 1
    code, out, _ = run(capsys, "plan", "--baseline-rate", "0.97", "--delta", "-0.05",
                       "--discordance", "0.10", "--format", "json")  # fmt: skip
    assert code == 0 and json.loads(out)["paired_n"] > 0


def test_plan_simple_formula_gives_about_327(capsys):
    code, out, _ = run(
        capsys,
        "plan",
        "--baseline-rate",
        "0.75",
        "--delta",
        "0.06",
        "--discordance",
        "0.15",
        "--formula",
        "simple",
        "--format",
        "json",
    )
    assert json.loads(out)["paired_n_raw"] == pytest.approx(327.0, abs=0.1)


def test_plan_refuses_impossible_inputs(capsys):
    code, _, err = run(
        capsys, "plan", "--baseline-rate", "0.75", "--delta", "0.2", "--discordance", "0.1"
    )
    assert code == 2 and err.count("\n") == 1 and "discordance" in err
