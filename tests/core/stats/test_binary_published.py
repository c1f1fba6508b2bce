"""Paired binary statistics against numbers printed somewhere else.

Two kinds of anchors, each with its source beside it:

1. The reading list (/work/shared/reading), which defines what the product must say.
2. Published worked examples: papers' tables, R help pages and the test suites of the R packages
   written by the methods' authors or maintainers. Where I could only read a transcription of a
   paper's table (the papers themselves are paywalled), the comment says where I read it.

Orientation. Our delta is rate(candidate) - rate(baseline) = (improvements - regressions) / n.
The papers use delta = p1 - p2 = (n12 - n21) / n, where n12 is "first variable positive, second
negative". Treating the paper's FIRST variable as our candidate makes the two agree:
n12 -> improvements, n21 -> regressions, so the published limits are compared as printed, with
no sign flip. ``_from_paper`` does that mapping once.
"""

from __future__ import annotations

import pytest

from evaltui.core.stats.binary import compare_binary, unpaired_contrast
from evaltui.core.stats.interval import wilson_interval
from evaltui.core.stats.paired_delta import paired_delta_interval
from evaltui.core.stats.paired_table import PairedTable, mcnemar


def _from_paper(n11: int, n12: int, n21: int, n22: int) -> PairedTable:
    """A paper's (n11, n12, n21, n22) with delta = (n12 - n21)/n, mapped to our orientation."""
    return PairedTable(both_pass=n11, regressions=n21, improvements=n12, both_fail=n22)


def _rounded(interval, places: int) -> tuple[float, float]:
    return round(interval.lower, places), round(interval.upper, places)


# ============================================================================================
# 1. The reading list
# ============================================================================================

# 002_4e8fed74ddc977de.txt ("Is V2 actually better?"): V1 = baseline, V2 = candidate, 200
# questions: 141 both pass, b = 9 (V1 only), c = 21 (V2 only), 29 both fail.
RELEASE = PairedTable(both_pass=141, regressions=9, improvements=21, both_fail=29)


def test_delta_is_0_060_for_reading_list_9_vs_21_of_200():
    # 002: "Δ = (c - b)/n = (21 - 9)/200 = 0.06"
    assert RELEASE.n == 200
    assert round(RELEASE.delta, 3) == 0.060


def test_exact_mcnemar_matches_reading_list_9_vs_21():
    # 002: "p = 2P(X <= 9) ≈ 0.0428", printed by its script to 4 dp as p=0.0428
    assert round(mcnemar(RELEASE).exact_p, 4) == 0.0428


def test_wald_interval_matches_reading_list_9_vs_21():
    # 002: "0.06 ± 1.96 × 0.0271 ≈ [0.007, 0.113]"
    assert _rounded(paired_delta_interval(RELEASE, "wald"), 3) == (0.007, 0.113)


def test_wilson_marginals_match_reading_list_150_and_162_of_200():
    # 002: "Wilson 95% intervals here: V1: 68.6% to 80.5%; V2: 75.0% to 85.8%"
    assert _rounded(wilson_interval(150, 200), 3) == (0.686, 0.805)
    assert _rounded(wilson_interval(162, 200), 3) == (0.750, 0.858)


def test_compare_binary_reports_the_reading_list_marginals():
    result = compare_binary(RELEASE)
    assert result.baseline_rate == 0.75 and result.candidate_rate == 0.81
    assert _rounded(result.baseline_ci, 3) == (0.686, 0.805)
    assert _rounded(result.candidate_ci, 3) == (0.750, 0.858)


def test_chi_square_p_values_match_reading_list_9_vs_21():
    # 002: "The chi-square approximation gives p ≈ 0.028 without continuity correction and
    # p ≈ 0.045 with it."
    test = mcnemar(RELEASE)
    assert round(test.chi2_p, 3) == 0.028
    assert round(test.chi2_cc_p, 3) == 0.045


