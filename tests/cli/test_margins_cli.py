"""Margins end to end: `evaltui report --policy` with a non-inferiority or equivalence margin on
the demo pair, on pass/fail pairs made here, a graded pair and a multi-epoch pair; the first
line, the exit code, the JSON (validated against docs/schema by tests/conftest.py), the
Markdown and text reports, and a sign-off record that carries the margin and verifies."""

from __future__ import annotations

import json

import pytest

from evaltui.cli.main import main


def run(capsys, *args):
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture(autouse=True)
def state(tmp_path, monkeypatch):
    monkeypatch.setenv("EVALTUI_STATE_DIR", str(tmp_path / "state"))


def policy(tmp_path, text, name="policy.toml"):
    path = tmp_path / name
    path.write_text(text)
    return path


def pass_fail_pair(write_jsonl, both_pass, regressions, improvements, both_fail):
    cells = [(True, True)] * both_pass + [(True, False)] * regressions
    cells += [(False, True)] * improvements + [(False, False)] * both_fail
    base = [{"item_id": f"q{i}", "passed": b} for i, (b, _) in enumerate(cells)]
    cand = [{"item_id": f"q{i}", "passed": c} for i, (_, c) in enumerate(cells)]
    return write_jsonl("base.jsonl", base), write_jsonl("cand.jsonl", cand)


def report_json(capsys, pair, policy_path, *extra):
    code, out, _ = run(capsys, "report", *pair, "--policy", policy_path, "--format", "json", *extra)
    return code, json.loads(out)


def margin_gate(report):
    (gate,) = [g for g in report["gates"] if g["kind"] in ("non_inferiority", "equivalence")]
    return gate


def test_demo_pair_is_non_inferior_by_the_cluster_aware_interval(capsys, sample_pair, tmp_path):
    # 31 source documents: the margin reads the wild cluster bootstrap-t interval at 90%, the
    # family the verdict uses; its lower limit +0.4 pts clears -1 pt.
    code, report = report_json(
        capsys, sample_pair, policy(tmp_path, "non_inferiority_margin = 0.01\n")
    )
    decision = report["decision"]
    assert code == 0 and decision["status"] == "needs_review"  # 9 regressions untriaged
    assert decision["line"].startswith(
        "NEEDS REVIEW · non-inferior: lower limit +0.4 pts > -1.0 pts · 9 of 9 untriaged"
    )
    gate = margin_gate(report)
    assert gate["status"] == "passed" and gate["name"] == "non-inferiority (margin 1 pt)"
    margin = gate["margin"]
    assert margin["interval_method"] == "wild cluster bootstrap-t 90%, 31 clusters"
    assert margin["test"] == "cluster-robust t (CR1)"
    assert margin["level"] == pytest.approx(0.90) and margin["shown"] is True
    assert margin["interval"][0] > -0.01 and margin["p"] < 0.05
    assert any(r["kind"] == "margin_shown" for r in decision["reasons"])


def test_a_margin_not_shown_blocks_with_the_limit_on_the_first_line(capsys, write_jsonl, tmp_path):
    # 40 regressions, 30 improvements in 1,000: Tango 90% [-2.4, +0.4] pts against -2 pts.
    pair = pass_fail_pair(write_jsonl, 700, 40, 30, 230)
    code, report = report_json(capsys, pair, policy(tmp_path, "non_inferiority_margin = 0.02\n"))
    decision = report["decision"]
    assert code == 1 and decision["status"] == "blocked" and decision["exit_code"] == 1
    assert decision["line"].startswith(
        "BLOCKED · not shown non-inferior: lower limit -2.4 pts ≤ -2.0 pts"
    )
    (reason,) = [r for r in decision["reasons"] if r["kind"] == "margin_not_shown"]
    assert reason["blocking"] and "margin 2 pts" in reason["text"]
    assert "Tango 90%" in reason["text"] and "one-sided Tango score p = 0.120" in reason["text"]
    # The text report says it too, first line and gates.
    code, text, _ = run(capsys, "report", *pair, "--policy", tmp_path / "policy.toml")
    assert code == 1 and text.startswith("BLOCKED · not shown non-inferior")
    assert "✗ FAILED  non-inferiority (margin 2 pts): not shown non-inferior" in text
    code, md, _ = run(
        capsys, "report", *pair, "--policy", tmp_path / "policy.toml", "--format", "markdown"
    )
    assert "- ✗ FAILED: non-inferiority (margin 2 pts) — not shown non-inferior" in md


