"""Per-slice paired comparisons on the demo pair, and the adjusted p across slices.

The expected tables are sample_runs/README.md's "Expected tables" and the safety slice of the
reading list's release walk-through (002: "On 30 drug-interaction questions, V1 passes 25 and
V2 passes 19").
"""

from __future__ import annotations

import pytest

from evaltui.core.analysis.slices import (
    OVERALL,
    UNSLICED,
    SliceResult,
    slice_comparisons,
    slice_names,
)
from evaltui.core.compare.pairing import pair_runs
from evaltui.core.errors import UsageError
from evaltui.core.read.formats import load_run
from evaltui.core.stats.binary import compare_binary
from evaltui.core.stats.multiplicity import adjust_pvalues
from evaltui.core.stats.paired_table import PairedTable
from tests.conftest import SAMPLE_RUNS

# sample_runs/README.md: slice -> (both pass, regressions, improvements, both fail)
EXPECTED = {
    "shipping": (38, 0, 8, 6),
    "refunds": (25, 0, 6, 5),
    "account": (20, 0, 4, 4),
    "dosage": (23, 1, 1, 5),
    "prescriptions": (17, 1, 1, 5),
    "drug_interactions": (18, 7, 1, 4),
}


@pytest.fixture(scope="module")
def demo():
    return pair_runs(
        load_run(SAMPLE_RUNS / "baseline.jsonl"), load_run(SAMPLE_RUNS / "candidate.jsonl")
    )


@pytest.fixture(scope="module")
def results(demo):
    return slice_comparisons(demo, "newcombe", 0.95, 0.05, adjust="holm")


def test_one_row_per_slice_sorted_then_overall(results):
    assert [r.name for r in results] == sorted(EXPECTED) + [OVERALL]
    assert all(isinstance(r, SliceResult) for r in results)
    assert [r.is_overall for r in results] == [False] * 6 + [True]


def test_drug_interactions_25_to_19_with_7_regressions_and_1_improvement(results):
    drug = next(r for r in results if r.name == "drug_interactions")
    assert drug.n == 30
    assert drug.table.baseline_passes == 25
    assert drug.table.candidate_passes == 19
    assert drug.table.regressions == 7
    assert drug.table.improvements == 1
    # exact McNemar on 8 discordant items: 2 P(X <= 1), X ~ Bin(8, 1/2) = 2 * 9/256
    assert drug.p_raw == pytest.approx(18 / 256, rel=1e-12)
    # Not significant on its own, as 002 warns: a 6-question drop on 30 items rarely is.
    assert drug.p_raw > 0.05


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_each_slice_table_matches_the_readme(results, name):
    row = next(r for r in results if r.name == name)
    t = row.table
    assert (t.both_pass, t.regressions, t.improvements, t.both_fail) == EXPECTED[name]
    assert row.n == t.n
    assert row.comparison.table == t
    assert row.comparison.ci_method == "newcombe"


def test_slice_tables_sum_to_the_overall_141_9_21_29(results):
    overall = results[-1]
    t = overall.table
    assert (t.both_pass, t.regressions, t.improvements, t.both_fail) == (141, 9, 21, 29)
    sums = [0, 0, 0, 0]
    for row in results[:-1]:
        cells = (row.table.both_pass, row.table.regressions)
        cells += (row.table.improvements, row.table.both_fail)
        sums = [s + c for s, c in zip(sums, cells, strict=True)]
    assert tuple(sums) == (141, 9, 21, 29)
    assert overall.p_raw == pytest.approx(0.0428, abs=5e-5)  # 002: p = 0.0428
    assert overall.p_adjusted == overall.p_raw  # the primary comparison is not in the family


def test_adjusted_p_is_holm_across_the_six_slices(results):
    slices = results[:-1]
    expected = adjust_pvalues([r.p_raw for r in slices], "holm")
    assert tuple(r.p_adjusted for r in slices) == expected
    shipping = next(r for r in slices if r.name == "shipping")
    # 0 vs 8: exact p = 2/256; smallest of six -> Holm multiplies by 6.
    assert shipping.p_raw == pytest.approx(2 / 256, rel=1e-12)
    assert shipping.p_adjusted == pytest.approx(6 * 2 / 256, rel=1e-12)


