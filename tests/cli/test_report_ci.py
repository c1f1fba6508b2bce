"""`evaltui report` in CI, in-process: in GitHub Actions the text report is printed between
stop-commands and its resume token and followed by the annotations, the job summary is appended
to $GITHUB_STEP_SUMMARY led by the decision line, the JUnit file validates, and the exit code is
the decision's; with a JSON report the annotations go to stderr so stdout stays JSON. And the
workflow snippets in docs/ci.md and the README parse as YAML and call `report` with real flags."""

from __future__ import annotations

import json
import re
import shlex
import textwrap
from pathlib import Path

import pytest
import xmlschema
import yaml

from evaltui.cli.main import main
from evaltui.cli.parser import build_parser
from evaltui.core.textsafe import md_cell
from tests.core.report.ci_pairs import write_pair
from tests.core.report.test_github import runner_reads
from tests.core.report.test_junit import XSD

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def actions(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """GitHub Actions' environment, the workspace a temporary folder."""
    monkeypatch.setenv("EVALTUI_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    monkeypatch.setenv("GITHUB_WORKSPACE", str(tmp_path))
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(tmp_path / "step_summary.md"))
    return tmp_path


def test_in_actions_a_blocked_text_report_is_fenced_annotated_and_summarised(actions, capsys):
    base, cand, _ = write_pair(actions, both=40, regressions=12, improvements=2, fail=10)
    (actions / "step_summary.md").write_text("earlier step\n", encoding="utf-8")
    junit = actions / "junit.xml"
    assert main(["report", str(base), str(cand), "--junit", str(junit)]) == 1  # blocked

    out = capsys.readouterr().out.splitlines()
    stop = re.fullmatch(r"::stop-commands::([0-9a-f]{32})", out[0])
    assert stop, out[0]
    resume = out.index(f"::{stop.group(1)}::")
    report, after = out[1:resume], out[resume + 1 :]
    line = report[0]
    assert line.startswith("BLOCKED · ")
    read = [runner_reads(x) for x in after]
    assert [r[0] for r in read] == ["error"] * 10 + ["warning"]  # 1 decision + 9 of 12, + count
    assert read[0][2] == line
    assert {r[1]["file"] for r in read[1:10]} == {"candidate.jsonl"}  # workspace-relative

    summary = (actions / "step_summary.md").read_text(encoding="utf-8")
    previous, ours = summary.split("\n", 1)
    assert previous == "earlier step"  # appended, as GitHub asks
    assert ours.split("\n", 1)[0] == f"## {md_cell(line)}"
    assert ours.count("| passed | `") == 12
    xmlschema.XMLSchema(XSD).validate(junit.read_text(encoding="utf-8"))


def test_in_actions_a_json_report_keeps_stdout_json_and_annotates_on_stderr(actions, capsys):
    base, cand, _ = write_pair(actions, both=40, regressions=3, improvements=2, fail=10)
    comment = actions / "comment.md"
    code = main(["report", str(base), str(cand), "--format", "json", "--summary", str(comment)])
    captured = capsys.readouterr()
    report = json.loads(captured.out)
    assert code == report["decision"]["exit_code"] == 0  # 3 against 2: no difference
    notes = [runner_reads(x) for x in captured.err.splitlines() if x.startswith("::")]
    assert [n[0] for n in notes] == ["notice", "error", "error", "error"]
    first = comment.read_text(encoding="utf-8").split("\n", 1)[0]
    assert first == f"## {md_cell(report['decision']['line'])}"


def test_outside_actions_report_prints_no_workflow_command(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("EVALTUI_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    base, cand, _ = write_pair(tmp_path, both=40, regressions=12, improvements=2, fail=10)
    assert main(["report", str(base), str(cand), "--format", "markdown"]) == 1
    captured = capsys.readouterr()
    assert not any(x.startswith("::") for x in (captured.out + captured.err).splitlines())


def _yaml_blocks(path: Path) -> list[object]:
    text = path.read_text(encoding="utf-8")
    blocks = re.findall(r"```yaml\n(.*?)```", text, re.S)
    return [yaml.safe_load(textwrap.dedent(block)) for block in blocks]


def _steps(document: object) -> list[dict]:
    if isinstance(document, list):
        return document
    return [s for job in document["jobs"].values() for s in job["steps"]]


@pytest.mark.parametrize("doc", ["docs/ci.md", "README.md"])
def test_the_workflow_snippet_parses_and_gates_on_reports_exit_code(doc):
    (document,) = _yaml_blocks(ROOT / doc)
    steps = _steps(document)
    (compare,) = [s for s in steps if "evaltui report" in s.get("run", "")]
    command = next(x for x in compare["run"].splitlines() if x.startswith("evaltui report"))
    words = shlex.split(command)
    words = words[1 : words.index(">")] if ">" in words else words[1:]
    args = build_parser("report").parse_args(words)  # unknown flags exit 2 here
    assert args.command == "report" and args.junit and args.summary
    assert 'echo "exit_code=$?" >> "$GITHUB_OUTPUT"' in compare["run"]
    comment = next(s for s in steps if "gh pr comment" in s.get("run", ""))
    assert f"--body-file {args.summary}" in comment["run"]
    gate = steps[-1]
    assert gate["run"] == 'exit "$CODE"'
    assert gate["env"]["CODE"] == f"${{{{ steps.{compare['id']}.outputs.exit_code }}}}"
