"""Adjusted p-values against published vectors, and against R's arithmetic re-done in numpy.

Sources of the published vectors (each written beside its data):

1. R package multtest, ``mt.rawp2adjp``, whose outputs the statsmodels authors recorded to
   full precision in statsmodels/stats/tests/test_multi.py (arrays ``res_multtest1``,
   ``res_multtest3`` and ``res0_large``; columns rawp, Bonferroni, Holm, Hochberg, SidakSS,
   SidakSD, BH, BY, ...). multtest's Bonferroni, Holm and BH are the same definitions as
   ``stats::p.adjust``'s "bonferroni", "holm" and "BH". The values are printed decimals, so they
   are compared to 1e-15 (statsmodels compares them to 15 decimals too).
2. The Benjamini & Hochberg (1995, JRSS B 57:289, section 4) example of 15 p-values, reused by
   Benjamini, Krieger & Yekutieli (2006) and recorded in statsmodels' ``test_fdr_bky``: the BH
   ("single step-up") procedure at q = 0.05 rejects 4 hypotheses.
3. The help page example of ``c212.BH.adjust.pvals`` (R package c212, R. Carragher), which prints
   BH-adjusted p-values for 17 adverse events to 7 significant figures (Mehrotra & Heyse 2004).

Bit-for-bit agreement with R is checked by property tests against ``_r_p_adjust`` below: R's
p.adjust source (src/library/stats/R/p.adjust.R) transcribed operation by operation into numpy.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evaltui.core.stats.multiplicity import ADJUST_METHODS, adjust_pvalues
from tests.conftest import examples

# ============================================================================================
# 1. R multtest (mt.rawp2adjp) outputs, as recorded in statsmodels' test_multi.py
# ============================================================================================

# statsmodels test_multi.py, ``pval0`` (unsorted input) and ``res_multtest1`` (rows sorted by
# raw p). Expected values are keyed by the raw p so the input order is exercised too.
MULTTEST1_P = [
    0.838541367553,
    0.642193923795,
    0.680845947633,
    0.967833824309,
    0.71626938238,
    0.177096952723,
    5.23656777208e-005,
    0.0202732688798,
    0.00028140506198,
    0.0149877310796,
]
MULTTEST1 = {
    # rawp: (Bonferroni, Holm, BH)
    5.23656777208e-005: (5.2365677720800005e-04, 5.2365677720800005e-04, 5.2365677720800005e-04),
    0.00028140506198: (2.8140506197999998e-03, 2.5326455578199999e-03, 1.4070253098999999e-03),
    0.0149877310796: (1.4987731079600000e-01, 1.1990184863680001e-01, 4.9959103598666670e-02),
    0.0202732688798: (2.0273268879799999e-01, 1.4191288215860001e-01, 5.0683172199499998e-02),
    0.177096952723: (1.0, 1.0, 3.5419390544599999e-01),
    0.642193923795: (1.0, 1.0, 8.9533672797500008e-01),
    0.680845947633: (1.0, 1.0, 8.9533672797500008e-01),
    0.71626938238: (1.0, 1.0, 8.9533672797500008e-01),
    0.838541367553: (1.0, 1.0, 9.3171263061444454e-01),
    0.967833824309: (1.0, 1.0, 9.6783382430900000e-01),
}

# statsmodels test_multi.py, ``res_multtest3`` (10 x 10, Fortran order): five small p-values,
# five moderate ones.
MULTTEST3_P = [0.001, 0.002, 0.003, 0.004, 0.005, 0.05, 0.06, 0.07, 0.08, 0.09]
MULTTEST3_BONFERRONI = [0.01, 0.02, 0.03, 0.04, 0.05, 0.5, 0.6, 0.7, 0.8, 0.9]
MULTTEST3_HOLM = [0.01, 0.018, 0.024, 0.028, 0.03, 0.25, 0.25, 0.25, 0.25, 0.25]
MULTTEST3_BH = [
    0.01,
    0.01,
    0.01,
    0.01,
    0.01,
    0.08333333333333334,
    0.0857142857142857,
    0.0875,
    0.0888888888888889,
    0.09,
]

# statsmodels test_multi.py, ``res0_large`` (30 x 10, Fortran order): columns 0, 1, 2 and 6.
LARGE_P = [
    0.00031612, 0.0003965, 0.00048442, 0.00051932, 0.00101436, 0.00121506,
    0.0014516, 0.00265684, 0.00430043, 0.01743686, 0.02080285, 0.02785414,
    0.0327198, 0.03494679, 0.04206808, 0.08067095, 0.23882767, 0.28352304,
    0.36140401, 0.43565145, 0.44866768, 0.45368782, 0.48282088,
    0.49223781, 0.55451638, 0.6207473, 0.71847853, 0.72424145, 0.85950263,
    0.89032747,
]  # fmt: skip
LARGE_BONFERRONI = [
    0.0094836, 0.011895, 0.0145326, 0.0155796, 0.0304308,
    0.0364518, 0.043548, 0.0797052, 0.1290129, 0.5231058, 0.6240855,
    0.8356242, 0.981594, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    1,
]  # fmt: skip
LARGE_HOLM = [
    0.0094836, 0.0114985, 0.01356376, 0.01402164, 0.02637336,
    0.0303765, 0.0348384, 0.06110732, 0.09460946, 0.36617406, 0.416057,
    0.52922866, 0.5889564, 0.59409543, 0.67308928, 1, 1, 1, 1, 1, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1,
]  # fmt: skip
LARGE_BH = [
    0.0038949, 0.0038949, 0.0038949, 0.0038949, 0.0060753, 0.0060753,
    0.006221142857142857, 0.00996315, 0.01433476666666667, 0.05231058,
    0.05673504545454545, 0.06963535, 0.07488597857142856, 0.07488597857142856,
    0.08413616, 0.15125803125, 0.421460594117647, 0.4725384, 0.570637910526316,
    0.6152972625, 0.6152972625, 0.6152972625, 0.6152972625, 0.6152972625,
    0.665419656, 0.7162468846153845, 0.775972982142857, 0.775972982142857,
    0.889140651724138, 0.89032747,
]  # fmt: skip


def _close(got, expected, tol=1e-15):
    assert len(got) == len(expected)
    for g, e in zip(got, expected, strict=True):
        assert abs(g - e) <= tol, (got, expected)


@pytest.mark.parametrize("column, method", [(0, "bonferroni"), (1, "holm"), (2, "bh")])
def test_multtest_vector_1_unsorted_input(column, method):
    got = adjust_pvalues(MULTTEST1_P, method)
    _close(got, [MULTTEST1[p][column] for p in MULTTEST1_P])


@pytest.mark.parametrize(
    "method, expected",
    [
        ("bonferroni", MULTTEST3_BONFERRONI),
        ("holm", MULTTEST3_HOLM),
        ("bh", MULTTEST3_BH),
    ],
)
def test_multtest_vector_3(method, expected):
    _close(adjust_pvalues(MULTTEST3_P, method), expected)


@pytest.mark.parametrize(
    "method, expected",
    [("bonferroni", LARGE_BONFERRONI), ("holm", LARGE_HOLM), ("bh", LARGE_BH)],
)
def test_multtest_large_vector_of_30(method, expected):
    _close(adjust_pvalues(LARGE_P, method), expected)


def test_multtest_large_vector_reversed_input_gives_the_same_values_reversed():
    for method in ("bonferroni", "holm", "bh"):
        forward = adjust_pvalues(LARGE_P, method)
        backward = adjust_pvalues(LARGE_P[::-1], method)
        assert backward == forward[::-1]


def test_multtest_all_rejected_case():
    # statsmodels test_multi.py ``res_multtest2`` (6 x 10): "all rejections, except for
    # Bonferroni and Sidak".
    p = [0.002, 0.004, 0.006, 0.008, 0.01, 0.012]
    _close(adjust_pvalues(p, "bonferroni"), [0.012, 0.024, 0.036, 0.048, 0.06, 0.072])
    _close(adjust_pvalues(p, "holm"), [0.012, 0.02, 0.024, 0.024, 0.024, 0.024])
    _close(adjust_pvalues(p, "bh"), [0.012] * 6)


# ============================================================================================
# 2. Benjamini & Hochberg (1995), section 4: 15 p-values, BH rejects 4 at q = 0.05
# ============================================================================================

BH1995 = [
    0.0001, 0.0004, 0.0019, 0.0095, 0.0201, 0.0278, 0.0298, 0.0344, 0.0459,
    0.3240, 0.4262, 0.5719, 0.6528, 0.7590, 1.000,
]  # fmt: skip


def test_benjamini_hochberg_1995_example_rejects_four_at_005():
    adjusted = adjust_pvalues(BH1995, "bh")
    rejected = [p for p, q in zip(BH1995, adjusted, strict=True) if q <= 0.05]
    assert rejected == [0.0001, 0.0004, 0.0019, 0.0095]
    # 0.0095 is the largest p with p(i) <= i q / m: 0.0095 <= 4 * 0.05 / 15 = 0.0133, while
    # 0.0201 > 5 * 0.05 / 15 = 0.0167 and no later p(i) clears its line either.
    assert adjusted[3] == pytest.approx(0.0095 * 15 / 4, rel=1e-15)


def test_benjamini_hochberg_1995_example_family_wise_methods_reject_three():
    # Derived, not quoted: Holm stops at p(4) = 0.0095 > 0.05 / 12, Bonferroni at 0.05 / 15.
    for method in ("holm", "bonferroni"):
        adjusted = adjust_pvalues(BH1995, method)
        assert sum(q <= 0.05 for q in adjusted) == 3


# ============================================================================================
# 3. c212.BH.adjust.pvals help page (R package c212): 17 adverse-event p-values
# ============================================================================================


def test_c212_help_page_bh_example():
    p = [
        0.135005, 0.010000, 0.001000, 0.005000, 0.153501, 0.020000, 0.0013, 0.0023,
        0.011, 0.023000, 0.016, 0.0109, 0.559111, 0.751986, 0.308339, 0.837154, 0.325882,
    ]  # fmt: skip
    adjusted = dict(zip(p, adjust_pvalues(p, "bh"), strict=True))
    # The help page prints the first eight rows (ordered by p) with 7 significant figures.
    printed = {
        0.001: 0.01105000,
        0.0013: 0.01105000,
        0.0023: 0.01303333,
        0.005: 0.02125000,
        0.010: 0.02671429,
        0.0109: 0.02671429,
        0.011: 0.02671429,
        0.016: 0.03400000,
    }
    for raw, value in printed.items():
        assert adjusted[raw] == pytest.approx(value, abs=5e-9)


# ============================================================================================
# Contract: None, edges, errors
# ============================================================================================


def test_none_passes_through_and_does_not_count_in_m():
    assert adjust_pvalues([0.01, None, 0.04], "holm") == (0.02, None, 0.04)
    assert adjust_pvalues([0.01, None, 0.04], "bonferroni") == (0.02, None, 0.08)
    assert adjust_pvalues([None, 0.01, 0.04, None], "bh") == (None, 0.02, 0.04, None)
    assert adjust_pvalues([None, None], "holm") == (None, None)


def test_hand_worked_example():
    p = [0.01, 0.04, 0.03, 0.005]
    # Holm: ascending 0.005*4, 0.01*3, 0.03*2, then 0.04*1 lifted to 0.06 by the running max.
    assert adjust_pvalues(p, "holm") == pytest.approx((0.03, 0.06, 0.06, 0.02), rel=1e-15)
    # BH: descending 0.04*4/4, 0.03*4/3, 0.01*4/2, 0.005*4/1, each capped by the running min.
    assert adjust_pvalues(p, "bh") == pytest.approx((0.02, 0.04, 0.04, 0.02), rel=1e-15)
    assert adjust_pvalues(p, "none") == tuple(p)


def test_capped_at_one():
    assert adjust_pvalues([0.4, 0.6, 0.9], "bonferroni") == (1.0, 1.0, 1.0)
    assert adjust_pvalues([0.4, 0.6, 0.9], "holm") == (1.0, 1.0, 1.0)
    assert max(adjust_pvalues([0.5, 0.99, 1.0], "bh")) == 1.0


def test_family_of_one_or_none_is_unchanged():
    assert adjust_pvalues([], "holm") == ()
    for method in ADJUST_METHODS:
        assert adjust_pvalues([0.03], method) == (0.03,)
        assert adjust_pvalues([None, 0.03], method) == (None, 0.03)


def test_accepts_numpy_numbers_and_returns_plain_floats():
    out = adjust_pvalues([np.float64(0.01), np.float32(0.5)], "holm")
    assert all(type(x) is float for x in out)


@pytest.mark.parametrize(
    "pvalues, fragment",
    [
        ([0.1, math.nan], "pvalues[1] is NaN"),
        ([-0.01], "pvalues[0] must be in [0, 1], got -0.01"),
        ([0.2, 1.5], "pvalues[1] must be in [0, 1], got 1.5"),
        (["0.1"], "pvalues[0] must be a number"),
        ([True], "pvalues[0] must be a number"),
    ],
)
def test_invalid_pvalues_raise_naming_the_value(pvalues, fragment):
    with pytest.raises(ValueError, match=fragment.replace("[", r"\[").replace("]", r"\]")):
        adjust_pvalues(pvalues, "holm")


def test_unknown_method_and_non_sequence_raise():
    with pytest.raises(ValueError, match="unknown adjustment method 'BH'"):
        adjust_pvalues([0.1], "BH")
    with pytest.raises(ValueError, match="unknown adjustment method 'hochberg'"):
        adjust_pvalues([0.1], "hochberg")
    with pytest.raises(ValueError, match="must be a sequence"):
        adjust_pvalues("0.1", "holm")


# ============================================================================================
# Properties: bit-for-bit against R's arithmetic; against scipy for BH; orderings
# ============================================================================================


def _r_p_adjust(p: list[float], method: str) -> list[float]:
    """R's stats::p.adjust (src/library/stats/R/p.adjust.R) in numpy, same operations."""
    x = np.asarray(p, dtype=float)
    n = x.size
    if n <= 1 or method == "none":
        return x.tolist()
    if method == "bonferroni":
        return np.minimum(1.0, n * x).tolist()
    if method == "holm":
        i = np.arange(1, n + 1)
        o = np.argsort(x, kind="stable")
        ro = np.argsort(o, kind="stable")
        return np.minimum(1.0, np.maximum.accumulate((n - i + 1) * x[o]))[ro].tolist()
    i = np.arange(n, 0, -1)  # BH: i <- lp:1L
    o = np.argsort(-x, kind="stable")  # order(p, decreasing = TRUE)
    ro = np.argsort(o, kind="stable")
    return np.minimum(1.0, np.minimum.accumulate(n / i * x[o]))[ro].tolist()


