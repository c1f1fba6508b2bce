"""The published JSON Schemas (docs/schema/) describe what evaltui writes, and refuse what it
must never write. conftest.py also checks every report and record any test makes."""

from __future__ import annotations

import copy
import json
import math

import pytest

from evaltui.cli.main import main
from evaltui.core import schema_gen
from evaltui.core.record import signoff as signoff_module
from evaltui.core.report import pair as report_module
from tests import conftest
from tests.conftest import DATA, SAMPLE_RUNS, SCHEMAS, schema_errors, schema_validator

POLICY = SAMPLE_RUNS / "policy.toml"
INSPECT = DATA / "inspect_ai"
GPT5 = INSPECT / "2025-09-15T15-04-34-04-00_popularity_CuCFPdqnwXupUkxp69nJ2a.eval"
CLAUDE = INSPECT / "2025-09-15T15-04-34-04-00_popularity_jKN69eAYYpZFAZhRgMAztp.eval"


def report_text(capsys, *args) -> str:
    code = main(["report", *map(str, args), "--format", "json"])
    out, err = capsys.readouterr()
    assert code in (0, 1, 4), err  # 4: no verdict (the epochs pair has 10 items)
    return out


def signoff_text(capsys, tmp_path, monkeypatch, *args) -> str:
    monkeypatch.setenv("EVALTUI_STATE_DIR", str(tmp_path / "state"))
    code = main(
        ["signoff", *map(str, args), "--reviewer", "dana", "--output", str(tmp_path / "so")]
    )
    _, err = capsys.readouterr()
    assert code == 0, err
    return (tmp_path / "so.json").read_text(encoding="utf-8")


@pytest.fixture
def demo_report(capsys, sample_pair) -> dict:
    return json.loads(report_text(capsys, *sample_pair))


@pytest.fixture
def rated_pair(write_jsonl):
    """Judge ratings 1-5 in clusters of six; the candidate drops a point on a tenth."""
    base = [2 + (i * 7) % 4 for i in range(120)]
    cand = [b - 1 if i < 12 else b for i, b in enumerate(base)]

    def records(scores):
        return [
            {"item_id": f"r{i}", "score:judge": s, "cluster": f"doc{i // 6}"}
            for i, s in enumerate(scores)
        ]

    return write_jsonl("b.jsonl", records(base)), write_jsonl("c.jsonl", records(cand))


@pytest.mark.parametrize("name", sorted(schema_gen.SCHEMAS))
def test_published_schemas_are_valid_draft_2020_12(name):
    schema = json.loads((SCHEMAS / f"{name}.schema.json").read_text(encoding="utf-8"))
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    schema_validator(name)  # check_schema raises on an invalid schema


def test_definitions_shared_by_the_two_schemas_are_identical():
    report = json.loads((SCHEMAS / "report.schema.json").read_text(encoding="utf-8"))
    record = json.loads((SCHEMAS / "signoff.schema.json").read_text(encoding="utf-8"))
    shared = set(report["$defs"]) & set(record["$defs"])
    blocks = {"Decision", "Gate", "Inputs", "Pairing", "Options", "Table", "Delta", "Clusters"}
    assert blocks | {"BinaryArm", "GradedArm", "MetricRow", "SliceRow"} <= shared
    for name in sorted(shared):
        assert report["$defs"][name] == record["$defs"][name], name
    results, top = record["$defs"]["Results"], report["$defs"]["Report"]
    for key in results["required"]:
        assert results["properties"][key] == top["properties"][key], key


def test_committed_schemas_are_the_ones_the_declarations_generate():
    assert schema_gen.check() == []


def test_demo_report_matches_the_report_schema(capsys, sample_pair):
    assert schema_errors("report", report_text(capsys, *sample_pair)) == []


def test_policy_report_with_gates_matches_the_report_schema(capsys, sample_pair):
    text = report_text(capsys, *sample_pair, "--policy", POLICY)
    assert json.loads(text)["gates"]  # the gates are there to be checked
    assert schema_errors("report", text) == []


def test_graded_report_with_clusters_matches_the_report_schema(capsys, rated_pair):
    text = report_text(capsys, *rated_pair)
    report = json.loads(text)
    assert report["analysis"] == "graded" and report["clusters"] is not None
    assert schema_errors("report", text) == []


def test_epochs_report_matches_the_report_schema(capsys):
    text = report_text(capsys, GPT5, CLAUDE)
    assert json.loads(text)["epochs"] is not None
    assert schema_errors("report", text) == []