def test_unpaired_se_matches_reading_list_0_0413():
    # 002: "sqrt(0.75 × 0.25/200 + 0.81 × 0.19/200) ≈ 0.0413" (the wrong, unpaired SE) and
    # "0.06 ± 1.96 × 0.0413 gives roughly -2.1 to 14.1 points. That includes zero."
    contrast = unpaired_contrast(RELEASE)
    assert round(contrast.se, 4) == 0.0413
    assert _rounded(contrast.ci, 3) == (-0.021, 0.141)
    assert contrast.ci.method == "unpaired-wald"


# 000_a6062f4c9922955f.txt: 500 items, 40 where only A (baseline) passed, 53 where only B did,
# 407 concordant (the split between both-pass and both-fail is not given; it does not enter
# any of the statistics below).
FIVE_HUNDRED = PairedTable(both_pass=407, regressions=40, improvements=53, both_fail=0)


def test_exact_mcnemar_matches_reading_list_40_vs_53():
    # 000: "the exact binomial p for that split is about 0.21"
    assert round(mcnemar(FIVE_HUNDRED).exact_p, 2) == 0.21


def test_wald_interval_matches_reading_list_40_vs_53():
    # 000: "a 2.6-point delta with a roughly [-1.2, +6.4]-point 95 percent interval"
    assert round(FIVE_HUNDRED.delta, 3) == 0.026
    assert _rounded(paired_delta_interval(FIVE_HUNDRED, "wald"), 3) == (-0.012, 0.064)


def test_exact_mcnemar_matches_reading_list_0_vs_10():
    # 001_d28a2150d9518103.txt, Comparison A: "0 regressions, 10 improvements, two-sided
    # p = 0.001953125" (= 2/2^10, exact; the tolerance is a few ulps of the incomplete beta)
    p = mcnemar(PairedTable(90, 0, 10, 0)).exact_p
    assert p == pytest.approx(0.001953125, rel=1e-14, abs=0)


def test_exact_mcnemar_matches_reading_list_10_vs_20_to_ten_places():
    # 001, Comparison B: "10 regressions, 20 improvements, two-sided p = 0.0987371467"
    assert round(mcnemar(PairedTable(70, 10, 20, 0)).exact_p, 10) == 0.0987371467


def test_exact_mcnemar_and_nested_flag_match_reading_list_0_vs_7():
    # 003_53e7b4f2b3b2b38a.txt: 55 both pass, b = 0, c = 7, 38 both fail: "Exact two-sided
    # binomial p=0.0156" and "NESTED (b=0 or c=0)". 2/2^7 = 0.015625 exactly.
    table = PairedTable(both_pass=55, regressions=0, improvements=7, both_fail=38)
    result = compare_binary(table)
    assert result.mcnemar.exact_p == pytest.approx(0.015625, rel=1e-14, abs=0)
    assert round(result.mcnemar.exact_p, 4) == 0.0156
    assert "nested" in result.flags


def test_reading_list_39_vs_0_of_535_is_flagged_nested():
    # 003: "8:4 vs 9:3 | 39 / 0 / 535 | ... NESTED": 39 discordant pairs, all one way.
    table = PairedTable(both_pass=496, regressions=39, improvements=0, both_fail=0)
    result = compare_binary(table)
    assert "nested" in result.flags
    assert result.verdict == "regressed"


# ============================================================================================
# 2. Published worked examples
# ============================================================================================

