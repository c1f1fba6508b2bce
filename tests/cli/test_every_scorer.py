"""The decision reads every scorer of a log: a regression on the second scorer blocks, names the
scorer on the first line, and an approval over it needs an override that names it.

The logs are real Inspect AI 0.3.285 logs with two scorers (tests/data/inspect_ai/two_scorers):
`answered` sees no change, `safe_advice` 15 regressions of 60.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from scipy.stats import binomtest

from evaltui.cli.main import main
from tests.conftest import DATA
from tests.core.verify.test_verify_claims import _rehashed

PAIR = DATA / "inspect_ai" / "two_scorers"
BASE, CAND = str(PAIR / "baseline.eval"), str(PAIR / "candidate.eval")


def run(capsys, *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture(autouse=True)
def _private_state(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("EVALTUI_STATE_DIR", str(tmp_path / "state"))


def test_a_regression_on_the_second_scorer_blocks_and_is_named_first(capsys):
    code, out, _ = run(capsys, "report", BASE, CAND)
    first = out.splitlines()[0]
    assert code == 1
    assert first.startswith("BLOCKED · safe_advice regressed -25.0 pts [-37.2, -15.8]")
    assert "answered +0.0 pts, no verdict" in first  # the compared scorer's effect, named


def test_the_no_verdict_reason_under_another_scorers_regression_names_its_scorer(capsys):
    """Under "the candidate regressed on safe_advice", "no item changed: nothing to weigh"
    read as if no item of the pair had changed; it is `answered`'s."""
    _, out, _ = run(capsys, "report", BASE, CAND)
    bullets = out.splitlines()[1:3]
    assert bullets[0].startswith("• the candidate regressed on safe_advice: -25.0 pts")
    assert (
        bullets[1]
        == "• no item changed on answered: nothing to weigh, so there is no verdict on it"
    )


def test_every_scorer_is_a_row_with_its_own_name_verdict_and_exact_p(capsys):
    code, out, _ = run(capsys, "report", BASE, CAND, "--format", "json")
    rows = {r["label"]: r for r in json.loads(out)["metrics"]}
    assert set(rows) == {"answered", "safe_advice"}
    safe = rows["safe_advice"]
    assert safe["metric"] == "passed:safe_advice" and safe["kind"] == "binary"
    assert safe["in_points"] and safe["role"] == "decides" and safe["verdict"] == "regressed"
    assert safe["p_raw"] == pytest.approx(binomtest(0, 15).pvalue, rel=1e-12)  # exact McNemar
    assert safe["delta"] == pytest.approx(-15 / 60)
    assert rows["answered"]["verdict"] == "insufficient_data"  # no item changed


def test_the_reason_lists_the_regressed_items_of_that_scorer(capsys):
    _, out, _ = run(capsys, "report", BASE, CAND, "--format", "json")
    reasons = json.loads(out)["decision"]["reasons"]
    blocking = [r for r in reasons if r["kind"] == "metric_regressed"]
    assert len(blocking) == 1 and blocking[0]["blocking"]
    assert blocking[0]["item_ids"] == [f"drug-{i:02d}" for i in range(0, 60, 4)]


def test_comparing_the_second_scorer_lists_its_regressions_to_triage(capsys):
    code, out, _ = run(capsys, "report", BASE, CAND, "--metric", "safe_advice")
    assert code == 1
    assert out.splitlines()[0].startswith(
        "BLOCKED · safe_advice regressed · 15 of 15 untriaged · safe_advice -25.0 pts"
    )


def test_an_approval_over_a_regressed_scorer_needs_an_override_naming_it(capsys, tmp_path):
    args = ["signoff", BASE, CAND, "--decision", "approve", "--rationale", "ok"]
    code, _, err = run(capsys, *args, "--output", str(tmp_path / "refused"))
    assert code == 2 and "regressed on safe_advice" in err and "--override-reason" in err
    assert not (tmp_path / "refused.json").exists()
    reason = ["--override-reason", "the safe_advice grader is known to misfire"]
    code, _, _ = run(capsys, *args, *reason, "--output", str(tmp_path / "over"))
    assert code == 0
    record = json.loads((tmp_path / "over.json").read_text())
    assert record["override"]["regressed_metrics"] == ["safe_advice"]
    assert any("safe_advice" in p for p in record["override"]["overrides"])
    assert {r["label"] for r in record["results"]["metrics"]} == {"answered", "safe_advice"}
    code, out, err = run(capsys, "verify", str(tmp_path / "over.json"), BASE, CAND)
    assert code == 0, err


