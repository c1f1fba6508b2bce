"""The outcome categories through the command line: `evaltui report` in JSON, Markdown and text.

Every JSON report is checked against docs/schema/report.schema.json by tests/conftest.py.
"""

from __future__ import annotations

import json

from evaltui.cli.main import main
from tests.conftest import DATA

CATEGORICAL = DATA / "categorical"
BASE = CATEGORICAL / "baseline.jsonl"
CAND = CATEGORICAL / "candidate.jsonl"
INSPECT_LETTERS = CATEGORICAL / "inspect_letters.json"
INSPECT_ORIGINAL = DATA / "inspect_ai" / "2025-05-12T20-28-13-04-00_popularity.json"


def run(capsys, *args: object) -> tuple[int, str]:
    code = main(["report", *map(str, args)])
    out, err = capsys.readouterr()
    assert code in (0, 1, 4), err
    return code, out


def test_json_report_carries_the_categories_section_and_the_decision_reason(capsys):
    code, out = run(capsys, BASE, CAND, "--format", "json")
    d = json.loads(out)
    c = d["categories"]
    assert code == 0 and d["decision"]["status"] == "needs_review"
    assert c["levels"] == ["correct", "error", "incorrect", "refused"]
    assert c["table"] == [[114, 0, 4, 2], [1, 6, 0, 1], [5, 0, 33, 22], [0, 0, 2, 10]]
    assert c["n"] == 200 and c["moved"] == 37
    sm = c["stuart_maxwell"]
    assert sm["df"] == 3 and sm["dropped_levels"] == [] and c["rejects"] is True
    assert round(sm["statistic"], 2) == 20.37
    refused = next(m for m in c["changes"] if m["level"] == "refused")
    assert (refused["baseline_count"], refused["candidate_count"]) == (12, 35)
    assert abs(refused["delta"] - 0.115) < 1e-12
    assert c["adjust"] == "holm" and c["alpha"] == 0.05
    kinds = [r["kind"] for r in d["decision"]["reasons"]]
    assert kinds[0] == "outcome_mix"
    assert d["decision"]["line"].startswith("NEEDS REVIEW · outcome mix changed (Stuart-Maxwell")
    assert d["verdict"] == "no_significant_difference"  # the pass rate still gives the verdict


def test_a_pair_without_outcomes_reports_categories_as_null(capsys, sample_pair):
    _, out = run(capsys, *sample_pair, "--format", "json")
    assert json.loads(out)["categories"] is None


def test_markdown_report_has_the_table_the_test_and_the_changes(capsys):
    _, out = run(capsys, BASE, CAND, "--format", "markdown")
    assert "**Outcome categories** (rows: baseline, columns: candidate)" in out
    assert "| baseline ↓ candidate → | correct | error | incorrect | refused |" in out
    assert "| **incorrect** | 5 | 0 | 33 | 22 |" in out
    assert "Stuart-Maxwell chi² = 20.37 on 3 df, p = 1.4e-04: the mix of outcomes changed" in out
    assert "| refused | 12 (6.0%) | 35 (17.5%) | +11.5 pts [+7.1, +17.0] | 2.3e-05 |" in out


def test_text_report_opens_with_the_reason_and_shows_the_categories(capsys):
    _, out = run(capsys, BASE, CAND)
    first = out.splitlines()[0]
    assert first.startswith("NEEDS REVIEW · outcome mix changed (Stuart-Maxwell p = 1.4e-04): ")
    assert "refused +11.5 pts, incorrect -10.5 pts" in first
    assert "Outcome categories (rows: baseline, columns: candidate)" in out
    assert "Category changes (candidate − baseline; p adjusted: holm)" in out
    assert "37 of 200 items changed category" in out


def test_inspect_letters_are_compared_as_categories(capsys, tmp_path):
    """tests/data/categorical/inspect_letters.json (P, N, I) against a copy scored N, I, P:
    three levels, every item moved; three items give no verdict, the categories still show."""
    log = json.loads(INSPECT_LETTERS.read_text())
    for sample, value in zip(log["samples"], ("N", "I", "P"), strict=True):
        sample["scores"]["match"]["value"] = value
    rotated = tmp_path / "rotated.json"
    rotated.write_text(json.dumps(log))
    code, out = run(capsys, INSPECT_LETTERS, rotated, "--format", "json")
    d = json.loads(out)
    c = d["categories"]
    assert c["levels"] == ["I", "N", "P"]
    assert c["table"] == [[0, 0, 1], [1, 0, 0], [0, 1, 0]]  # P -> N, N -> I, I -> P
    assert c["moved"] == 3 and "few_moves" in c["flags"]
    assert code == 4 and d["decision"]["status"] == "not_enough_data"
    _, text = run(capsys, INSPECT_LETTERS, rotated)
    assert "Outcome categories" in text and "3 of 3 items changed category" in text


def test_a_category_name_with_markup_prints_as_written(capsys, tmp_path):
    name = "[bold red]refused[/]"
    records = []
    for i in range(60):
        outcome = ("correct", "incorrect", name)[i % 3]
        records.append({"item_id": i, "passed": outcome == "correct", "outcome": outcome})
    text = "".join(json.dumps(r) + "\n" for r in records)
    path, again = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    path.write_text(text, encoding="utf-8")
    again.write_text(text, encoding="utf-8")
    _, out = run(capsys, path, again)
    assert name in out
    _, md = run(capsys, path, again, "--format", "markdown")
    assert "\\[bold red\\]refused\\[/\\]" in md
