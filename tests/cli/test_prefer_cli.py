"""`evaltui prefer FILE`: the decision line first, the exit codes of `evaltui report`, the JSON
report against docs/schema/prefer.schema.json, and one-line errors."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from evaltui.cli.main import main
from tests.conftest import SAMPLE_RUNS, schema_errors

SAMPLE = SAMPLE_RUNS / "preferences.jsonl"


def run(capsys, *args: object) -> tuple[int, str, str]:
    code = main(["prefer", *map(str, args)])
    out, err = capsys.readouterr()
    return code, out, err


def run_json(capsys, *args: object) -> tuple[int, dict]:
    code, out, err = run(capsys, *args, "--format", "json")
    assert schema_errors("prefer", out) == [], out
    return code, json.loads(out)


def two_systems(tmp_path: Path, a: int, b: int, ties: int, name: str = "p.jsonl") -> Path:
    """A file without system columns: A is the baseline, B the candidate."""
    outcomes = ["A"] * a + ["B"] * b + ["tie"] * ties
    path = tmp_path / name
    path.write_text(
        "".join(
            json.dumps({"item_id": f"q{i}", "preference": p}) + "\n" for i, p in enumerate(outcomes)
        ),
        encoding="utf-8",
    )
    return path


def named(tmp_path: Path, rows: list[tuple[str, str, str, int]], name: str = "k.jsonl") -> Path:
    """(system_a, system_b, preference, how many) rows, each judgment on its own item."""
    path = tmp_path / name
    lines, n = [], 0
    for first, second, preference, count in rows:
        for _ in range(count):
            n += 1
            record = {
                "item_id": f"q{n}",
                "system_a": first,
                "system_b": second,
                "preference": preference,
            }
            lines.append(json.dumps(record) + "\n")
    path.write_text("".join(lines), encoding="utf-8")
    return path


# --- the sample file ---------------------------------------------------------------------------


def test_sample_preferences_block_because_v3_loses_to_the_baseline(capsys):
    code, out, err = run(capsys, SAMPLE)
    assert code == 1, err
    first = out.splitlines()[0]
    assert first.startswith("BLOCKED · pharmbot-v3 regressed · vs pharmbot-v1: ")
    assert "pharmbot-v2 wins 57.8% [51.7%, 63.6%] (ties count half), improved" in first
    assert "pharmbot-v3 wins 41.2% [35.6%, 47.1%] (ties count half), regressed" in first
    assert "win rate, ties dropped (alternative)  60.1% [52.2%, 67.5%]" in out
    assert "Win-rate matrix" in out and "Bradley-Terry" in out


def test_sample_preferences_with_v2_as_the_candidate_are_ready(capsys):
    code, out, _ = run(capsys, SAMPLE, "--candidate", "pharmbot-v2")
    assert code == 0
    assert out.startswith("READY TO APPROVE · vs pharmbot-v1: pharmbot-v2 wins 57.8%")


def test_sample_json_report_matches_its_schema_and_the_numbers(capsys):
    code, report = run_json(capsys, SAMPLE)
    assert code == 1
    assert report["schema"] == "evaltui.prefer/1"
    assert report["decision"]["status"] == "blocked"
    assert report["decision"]["exit_code"] == 1
    assert report["decision"]["verdicts"] == {"pharmbot-v2": "improved", "pharmbot-v3": "regressed"}
    assert report["systems"] == ["pharmbot-v1", "pharmbot-v2", "pharmbot-v3"]
    assert report["input"]["judgments"] == 600 and report["input"]["items"] == 200
    head = {h["candidate"]: h["pair"] for h in report["head_to_head"]}
    v2 = head["pharmbot-v2"]
    assert (v2["system_a"], v2["system_b"]) == ("pharmbot-v1", "pharmbot-v2")
    assert (v2["b_better"], v2["a_better"], v2["ties"]) == (92, 61, 47)
    assert v2["win_rate"]["split"]["estimate"] == pytest.approx((92 + 23.5) / 200)
    assert v2["win_rate"]["drop"]["estimate"] == pytest.approx(92 / 153)
    matrix = report["matrix"]["win_rate"]
    assert matrix[0][0] is None
    assert matrix[1][0] == pytest.approx(0.5775)  # v2 beats v1
    assert matrix[0][1] == pytest.approx(0.4225)
    strengths = {s["system"]: s for s in report["bradley_terry"]["strengths"]}
    assert strengths["pharmbot-v1"]["status"] == "baseline"
    assert strengths["pharmbot-v2"]["log_strength"] > 0 > strengths["pharmbot-v3"]["log_strength"]


def test_sample_markdown_leads_with_the_decision(capsys):
    code, out, _ = run(capsys, SAMPLE, "--format", "markdown")
    assert code == 1
    assert out.startswith("**BLOCKED · pharmbot-v3 regressed")
    assert "## Bradley-Terry" in out and "| pharmbot-v2 | 200 | 92 | 61 | 47 |" in out


# --- two systems: every status and its exit code ------------------------------------------------


@pytest.mark.parametrize(
    ("counts", "code", "first"),
    [
        (
            (20, 45, 35),
            0,
            "READY TO APPROVE · vs A: B wins 62.5% [54.7%, 69.6%] (ties count half), improved",
        ),
        ((45, 20, 35), 1, "BLOCKED · B regressed · vs A: B wins 37.5%"),
        ((30, 35, 35), 0, "READY TO APPROVE · vs A: B wins 52.5%"),
        ((0, 0, 40), 4, "NOT ENOUGH DATA · B: no verdict · vs A: B wins 50.0%"),
        ((2, 12, 5), 4, "NOT ENOUGH DATA · B: no verdict"),
        ((29, 47, 10), 0, "NEEDS REVIEW · B on the line · vs A: B wins 60.5%"),
    ],
)
def test_two_systems_decide_with_the_report_vocabulary_and_exit_codes(
    capsys, tmp_path, counts, code, first
):
    got, out, err = run(capsys, two_systems(tmp_path, *counts))
    assert got == code, err
    assert out.splitlines()[0].startswith(first)
    assert "Bradley-Terry" not in out and "Win-rate matrix" not in out


def test_no_verdict_reasons_say_why(capsys, tmp_path):
    _, report = run_json(capsys, two_systems(tmp_path, 0, 0, 40))
    (reason,) = report["decision"]["reasons"]
    assert reason["kind"] == "no_verdict"
    assert "every one of the 40 judgments of B against A is a tie" in reason["text"]
    assert report["head_to_head"][0]["pair"]["win_rate"]["drop"]["estimate"] is None
    assert report["bradley_terry"] is None


def test_ties_drop_makes_the_ties_dropped_rate_the_headline(capsys, tmp_path):
    path = two_systems(tmp_path, 20, 45, 35)
    code, out, _ = run(capsys, path, "--ties", "drop")
    assert code == 0
    assert "B wins 69.2% [57.2%, 79.1%] (ties dropped), improved" in out.splitlines()[0]
    assert "win rate, ties count half (alternative)" in out
    _, report = run_json(capsys, path, "--ties", "drop")
    assert report["head_to_head"][0]["pair"]["primary"] == "drop"
    assert report["options"]["ties"] == "drop"


def test_baseline_option_turns_the_comparison_around(capsys, tmp_path):
    code, out, _ = run(capsys, two_systems(tmp_path, 45, 20, 35), "--baseline", "B")
    assert code == 0
    assert out.startswith("READY TO APPROVE · vs B: A wins 62.5%")


def test_confidence_and_alpha_reach_the_numbers(capsys, tmp_path):
    _, report = run_json(
        capsys, two_systems(tmp_path, 20, 45, 35), "--confidence", "0.9", "--alpha", "0.1"
    )
    pair = report["head_to_head"][0]["pair"]
    assert report["options"]["confidence"] == 0.9
    assert pair["win_rate"]["split"]["ci"][0] > 0.547  # narrower than the 95% [54.7%, 69.6%]


# --- k systems --------------------------------------------------------------------------------


def test_multiplicity_option_changes_the_adjusted_p(capsys):
    _, holm = run_json(capsys, SAMPLE)
    _, bonferroni = run_json(capsys, SAMPLE, "--multiplicity", "bonferroni")
    raw = [p["sign_test_p"] for p in holm["pairs"]]
    assert [p["p_adjusted"] for p in bonferroni["pairs"]] == pytest.approx(
        [min(1.0, 3 * p) for p in raw]
    )
    assert bonferroni["options"]["multiplicity"] == "bonferroni"


def test_a_system_that_beats_everything_is_reported_at_infinity(capsys, tmp_path):
    path = named(
        tmp_path,
        [
            ("base", "mid", "A", 20),
            ("base", "mid", "B", 25),
            ("base", "mid", "tie", 5),
            ("top", "base", "A", 40),
            ("top", "mid", "A", 40),
        ],
    )
    code, out, _ = run(capsys, path)
    assert code == 0  # top beats the baseline: the decision is about head-to-head judgments
    assert "+infinity" in out and "the maximum likelihood estimate does not exist" in out
    _, report = run_json(capsys, path)
    top = next(s for s in report["bradley_terry"]["strengths"] if s["system"] == "top")
    assert top["status"] == "plus_infinity" and top["log_strength"] is None
    assert report["bradley_terry"]["flags"] == ["infinite_strength"]


def test_a_candidate_never_judged_against_the_baseline_has_no_verdict(capsys, tmp_path):
    path = named(
        tmp_path,
        [
            ("base", "x", "B", 20),
            ("base", "x", "A", 20),
            ("x", "y", "A", 15),
            ("x", "y", "B", 15),
        ],
    )
    code, out, _ = run(capsys, path)
    assert code == 4
    assert out.startswith("NOT ENOUGH DATA · y: no verdict")
    assert "y was never judged against the baseline base: no verdict" in out


def test_a_comparison_graph_that_is_not_connected_is_refused(capsys, tmp_path):
    path = named(tmp_path, [("a", "b", "A", 40), ("a", "b", "B", 3), ("c", "d", "B", 40)])
    code, out, err = run(capsys, path)
    assert code == 2 and out == ""
    assert err.startswith(f"evaltui: error: {path}: the comparisons fall into 2 groups")
    assert err.count("\n") == 1


# --- errors -------------------------------------------------------------------------------------


def test_a_bad_preference_value_is_one_line_naming_file_line_and_field(capsys, tmp_path):
    path = tmp_path / "bad.csv"
    path.write_text("item_id,preference\nq1,A\nq2,maybe\n", encoding="utf-8")
    code, out, err = run(capsys, path)
    assert code == 2 and out == ""
    assert err == (
        f"evaltui: error: {path}:3: field 'preference': expected A, B or tie, or "
        "baseline/candidate (case-insensitive), got 'maybe'\n"
    )


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--baseline", "pharmbot-v9"), "--baseline 'pharmbot-v9': "),
        (("--candidate", "pharmbot-v1"), "--candidate 'pharmbot-v1' is the baseline"),
        (("--confidence", "1.5"), "--confidence must be strictly between 0 and 1"),
        (("--alpha", "0"), "--alpha must be strictly between 0 and 1"),
    ],
)
def test_bad_options_are_one_line_usage_errors(capsys, args, message):
    code, out, err = run(capsys, SAMPLE, *args)
    assert code == 2 and out == ""
    assert message in err and err.count("\n") == 1


def test_an_unknown_choice_is_refused_by_the_parser(capsys):
    code, _, err = run(capsys, SAMPLE, "--ties", "half")
    assert code == 2 and "invalid choice: 'half'" in err


def test_help_names_the_command(capsys):
    assert main(["prefer", "--help"]) == 0
    out = capsys.readouterr().out
    assert "--ties {split,drop}" in out and "--multiplicity" in out


def test_system_names_are_inert_in_text_and_markdown(capsys, tmp_path):
    hostile = "evil\x1b]0;owned\x07<img src=x>"
    path = named(tmp_path, [("base", hostile, "B", 30), ("base", hostile, "A", 10)])
    _, out, _ = run(capsys, path)
    assert "\x1b" not in out and "\x07" not in out
    _, md, _ = run(capsys, path, "--format", "markdown")
    assert re.search(r"(?<!\\)<img", md) is None and "\\<img" in md and "\x1b" not in md


def test_the_example_in_the_docs_is_what_the_command_prints(capsys, monkeypatch):
    monkeypatch.chdir(SAMPLE_RUNS.parent)  # the docs show the path relative to the checkout
    _, out, _ = run(capsys, "sample_runs/preferences.jsonl", "--candidate", "pharmbot-v2")
    doc = (SAMPLE_RUNS.parent / "docs" / "preferences.md").read_text(encoding="utf-8")
    start = doc.index("```\nREADY TO APPROVE") + 4
    assert doc[start : doc.index("```\n", start)] == out