def test_other_adjustments(demo):
    bh = slice_comparisons(demo, adjust="bh")
    none = slice_comparisons(demo, adjust="none")
    assert [r.p_adjusted for r in none[:-1]] == [r.p_raw for r in none[:-1]]
    assert all(r.adjust == "bh" for r in bh)
    with pytest.raises(ValueError, match="unknown adjustment method 'fdr'"):
        slice_comparisons(demo, adjust="fdr")


def test_comparison_uses_the_requested_method_and_level(demo):
    rows = slice_comparisons(demo, ci_method="wald", confidence=0.9, alpha=0.1)
    drug = next(r for r in rows if r.name == "drug_interactions")
    assert drug.comparison == compare_binary(PairedTable(18, 7, 1, 4), "wald", 0.9, 0.1)


def test_slice_names(demo):
    assert slice_names(demo) == tuple(sorted(EXPECTED))


# --------------------------------------------------------------------------------------------
# Small synthetic pairs
# --------------------------------------------------------------------------------------------


def _pair(write_jsonl, base, cand):
    return pair_runs(load_run(write_jsonl("b.jsonl", base)), load_run(write_jsonl("c.jsonl", cand)))


def _rec(i, passed, slice_name=None):
    rec = {"item_id": f"q{i}", "passed": passed}
    if slice_name is not None:
        rec["slice"] = slice_name
    return rec


def test_slice_without_disagreements_has_no_p_and_stays_out_of_the_family(write_jsonl):
    base = [_rec(i, True, "a") for i in range(5)] + [_rec(i, True, "b") for i in range(5, 15)]
    cand = [_rec(i, True, "a") for i in range(5)] + [_rec(i, i % 2 == 0, "b") for i in range(5, 15)]
    base += [_rec(i, False, "c") for i in range(15, 25)]
    cand += [_rec(i, True, "c") for i in range(15, 25)]
    rows = slice_comparisons(_pair(write_jsonl, base, cand))
    by_name = {r.name: r for r in rows}
    assert by_name["a"].p_raw is None and by_name["a"].p_adjusted is None
    assert "no_discordant" in by_name["a"].comparison.flags
    # m = 2 (b and c): Holm multiplies the smaller p by 2, not 3.
    assert by_name["c"].p_adjusted == pytest.approx(min(1.0, 2 * by_name["c"].p_raw))


def test_items_without_a_slice_are_grouped(write_jsonl):
    base = [_rec(0, True, "a"), _rec(1, False), _rec(2, True, "a")]
    cand = [_rec(0, False, "a"), _rec(1, True), _rec(2, True, "a")]
    rows = slice_comparisons(_pair(write_jsonl, base, cand))
    assert [r.name for r in rows] == [UNSLICED, "a", OVERALL]
    assert rows[0].table == PairedTable(0, 0, 1, 0)


def test_runs_without_a_slice_column_are_refused(write_jsonl):
    paired = _pair(write_jsonl, [_rec(0, True)], [_rec(0, False)])
    with pytest.raises(UsageError, match="no 'slice' column"):
        slice_comparisons(paired)
    assert slice_names(paired) == ()


def test_repr_is_readable(results):
    text = repr(next(r for r in results if r.name == "drug_interactions"))
    assert "drug_interactions" in text and "regressions=7" in text and "holm" in text


def test_runs_with_epochs_are_refused(write_jsonl):
    records = [
        {"item_id": "q0", "epoch": 1, "passed": True, "slice": "a"},
        {"item_id": "q0", "epoch": 2, "passed": False, "slice": "a"},
    ]
    with pytest.raises(UsageError, match="one verdict per item"):
        slice_comparisons(_pair(write_jsonl, records, records))