# --- Newcombe 1998, method 10 ---------------------------------------------------------------
# Newcombe RG. Improved confidence intervals for the difference between binomial proportions
# based on paired data. Stat Med 1998;17:2635-2650, Table III (95% limits, z = 1.96, theta =
# (f - g)/n with cells e, f, g, h = n11, n12, n21, n22). I could not read the paper; the rows
# are as transcribed, identically, in several independent public test files found with the
# code-search tool (a Python test "ISC-70 paired and clustered statistics", a TypeScript
# "Atlas Phase 5, S5.4" test and others), and the 20/12/2/16 row is also pinned in
# petelaud/ratesci tests/testthat/test3.R ("against Newcombe's method 10 result").
NEWCOMBE_TABLE_III_METHOD_10 = [
    ((36, 12, 2, 0), (0.0569, 0.3404)),
    ((20, 12, 2, 16), (0.0562, 0.3292)),
    ((18, 12, 2, 18), (0.0562, 0.3290)),
    ((36, 14, 0, 0), (0.1528, 0.4167)),
    ((35, 14, 0, 1), (0.1461, 0.4175)),
    ((18, 14, 0, 18), (0.1441, 0.3963)),
    ((2, 97, 1, 0), (0.8721, 0.9854)),
    ((1, 97, 1, 1), (0.8736, 0.9850)),
    ((0, 29, 1, 0), (0.6666, 0.9882)),
    ((2, 98, 0, 0), (0.9178, 0.9945)),
    ((1, 98, 0, 1), (0.9171, 0.9916)),
    ((0, 30, 0, 0), (0.8395, 1.0)),
    ((54, 0, 0, 0), (-0.0664, 0.0664)),
    ((53, 0, 0, 1), (-0.0729, 0.0729)),
    ((30, 0, 0, 24), (-0.0358, 0.0358)),
    ((29, 0, 0, 25), (-0.0354, 0.0354)),
    ((28, 0, 0, 26), (-0.0352, 0.0352)),
    ((27, 0, 0, 27), (-0.0351, 0.0351)),
]

# Half a unit in the 4th decimal is the most a correctly rounded printed value can be off, plus
# the difference between z = 1.96 (the paper) and z = 1.959964 (ours), which moves these limits
# by under 1e-5. One row is held to a full unit: for 1/97/1/1, eh <= fg, so by the paper's own
# definition method 10 equals method 8 there, yet the transcribed lower limits differ by one in
# the last place (0.8736 vs 0.8737); the exact value is 0.873672.
_HALF_UNIT = 5e-5
_LOOSE_ROWS = {(1, 97, 1, 1): 1e-4}


@pytest.mark.parametrize(("cells", "published"), NEWCOMBE_TABLE_III_METHOD_10, ids=str)
def test_newcombe_interval_matches_newcombe_1998_table_iii_method_10(cells, published):
    interval = paired_delta_interval(_from_paper(*cells), "newcombe", 0.95)
    tolerance = _LOOSE_ROWS.get(cells, _HALF_UNIT)
    assert interval.lower == pytest.approx(published[0], abs=tolerance)
    assert interval.upper == pytest.approx(published[1], abs=tolerance)


def test_newcombe_interval_is_method_10_not_method_8():
    # Same table, method 8 (uncorrected phi): 0.0618 to 0.3242 (Newcombe 1998 Table III; also
    # petelaud/ratesci tests/testthat/test3.R "against Newcombe's method 8 result"). The
    # continuity-corrected phi is what moves the limits to 0.0562 to 0.3292.
    interval = paired_delta_interval(_from_paper(20, 12, 2, 16), "newcombe")
    assert abs(interval.lower - 0.0618) > 5e-4 and abs(interval.upper - 0.3242) > 5e-4
    assert _rounded(interval, 4) == (0.0562, 0.3292)


def test_newcombe_interval_does_not_collapse_when_a_equals_d_and_no_discordance():
    # Table III row 27/0/0/27: method 8 gives the zero-width 0 to 0 there, method 10 gives
    # -0.0351 to 0.0351 (transcribed as above). A reviewer with no disagreements still gets the
    # remaining uncertainty, not a fake certainty.
    interval = paired_delta_interval(PairedTable(27, 0, 0, 27), "newcombe")
    assert _rounded(interval, 4) == (-0.0351, 0.0351)


# --- Fagerland, Lydersen & Laake 2014 ------------------------------------------------------
# Fagerland MW, Lydersen S, Laake P. Recommended tests and confidence intervals for paired
# binomial proportions. Stat Med 2014;33:2850-2875. Example 1 (Bentur et al. 2009, airway
# hyper-responsiveness before (first) and after (second) stem cell transplantation):
# n11 = 1, n12 = 1, n21 = 7, n22 = 12, delta = (1 - 7)/21 = -0.2857.
BENTUR = _from_paper(1, 1, 7, 12)


