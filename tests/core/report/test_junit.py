"""`report --junit`: the file validates against the JUnit XSD (Ant's, vendored from
windyroad/JUnit-Schema: tests/data/junit/README.md), each regression is a failing test case, the
decision is a case that fails exactly when the exit code does, and ids from the runs cannot
break the XML."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from datetime import UTC, datetime
from pathlib import Path

import pytest
import xmlschema

from evaltui.core.analysis.run_set import RunSetSpec
from evaltui.core.compare.spec import CompareSpec
from evaltui.core.designs import PAIR, RUN_SET
from evaltui.core.report.junit import junit_xml
from evaltui.core.textsafe import inert
from tests.core.report.ci_pairs import HOSTILE_IDS, decided_pair, write_pair

XSD = Path(__file__).resolve().parents[2] / "data" / "junit" / "JUnit.xsd"


@pytest.fixture(scope="module")
def schema() -> xmlschema.XMLSchema:
    return xmlschema.XMLSchema(XSD)


@pytest.fixture
def state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("EVALTUI_STATE_DIR", str(tmp_path / "state"))
    return tmp_path


def test_a_blocked_pair_writes_a_valid_junit_file_with_a_failing_case_per_regression(state, schema):
    base, cand, regressed = write_pair(state, both=40, regressions=12, improvements=2, fail=10)
    decided = decided_pair(base, cand)
    assert decided.decision.status == "blocked"  # 12 against 2: exact McNemar p = 0.013
    text = junit_xml(
        PAIR.findings(decided), now=datetime(2026, 12, 2, 11, 3, 30, 500_000, tzinfo=UTC)
    )
    schema.validate(text)  # raises, naming the place, on any departure from the XSD

    root = ET.fromstring(text)
    decision_suite, metric_suite = root.findall("testsuite")
    decision = decision_suite.find("testcase")
    assert decision.get("name") == "decision"
    assert decision.find("failure").get("message") == decided.decision.line
    assert decision_suite.get("timestamp") == "2026-12-02T11:03:30"  # UTC, no zone: the XSD's

    assert metric_suite.get("name") == "passed"
    assert (metric_suite.get("tests"), metric_suite.get("failures")) == ("14", "12")
    cases = metric_suite.findall("testcase")
    failed = [c.get("name") for c in cases if c.find("failure") is not None]
    passed = [c.get("name") for c in cases if c.find("failure") is None]
    # Every regression by its id (made inert: the escape sequence shows as a stand-in, the line
    # break folds as xs:token does), the two improvements passing.
    assert failed == [" ".join(inert(i).split()).replace("\ufffe", "<U+FFFE>") for i in regressed]
    assert passed == ["q52", "q53"]
    assert "\x1b" not in text and "\ufffe" not in text and "<b>" not in text
    props = {p.get("name"): p.get("value") for p in metric_suite.iter("property")}
    assert props["evaltui.unchanged_items"] == "50"
    assert props["evaltui.exit_code"] == "1"
    assert set(HOSTILE_IDS) <= set(regressed)


def test_a_pair_with_no_verdict_fails_the_decision_case_and_lists_no_regression(state, schema):
    base, cand, _ = write_pair(state, both=20, regressions=0, improvements=0, fail=5)
    decided = decided_pair(base, cand)
    assert decided.decision.exit_code == 4  # 25 items, nothing changed: no verdict
    text = junit_xml(PAIR.findings(decided))
    schema.validate(text)
    root = ET.fromstring(text)
    decision_suite, metric_suite = root.findall("testsuite")
    assert decision_suite.find("testcase/failure").get("type") == "not_enough_data"
    assert metric_suite.get("tests") == "0"


def test_a_run_set_has_a_suite_per_candidate_and_validates(state, schema):
    base, cand, _ = write_pair(state, both=40, regressions=6, improvements=1, fail=10)
    cand2 = state / "candidate2.jsonl"
    cand2.write_text(base.read_text(encoding="utf-8"), encoding="utf-8")
    analysis = RUN_SET.analyse(RunSetSpec.of(CompareSpec.create(base, cand), [cand2]))
    findings = RUN_SET.findings(RUN_SET.decide(analysis))
    text = junit_xml(findings)
    schema.validate(text)
    suites = {s.get("name"): s for s in ET.fromstring(text).findall("testsuite")}
    assert list(suites) == ["evaltui", "candidate: passed", "candidate2: passed"]
    assert suites["candidate: passed"].get("failures") == "6"
    assert suites["candidate2: passed"].get("tests") == "0"