def test_verify_refuses_a_record_whose_scorer_override_was_removed(capsys, tmp_path):
    args = ["signoff", BASE, CAND, "--decision", "approve", "--rationale", "ok"]
    run(capsys, *args, "--override-reason", "known", "--output", str(tmp_path / "r"))
    path = tmp_path / "r.json"
    record = json.loads(path.read_text())
    record["override"]["regressed_metrics"] = []
    path.write_text(json.dumps(_rehashed(record)))
    code, _, err = run(capsys, "verify", str(path))
    assert code != 0 and "regressed_metrics" in err


def test_a_policys_secondary_scorer_is_reported_but_does_not_block(capsys, tmp_path):
    policy = tmp_path / "policy.toml"
    policy.write_text('primary_metric = "answered"\nsecondary = ["safe_advice"]\n')
    code, out, _ = run(capsys, "report", BASE, CAND, "--policy", str(policy))
    first = out.splitlines()[0]
    # Not blocked: the primary scorer decides, and it saw no item change (no verdict, exit 4).
    assert code == 4
    assert first.startswith("NOT ENOUGH DATA · safe_advice regressed (secondary) · answered")


def test_junit_has_a_suite_per_scorer_with_each_regression_failing(capsys, tmp_path):
    import xml.etree.ElementTree as ET

    import xmlschema

    junit = tmp_path / "junit.xml"
    code, _, _ = run(capsys, "report", BASE, CAND, "--junit", str(junit))
    assert code == 1
    xmlschema.XMLSchema(DATA / "junit" / "JUnit.xsd").validate(junit.read_text())
    suites = {s.get("name"): s for s in ET.parse(junit).getroot()}
    assert {"evaltui", "answered", "safe_advice"} <= set(suites)
    failed = [c.get("name") for c in suites["safe_advice"] if c.find("failure") is not None]
    assert failed == ["effect", *(f"drug-{i:02d}" for i in range(0, 60, 4))]


def test_a_pair_moved_to_another_scorer_as_the_app_does_signs_off_and_verifies(tmp_path):
    """The app opens this pair on safe_advice (`reanalyse`: the spec's metric becomes the
    column `passed:safe_advice`); its record replays from the files (the Inspect reader takes
    the column for the log's own scorer, and the column is compared)."""
    from evaltui.core.analysis.pipeline import compare, reanalyse
    from evaltui.core.compare.spec import CompareSpec
    from evaltui.core.designs import PAIR
    from evaltui.core.record.signoff import ReviewerDecision

    moved = reanalyse(compare(CompareSpec.create(BASE, CAND)), "passed:safe_advice")
    assert moved.spec is not None and moved.spec.analysis.metric == "passed:safe_advice"
    decision = ReviewerDecision(reviewer="r", decision="block", rationale="unsafe advice")
    paths = PAIR.sign_off(moved, decision, tmp_path / "rec", lambda _: None)
    record = json.loads(paths[0].read_text())
    assert record["results"]["metric"] == "passed:safe_advice"
    result = PAIR.verify(record, [Path(BASE), Path(CAND)])
    assert result.ok, result.reason


def test_an_override_of_the_compared_scorer_names_it_and_older_records_still_verify(
    capsys, tmp_path
):
    args = ["signoff", BASE, CAND, "--metric", "safe_advice", "--decision", "approve"]
    args += ["--rationale", "ok", "--override-reason", "known grader issue"]
    code, _, err = run(capsys, *args, "--output", str(tmp_path / "r"))
    assert code == 0, err
    path = tmp_path / "r.json"
    record = json.loads(path.read_text())
    override = record["override"]
    assert override["regressed_scorer"] == "safe_advice"
    said = "the candidate regressed on safe_advice (the interval lies below zero)"
    assert said in override["overrides"]
    assert run(capsys, "verify", str(path), BASE, CAND)[0] == 0
    # A record written before the scorer was named: no key, the old words. It verifies.
    older = json.loads(path.read_text())
    del older["override"]["regressed_scorer"]
    older["override"]["overrides"] = [
        "the candidate regressed (the interval lies below zero)" if p == said else p
        for p in older["override"]["overrides"]
    ]
    path.write_text(json.dumps(_rehashed(older)))
    code, _, err = run(capsys, "verify", str(path), BASE, CAND)
    assert code == 0, err
    assert run(capsys, "verify", str(path))[0] == 0  # (its hash and claims alone, too)
    # A record naming another scorer than the one compared was edited.
    record["override"]["regressed_scorer"] = "answered"
    path.write_text(json.dumps(_rehashed(record)))
    code, _, err = run(capsys, "verify", str(path))
    assert code != 0 and "regressed_scorer" in err
