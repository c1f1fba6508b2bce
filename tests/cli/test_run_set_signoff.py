"""Signing off three or more runs: one record naming every pair, tags per pair, verify."""

from __future__ import annotations

import csv
import io
import json

import pytest

from evaltui.cli.main import main
from evaltui.core.analysis.run_set import RunSetSpec, compare_runs
from evaltui.core.compare.spec import CompareSpec
from evaltui.core.record.session import start_review
from tests.conftest import SAMPLE_RUNS, schema_errors

DEMO = [str(SAMPLE_RUNS / f"{name}.jsonl") for name in ("baseline", "candidate", "candidate2")]


@pytest.fixture
def state(tmp_path, monkeypatch):
    monkeypatch.setenv("EVALTUI_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.setenv("EVALTUI_REVIEWER", "Rita Reviewer")
    return tmp_path


def _sign(prefix, *extra, decision="needs-more-data"):
    return main(
        ["signoff", *DEMO, "--decision", decision, "--rationale", "r", "--output", str(prefix)]
        + list(extra)
    )


def test_the_record_names_every_baseline_pair_with_its_own_record(state, capsys):
    assert _sign(state / "rs") == 0
    record = json.loads((state / "rs.json").read_text())
    assert schema_errors("signoff-runset", record) == []
    assert [(p["baseline"], p["candidate"]) for p in record["pairs"]] == [(0, 1), (0, 2)]
    for entry in record["pairs"]:
        assert schema_errors("signoff", entry["record"]) == []
    assert [r["name"] for r in record["runs"]] == ["baseline", "candidate", "candidate2"]
    assert len(record["family"]["pairs"]) == 3
    markdown = (state / "rs.md").read_text()
    assert markdown.startswith("**NEEDS REVIEW** · 3 runs against baseline")
    assert "## candidate against baseline" in markdown
    assert "## candidate2 against baseline" in markdown
    rows = list(csv.reader(io.StringIO((state / "rs.csv").read_text())))
    assert rows[0][:3] == ["pair", "item_id", "direction"]
    assert sum(row[0] == "candidate vs baseline" for row in rows) == 30
    assert sum(row[0] == "candidate2 vs baseline" for row in rows) == 26


def test_tags_belong_to_their_pair(state):
    spec = CompareSpec.create(DEMO[0], DEMO[1])
    run_set = compare_runs(RunSetSpec.of(spec, DEMO[2:]))
    first = run_set.pair(0, 1)
    session = start_review(first.analysis)
    session.set_tag(first.analysis.regressions[0], "confirmed regression")
    session.close()
    assert _sign(state / "rs") == 0
    record = json.loads((state / "rs.json").read_text())
    tags = [
        {i["item_id"]: i["tag"] for i in entry["record"]["items"] if i["tag"]}
        for entry in record["pairs"]
    ]
    assert tags == [{first.analysis.regressions[0]: "confirmed regression"}, {}]
    assert record["decision"]["status"] == "blocked"
    assert record["decision"]["line"].startswith("BLOCKED · 3 runs against baseline")


def test_approving_over_untriaged_regressions_needs_an_override(state, capsys):
    assert _sign(state / "rs", decision="approve") == 2
    assert "override" in capsys.readouterr().err
    assert not (state / "rs.json").exists()
    assert _sign(state / "rs", "--override-reason", "known", decision="approve") == 0


def test_verify_rebuilds_every_pair_from_the_files(state, capsys):
    _sign(state / "rs")
    capsys.readouterr()
    assert main(["verify", str(state / "rs.json"), *DEMO]) == 0
    assert "every pair's record rebuilds" in capsys.readouterr().out


def test_verify_refuses_the_runs_in_another_order(state, capsys):
    _sign(state / "rs")
    capsys.readouterr()
    assert main(["verify", str(state / "rs.json"), DEMO[0], DEMO[2], DEMO[1]]) == 1
    assert "is not run 2 (candidate)" in capsys.readouterr().err


def test_verify_catches_an_edited_pair_record_rehashed_at_the_top(state, capsys):
    from evaltui.core.record.signoff import _hash

    _sign(state / "rs")
    path = state / "rs.json"
    record = json.loads(path.read_text())
    record["pairs"][0]["record"]["rationale"] = "edited"
    record.pop("content_hash")
    record["content_hash"] = _hash(record)
    path.write_text(json.dumps(record))
    capsys.readouterr()
    assert main(["verify", str(path), *DEMO]) == 1
    assert "pairs[0]" in capsys.readouterr().err


def test_verify_of_a_two_run_record_with_three_files_is_a_usage_error(state, capsys):
    main(["signoff", *DEMO[:2], "--decision", "block", "--rationale", "r", "--output",
          str(state / "two")])  # fmt: skip
    capsys.readouterr()
    assert main(["verify", str(state / "two.json"), *DEMO]) == 2


def test_a_note_with_a_line_break_stays_one_cell_of_the_set_csv(state):
    spec = CompareSpec.create(DEMO[0], DEMO[1])
    run_set = compare_runs(RunSetSpec.of(spec, DEMO[2:]))
    pair = run_set.pair(0, 2)
    session = start_review(pair.analysis)
    item = pair.analysis.regressions[0]
    session.set_note(item, "line one\n=line two")
    session.close()
    assert _sign(state / "rs") == 0
    rows = list(csv.reader(io.StringIO((state / "rs.csv").read_text())))
    header = rows[0]
    assert header[:3] == ["pair", "item_id", "direction"]
    assert all(len(row) == len(header) for row in rows)
    noted = [r for r in rows if r[1] == item and r[0] == "candidate2 vs baseline"]
    assert [r[header.index("note")] for r in noted] == ["line one\n'=line two"]
    assert sum(r[0] == "candidate vs baseline" for r in rows) == 30