def test_signoff_record_matches_the_signoff_schema(capsys, tmp_path, monkeypatch, sample_pair):
    text = signoff_text(
        capsys, tmp_path, monkeypatch, *sample_pair, "--decision", "block", "--rationale", "no"
    )
    assert schema_errors("signoff", text) == []


def test_override_record_under_a_policy_matches_the_signoff_schema(
    capsys, tmp_path, monkeypatch, sample_pair
):
    text = signoff_text(
        capsys, tmp_path, monkeypatch, *sample_pair, "--policy", POLICY,
        "--decision", "approve", "--rationale", "known", "--override-reason", "accepted risk",
    )  # fmt: skip
    record = json.loads(text)
    assert record["override"]["failed_gates"] and record["gates"]
    assert schema_errors("signoff", text) == []


def test_graded_signoff_record_matches_the_signoff_schema(
    capsys, tmp_path, monkeypatch, rated_pair
):
    text = signoff_text(
        capsys, tmp_path, monkeypatch, *rated_pair, "--decision", "block", "--rationale", "worse"
    )
    assert json.loads(text)["results"]["analysis"] == "graded"
    assert schema_errors("signoff", text) == []


def test_report_without_a_verdict_is_refused(demo_report):
    del demo_report["verdict"]
    assert any(
        "'verdict' is a required property" in e for e in schema_errors("report", demo_report)
    )


def test_report_with_an_unknown_verdict_is_refused(demo_report):
    demo_report["verdict"] = "maybe"
    errors = schema_errors("report", demo_report)
    assert errors and all(e.startswith("$.verdict") for e in errors)


@pytest.mark.parametrize(
    ("path", "value"),
    [
        (("delta", "ci"), [0.1]),  # an interval has two bounds
        (("n_paired",), "200"),
        (("graded",), {"n": 3}),  # a binary report has no graded block
        (("mcnemar",), None),  # ... and always its McNemar test
        (("schema",), "evaltui.report/9"),
        (("pairing", "on_error"), "ignore"),
    ],
)
def test_report_with_a_wrong_value_is_refused(demo_report, path, value):
    target = demo_report
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    assert schema_errors("report", demo_report)


def test_report_with_nan_is_refused_as_not_json(demo_report):
    demo_report["delta"]["estimate"] = math.nan
    errors = schema_errors("report", demo_report)
    assert len(errors) == 1 and errors[0].startswith("not strict JSON: Out of range float")


def test_report_with_extra_keys_and_a_spec_is_accepted(demo_report):
    demo_report["spec"] = {"baseline": "b.jsonl", "candidate": "c.jsonl", "format": None}
    demo_report["added_later"] = {"anything": [1, 2]}
    assert schema_errors("report", demo_report) == []
    demo_report["spec"] = None
    assert schema_errors("report", demo_report) == []


def test_record_with_an_unknown_decision_or_direction_is_refused(
    capsys, tmp_path, monkeypatch, sample_pair
):
    record = json.loads(
        signoff_text(
            capsys, tmp_path, monkeypatch, *sample_pair, "--decision", "block", "--rationale", "no"
        )
    )
    for key, value in (("decision", "ship-it"), ("content_hash", "md5:0")):
        bad = copy.deepcopy(record)
        bad[key] = value
        assert schema_errors("signoff", bad), key
    bad = copy.deepcopy(record)
    bad["items"][0]["direction"] = "sideways"
    assert schema_errors("signoff", bad)
    gate = {"name": "g", "kind": "all_triaged", "slice": None, "detail": "", "item_ids": []}
    good, bad = copy.deepcopy(record), copy.deepcopy(record)
    good["gates"], bad["gates"] = [{**gate, "status": "pending"}], [{**gate, "status": "skipped"}]
    assert schema_errors("signoff", good) == []
    assert schema_errors("signoff", bad)


def test_producers_are_wrapped_by_the_schema_check_where_they_are_bound():
    for function in (
        report_module.report_dict,
        signoff_module.report_dict,
        signoff_module.build_record,
        signoff_module.write_record,
    ):
        assert hasattr(function, "__wrapped__"), function


def test_schema_check_records_an_invalid_report_as_a_violation(demo_report):
    demo_report["verdict"] = "maybe"

    def broken_report(*args, **kwargs):
        return demo_report

    check = conftest._checked(broken_report, "report")
    saved, conftest._violations = conftest._violations, []
    try:
        assert check() is demo_report  # returned unchanged: the check only records
        found = conftest._violations
    finally:
        conftest._violations = saved
    assert len(found) == 1 and "broken_report() does not match" in found[0]
    assert "$.verdict: 'maybe' is not one of" in found[0]
