"""Paired preferences, two systems and the all-pairs matrix (stats/preference.py and
stats/preference_matrix.py).

Reference values: R 4.2.2 (binom.test, prop.test without correction = Wilson, p.adjust), from
tests/data/reference/preference_reference.R, hard-coded here; the Tango mapping against the
published Tango intervals the binary module is pinned to
(tests/core/stats/test_binary_published.py).
"""

from __future__ import annotations

import math

import pytest

from evaltui.core.stats.paired_delta import paired_delta_interval
from evaltui.core.stats.paired_table import PairedTable, mcnemar
from evaltui.core.stats.preference import (
    FLAG_TEXT,
    TIE_RULES,
    PreferenceCounts,
    compare_preferences,
    sign_test,
    split_interval,
)
from evaltui.core.stats.preference_matrix import PairTally, tally_pairs, win_rate_matrix

# --- the exact sign test and the ties-dropped Wilson interval against R ----------------------
# R 4.2.2: for (a, b): binom.test(b, a + b)$p.value and prop.test(b, a + b, correct = FALSE)
# $conf.int (preference_reference.R, section 3).
R_TWO_SYSTEMS = [
    (30, 45, 0.105342268874605, 0.486880387962107, 0.703374843541332),
    (9, 21, 0.0427739452570677, 0.521242125412851, 0.833352517317562),
    (0, 7, 0.015625, 0.645669564933313, 1.0),
    (12, 12, 1.0, 0.314274258195734, 0.685725741804266),
    (3, 40, 3.02134139928968e-09, 0.81391013098758, 0.975988410422785),
    (118, 97, 0.172428481466603, 0.386086213685155, 0.517953906897269),
]


@pytest.mark.parametrize(("a", "b", "p", "lower", "upper"), R_TWO_SYSTEMS)
def test_sign_test_and_ties_dropped_wilson_match_r_binom_test_and_prop_test(a, b, p, lower, upper):
    result = compare_preferences(PreferenceCounts(a, b, 17), ties="drop")
    assert result.sign_test_p == pytest.approx(p, rel=1e-9)
    assert result.drop.estimate == pytest.approx(b / (a + b))
    assert result.drop.ci.lower == pytest.approx(lower, abs=1e-12)
    assert result.drop.ci.upper == pytest.approx(upper, abs=1e-12)
    assert result.drop.ci.method == "wilson"
    assert result.drop.items == a + b


def test_sign_test_is_the_exact_mcnemar_test_of_the_same_table():
    counts = PreferenceCounts(a_better=14, b_better=29, ties=40)
    assert sign_test(counts) == mcnemar(PairedTable(40, 14, 29, 0)).exact_p


# --- the tie-split interval is Tango's interval for the paired difference, mapped ------------
# Published Tango score intervals for delta = (n12 - n21) / n, written (n11, n12, n21, n22) as
# in tests/core/stats/test_binary_published.py; the preference counts are b = n12 (B better),
# a = n21 (A better) and ties = n11 + n22, and W = 1/2 + delta/2.


def _from_paper(n11: int, n12: int, n21: int, n22: int) -> PreferenceCounts:
    return PreferenceCounts(a_better=n21, b_better=n12, ties=n11 + n22)


@pytest.mark.parametrize(
    ("table", "confidence", "published", "places"),
    [
        # Fagerland, Lydersen and Laake (2014, Stat Med 33:2850) Table V, Bentur et al. data:
        # Tango 95% CI -0.517 to -0.026.
        ((1, 1, 7, 12), 0.95, (-0.517, -0.026), 3),
        # Cavo et al. (2012), the same authors' second example (contingencytables package):
        # Tango_asymptotic_score_CI -0.1240 to -0.0054.
        ((59, 6, 16, 80), 0.95, (-0.1240, -0.0054), 4),
        # Agresti and Min (2005, Stat Med 24:729): Tango score interval -0.020 to 0.207.
        ((53, 16, 8, 9), 0.95, (-0.020, 0.207), 3),
        # Tango (1998, Stat Med 17:891) 44-pair example at 90%: -0.096 to 0.037.
        ((43, 0, 1, 0), 0.90, (-0.096, 0.037), 3),
    ],
)
def test_tie_split_interval_is_half_the_published_tango_interval_around_one_half(
    table, confidence, published, places
):
    counts = _from_paper(*table)
    ci = split_interval(counts, confidence)
    slack = 0.5 * 10.0**-places / 2 + 1e-12  # the published rounding, halved by the mapping
    assert abs(ci.lower - (0.5 + published[0] / 2)) <= slack
    assert abs(ci.upper - (0.5 + published[1] / 2)) <= slack
    assert ci.method == "tango"
    assert ci.confidence == confidence


