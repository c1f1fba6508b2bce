"""Paired preferences over random counts: swapping A and B mirrors everything, the two tie rules
agree on significance, and scipy.stats agrees on the sign test and the Wilson interval.

The product module imports scipy.special only; scipy.stats is used here as a second route.
"""

from __future__ import annotations

import math

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from scipy import stats

from evaltui.core.stats.bradley_terry import bradley_terry
from evaltui.core.stats.preference import MIRRORED_VERDICT, PreferenceCounts, compare_preferences
from evaltui.core.stats.preference_matrix import PairTally, win_rate_matrix
from tests.conftest import examples

COUNT = st.integers(min_value=0, max_value=400)
CONFIDENCE = st.sampled_from([0.8, 0.9, 0.95, 0.99])


@st.composite
def counts(draw: st.DrawFn) -> PreferenceCounts:
    c = PreferenceCounts(draw(COUNT), draw(COUNT), draw(COUNT))
    assume(c.n > 0)
    return c


def _mirrored(interval):
    return (1.0 - interval.upper, 1.0 - interval.lower)


@settings(max_examples=examples(300), deadline=None)
@given(counts(), st.sampled_from(["split", "drop"]), CONFIDENCE)
def test_swapping_a_and_b_mirrors_the_win_rates_intervals_test_flags_and_verdict(c, ties, level):
    forward = compare_preferences(c, ties, level)
    backward = compare_preferences(c.swapped(), ties, level)
    assert backward.split.estimate == pytest.approx(1.0 - forward.split.estimate, abs=1e-12)
    assert (backward.split.ci.lower, backward.split.ci.upper) == pytest.approx(
        _mirrored(forward.split.ci), abs=1e-9
    )
    if forward.drop.estimate is None:
        assert backward.drop.estimate is None and backward.drop.ci is None
    else:
        assert backward.drop.estimate == pytest.approx(1.0 - forward.drop.estimate, abs=1e-12)
        assert (backward.drop.ci.lower, backward.drop.ci.upper) == pytest.approx(
            _mirrored(forward.drop.ci), abs=1e-12
        )
    assert backward.sign_test_p == forward.sign_test_p
    assert backward.flags == forward.flags
    assert backward.verdict == MIRRORED_VERDICT[forward.verdict]


@settings(max_examples=examples(300), deadline=None)
@given(counts(), CONFIDENCE)
def test_the_two_tie_rules_agree_on_whether_the_win_rate_differs_from_one_half(c, level):
    # Both intervals invert the score statistic (b - a) / sqrt(a + b) at the null.
    assume(c.decisive > 0)
    z = stats.norm.ppf(0.5 + level / 2)
    statistic = abs(c.b_better - c.a_better) / math.sqrt(c.decisive)
    assume(abs(statistic - z) > 1e-6)  # not on the boundary to float precision
    split = compare_preferences(c, "split", level)
    drop = compare_preferences(c, "drop", level)
    assert split.split.ci.excludes(0.5) == drop.drop.ci.excludes(0.5) == (statistic > z)
    assert split.verdict == drop.verdict


@settings(max_examples=examples(300), deadline=None)
@given(counts(), CONFIDENCE)
def test_intervals_hold_their_estimate_and_stay_in_the_unit_interval(c, level):
    result = compare_preferences(c, confidence=level)
    for rate in (result.split, result.drop):
        if rate.ci is None:
            continue
        assert 0.0 <= rate.ci.lower <= rate.estimate <= rate.ci.upper <= 1.0


@settings(max_examples=examples(200), deadline=None)
@given(counts())
def test_sign_test_and_wilson_agree_with_scipy_stats(c):
    assume(c.decisive > 0)
    result = compare_preferences(c)
    reference = stats.binomtest(c.b_better, c.decisive, 0.5)
    assert result.sign_test_p == pytest.approx(reference.pvalue, rel=1e-9, abs=1e-300)
    wilson = reference.proportion_ci(0.95, method="wilson")
    assert result.drop.ci.lower == pytest.approx(wilson.low, abs=1e-12)
    assert result.drop.ci.upper == pytest.approx(wilson.high, abs=1e-12)


@settings(max_examples=examples(100), deadline=None)
@given(st.lists(counts(), min_size=3, max_size=3))
def test_swapping_a_pair_in_the_matrix_mirrors_its_cells(cells):
    tallies = [
        PairTally("x", "y", cells[0]),
        PairTally("x", "z", cells[1]),
        PairTally("y", "z", cells[2]),
    ]
    matrix = win_rate_matrix(tallies)
    flipped = win_rate_matrix([tallies[0].swapped(), *tallies[1:]], systems=("x", "y", "z"))
    for row in "xyz":
        for col in "xyz":
            if row != col:
                assert flipped.rate(row, col) == pytest.approx(matrix.rate(row, col), abs=1e-12)
    assert flipped.pair("x", "y").p_adjusted == matrix.pair("x", "y").p_adjusted
    assert flipped.pair("x", "y").verdict == matrix.pair("x", "y").verdict


@settings(max_examples=examples(60), deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(1, 50), st.integers(1, 50), st.integers(0, 20)),
        min_size=3,
        max_size=3,
    )
)
def test_swapping_every_outcome_negates_every_bradley_terry_strength(cells):
    tallies = [
        PairTally(x, y, PreferenceCounts(*c))
        for (x, y), c in zip((("x", "y"), ("x", "z"), ("y", "z")), cells, strict=True)
    ]
    fit = bradley_terry(tallies, "x")
    mirrored = bradley_terry(
        [PairTally(t.system_a, t.system_b, t.counts.swapped()) for t in tallies], "x"
    )
    for system in "yz":
        assert mirrored.strength(system).log_strength == pytest.approx(
            -fit.strength(system).log_strength, abs=1e-8
        )
        assert mirrored.strength(system).se == pytest.approx(fit.strength(system).se, rel=1e-8)
