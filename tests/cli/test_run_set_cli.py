"""`evaltui report` with three or more runs: the first line, the formats, the exit codes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evaltui.cli.main import main
from tests.conftest import SAMPLE_RUNS, schema_errors

DEMO = [str(SAMPLE_RUNS / f"{name}.jsonl") for name in ("baseline", "candidate", "candidate2")]


def test_report_of_three_demo_runs_leads_with_the_set_decision(capsys):
    code = main(["report", *DEMO])
    out = capsys.readouterr().out
    assert code == 0
    first = out.splitlines()[0]
    assert first.startswith("NEEDS REVIEW · 3 runs against baseline")
    assert "Cochran's Q (pass/fail, 200 items every run scored)" in out
    assert "candidate2 vs baseline: +8.0 pts [+2.2, +13.7]" in out
    assert "The items cluster" in out


def test_json_report_of_three_runs_matches_its_schema(capsys):
    assert main(["report", *DEMO, "--format", "json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert schema_errors("report-runset", document) == []
    assert document["decision"]["status"] == "needs_review"
    assert [r["name"] for r in document["runs"]] == ["baseline", "candidate", "candidate2"]
    for pair in document["pairs"]:
        if pair["report"] is not None:
            assert schema_errors("report", pair["report"]) == []


def test_markdown_report_of_three_runs_opens_with_the_decision_heading(capsys):
    assert main(["report", *DEMO, "--format", "markdown"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("## NEEDS REVIEW · 3 runs against baseline")
    assert "| baseline | candidate2 | +8.0 pts [+2.2, +13.7] | 0.008 | 0.015 | improved |" in out


def test_a_regressing_candidate_among_three_exits_one(tmp_path, capsys):
    rows = {
        "base": [True] * 70 + [False] * 30,
        "worse": [False] * 25 + [True] * 45 + [False] * 30,
        "same": [True] * 70 + [False] * 30,
    }
    paths = []
    for name, values in rows.items():
        path = tmp_path / f"{name}.jsonl"
        path.write_text(
            "".join(
                json.dumps({"item_id": f"q{i}", "passed": v}) + "\n" for i, v in enumerate(values)
            )
        )
        paths.append(str(path))
    assert main(["report", *paths]) == 1
    assert capsys.readouterr().out.startswith("BLOCKED · 3 runs against base · worse: blocked")


def test_a_missing_third_run_is_a_one_line_error_naming_it(tmp_path, capsys):
    missing = tmp_path / "nowhere.jsonl"
    assert main(["report", *DEMO[:2], str(missing)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and str(missing) in err[0]


@pytest.mark.parametrize("command", [["report"], []])
def test_a_folder_with_more_runs_is_refused(command, capsys):
    assert main([*command, str(SAMPLE_RUNS), *DEMO[1:]]) == 2
    assert "is a folder" in capsys.readouterr().err


def test_runs_compared_by_a_different_metric_are_refused(tmp_path, capsys):
    graded = tmp_path / "graded.jsonl"
    graded.write_text(
        "".join(
            json.dumps({"item_id": f"pharm-{i:04d}", "score": 0.5}) + "\n" for i in range(1, 201)
        )
    )
    assert main(["report", *DEMO[:2], str(graded)]) == 2
    assert len(capsys.readouterr().err.strip().splitlines()) == 1


def test_the_text_report_names_each_file_as_the_pairs_does_and_the_json_keeps_the_paths(
    capsys, monkeypatch
):
    """Relative to the working directory (as the pair's "what was compared" says it: the
    absolute local path is the reviewer's layout); the JSON keeps the paths given, which
    verify opens."""
    monkeypatch.chdir(SAMPLE_RUNS.parent)
    main(["report", *DEMO])
    out = capsys.readouterr().out
    for path in DEMO:
        assert f"· sample_runs/{Path(path).name} · sha256" in out
        assert str(Path(path)) not in out
    main(["report", *DEMO, "--format", "json"])
    runs = json.loads(capsys.readouterr().out)["runs"]
    assert [r["path"] for r in runs] == DEMO


def test_when_several_runs_are_bad_the_first_one_given_is_named(tmp_path, capsys):
    broken = tmp_path / "broken.jsonl"
    broken.write_text('{"item_id": "a", "passed": "yes"}\n')
    missing = tmp_path / "nowhere.jsonl"
    assert main(["report", DEMO[0], str(broken), str(missing)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and str(broken) in err[0] and str(missing) not in err[0]
