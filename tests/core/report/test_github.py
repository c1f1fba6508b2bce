"""GitHub Actions surfaces: error annotations the runner reads as we mean them and never as
anything a run's text says, and a job summary that renders as GFM and fits a PR comment.

The runner's reading of a line is re-stated here from its source (actions/runner,
src/Runner.Common/ActionCommand.cs: `TryParseV2` for `::cmd props::data` after leading spaces,
`TryParse` for the legacy `##[cmd props]data` anywhere in a line, and their unescaping)."""

from __future__ import annotations

import html
import re
from pathlib import Path

import pytest
from markdown_it import MarkdownIt

from evaltui.core.designs import PAIR
from evaltui.core.report.findings import Finding, Findings, FindingSuite
from evaltui.core.report.github import (
    COMMENT_LIMIT,
    ERRORS_PER_STEP,
    annotation_lines,
    command,
    defused,
    job_summary,
)
from tests.core.report.ci_pairs import HOSTILE_IDS, decided_pair, write_pair

COMMANDS = {"error", "warning", "notice", "add-mask", "stop-commands", "set-output", "debug"}


def _unescape(text: str, mapping: tuple[tuple[str, str], ...]) -> str:
    for token, replacement in mapping:
        text = text.replace(replacement, token)
    return text


DATA = (("\r", "%0D"), ("\n", "%0A"), ("%", "%25"))
PROPERTY = (("\r", "%0D"), ("\n", "%0A"), (":", "%3A"), (",", "%2C"), ("%", "%25"))


def runner_reads(line: str) -> tuple[str, dict[str, str], str] | None:
    """What the runner makes of one output line: (command, properties, data), or None."""
    message = line.lstrip()
    if message.startswith("::"):
        end = message.find("::", 2)
        if end >= 0:
            info = message[2:end]
            name, _, props = info.partition(" ")
            if name in COMMANDS:
                properties = {}
                for prop in props.strip().split(","):
                    key, eq, value = prop.partition("=")
                    if eq and key and value:
                        properties[key] = _unescape(value, PROPERTY)
                return name, properties, _unescape(message[end + 2 :], DATA)
    legacy = re.search(r"##\[([^\] ]+)[^\]]*\]", line)
    if legacy and legacy.group(1) in COMMANDS:
        return legacy.group(1), {}, ""
    return None


@pytest.fixture
def state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("EVALTUI_STATE_DIR", str(tmp_path / "state"))
    return tmp_path


@pytest.mark.parametrize("text", [*HOSTILE_IDS, "a\r\nb", "100% %25 %0A :: ,", "##[error]x"])
def test_an_annotation_is_read_back_as_written_whatever_the_text(text):
    line = command("error", f"{text} regressed", file="runs/c,1:2.jsonl", title=f"t: {text}")
    assert "\n" not in line and "\r" not in line
    name, properties, data = runner_reads(line)
    assert name == "error"
    assert properties == {"file": "runs/c,1:2.jsonl", "title": defused(f"t: {text}")}
    assert data == defused(f"{text} regressed")
    # What the runner shows holds no command of its own, in either syntax.
    assert "::" not in data and "##[" not in data and "\x1b" not in data


def test_the_decision_and_the_regressions_are_annotated_within_githubs_ten_errors(state):
    base, cand, regressed = write_pair(state, both=40, regressions=15, improvements=1, fail=5)
    decided = decided_pair(base, cand)
    findings = PAIR.findings(decided)
    lines = annotation_lines(findings, lambda path: "runs/candidate.jsonl")
    read = [runner_reads(line) for line in lines]
    assert all(r is not None for r in read)
    kinds = [r[0] for r in read]
    assert kinds == ["error"] * ERRORS_PER_STEP + ["warning"]  # blocked: the decision is one
    assert read[0][2] == decided.decision.line and read[0][1]["title"] == "evaltui: BLOCKED"
    assert [r[1]["file"] for r in read[1:ERRORS_PER_STEP]] == ["runs/candidate.jsonl"] * 9
    for r, item in zip(read[1:ERRORS_PER_STEP], regressed, strict=False):
        assert r[2].startswith(defused(item) + ": regressed on passed: baseline pass")
    assert read[-1][2].startswith("6 more regressions are not annotated")


def _summary_findings(regressions: int, id_chars: int) -> Findings:
    cases = tuple(
        Finding(f"item-{i:05d}-" + "x" * id_chars, True, "regressed on passed", "slice|a")
        for i in range(regressions)
    )
    return Findings(
        "BLOCKED · regressed · overall -2.0 pts [-3.1, -0.9]",
        "blocked",
        1,
        (FindingSuite("evaltui", ()), FindingSuite("passed", cases, file="c.jsonl")),
    )


def test_the_job_summary_renders_as_gfm_with_the_decision_line_first(state):
    base, cand, regressed = write_pair(state, both=40, regressions=12, improvements=2, fail=10)
    decided = decided_pair(base, cand)
    summary = job_summary(PAIR.report_markdown(decided), PAIR.findings(decided))
    assert summary.split("\n", 1)[0].startswith("## ")
    rendered = MarkdownIt("gfm-like").render(summary)
    first = re.search(r"<h2>(.*?)</h2>", rendered).group(1)
    assert html.unescape(first) == decided.decision.line  # the first line, word for word
    assert "<h3>Regressions, item by item (12)</h3>" in rendered
    tables = re.findall(r"<table>.*?</table>", rendered, flags=re.S)
    regression_rows = re.findall(r"<tr>\s*<td>passed</td>", tables[-1])
    assert len(regression_rows) == 12  # one row per regression: no id broke the table
    assert "<b>" not in rendered and "\x1b" not in rendered  # ids shown, never as markup


def test_a_long_summary_stays_under_the_comment_limit_and_says_what_it_left_out():
    findings = _summary_findings(regressions=3_000, id_chars=40)
    summary = job_summary("## BLOCKED · regressed · overall -2.0 pts [-3.1, -0.9]\n", findings)
    assert len(summary) < COMMENT_LIMIT
    shown = summary.count("| passed | `item-")
    left = re.search(r"\*\*([\d,]+) more regressions not shown; see the artifact\*\*", summary)
    assert shown > 100 and int(left.group(1).replace(",", "")) == 3_000 - shown
    rendered = MarkdownIt("gfm-like").render(summary)
    assert rendered.count("<tr>") == shown + 1  # the header row and each shown regression


def test_a_summary_that_fits_leaves_nothing_out():
    summary = job_summary("## BLOCKED\n", _summary_findings(regressions=20, id_chars=5))
    assert summary.count("| passed | `item-") == 20 and "not shown" not in summary


def test_a_report_too_long_for_a_comment_is_cut_at_a_line_with_the_cut_said():
    markdown = "## BLOCKED · regressed\n" + "".join(
        f"| slice {i} | {'y' * 60} |\n" for i in range(5_000)
    )
    summary = job_summary(markdown, _summary_findings(regressions=50, id_chars=5))
    assert len(summary) < COMMENT_LIMIT
    assert summary.startswith("## BLOCKED · regressed\n")
    cut = re.search(r"\*\*The report is cut here: ([\d,]+) more lines not shown", summary)
    shown = summary.count("| slice ")
    assert int(cut.group(1).replace(",", "")) == 5_000 - shown + 1  # the last, empty line too
    assert summary.count("| passed | `item-") == 50  # the regressions keep their room