def test_tango_interval_depends_only_on_the_discordant_cells_and_n():
    # The reasoning behind the mapping: the ties may sit in either concordant cell.
    for split in (0, 7, 23, 40):
        table = PairedTable(split, 14, 29, 40 - split)
        assert paired_delta_interval(table, "tango") == paired_delta_interval(
            PairedTable(40, 14, 29, 0), "tango"
        )


def test_win_rate_counts_each_tie_as_half_a_win():
    result = compare_preferences(PreferenceCounts(a_better=30, b_better=45, ties=25))
    assert result.split.estimate == pytest.approx((45 + 12.5) / 100)
    assert result.split.items == 100
    assert result.primary is result.split
    assert result.alternative is result.drop
    assert result.verdict == "no_significant_difference"


def test_ties_pull_the_win_rate_toward_one_half_but_do_not_change_the_verdict():
    few = compare_preferences(PreferenceCounts(20, 45, 0))
    many = compare_preferences(PreferenceCounts(20, 45, 300))
    assert abs(many.split.estimate - 0.5) < abs(few.split.estimate - 0.5)
    assert few.verdict == many.verdict == "improved"
    assert few.sign_test_p == many.sign_test_p


def test_verdict_is_oriented_so_that_b_is_the_candidate():
    assert compare_preferences(PreferenceCounts(10, 40, 20)).verdict == "improved"
    assert compare_preferences(PreferenceCounts(40, 10, 20)).verdict == "regressed"


# --- flags and no verdict ---------------------------------------------------------------------


def test_all_ties_give_no_verdict_and_an_undefined_ties_dropped_rate():
    result = compare_preferences(PreferenceCounts(0, 0, 80))
    assert result.flags == ("no_decisive",)
    assert result.verdict == "insufficient_data"
    assert result.sign_test_p is None
    assert result.drop.estimate is None and result.drop.ci is None
    assert result.split.estimate == 0.5  # the split rule still has its interval
    assert result.split.ci.lower < 0.5 < result.split.ci.upper
    dropped = compare_preferences(PreferenceCounts(0, 0, 80), ties="drop")
    assert dropped.verdict == "insufficient_data" and dropped.primary.ci is None


def test_few_items_give_counts_but_no_verdict():
    result = compare_preferences(PreferenceCounts(0, 20, 5))
    assert result.flags == ("few_decisive", "one_sided", "small_n")
    assert result.verdict == "insufficient_data"
    assert result.split.ci.lower > 0.5  # the interval is still reported


def test_interval_and_exact_test_disagreeing_is_flagged():
    # 29 v 45 decisive: the score interval (chi-square without correction) excludes 1/2 at
    # 95%, the exact sign test does not (p = 0.080).
    result = compare_preferences(PreferenceCounts(29, 47, 10))
    assert result.sign_test_p > 0.05
    assert result.split.ci.lower > 0.5
    assert "ci_test_disagree" in result.flags
    # At another level there is nothing to compare.
    assert (
        "ci_test_disagree"
        not in compare_preferences(PreferenceCounts(29, 47, 10), confidence=0.9).flags
    )


