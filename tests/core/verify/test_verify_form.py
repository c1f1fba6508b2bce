"""verify checks a record's form against its declaration (core/record/shape.py) first, and
names the key at fault on one line; records of an earlier version still read."""

from __future__ import annotations

import copy
import json

import pytest

from evaltui.cli.main import main
from evaltui.core.verify.form import form_problem, run_set_form_problem
from tests.conftest import SAMPLE_RUNS

PAIR = (SAMPLE_RUNS / "baseline.jsonl", SAMPLE_RUNS / "candidate.jsonl")


@pytest.fixture
def record(tmp_path, monkeypatch, capsys) -> dict:
    monkeypatch.setenv("EVALTUI_STATE_DIR", str(tmp_path / "state"))
    out = tmp_path / "so"
    args = ["signoff", *map(str, PAIR), "--reviewer", "dana", "--decision", "block"]
    assert main([*args, "--rationale", "no", "--output", str(out)]) == 0
    capsys.readouterr()
    return json.loads((tmp_path / "so.json").read_text(encoding="utf-8"))


def test_a_record_as_written_has_its_declared_form(record):
    assert form_problem(record) is None


@pytest.mark.parametrize(
    ("edit", "reason"),
    [
        (lambda r: r.pop("items"), "it has no items"),
        (lambda r: r["items"][0].pop("direction"), "items[0] has no direction"),
        (lambda r: r["triage"].__setitem__("regressions", "3"), "triage.regressions must be int"),
        (lambda r: r["triage"].__setitem__("by_tag", []), "triage.by_tag must be object"),
        (lambda r: r["results"].pop("verdict"), "results has no verdict"),
        (
            lambda r: r["items"][0].__setitem__("direction", "sideways"),
            "items[0].direction must be one of 'improvement', 'regression', got \"sideways\"",
        ),
        (
            lambda r: r.__setitem__("content_hash", "md5:0"),
            "content_hash must be str matching regex",
        ),
    ],
)
def test_a_record_of_the_wrong_form_is_named_at_the_key(record, edit, reason):
    edit(record)
    problem = form_problem(record)
    assert problem is not None and problem.startswith("the record's form: " + reason), problem
    assert "\n" not in problem


def test_an_item_listed_twice_is_named(record):
    record["items"].append(dict(record["items"][0]))
    assert form_problem(record) == f"the record lists item {record['items'][0]['item_id']} twice"


def test_records_of_earlier_versions_still_have_their_form(record):
    older = copy.deepcopy(record)
    older["results"].pop("categories", None)
    older.pop("spec", None)
    for gate in older["gates"]:
        gate.pop("summary", None)
        gate.pop("margin", None)
    assert form_problem(older) is None
    first = copy.deepcopy(record)
    first["schema"] = "evaltui.signoff/1"
    for key in ("decision", "reviewer_decision", "spec"):
        first.pop(key, None)
    assert form_problem(first) is None


def test_a_run_set_record_and_its_pairs_records_are_checked_against_the_declaration(
    tmp_path, monkeypatch, capsys
):
    monkeypatch.setenv("EVALTUI_STATE_DIR", str(tmp_path / "state"))
    runs = [*map(str, PAIR), str(SAMPLE_RUNS / "candidate2.jsonl")]
    out = tmp_path / "set"
    args = ["signoff", *runs, "--reviewer", "dana", "--decision", "block", "--rationale", "no"]
    assert main([*args, "--output", str(out)]) == 0
    capsys.readouterr()
    record = json.loads((tmp_path / "set.json").read_text(encoding="utf-8"))
    assert run_set_form_problem(record) is None
    record["pairs"][1]["record"]["triage"].pop("tags")
    assert run_set_form_problem(record) == "the record's form: pairs[1].record.triage has no tags"