def test_tango_interval_matches_fagerland_2014_table_v_bentur():
    # Tango 95% CI -0.517 to -0.026: Fagerland et al. 2014 Table V, as pinned in
    # petelaud/ratesci tests/testthat/test3.R ("paired methods examples from Fagerland et al
    # 2014 / Tango RD", skew = FALSE, bcf = FALSE) and quoted in a study protocol found by code
    # search ("reproduces their Table V example (Bentur et al.: 95 % CI -0.517 to -0.026)").
    assert round(BENTUR.delta, 4) == -0.2857
    assert _rounded(paired_delta_interval(BENTUR, "tango"), 3) == (-0.517, -0.026)


def test_newcombe_interval_matches_fagerland_2014_bentur():
    # Newcombe hybrid score (method 10) 95% CI -0.507 to -0.026: petelaud/ratesci
    # tests/testthat/test3.R ("MOVER Wilson - Fagerland use Newcombe's correlation-corrected
    # 'method 10'"), the Fagerland et al. 2014 Bentur example.
    assert _rounded(paired_delta_interval(BENTUR, "newcombe"), 3) == (-0.507, -0.026)


def test_newcombe_interval_matches_fagerland_cavo_example():
    # Fagerland's second example (Cavo et al. 2012, complete response before and after
    # consolidation therapy): n11 = 59, n12 = 6, n21 = 16, n22 = 80. The authors' companion
    # package prints "estimate = -0.0621 (95% CI -0.1186 to -0.0046)" for the Newcombe
    # square-and-add interval: ocbe-uio/contingencytables tests/testthat/test-ch8.R.
    cavo = _from_paper(59, 6, 16, 80)
    assert round(cavo.delta, 4) == -0.0621
    assert _rounded(paired_delta_interval(cavo, "newcombe"), 4) == (-0.1186, -0.0046)


# The same Cavo table in the authors' companion package (ocbe-uio/contingencytables, the R
# translation of Fagerland, Lydersen & Laake's code for "Statistical Analysis of Contingency
# Tables", chapter 8), tests/testthat/test-ch8.R, which pins each method's printed output:
#   Wald_CI_diff_paired_2x2            -0.1184 to -0.0058
#   Wald_CI_diff_CC_paired_2x2         -0.1186 to -0.0057
#   Wald_CI_AgrestiMin_paired_2x2      -0.1182 to -0.0045
#   Wald_CI_BonettPrice_paired_2x2     -0.1195 to -0.0032
#   Tango_asymptotic_score_CI          -0.1240 to -0.0054
#   McNemar exact conditional P = 0.052479, mid-P P = 0.034690, asymptotic P = 0.033006,
#   with continuity correction P = 0.055009
CAVO = _from_paper(59, 6, 16, 80)


@pytest.mark.parametrize(
    ("method", "published"),
    [
        ("wald", (-0.1184, -0.0058)),
        ("wald-cc", (-0.1186, -0.0057)),
        ("agresti-min", (-0.1182, -0.0045)),
        ("bonett-price", (-0.1195, -0.0032)),
        ("tango", (-0.1240, -0.0054)),
    ],
)
def test_every_interval_matches_the_fagerland_package_on_the_cavo_example(method, published):
    assert _rounded(paired_delta_interval(CAVO, method), 4) == published


def test_mcnemar_p_values_match_the_fagerland_package_on_the_cavo_example():
    result = mcnemar(CAVO)
    assert round(result.exact_p, 6) == 0.052479
    assert round(result.mid_p, 6) == 0.034690
    assert round(result.chi2_p, 6) == 0.033006
    assert round(result.chi2_cc_p, 6) == 0.055009


# --- Tango 1998 and later papers re-using Tango's interval ---------------------------------
# Tango T. Equivalence test and confidence interval for the difference in proportions for the
# paired-sample design. Stat Med 1998;17:891-908. I could not read the paper; the two examples
# below are the ones pinned under "Tango RD" in petelaud/ratesci tests/testthat/test3.R
# ("legacy & new methods match published examples", skew = FALSE, bcf = FALSE = Tango's
# original score interval), written there as x = c(a, b, c, d) with RD = (b - c)/N.


def test_tango_interval_matches_published_example_4_9_3_16():
    table = _from_paper(4, 9, 3, 16)
    assert _rounded(paired_delta_interval(table, "tango", 0.95), 3) == (-0.027, 0.390)