pvalue = st.floats(min_value=0.0, max_value=1.0, allow_nan=False)
# Ties happen in practice (p = 1 for b == c; identical slices), so draw some from a small pool.
tied_pvalue = st.sampled_from([0.0, 1e-6, 0.01, 0.03125, 0.05, 0.5, 1.0])
family = st.lists(st.one_of(pvalue, tied_pvalue), min_size=0, max_size=40)


@settings(max_examples=examples(300), deadline=None)
@given(family, st.sampled_from(ADJUST_METHODS))
def test_matches_r_arithmetic_bit_for_bit(p, method):
    assert list(adjust_pvalues(p, method)) == _r_p_adjust(p, method)


@settings(max_examples=examples(200), deadline=None)
@given(st.lists(st.one_of(pvalue, tied_pvalue), min_size=1, max_size=40))
def test_bh_matches_scipy_false_discovery_control(p):
    from scipy.stats import false_discovery_control

    expected = false_discovery_control(np.asarray(p), method="bh")
    np.testing.assert_allclose(adjust_pvalues(p, "bh"), expected, rtol=1e-12, atol=1e-15)


@settings(max_examples=examples(200), deadline=None)
@given(
    st.lists(st.one_of(pvalue, tied_pvalue, st.none()), max_size=30),
    st.sampled_from(ADJUST_METHODS),
)
def test_none_positions_are_kept_and_the_rest_adjusted_as_a_family(p, method):
    out = adjust_pvalues(p, method)
    assert [x is None for x in out] == [x is None for x in p]
    defined = [x for x in p if x is not None]
    assert [x for x in out if x is not None] == list(adjust_pvalues(defined, method))


@settings(max_examples=examples(200), deadline=None)
@given(st.lists(st.one_of(pvalue, tied_pvalue), min_size=1, max_size=40))
def test_orderings_between_methods_and_with_raw(p):
    holm = adjust_pvalues(p, "holm")
    bh = adjust_pvalues(p, "bh")
    bonf = adjust_pvalues(p, "bonferroni")
    for raw, h, b, bo in zip(p, holm, bh, bonf, strict=True):
        assert raw <= b <= h <= bo <= 1.0
    # Holm and BH keep the order of the raw p-values.
    order = sorted(range(len(p)), key=lambda k: p[k])
    for adjusted in (holm, bh):
        values = [adjusted[k] for k in order]
        assert values == sorted(values)
