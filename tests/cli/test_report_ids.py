"""`evaltui report --ids N`: the JSON report's lists of item ids, cut to a bound and said so."""

from __future__ import annotations

import json

from evaltui.cli.main import main
from tests.conftest import SAMPLE_RUNS, schema_errors, table_records


def _report(capsys, write_jsonl, *extra: str) -> dict:
    base, cand = table_records(10, 30, 5, 15)  # 30 regressions, 5 improvements
    args = [str(write_jsonl("b.jsonl", base)), str(write_jsonl("c.jsonl", cand))]
    assert main(["report", *args, "--format", "json", *extra]) == 1
    out = capsys.readouterr().out
    assert schema_errors("report", out) == []
    return json.loads(out)


def test_ids_cut_keeps_the_first_ids_of_each_list_and_says_which_lists_and_their_lengths(
    capsys, write_jsonl
):
    whole = _report(capsys, write_jsonl, "--ids", "all")
    cut = _report(capsys, write_jsonl, "--ids", "4")
    assert "ids_cut" not in whole and len(whole["regressions"]) == 30
    assert cut["regressions"] == whole["regressions"][:4]
    assert cut["improvements"] == whole["improvements"][:4]
    untriaged = next(r for r in cut["decision"]["reasons"] if r["kind"] == "untriaged")
    index = cut["decision"]["reasons"].index(untriaged)
    assert untriaged["item_ids"] == whole["decision"]["reasons"][index]["item_ids"][:4]
    assert cut["ids_cut"]["limit"] == 4
    assert {(c["path"], c["total"], c["shown"]) for c in cut["ids_cut"]["lists"]} == {
        ("/regressions", 30, 4),
        ("/improvements", 5, 4),
        (f"/decision/reasons/{index}/item_ids", 30, 4),
    }
    assert "--ids all" in cut["ids_cut"]["note"]
    # Counts are never cut, nor anything but the lists of ids.
    assert cut["table"] == whole["table"] and cut["decision"]["line"] == whole["decision"]["line"]
    rest = {k: v for k, v in cut.items() if k not in ("regressions", "improvements", "ids_cut")}
    assert rest.keys() == {k for k in whole if k not in ("regressions", "improvements")}


def test_lists_within_the_default_bound_are_whole_and_say_nothing(capsys, write_jsonl):
    report = _report(capsys, write_jsonl)
    assert "ids_cut" not in report and len(report["regressions"]) == 30


def test_ids_refuses_a_negative_or_a_word_with_a_usage_error(capsys, write_jsonl):
    base, cand = table_records(10, 3, 5, 15)
    args = [str(write_jsonl("b.jsonl", base)), str(write_jsonl("c.jsonl", cand))]
    for bad in ("-1", "many"):
        try:
            code = main(["report", *args, "--format", "json", "--ids", bad])
        except SystemExit as exc:
            code = exc.code
        err = capsys.readouterr().err
        assert code == 2 and "--ids" in err and "Traceback" not in err


def test_a_run_sets_report_cuts_each_pairs_lists_and_names_them_under_pairs(
    capsys, tmp_path, monkeypatch
):
    monkeypatch.setenv("EVALTUI_STATE_DIR", str(tmp_path / "state"))
    runs = [str(SAMPLE_RUNS / f) for f in ("baseline.jsonl", "candidate.jsonl", "candidate2.jsonl")]
    assert main(["report", *runs, "--format", "json", "--ids", "1"]) == 0
    out = capsys.readouterr().out
    assert schema_errors("report-runset", out) == []
    report = json.loads(out)
    paths = {c["path"] for c in report["ids_cut"]["lists"]}
    assert {"/pairs/0/report/regressions", "/pairs/1/report/improvements"} <= paths
    assert all(len(p["report"]["regressions"]) <= 1 for p in report["pairs"] if p["report"])
