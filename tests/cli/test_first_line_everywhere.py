"""Every design says its decision in the same words on every surface, and the overall numbers
every export prints are the decision's.

For each design (the demo pair, the demo run set, an independent pair, a preference file) the
decision is made through the registry (`core.designs`), then read back from each surface: the
app's header line (its rendering function, no app running), the report's first line as text,
Markdown and JSON, and the sign-off Markdown's first line (the two designs that sign off). All
of them are `vocabulary.compose_line` of the decision's parts. The "overall" rows of the text
report, the Markdown report and the sign-off Markdown carry the decision's interval and p (on
the clustered demo the item-level interval said [+0.6, +11.5], p = 0.043, under a first line
saying [-0.7, +12.4] (clusters), no significant difference).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from evaltui.cli.main import main
from evaltui.core.analysis.preference import PreferenceOptions
from evaltui.core.analysis.run_set import RunSetSpec
from evaltui.core.compare.spec import CompareSpec
from evaltui.core.decide.effect import OverallRow
from evaltui.core.decide.vocabulary import compose_line
from evaltui.core.designs import INDEPENDENT, PAIR, PREFERENCE, RUN_SET, Decided
from evaltui.core.words import format_p
from evaltui.ui.widgets.header_pane import decision_text
from tests.conftest import DATA, SAMPLE_RUNS

BASE, CAND, CAND2 = (SAMPLE_RUNS / f"{n}.jsonl" for n in ("baseline", "candidate", "candidate2"))
INDEPENDENT_PAIR = (
    DATA / "independent" / "baseline.jsonl",
    DATA / "independent" / "candidate.jsonl",
)
PREFERENCES = SAMPLE_RUNS / "preferences.jsonl"


@pytest.fixture
def state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("EVALTUI_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.setenv("EVALTUI_REVIEWER", "Rita Reviewer")
    return tmp_path


def _words(text: str) -> str:
    """The words of a line as a reader sees them: Markdown escapes and bold undone, spaces
    folded (the header pads its status word)."""
    text = text.removeprefix("## ")
    text = re.sub(r"\\(.)", r"\1", text).replace("**", "")
    return " ".join(text.split())


def _out(capsys: pytest.CaptureFixture[str], *args: object) -> tuple[int, str]:
    code = main([str(a) for a in args])
    return code, capsys.readouterr().out


def _surfaces(capsys: pytest.CaptureFixture[str], command: list[object]) -> dict[str, object]:
    """Each report form's exit code and output (text, markdown, json)."""
    out: dict[str, object] = {}
    for form in ("text", "markdown", "json"):
        code, text = _out(capsys, *command, "--format", form)
        out[form] = (code, text)
    return out


def _first_lines_agree(decided: Decided, surfaces: dict[str, object]) -> None:
    decision = decided.decision
    line = decision.line
    assert line == compose_line(decision.first_line)  # the one composer
    assert _words(decision_text(decision).plain) == _words(line)  # the app's header
    for form in ("text", "markdown"):
        code, text = surfaces[form]  # type: ignore[misc]
        assert code == decision.exit_code
        assert _words(text.splitlines()[0]) == _words(line), form
    code, text = surfaces["json"]  # type: ignore[misc]
    assert code == decision.exit_code
    assert json.loads(text)["decision"]["line"] == line


def _overall_rows(text: str) -> list[str]:
    return [row for row in text.splitlines() if re.match(r"^\|? ?\**overall\b", row)]


def test_the_pair_says_one_first_line_and_its_overall_rows_are_the_decisions(capsys, state):
    analysis = PAIR.analyse(CompareSpec.create(BASE, CAND))
    decided = PAIR.decide(analysis)
    surfaces = _surfaces(capsys, ["report", BASE, CAND])
    _first_lines_agree(decided, surfaces)

    effect = decided.decision.first_line.effect
    assert effect.interval == "[-0.7, +12.4]" and effect.qualifier == "(clusters)"
    overall = OverallRow.of(analysis)
    assert overall.ci == analysis.decision_ci and overall.verdict == analysis.verdict
    p = format_p(overall.p)
    assert p == "0.061"  # the cluster-aware test's, not McNemar's 0.043
    prefix = state / "record"
    code, _ = _out(
        capsys, "signoff", BASE, CAND, "--decision", "needs-more-data", "--rationale", "r",
        "--output", prefix,
    )  # fmt: skip
    assert code == 0
    signoff_md = prefix.with_suffix(".md").read_text(encoding="utf-8")
    record = json.loads(prefix.with_suffix(".json").read_text(encoding="utf-8"))
    assert _words(signoff_md.splitlines()[0]) == _words(record["decision"]["line"])
    assert record["decision"]["line"] == decided.decision.line
    exports = {
        "text": surfaces["text"][1],  # type: ignore[index]
        "markdown": surfaces["markdown"][1],  # type: ignore[index]
        "sign-off markdown": signoff_md,
    }
    for name, text in exports.items():
        rows = _overall_rows(text)
        assert len(rows) == 1, name
        assert effect.interval in rows[0] and p in rows[0], (name, rows[0])
        assert "[+0.6, +11.5]" not in rows[0] and "0.043" not in rows[0], name
    report = json.loads(surfaces["json"][1])  # type: ignore[index]
    assert report["clusters"]["verdict_ci"] == list(analysis.decision_ci)
    assert report["decision"]["effect"] == effect.text