def test_every_flag_has_words():
    assert set(FLAG_TEXT) == {
        "no_decisive",
        "few_decisive",
        "one_sided",
        "small_n",
        "ci_test_disagree",
    }


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: PreferenceCounts(-1, 2, 3), "a_better must be a non-negative integer"),
        (lambda: PreferenceCounts(1, 2.0, 3), "b_better must be a non-negative integer"),
        (lambda: PreferenceCounts(1, 2, True), "ties must be a non-negative integer"),
        (lambda: compare_preferences(PreferenceCounts(0, 0, 0)), "no judgments"),
        (lambda: compare_preferences(PreferenceCounts(1, 2, 3), ties="half"), "unknown tie rule"),
        (lambda: compare_preferences(PreferenceCounts(1, 2, 3), confidence=1.0), "confidence"),
        (lambda: compare_preferences(PreferenceCounts(1, 2, 3), alpha=0), "alpha"),
        (lambda: compare_preferences((1, 2, 3)), "counts must be a PreferenceCounts"),
    ],
)
def test_invalid_arguments_raise_value_errors_naming_the_value(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_tie_rules_are_split_then_drop():
    assert TIE_RULES == ("split", "drop")


# --- k systems: tallies and the matrix --------------------------------------------------------

# Four made-up systems with ties (preference_reference.R, section 2).
TIES = [
    ("s1", "s2", 30, 45, 25),
    ("s1", "s3", 50, 30, 20),
    ("s1", "s4", 20, 20, 10),
    ("s2", "s3", 40, 25, 15),
    ("s2", "s4", 12, 30, 8),
    ("s3", "s4", 10, 35, 5),
]
TALLIES = [PairTally(x, y, PreferenceCounts(a, b, t)) for x, y, a, b, t in TIES]
# R: binom.test(b, a + b)$p.value per pair, then p.adjust(, "holm") and p.adjust(, "BH").
R_SIGN = [
    0.105342268874605460,
    0.032992618426476106,
    1.0,
    0.081681533941540332,
    0.007915897334896735,
    0.000247087784600809,
]
R_HOLM = [
    0.24504460182462101,
    0.13197047370590442,
    1.0,
    0.24504460182462101,
    0.03957948667448367,
    0.00148252670760485,
]
R_BH = [
    0.12641072264952655,
    0.06598523685295221,
    1.0,
    0.12252230091231051,
    0.02374769200469021,
    0.00148252670760485,
]


@pytest.mark.parametrize(("method", "expected"), [("holm", R_HOLM), ("bh", R_BH)])
def test_matrix_p_values_match_r_binom_test_and_p_adjust(method, expected):
    matrix = win_rate_matrix(TALLIES, multiplicity=method)
    assert [r.comparison.sign_test_p for r in matrix.pairs] == pytest.approx(R_SIGN, rel=1e-9)
    assert [r.p_adjusted for r in matrix.pairs] == pytest.approx(expected, rel=1e-9)


def test_matrix_verdicts_follow_the_adjusted_p_and_keep_their_own():
    matrix = win_rate_matrix(TALLIES)
    s1_s3 = matrix.pair("s1", "s3")
    assert s1_s3.comparison.verdict == "regressed"  # its own interval: s3 loses to s1
    assert s1_s3.verdict == "no_significant_difference"  # Holm p 0.13
    assert matrix.pair("s3", "s4").verdict == "improved"
    assert matrix.pair("s4", "s3").verdict == "regressed"


def test_matrix_reads_each_pair_from_either_side():
    matrix = win_rate_matrix(TALLIES)
    forward, backward = matrix.pair("s1", "s2"), matrix.pair("s2", "s1")
    assert forward.comparison.split.estimate == pytest.approx(0.575)
    assert backward.comparison.split.estimate == pytest.approx(0.425)
    assert backward.p_adjusted == forward.p_adjusted
    assert matrix.rate("s2", "s1") == pytest.approx(0.575)  # how often the row beats the column
    assert matrix.rate("s1", "s2") == pytest.approx(0.425)
    assert matrix.systems == ("s1", "s2", "s3", "s4")


def test_pairs_never_judged_are_absent_from_the_matrix():
    matrix = win_rate_matrix(TALLIES[:2])
    assert matrix.pair("s2", "s3") is None
    assert matrix.rate("s2", "s3") is None


def test_a_family_of_one_pair_keeps_its_own_verdict():
    matrix = win_rate_matrix([PairTally("x", "y", PreferenceCounts(10, 40, 20))])
    (only,) = matrix.pairs
    assert only.p_adjusted == only.comparison.sign_test_p
    assert only.verdict == "improved"


def test_tallies_orient_every_pair_by_the_order_given_and_count_positions_right():
    judgments = [
        ("v1", "v2", "b"),  # v2 better
        ("v2", "v1", "a"),  # v2 better, positions swapped
        ("v2", "v1", "b"),  # v1 better
        ("v1", "v2", "tie"),
        ("v3", "v1", "a"),  # v3 better
    ]
    tallies = tally_pairs(judgments, order=("v1", "v2", "v3"))
    assert tallies == (
        PairTally("v1", "v2", PreferenceCounts(a_better=1, b_better=2, ties=1)),
        PairTally("v1", "v3", PreferenceCounts(a_better=0, b_better=1, ties=0)),
    )
    first_seen = tally_pairs(judgments)
    assert first_seen == tallies  # first-seen order is v1, v2, v3 here too


@pytest.mark.parametrize(
    ("judgments", "message"),
    [
        ([("x", "x", "a")], "compared with itself"),
        ([("x", "y", "A")], "outcome must be"),
        ([("x", "z", "a")], "not in the order"),
    ],
)
def test_tallies_refuse_bad_judgments(judgments, message):
    with pytest.raises(ValueError, match=message):
        tally_pairs(judgments, order=("x", "y"))


def test_matrix_refuses_a_pair_tallied_twice_and_an_unknown_method():
    with pytest.raises(ValueError, match="tallied twice"):
        win_rate_matrix([TALLIES[0], TALLIES[0].swapped()])
    with pytest.raises(ValueError, match="unknown adjustment method"):
        win_rate_matrix(TALLIES, multiplicity="sidak")


def test_repr_reads_like_the_numbers():
    text = repr(compare_preferences(PreferenceCounts(30, 45, 25)))
    assert "win_rate=0.5750" in text and "ties count half" in text
    assert not math.isnan(compare_preferences(PreferenceCounts(30, 45, 25)).split.estimate)
