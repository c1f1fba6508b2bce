"""Stuart-Maxwell, per-category changes and pairwise k-system tests (stats/categorical.py).

Reference values were computed once and are hard-coded here with their provenance; the scripts
that produced them are tests/data/reference/stuart_maxwell_coin.R (R 4.2.2 Patched
2022-11-10 r83330, coin 1.4.2, `coin::mh_test(as.table(tab))`) and
tests/data/reference/stuart_maxwell_statsmodels.py (statsmodels 0.15.0,
`SquareTable(tab, shift_zeros=False).homogeneity()`). scipy cross-checks run live.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from evaltui.core.stats.categorical import (
    compare_categorical,
    pairwise_stuart_maxwell,
    stuart_maxwell,
)
from evaltui.core.stats.categorical_table import CategoricalTable
from evaltui.core.stats.multiplicity import adjust_pvalues
from evaltui.core.stats.paired_delta import paired_delta_interval
from evaltui.core.stats.paired_table import PairedTable, mcnemar

# Stuart (1955), "A test for homogeneity of the marginal distributions in a two-way
# classification", Biometrika 42: unaided distance vision of 7477 women aged 30-39, right eye
# grade (rows) x left eye grade (columns), grades 1 (best) to 4. The standard worked example of
# the test (Agresti 2002, Categorical Data Analysis 2nd ed., section 10.3; DescTools'
# StuartMaxwellTest help), whose published statistic is 11.96 on 3 df (p = 0.0075).
VISION = (
    (1520, 266, 124, 66),
    (234, 1512, 432, 78),
    (117, 362, 1772, 205),
    (36, 82, 179, 492),
)
VISION_COIN = (11.9565696229826, 0.00753342505480048)  # coin::mh_test
VISION_STATSMODELS = (11.95656962298254, 0.007533425054800591)  # SquareTable.homogeneity()

# Agresti (2002), Categorical Data Analysis 2nd ed., Table 10.5: brand of instant coffee at the
# first (rows) and second purchase of 541 buyers. One cell is empty (Taster's Choice ->
# Nescafe): statsmodels' default shift_zeros=True adds 0.5 to it and gives 12.143..., so the
# reference is taken with shift_zeros=False, which agrees with coin to 1e-13.
BRANDS = ("High Point", "Taster's Choice", "Sanka", "Nescafe", "Brim")
COFFEE = (
    (93, 17, 44, 7, 10),
    (9, 46, 11, 0, 9),
    (17, 11, 155, 9, 12),
    (6, 4, 9, 15, 2),
    (10, 4, 12, 2, 27),
)
COFFEE_COIN = (12.2913495655474, 0.015311248347413)
COFFEE_STATSMODELS = (12.291349565547456, 0.015311248347412931)


def table(levels, counts) -> CategoricalTable:
    return CategoricalTable(tuple(levels), tuple(tuple(row) for row in counts))


# --- published examples, against R (coin) and statsmodels -------------------------------------


def test_stuart_maxwell_matches_coin_and_statsmodels_on_stuarts_vision_data():
    result = stuart_maxwell(table("1234", VISION))
    assert result.df == 3
    assert result.statistic == pytest.approx(VISION_COIN[0], rel=1e-12)
    assert result.p_value == pytest.approx(VISION_COIN[1], rel=1e-10)
    assert result.statistic == pytest.approx(VISION_STATSMODELS[0], rel=1e-12)
    assert result.p_value == pytest.approx(VISION_STATSMODELS[1], rel=1e-10)
    assert round(result.statistic, 2) == 11.96  # as published
    assert result.dropped_levels == () and result.groups == 1


def test_stuart_maxwell_matches_coin_and_statsmodels_on_agrestis_coffee_table_10_5():
    result = stuart_maxwell(table(BRANDS, COFFEE))
    assert result.df == 4
    assert result.statistic == pytest.approx(COFFEE_COIN[0], rel=1e-12)
    assert result.p_value == pytest.approx(COFFEE_COIN[1], rel=1e-10)
    assert result.statistic == pytest.approx(COFFEE_STATSMODELS[0], rel=1e-12)
    assert result.p_value == pytest.approx(COFFEE_STATSMODELS[1], rel=1e-10)


@pytest.mark.parametrize("counts", [VISION, COFFEE])
def test_stuart_maxwell_p_is_scipys_chi_square_tail(counts):
    result = stuart_maxwell(table([f"l{i}" for i in range(len(counts))], counts))
    assert result.p_value == pytest.approx(stats.chi2.sf(result.statistic, result.df), rel=1e-12)


def test_the_statistic_does_not_depend_on_the_order_of_the_levels():
    """Which level the formula drops is arbitrary: every order gives the same chi-square."""
    base = stuart_maxwell(table(BRANDS, COFFEE)).statistic
    rng = np.random.default_rng(7)
    counts = np.array(COFFEE)
    for _ in range(5):
        order = rng.permutation(5)
        permuted = counts[np.ix_(order, order)]
        again = stuart_maxwell(table([BRANDS[i] for i in order], permuted.tolist()))
        assert again.statistic == pytest.approx(base, rel=1e-12)


# --- two levels: McNemar --------------------------------------------------------------------


@pytest.mark.parametrize(
    "a,b,c,d", [(40, 9, 3, 48), (10, 1, 0, 5), (100, 57, 43, 200), (3, 5, 5, 1)]
)
def test_two_levels_give_mcnemars_uncorrected_chi_square(a, b, c, d):
    two = table(("pass", "fail"), ((a, b), (c, d)))
    result = stuart_maxwell(two)
    reference = mcnemar(PairedTable(a, b, c, d))
    assert result.df == 1
    assert result.statistic == pytest.approx(reference.chi2, rel=1e-12, abs=1e-15)
    assert result.p_value == pytest.approx(reference.chi2_p, rel=1e-12)
    assert result.statistic == pytest.approx((b - c) ** 2 / (b + c), rel=1e-12, abs=1e-15)


# --- singular S ---------------------------------------------------------------------------


def test_a_level_nobody_moved_into_or_out_of_is_dropped_and_named():
    counts = ((30, 6, 0, 2), (1, 25, 0, 3), (0, 0, 12, 0), (4, 2, 0, 15))
    result = stuart_maxwell(table(("correct", "incorrect", "refused", "error"), counts))
    reduced = stuart_maxwell(
        table(("correct", "incorrect", "error"), ((30, 6, 2), (1, 25, 3), (4, 2, 15)))
    )
    assert result.dropped_levels == ("refused",)
    assert result.tested_levels == ("correct", "incorrect", "error")
    assert result.df == 2 == reduced.df
    assert result.statistic == pytest.approx(reduced.statistic, rel=1e-12)
    assert "refused" in result.note
    comparison = compare_categorical(table(("correct", "incorrect", "refused", "error"), counts))
    assert "dropped_levels" in comparison.flags
    refused = comparison.changes[2]
    assert refused.delta == 0.0 and refused.exact_p is None and refused.p_adjusted is None


def test_levels_moving_in_separate_groups_add_up_one_test_per_group():
    """A <-> B and C <-> D only: the full S is singular even after dropping one level; the
    statistic is the sum of the two 2x2 McNemar chi-squares on 2 df."""
    counts = ((5, 3, 0, 0), (1, 5, 0, 0), (0, 0, 5, 4), (0, 0, 2, 7))
    result = stuart_maxwell(table("ABCD", counts))
    assert result.groups == 2 and result.df == 2
    assert result.statistic == pytest.approx((3 - 1) ** 2 / 4 + (4 - 2) ** 2 / 6, rel=1e-12)
    assert result.p_value == pytest.approx(stats.chi2.sf(result.statistic, 2), rel=1e-12)
    assert "2 separate groups" in result.note


def test_no_item_changing_category_leaves_the_test_undefined_not_p_one():
    comparison = compare_categorical(table("abc", ((5, 0, 0), (0, 7, 0), (0, 0, 9))))
    assert comparison.test.statistic is None and comparison.test.p_value is None
    assert not comparison.test.defined and not comparison.rejects
    assert comparison.flags == ("no_moves",)
    assert all(c.exact_p is None for c in comparison.changes)


def test_a_single_level_is_flagged_and_has_no_test():
    comparison = compare_categorical(CategoricalTable.from_labels(["a"] * 4, ["a"] * 4))
    assert comparison.flags == ("single_level",)
    assert comparison.test.p_value is None and comparison.test.df == 0


# --- per-category changes -------------------------------------------------------------------


def test_per_category_changes_are_the_paired_binary_statistics_of_each_level():
    levels = ("correct", "incorrect", "refused", "error")
    counts = ((60, 5, 9, 1), (4, 20, 6, 0), (1, 0, 8, 0), (2, 1, 0, 3))
    t = table(levels, counts)
    comparison = compare_categorical(t, ci_method="newcombe", confidence=0.9, adjust="holm")
    n = t.n
    raw = []
    for change, level in zip(comparison.changes, levels, strict=True):
        i = levels.index(level)
        base, cand = sum(counts[i]), sum(row[i] for row in counts)
        assert change.baseline_count == base and change.candidate_count == cand
        assert change.delta == pytest.approx(cand / n - base / n, abs=1e-15)
        two = PairedTable(counts[i][i], base - counts[i][i], cand - counts[i][i], 0)
        two = PairedTable(two.both_pass, two.regressions, two.improvements, n - two.n)
        assert change.table == two
        assert change.ci == paired_delta_interval(two, "newcombe", 0.9)
        assert change.exact_p == mcnemar(two).exact_p
        # the exact McNemar p is the two-sided binomial test on the movers (scipy, live)
        live = stats.binomtest(two.regressions, two.discordant, 0.5).pvalue
        assert change.exact_p == pytest.approx(live, rel=1e-9)
        raw.append(change.exact_p)
    assert [c.p_adjusted for c in comparison.changes] == list(adjust_pvalues(raw, "holm"))
    assert sum(c.delta for c in comparison.changes) == pytest.approx(0.0, abs=1e-12)
    shares = [c.candidate_share for c in comparison.changes]
    assert sum(shares) == pytest.approx(1.0)


def test_moved_most_lists_the_largest_changes_first():
    levels = ("correct", "incorrect", "refused", "error")
    counts = ((60, 5, 9, 1), (4, 20, 6, 0), (1, 0, 8, 0), (2, 1, 0, 3))
    comparison = compare_categorical(table(levels, counts))
    order = [c.level for c in comparison.moved_most()]
    assert order == ["refused", "correct", "incorrect", "error"]  # +14, -8, -4, -2 items
    assert [c.level for c in comparison.moved_most(1)] == ["refused"]
    deltas = [abs(c.delta) for c in comparison.moved_most()]
    assert deltas == sorted(deltas, reverse=True)


def test_the_mix_changing_is_detected_while_the_pass_rate_stays_the_same():
    """Incorrect answers turn into refusals: the pass rate (correct) is the same in both arms,
    so McNemar on pass/fail has nothing to weigh, but Stuart-Maxwell sees the mix move."""
    base = ["correct"] * 50 + ["incorrect"] * 40 + ["refused"] * 10
    cand = ["correct"] * 50 + ["incorrect"] * 15 + ["refused"] * 35
    comparison = compare_categorical(CategoricalTable.from_labels(base, cand), alpha=0.05)
    assert comparison.rejects
    assert comparison.test.statistic == pytest.approx(25.0, rel=1e-12)  # 25 movers, one way
    assert comparison.changes[0].delta == 0.0  # correct: unchanged
    assert [c.level for c in comparison.moved_most()] == ["incorrect", "refused"]


# --- the table from labels ------------------------------------------------------------------


def test_table_from_labels_counts_baseline_rows_and_candidate_columns():
    t = CategoricalTable.from_labels(
        np.array(["C", "C", "I", "P", "N", "C"]), np.array(["C", "I", "I", "N", "N", "P"])
    )
    assert t.levels == ("C", "I", "N", "P")
    assert t.counts == ((1, 1, 0, 1), (0, 1, 0, 0), (0, 0, 1, 0), (0, 0, 1, 0))
    assert t.n == 6 and t.moved == 3
    assert t.baseline_counts == (3, 1, 1, 1) and t.candidate_counts == (1, 2, 2, 1)


def test_table_from_labels_keeps_given_levels_in_order_even_unused_ones():
    t = CategoricalTable.from_labels(["b", "a"], ["a", "a"], levels=("b", "a", "z"))
    assert t.levels == ("b", "a", "z")
    assert t.counts == ((0, 1, 0), (0, 1, 0), (0, 0, 0))


@pytest.mark.parametrize(
    "baseline,candidate,levels,message",
    [
        (["a", None], ["a", "b"], None, "baseline label 1 must be a non-empty string"),
        (["a", "b"], ["a", ""], None, "candidate label 1 must be a non-empty string"),
        (["a", 3], ["a", "b"], None, "baseline label 1"),
        (["a"], ["a", "b"], None, "pair the runs item by item"),
        (["a", "b"], ["a", "c"], ("a", "b"), "not among the levels"),
    ],
)
def test_bad_labels_are_refused_naming_the_arm_and_position(baseline, candidate, levels, message):
    with pytest.raises(ValueError, match=message):
        CategoricalTable.from_labels(baseline, candidate, levels)


@pytest.mark.parametrize(
    "levels,counts,message",
    [
        (("a", "a"), ((1, 0), (0, 1)), "distinct"),
        (("a", "b"), ((1, 0),), "2 x 2"),
        (("a", "b"), ((1, -1), (0, 1)), r"counts\[0\]\[1\]"),
        (("a", "b"), ((1, 0.5), (0, 1)), "non-negative integer"),
        (("a", "b"), ((True, 0), (0, 1)), "non-negative integer"),
    ],
)
def test_bad_tables_are_refused(levels, counts, message):
    with pytest.raises(ValueError, match=message):
        CategoricalTable(levels, counts)


def test_bad_options_are_refused_naming_the_value():
    t = table(BRANDS, COFFEE)
    with pytest.raises(ValueError, match="interval method"):
        compare_categorical(t, ci_method="exact")
    with pytest.raises(ValueError, match="adjustment method"):
        compare_categorical(t, adjust="sidak")
    with pytest.raises(ValueError, match="alpha"):
        compare_categorical(t, alpha=1.0)
    with pytest.raises(ValueError, match="empty"):
        compare_categorical(table("ab", ((0, 0), (0, 0))))


# --- k systems ------------------------------------------------------------------------------

# The three systems of tests/data/reference/stuart_maxwell_coin.R: 24 items, 4 outcome levels.
X = ["correct", "correct", "incorrect", "refused", "correct", "error"] * 4
Y = ["correct", "refused", "refused", "refused", "incorrect", "error"] * 4
Z = ["incorrect", "correct", "incorrect", "correct", "correct", "correct"] * 4
# coin::mh_test on each pair's table (levels nobody moved into or out of dropped first), then
# p.adjust(p, "holm") over the three pairs.
PAIRS_COIN = {
    ("x", "y"): (10.6666666666667, 2, 0.0048279499938314, 0.00965589998766281),
    ("x", "z"): (12.0, 3, 0.00738316050535981, 0.00965589998766281),
    ("y", "z"): (16.0, 3, 0.00113398428978528, 0.00340195286935585),
}


def test_pairwise_stuart_maxwell_matches_coin_per_pair_with_holm_over_the_pairs():
    result = pairwise_stuart_maxwell({"x": X, "y": Y, "z": Z}, method="holm")
    assert result.systems == ("x", "y", "z")
    assert result.levels == ("correct", "error", "incorrect", "refused")
    assert [(p.first, p.second) for p in result.pairs] == list(PAIRS_COIN)
    for pair in result.pairs:
        statistic, df, p, adjusted = PAIRS_COIN[(pair.first, pair.second)]
        assert pair.test.statistic == pytest.approx(statistic, rel=1e-12)
        assert pair.test.df == df
        assert pair.test.p_value == pytest.approx(p, rel=1e-10)
        assert pair.p_adjusted == pytest.approx(adjusted, rel=1e-10)
    assert result.pair("z", "y") is result.pairs[2]
    assert result.pairs[0].test.dropped_levels == ("error",)


def test_pairwise_with_two_systems_is_the_plain_test_and_bonferroni_multiplies():
    two = pairwise_stuart_maxwell({"base": X, "cand": Y})
    single = stuart_maxwell(CategoricalTable.from_labels(X, Y, two.levels))
    assert two.pairs[0].test == single and two.pairs[0].p_adjusted == single.p_value
    three = pairwise_stuart_maxwell({"x": X, "y": Y, "z": Z}, method="bonferroni")
    assert three.pairs[2].p_adjusted == pytest.approx(min(1.0, 3 * three.pairs[2].test.p_value))


def test_pairwise_refuses_fewer_than_two_systems_or_unequal_lengths():
    with pytest.raises(ValueError, match="at least two"):
        pairwise_stuart_maxwell({"x": X})
    with pytest.raises(ValueError, match="one label per paired item"):
        pairwise_stuart_maxwell({"x": X, "y": Y[:-1]})
    with pytest.raises(ValueError, match="adjustment method"):
        pairwise_stuart_maxwell({"x": X, "y": Y}, method="tukey")