def test_tango_interval_matches_published_example_43_0_1_0_at_90_percent():
    # One discordant pair out of 44, 90% interval (the equivalence-testing level).
    table = _from_paper(43, 0, 1, 0)
    assert _rounded(paired_delta_interval(table, "tango", 0.90), 3) == (-0.096, 0.037)


def test_tango_interval_matches_agresti_min_2005_example():
    # Agresti A, Min Y. Simple improved confidence intervals for comparing matched proportions.
    # Stat Med 2005;24:729-740: x = c(53, 16, 8, 9), Tango score interval -0.020 to 0.207, as
    # pinned in petelaud/ratesci tests/testthat/test3.R ("paired methods examples from Agresti
    # & Min 2005").
    table = _from_paper(53, 16, 8, 9)
    assert _rounded(paired_delta_interval(table, "tango"), 3) == (-0.020, 0.207)


def test_tango_and_newcombe_match_tang_2010_example():
    # Tang M-L et al. (2010) paired-difference example x = c(8, 3, 1, 2): Tango -0.1670 to
    # 0.4327 and Newcombe method 10 -0.1574 to 0.4136, as pinned in petelaud/ratesci
    # tests/testthat/test3.R ("Tang(ML) RD 2010 example").
    table = _from_paper(8, 3, 1, 2)
    assert _rounded(paired_delta_interval(table, "tango"), 4) == (-0.1670, 0.4327)
    assert _rounded(paired_delta_interval(table, "newcombe"), 4) == (-0.1574, 0.4136)


def test_tango_and_newcombe_match_chang_2024_example():
    # Chang P et al. Continuity corrected score confidence interval for the difference in
    # proportions in paired data. J Appl Stat 2024;51:139-152, x = c(7, 25, 2, 68): Tango 0.139
    # to 0.321 and Newcombe method 10 0.133 to 0.318, as pinned in petelaud/ratesci
    # tests/testthat/test3.R ("Chang 2024 RD example").
    table = _from_paper(7, 25, 2, 68)
    assert _rounded(paired_delta_interval(table, "tango"), 3) == (0.139, 0.321)
    assert _rounded(paired_delta_interval(table, "newcombe"), 3) == (0.133, 0.318)


# --- R's mcnemar.test help page -------------------------------------------------------------
# ?mcnemar.test (R stats; Agresti 1990, p. 350, Presidential Approval Ratings, 1600 voters):
#   Performance <- matrix(c(794, 86, 150, 570), nrow = 2, dimnames = list(
#       "1st Survey" = c("Approve", "Disapprove"), "2nd Survey" = c("Approve", "Disapprove")))
#   mcnemar.test(Performance)
#   McNemar's chi-squared = 16.818, df = 1, p-value = 4.115e-05
#   mcnemar.test(Performance, correct = FALSE)
#   McNemar's chi-squared = 17.356, df = 1, p-value = 3.099e-05
# Output as printed in several public transcriptions of that example found by code search (an
# effectsize vignette, mcStats README, a Rust port's validation notes). R fills by column, so
# Approve -> Disapprove = 150 and Disapprove -> Approve = 86. Orientation: first survey =
# baseline, second survey = candidate, "pass" = approve, so regressions = 150 and
# improvements = 86 (McNemar is symmetric in the two, so the orientation cannot change these).
# The brief quoted "chi-squared = 34.712, p = 3.822e-09" for this example; R does not print
# that (34.712 is exactly twice the uncorrected 17.356), so it is not tested.
PERFORMANCE = PairedTable(both_pass=794, regressions=150, improvements=86, both_fail=570)


def test_corrected_chi_square_matches_r_mcnemar_test_help_example():
    test = mcnemar(PERFORMANCE)
    assert round(test.chi2_cc, 3) == 16.818
    assert f"{test.chi2_cc_p:.3e}" == "4.115e-05"


def test_uncorrected_chi_square_matches_r_mcnemar_test_help_example():
    test = mcnemar(PERFORMANCE)
    assert round(test.chi2, 3) == 17.356
    assert f"{test.chi2_p:.3e}" == "3.099e-05"