@pytest.mark.slow
def test_the_run_set_says_one_first_line_with_each_pairs_effect(capsys, state):
    spec = RunSetSpec.of(CompareSpec.create(BASE, CAND), [CAND2])
    run_set = RUN_SET.analyse(spec)
    decided = RUN_SET.decide(run_set)
    surfaces = _surfaces(capsys, ["report", BASE, CAND, CAND2])
    _first_lines_agree(decided, surfaces)

    candidates = decided.decision.first_line.candidates
    assert [c.name for c in candidates] == ["candidate", "candidate2"]
    for (_pair, pair_decision), shown in zip(decided.decision.pairs, candidates, strict=True):
        assert shown.effect == pair_decision.first_line.effect
        assert shown.status == pair_decision.status
    prefix = state / "set"
    code, _ = _out(
        capsys, "signoff", BASE, CAND, CAND2, "--decision", "needs-more-data", "--rationale",
        "r", "--output", prefix,
    )  # fmt: skip
    assert code == 0
    signoff_md = prefix.with_suffix(".md").read_text(encoding="utf-8")
    assert _words(signoff_md.splitlines()[0]) == _words(decided.decision.line)
    report = json.loads(surfaces["json"][1])  # type: ignore[index]
    for pair in report["pairs"]:
        if pair["baseline"] == 0:
            shown = candidates[pair["candidate"] - 1].effect
            assert pair["effect"] == f"{shown.estimate} {shown.interval}"
    for name in ("text", "markdown"):
        text = surfaces[name][1]  # type: ignore[index]
        for c in candidates:
            assert f"{c.effect.estimate} {c.effect.interval}" in text, (name, c.name)


def test_the_independent_comparison_says_one_first_line_and_its_interval(capsys, state):
    spec = CompareSpec.create(*INDEPENDENT_PAIR, design="independent")
    analysis = INDEPENDENT.analyse(spec)
    decided = INDEPENDENT.decide(analysis)
    surfaces = _surfaces(capsys, ["report", *INDEPENDENT_PAIR, "--design", "independent"])
    _first_lines_agree(decided, surfaces)

    effect = decided.decision.first_line.effect
    assert effect.qualifier == "(independent)"
    report = json.loads(surfaces["json"][1])  # type: ignore[index]
    lo, hi = report["independent"]["delta"]["ci"]
    assert (lo, hi) == (analysis.comparison.ci.lower, analysis.comparison.ci.upper)
    assert report["decision"]["effect"] == effect.text
    code = main(
        ["signoff", *map(str, INDEPENDENT_PAIR), "--design", "independent", "--decision",
         "approve", "--rationale", "r", "--output", str(state / "x")]
    )  # fmt: skip
    assert code == 2  # refused, in the design's words
    assert INDEPENDENT.refusal("evaltui signoff") in capsys.readouterr().err


def test_preferences_say_one_first_line_naming_each_candidate(capsys):
    analysis = PREFERENCE.analyse((PREFERENCES, PreferenceOptions()))
    decided = PREFERENCE.decide(analysis)
    surfaces = _surfaces(capsys, ["prefer", PREFERENCES])
    _first_lines_agree(decided, surfaces)

    line = decided.decision.first_line
    assert line.versus == analysis.baseline
    report = json.loads(surfaces["json"][1])  # type: ignore[index]
    assert report["decision"]["effect"] == decided.decision.effect
    for c in line.candidates:
        assert c.effect.text in decided.decision.line