def test_a_regression_within_a_shown_margin_does_not_block(capsys, write_jsonl, tmp_path):
    # 2,000 items, 80 regressions, 30 improvements: -2.5 pts, the 95% interval below zero
    # ("regressed"), but the 90% one clears a 5-point margin: worse, by less than allowed.
    pair = pass_fail_pair(write_jsonl, 1500, 80, 30, 390)
    code, report = report_json(capsys, pair, policy(tmp_path, "non_inferiority_margin = 0.05\n"))
    decision = report["decision"]
    assert report["verdict"] == "regressed"
    assert code == 0 and decision["status"] == "needs_review"  # the regressions are untriaged
    kinds = {r["kind"]: r for r in decision["reasons"]}
    assert "regressed" not in kinds and not kinds["regressed_within_margin"]["blocking"]
    assert decision["line"].startswith(
        "NEEDS REVIEW · non-inferior: lower limit -3.4 pts > -5.0 pts · worse, within the "
        "margin · 80 of 80 untriaged · overall -2.5 pts [-3.6, -1.5], regressed"
    )


def test_the_same_regression_without_a_margin_blocks(capsys, write_jsonl, tmp_path):
    pair = pass_fail_pair(write_jsonl, 1500, 80, 30, 390)
    code, report = report_json(capsys, pair, policy(tmp_path, "alpha = 0.05\n"))
    assert code == 1 and report["decision"]["status"] == "blocked"


def test_too_few_items_for_the_margin_is_not_enough_data(capsys, write_jsonl, tmp_path):
    pair = pass_fail_pair(write_jsonl, 10, 1, 2, 5)
    code, report = report_json(capsys, pair, policy(tmp_path, "equivalence_margin = 0.05\n"))
    assert code == 4 and report["decision"]["status"] == "not_enough_data"
    assert margin_gate(report)["status"] == "undecided"
    assert margin_gate(report)["margin"]["shown"] is None
    assert report["decision"]["line"].startswith("NOT ENOUGH DATA · no verdict on equivalence")


def test_no_item_changing_is_equivalent_and_ready(capsys, write_jsonl, tmp_path):
    # Without a margin "no item changed" is no verdict (exit 4); with one it is the strongest
    # evidence of equivalence: Tango 90% [-0.27, +0.27] pts inside ±1 pt.
    pair = pass_fail_pair(write_jsonl, 500, 0, 0, 500)
    code, report = report_json(capsys, pair, policy(tmp_path, "alpha = 0.05\n", "plain.toml"))
    assert code == 4
    code, report = report_json(capsys, pair, policy(tmp_path, "equivalence_margin = 0.01\n"))
    assert code == 0 and report["decision"]["status"] == "ready"
    assert report["decision"]["line"].startswith(
        "READY TO APPROVE · equivalent: [-0.3, +0.3] pts inside ±1.0 pts · no item changed"
    )


GRADED_BASE = [{"item_id": f"q{i}", "score": round(0.5 + (i % 7) / 20, 3)} for i in range(60)]
GRADED_CAND = [
    {"item_id": f"q{i}", "score": round(0.5 + (i % 7) / 20 + ((i * 13) % 5 - 2) / 100, 3)}
    for i in range(60)
]


