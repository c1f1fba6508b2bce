"""A pair's analysis carries exactly one comparison: binary (one verdict per item) or graded
(scores, or pass rates over epochs); `graded_comparison` names that once for the code that
reads a graded one."""

from __future__ import annotations

import pytest

from evaltui.core.analysis.pipeline import compare_files
from tests.conftest import verdict_records


def test_a_binary_pair_has_a_binary_comparison_and_refuses_a_graded_one(write_jsonl):
    base = write_jsonl("b.jsonl", verdict_records([True, False] * 20))
    cand = write_jsonl("c.jsonl", verdict_records([True, True] * 20))
    analysis = compare_files(base, cand)
    assert analysis.kind == "binary" and analysis.binary is not None and analysis.graded is None
    with pytest.raises(TypeError, match="binary analysis has no graded comparison"):
        _ = analysis.graded_comparison


def test_a_graded_pair_gives_its_graded_comparison(write_jsonl):
    base = write_jsonl("b.jsonl", [{"item_id": f"q{i}", "score": i / 40} for i in range(40)])
    cand = write_jsonl("c.jsonl", [{"item_id": f"q{i}", "score": i / 39} for i in range(40)])
    analysis = compare_files(base, cand)
    assert analysis.kind == "graded" and analysis.binary is None
    assert analysis.graded_comparison is analysis.graded
    assert analysis.graded_comparison.n == 40


def test_the_unchanged_lists_are_counted_with_the_analysis_as_the_2x2_table_says(write_jsonl):
    """Both pass and both fail are the table's concordant cells (counted independently by
    `PairedTable.from_verdicts`), and the ids listed later hold as many."""
    from evaltui.core.analysis.concordant import concordant_split

    base = write_jsonl("b.jsonl", verdict_records([True, True, False, False, True] * 8))
    cand = write_jsonl("c.jsonl", verdict_records([True, False, True, False, True] * 8))
    analysis = compare_files(base, cand)
    table = analysis.binary.table
    assert dict(analysis.concordant) == {"both pass": table.both_pass, "both fail": table.both_fail}
    assert dict(analysis.concordant) == {"both pass": 16, "both fail": 8}
    split = concordant_split(analysis)
    assert {name: len(ids) for name, ids in split.items()} == dict(analysis.concordant)


def test_a_graded_pair_without_verdicts_counts_one_unchanged_list(write_jsonl):
    base = write_jsonl("b.jsonl", [{"item_id": f"q{i}", "score": 0.5} for i in range(30)])
    cand = write_jsonl(
        "c.jsonl", [{"item_id": f"q{i}", "score": 0.9 if i < 4 else 0.5} for i in range(30)]
    )
    analysis = compare_files(base, cand)
    assert analysis.concordant == (("unchanged", 30 - len(analysis.improvements)),)
    assert len(analysis.improvements) == 4


def test_a_graded_metric_beside_verdicts_counts_its_unchanged_items_as_its_lists_hold(write_jsonl):
    """The counts come from the analysis' masks; the ids the app lists come from the ids: the
    two agree, a missing verdict in neither list (a graded metric, the score, with verdicts)."""
    from evaltui.core.analysis.concordant import concordant_counts, concordant_split

    def records(shift: float) -> list[dict]:
        return [
            {
                "item_id": f"q{i}",
                "passed": i % 3 == 0,
                "score": round(0.1 * (i % 7) + shift * (i % 2), 2),
            }
            for i in range(60)
        ]

    base, cand = write_jsonl("b.jsonl", records(0.0)), write_jsonl("c.jsonl", records(0.2))
    analysis = compare_files(base, cand, metric="score")
    assert analysis.graded is not None and analysis.improvements
    split = concordant_split(analysis)
    assert {name: len(ids) for name, ids in split.items()} == dict(analysis.concordant)
    assert concordant_counts(analysis) == analysis.concordant
