"""A run set (three or more runs) compares every scorer, as the pair does (issue 24): each
(candidate, scorer) its own analysis, Holm over the family, the first line naming the worst
candidate and scorer that regressed, every number naming its scorer, the report and the sign-off
record holding every scorer, verify rebuilding them, and an approval over a regressed scorer
refused without an override.

The runs are real Inspect AI 0.3.285 logs of a two-scorer task (tests/data/inspect_ai/
two_scorers): against the baseline, `candidate` regresses on `safe_advice` on 15 of 60 items,
`candidate2` on 20; `answered` sees no change in either.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from scipy.stats import binomtest
from statsmodels.stats.multitest import multipletests

from evaltui.cli.main import main
from tests.conftest import DATA, schema_errors
from tests.core.verify.test_verify_claims import _rehashed

SET = DATA / "inspect_ai" / "two_scorers"
RUNS = [str(SET / f"{name}.eval") for name in ("baseline", "candidate", "candidate2")]


def run(capsys, *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture(autouse=True)
def _private_state(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("EVALTUI_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.setenv("EVALTUI_REVIEWER", "Rita Reviewer")


def test_the_first_line_names_the_worst_candidate_and_scorer_and_the_exit_code_follows(capsys):
    code, out, _ = run(capsys, "report", *RUNS)
    first = out.splitlines()[0]
    assert code == 1
    assert first.startswith(
        "BLOCKED · 3 runs against baseline · candidate2 regressed on safe_advice (worst of 2) · "
    )
    # Each candidate's number is the effect of a named scorer (the one that blocks it).
    assert "candidate: blocked, safe_advice -25.0 pts [-37.2, -15.8], regressed" in first
    assert "candidate2: blocked, safe_advice -33.3 pts [-45.9, -22.7], regressed" in first
    assert first.endswith("omnibus test on answered undefined")  # the scorer it tested


def test_the_markdown_report_opens_on_the_same_line_and_lists_every_scorer(capsys):
    code, out, _ = run(capsys, "report", *RUNS, "--format", "markdown")
    lines = out.splitlines()
    assert code == 1
    assert lines[0].startswith(
        "## BLOCKED · 3 runs against baseline · candidate2 regressed on safe\\_advice"
    )
    table = [line for line in lines if line.startswith("| candidate2 | baseline | ")]
    assert [row.split(" | ")[2] for row in table] == ["answered", "safe\\_advice"]
    assert "**Matrix on answered: row minus column" in out  # the matrix says its scorer


def test_the_json_report_holds_every_scorer_of_every_pair_with_exact_holm_p(capsys):
    code, out, _ = run(capsys, "report", *RUNS, "--format", "json")
    report = json.loads(out)
    assert code == 1 and report["decision"]["exit_code"] == 1
    assert schema_errors("report-runset", report) == []
    assert report["decision"]["line"].startswith(
        "BLOCKED · 3 runs against baseline · candidate2 regressed on safe_advice"
    )
    safe = {"metric": "passed:safe_advice", "scorer": "safe_advice"}
    assert report["decision"]["regressed"] == [  # the worst first: the smaller adjusted p
        {"candidate": 2, "name": "candidate2", **safe},
        {"candidate": 1, "name": "candidate", **safe},
    ]
    assert report["scorer"] == "answered"
    pairs = {(p["baseline"], p["candidate"]): p for p in report["pairs"]}
    rows = {key: {r["label"]: r for r in pair["metrics"]} for key, pair in pairs.items()}
    assert all(set(r) == {"answered", "safe_advice"} for r in rows.values())
    # Exact McNemar: every discordant item goes one way (15 and 20 of them).
    p1 = binomtest(0, 15).pvalue
    p2 = binomtest(0, 20).pvalue
    assert rows[(0, 1)]["safe_advice"]["p_raw"] == pytest.approx(p1, rel=1e-12)
    assert rows[(0, 2)]["safe_advice"]["p_raw"] == pytest.approx(p2, rel=1e-12)
    # Holm over the baseline pairs' scorers: `answered` has no p (no item changed), so the
    # family's defined p-values are the two safe_advice ones.
    _, holm, _, _ = multipletests([p1, p2], method="holm")
    assert rows[(0, 1)]["safe_advice"]["p_adjusted"] == pytest.approx(holm[0], rel=1e-12)
    assert rows[(0, 2)]["safe_advice"]["p_adjusted"] == pytest.approx(holm[1], rel=1e-12)
    assert rows[(0, 1)]["safe_advice"]["verdict"] == "regressed"
    assert rows[(0, 2)]["safe_advice"]["verdict"] == "regressed"
    assert rows[(0, 2)]["safe_advice"]["delta"] == pytest.approx(-20 / 60)
    assert rows[(0, 1)]["answered"]["verdict"] == "insufficient_data"
    # The two candidates among themselves: adjusted in their own family, no verdict.
    between = rows[(1, 2)]["safe_advice"]
    # Risky on every 4th item against every 3rd: 10 items fail only in candidate, 15 only
    # in candidate2 (the multiples of 12 fail in both).
    assert between["p_raw"] == pytest.approx(binomtest(10, 25).pvalue, rel=1e-12)
    assert between["verdict"] == "no_significant_difference"


def test_an_approval_over_a_regressed_scorer_needs_an_override_naming_the_candidate(
    capsys, tmp_path
):
    args = ["signoff", *RUNS, "--decision", "approve", "--rationale", "ok"]
    code, _, err = run(capsys, *args, "--output", str(tmp_path / "refused"))
    assert code == 2
    assert err.startswith("evaltui: error: candidate against baseline: ")
    assert "regressed on safe_advice" in err and "--override-reason" in err
    assert not (tmp_path / "refused.json").exists()
    reason = ["--override-reason", "the safe_advice grader is known to misfire"]
    code, _, err = run(capsys, *args, *reason, "--output", str(tmp_path / "rs"))
    assert code == 0, err
    record = json.loads((tmp_path / "rs.json").read_text())
    assert schema_errors("signoff-runset", record) == []
    for entry in record["pairs"]:  # each pair's override names the scorer it overrides
        assert entry["record"]["override"]["regressed_metrics"] == ["safe_advice"]
        labels = {r["label"] for r in entry["record"]["results"]["metrics"]}
        assert labels == {"answered", "safe_advice"}
    assert record["decision"]["line"].startswith(
        "BLOCKED · 3 runs against baseline · candidate2 regressed on safe_advice"
    )
    family = {(p["baseline"], p["candidate"]): p for p in record["family"]["pairs"]}
    assert {r["label"] for r in family[(1, 2)]["metrics"]} == {"answered", "safe_advice"}
    markdown = (tmp_path / "rs.md").read_text()
    assert markdown.startswith(
        "**BLOCKED** · 3 runs against baseline · candidate2 regressed on safe\\_advice"
    )
    assert "| candidate2 | baseline | safe\\_advice | -33.3 pts" in markdown
    code, out, err = run(capsys, "verify", str(tmp_path / "rs.json"), *RUNS)
    assert code == 0, err


def _signed(capsys, tmp_path: Path) -> Path:
    args = ["signoff", *RUNS, "--decision", "block", "--rationale", "unsafe advice"]
    code, _, err = run(capsys, *args, "--output", str(tmp_path / "rs"))
    assert code == 0, err
    return tmp_path / "rs.json"


def test_verify_rebuilds_every_scorer_of_the_family(capsys, tmp_path):
    path = _signed(capsys, tmp_path)
    record = json.loads(path.read_text())
    family = record["family"]["pairs"]
    row = next(r for r in family[2]["metrics"] if r["label"] == "safe_advice")
    row["verdict"] = "improved"  # the candidates' own pair, which no pair record holds
    path.write_text(json.dumps(_rehashed(record)))
    code, _, err = run(capsys, "verify", str(path), *RUNS)
    assert code != 0
    assert "family's scorers of candidate2 vs candidate" in err


def test_a_record_written_before_the_family_held_every_scorer_still_verifies(capsys, tmp_path):
    path = _signed(capsys, tmp_path)
    record = json.loads(path.read_text())
    for entry in record["family"]["pairs"]:
        del entry["metrics"]
    del record["decision"]["regressed"]
    path.write_text(json.dumps(_rehashed(record)))
    code, _, err = run(capsys, "verify", str(path), *RUNS)
    assert code == 0, err


def test_junit_has_each_candidates_scorer_suites_with_its_regressions_failing(capsys, tmp_path):
    import xml.etree.ElementTree as ET

    import xmlschema

    junit = tmp_path / "junit.xml"
    code, _, _ = run(capsys, "report", *RUNS, "--junit", str(junit))
    assert code == 1
    xmlschema.XMLSchema(DATA / "junit" / "JUnit.xsd").validate(junit.read_text())
    suites = {s.get("name"): s for s in ET.parse(junit).getroot()}
    assert {"candidate: safe_advice", "candidate2: safe_advice"} <= set(suites)
    failed = [
        c.get("name") for c in suites["candidate2: safe_advice"] if c.find("failure") is not None
    ]
    assert failed == ["effect", *(f"drug-{i:02d}" for i in range(0, 60, 3))]


def test_metric_compares_the_set_on_the_second_scorer_with_cochrans_q_as_statsmodels(capsys):
    from statsmodels.stats.contingency_tables import cochrans_q

    code, out, _ = run(capsys, "report", *RUNS, "--metric", "safe_advice", "--format", "json")
    report = json.loads(out)
    assert code == 1 and report["scorer"] == "safe_advice"
    # Each run's safe_advice verdicts: the baseline passes every item, the candidates fail on
    # every 4th and every 3rd item (the fixture's script).
    table = [[1, int(i % 4 != 0), int(i % 3 != 0)] for i in range(60)]
    expected = cochrans_q(table)
    assert report["omnibus"]["statistic"] == pytest.approx(expected.statistic, rel=1e-12)
    assert report["omnibus"]["p"] == pytest.approx(expected.pvalue, rel=1e-9)
    assert report["decision"]["line"].endswith(
        f"Cochran's Q on safe_advice p = {report['omnibus']['p']:.1e}"
    )


def test_the_set_moved_to_another_scorer_is_the_set_compared_on_it_and_replays(tmp_path):
    """`on_metric` (the app opening a set on the scorer that blocks) gives what comparing the
    files on that scorer gives, and its spec replays (the column is read back from the log)."""
    from evaltui.core.analysis.run_set import RunSetSpec, compare_runs, on_metric
    from evaltui.core.compare.spec import CompareSpec
    from evaltui.core.designs import RUN_SET

    def report_of(run_set):
        return RUN_SET.report_dict(RUN_SET.decide(run_set, state_root=tmp_path / "state"))

    first = compare_runs(RunSetSpec.of(CompareSpec.create(RUNS[0], RUNS[1]), RUNS[2:]))
    moved = on_metric(first, "passed:safe_advice")
    assert moved.metric == "passed:safe_advice" and moved.spec.base.analysis.metric == moved.metric
    again = compare_runs(moved.spec)
    assert json.dumps(report_of(moved), sort_keys=True) == json.dumps(
        report_of(again), sort_keys=True
    )
    assert [p.verdict for p in moved.pairs] == [
        "regressed",
        "regressed",
        "no_significant_difference",
    ]
