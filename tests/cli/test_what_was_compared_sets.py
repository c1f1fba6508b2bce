""" "What was compared" on the run-set (3+ runs) and independent reports, as the pair's report
says it (issue 24): each run's task, model, scorer(s), dataset, harness+version, date in UTC,
and its file relative to where the command ran (the file name when it lies elsewhere), never
an absolute local path in Markdown.

Runs: the real two-scorer Inspect AI 0.3.285 logs (tests/data/inspect_ai/two_scorers), the
candidate copied as a third run; the independent fixtures (tests/data/independent)."""

from __future__ import annotations

import json
import shutil

import pytest

from evaltui.cli.main import main
from tests.conftest import DATA, SAMPLE_RUNS, schema_errors

PAIR = DATA / "inspect_ai" / "two_scorers"
FIXTURES = DATA / "independent"


@pytest.fixture(autouse=True)
def _elsewhere(tmp_path, monkeypatch) -> None:
    """The command runs in a directory the inputs do not lie under (their absolute paths are
    given), as a CI job in its workspace reading downloaded artifacts."""
    monkeypatch.setenv("EVALTUI_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.chdir(tmp_path)


def report(capsys, *args) -> str:
    code = main(["report", *map(str, args)])
    out, err = capsys.readouterr()
    assert code in (0, 1, 4), err
    return out


def run_set(tmp_path):
    third = tmp_path / "runs" / "candidate2.eval"
    third.parent.mkdir()
    shutil.copy(PAIR / "candidate.eval", third)
    return PAIR / "baseline.eval", PAIR / "candidate.eval", third


def test_the_run_set_markdown_names_every_run_and_no_absolute_path(capsys, tmp_path):
    out = report(capsys, *run_set(tmp_path), "--format", "markdown")
    assert "**What was compared**" in out
    table = out[out.index("**What was compared**") :]
    rows = [line for line in table.splitlines() if line.startswith("| candidate2 |")]
    assert len(rows) == 1
    cells = [c.strip() for c in rows[0].strip("|").split("|")]
    assert cells[1:8] == [
        "pharmacy\\_two\\_scorers",
        "mockllm/model",
        "answered, safe\\_advice",
        "unknown",
        "Inspect AI 0.3.285",
        "2026-12-02 11:10:55 UTC",
        "`runs/candidate2.eval`",  # under the working directory: relative to it
    ]
    assert "| baseline |" in out and "`baseline.eval`" in out  # elsewhere: its file name
    assert str(PAIR) not in out and str(tmp_path) not in out


def test_the_run_set_text_says_what_was_compared(capsys, tmp_path):
    out = report(capsys, *run_set(tmp_path))
    lines = out.splitlines()
    start = lines.index("What was compared:")
    baseline = next(line for line in lines[start:] if line.lstrip().startswith("baseline:"))
    for words in (
        "task pharmacy_two_scorers",
        "model mockllm/model",
        "scorer(s) answered, safe_advice",
        "Inspect AI 0.3.285",
        "2026-12-02 11:10:54 UTC",
        "· baseline.eval ·",
    ):
        assert words in baseline
    assert str(PAIR) not in out


def test_the_run_set_json_describes_each_run(capsys, tmp_path):
    """(On the JSONL demo runs: a JSON run-set report of the Inspect logs also holds each
    pair's cost intervals, seconds of bootstrap this test does not need.)"""
    third = tmp_path / "runs" / "candidate2.jsonl"
    third.parent.mkdir()
    shutil.copy(SAMPLE_RUNS / "candidate2.jsonl", third)
    given = [SAMPLE_RUNS / "baseline.jsonl", SAMPLE_RUNS / "candidate.jsonl", third]
    out = report(capsys, *given, "--format", "json")
    assert schema_errors("report-runset", out) == []
    runs = json.loads(out)["runs"]
    assert [r["described"]["file"] for r in runs] == [
        "baseline.jsonl",
        "candidate.jsonl",
        "runs/candidate2.jsonl",
    ]
    assert {r["described"]["harness"] for r in runs} == {"jsonl file (no harness recorded)"}
    assert runs[0]["path"] == str(given[0])  # (kept as given: verify opens it)


def independent(capsys, *more) -> str:
    return report(
        capsys,
        FIXTURES / "baseline.jsonl",
        FIXTURES / "candidate.jsonl",
        "--design",
        "independent",
        *more,
    )


def test_the_independent_markdown_says_what_was_compared_without_local_paths(capsys):
    out = independent(capsys, "--format", "markdown")
    assert "**What was compared**" in out
    row = [line for line in out.splitlines() if line.startswith("| candidate |")][-1]
    assert "jsonl file (no harness recorded)" in row and "`candidate.jsonl`" in row
    assert row.rstrip().endswith("| 70 |")  # its items
    assert str(FIXTURES) not in out


def test_the_independent_text_and_json_name_the_files_relative(capsys):
    out = independent(capsys)
    assert any(
        line.startswith("candidate: task unknown · model unknown") for line in out.splitlines()
    )
    assert str(FIXTURES) not in out
    d = json.loads(independent(capsys, "--format", "json"))
    assert d["inputs"]["baseline"]["described"]["file"] == "baseline.jsonl"