def test_graded_pair_equivalence_by_the_paired_t_interval_and_tests(capsys, write_jsonl, tmp_path):
    pair = (write_jsonl("gb.jsonl", GRADED_BASE), write_jsonl("gc.jsonl", GRADED_CAND))
    text = (
        'primary_metric = "score"\nequivalence_margin = 0.02\n[[gates]]\nkind = "no_regressions"\n'
    )
    code, report = report_json(capsys, pair, policy(tmp_path, text), "--tolerance", "0.015")
    assert report["analysis"] == "graded"
    gate = margin_gate(report)
    assert gate["status"] == "passed" and gate["name"] == "equivalence (±0.02)"
    margin = gate["margin"]
    assert margin["test"] == "paired t" and margin["interval_method"] == "paired t 90%"
    assert margin["interval"][0] > -0.02 and margin["interval"][1] < 0.02
    assert margin["p"] == max(margin["p_below"], margin["p_above"]) < 0.05
    # Blocking reasons lead the first line, the margin's answer follows them.
    parts = report["decision"]["line"].split(" · ")
    assert parts[:2] == ["BLOCKED", "1 gate failed (no regressions)"]
    assert parts[2].startswith("equivalent: [") and parts[2].endswith("inside ±0.020")
    # The regressions the no_regressions gate counts are the analysis's (delta < -0.015).
    (count,) = [g for g in report["gates"] if g["kind"] == "no_regressions"]
    assert count["status"] == "failed" and count["item_ids"] == report["regressions"]
    assert code == 1  # that gate fails


def test_graded_pair_with_the_default_primary_metric_is_refused_in_one_line(
    capsys, write_jsonl, tmp_path
):
    pair = (write_jsonl("gb.jsonl", GRADED_BASE), write_jsonl("gc.jsonl", GRADED_CAND))
    path = policy(tmp_path, "equivalence_margin = 0.02\n")
    code, out, err = run(capsys, "report", *pair, "--policy", path)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "primary_metric 'passed' cannot be evaluated" in err


def test_multi_epoch_pair_non_inferiority_on_per_item_pass_rates(capsys, write_jsonl, tmp_path):
    # Three epochs per item; each item's epochs are averaged before pairing, so an item is one
    # paired delta of pass rates and the graded path (bootstrap, paired t) answers the margin.
    base, cand = [], []
    for i in range(60):
        for epoch in (1, 2, 3):
            base.append({"item_id": f"q{i}", "epoch": epoch, "passed": (i + epoch) % 4 != 0})
            cand.append({"item_id": f"q{i}", "epoch": epoch, "passed": (i + epoch) % 5 != 0})
    pair = (write_jsonl("eb.jsonl", base), write_jsonl("ec.jsonl", cand))
    code, report = report_json(capsys, pair, policy(tmp_path, "non_inferiority_margin = 0.10\n"))
    assert report["analysis"] == "graded" and report["metric"] == "passed"
    gate = margin_gate(report)
    assert gate["margin"]["test"] == "paired t" and gate["status"] == "passed"
    assert report["decision"]["line"].split(" · ")[1].startswith("non-inferior: lower limit")
    assert code == 0


def test_signoff_record_carries_the_margin_and_verifies(capsys, write_jsonl, tmp_path):
    pair = pass_fail_pair(write_jsonl, 1500, 80, 30, 390)
    path = policy(tmp_path, "non_inferiority_margin = 0.05\n")
    code, _, err = run(
        capsys, "signoff", *pair, "--policy", path, "--reviewer", "dana", "--decision",
        "approve", "--rationale", "within the agreed margin", "--override-reason",
        "80 untriaged regressions accepted", "--output", tmp_path / "so",
    )  # fmt: skip
    assert code == 0, err
    record = json.loads((tmp_path / "so.json").read_text())
    (gate,) = [g for g in record["gates"] if g["kind"] == "non_inferiority"]
    assert gate["status"] == "passed" and gate["margin"]["shown"] is True
    assert record["policy"]["rules"]["non_inferiority_margin"] == 0.05
    # A regression within the shown margin is not among what the approval overrides.
    assert record["override"]["regressed"] is False
    assert record["override"]["failed_gates"] == []
    code, out, err = run(capsys, "verify", tmp_path / "so.json", *pair)
    assert code == 0, out + err
