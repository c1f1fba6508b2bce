"""The independent (unpaired) comparison against published values, R and statsmodels (issue 17).

Hard-coded references, with where they came from:
- Newcombe (1998), "Interval estimation for the difference between independent proportions:
  comparison of eleven methods", Stat Med 17:873-890, Table II, method 10 (the hybrid score
  interval), to the four decimals printed there.
- Fagerland, Lydersen and Laake (2015), "Recommended confidence intervals for two independent
  binomial proportions", Stat Methods Med Res 24(2):224-254: the 7/34 vs 1/34 example, Newcombe
  hybrid score 0.019 to 0.34.
- R 4.2.2: `prop.test(correct = FALSE)`, `fisher.test`, `t.test(var.equal = FALSE)`, printed by
  tests/data/reference/independent_r.R.
- statsmodels 0.15: `confint_proportions_2indep(method="newcomb")` and `proportions_ztest`,
  printed by tests/data/reference/independent_statsmodels.py (not a dependency; run once).
- Student (1908) sleep data (R's `sleep`): the Welch output R documents for
  `t.test(extra ~ group, data = sleep)`: t = -1.8608, df = 17.776, p = 0.07939 (group 1 - 2).
scipy cross-checks (`fisher_exact`, `ttest_ind(equal_var=False)`) run live.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from evaltui.core.stats.independent import (
    FLAG_TEXT,
    compare_proportions,
    compare_scores,
    fisher_exact_p,
    newcombe_independent_interval,
    two_proportion_z,
    welch_t,
)

# Newcombe (1998) Table II, method 10: (x1, n1, x2, n2, lower, upper), x1/n1 - x2/n2.
NEWCOMBE_TABLE_II = [
    (56, 70, 48, 80, 0.0524, 0.3339),  # (a)
    (9, 10, 3, 10, 0.1705, 0.8090),  # (b)
    (6, 7, 2, 7, 0.0582, 0.8062),  # (c)
    (5, 56, 0, 29, -0.0381, 0.1926),  # (d)
    (0, 10, 0, 20, -0.1611, 0.2775),  # (e)
    (0, 10, 0, 10, -0.2775, 0.2775),  # (f)
    (10, 10, 0, 20, 0.6791, 1.0000),  # (g)
    (10, 10, 0, 10, 0.6075, 1.0000),  # (h)
]

# statsmodels 0.15 confint_proportions_2indep(x1, n1, x2, n2, method="newcomb", compare="diff",
# alpha=1 - confidence): (x1, n1, x2, n2, confidence, lower, upper).
STATSMODELS_NEWCOMBE = [
    (56, 70, 48, 80, 0.95, 0.05243147240236498, 0.333872654036906),
    (7, 34, 1, 34, 0.95, 0.018921443885772993, 0.3403686870327073),
    (9, 10, 3, 10, 0.95, 0.17052272393450302, 0.8090179735354881),
    (5, 56, 0, 29, 0.95, -0.03813714790353688, 0.19256001385511162),
    (0, 10, 0, 20, 0.95, -0.16112515805281938, 0.2775327998628892),
    (10, 10, 0, 20, 0.95, 0.6790860371419147, 1.0),
    (4321, 5000, 4200, 5000, 0.95, 0.010286924993825787, 0.038112667975246775),
    (120, 1000, 100, 1200, 0.95, 0.01139460041270992, 0.06260076837294064),
    (56, 70, 48, 80, 0.9, 0.07656419154407207, 0.31364458358294384),
    (7, 34, 1, 34, 0.9, 0.047476371664812195, 0.3119831990663471),
    (9, 10, 3, 10, 0.9, 0.24211240088494457, 0.7896235073721287),
    (5, 56, 0, 29, 0.9, -0.007255069182513882, 0.17229044004724364),
    (0, 10, 0, 20, 0.9, -0.11915783736096455, 0.2129419700834071),
    (10, 10, 0, 20, 0.9, 0.755985916743429, 1.0),
    (4321, 5000, 4200, 5000, 0.9, 0.012525094162472172, 0.0358746272929415),
    (120, 1000, 100, 1200, 0.9, 0.015439504638684761, 0.05836175589525562),
]

# R 4.2.2 prop.test(c(x1, x2), c(n1, n2), correct = FALSE): (x1, n1, x2, n2, X-squared, p).
R_PROP_TEST = [
    (56, 70, 48, 80, 7.02341137123746, 0.00804508136819656),
    (7, 34, 1, 34, 5.1, 0.0239258434806266),
    (9, 10, 3, 10, 7.5, 0.00616989932054415),
    (5, 56, 0, 29, 2.75111607142857, 0.0971865681705797),
    (4321, 5000, 4200, 5000, 11.6174818146061, 0.000653347988462033),
    (0, 30, 3, 30, 3.15789473684211, 0.0755605675259413),
    (3, 10, 7, 10, 3.2, 0.0736382701203028),
    (27, 40, 13, 40, 9.8, 0.0017451186995289),
    (120, 1000, 100, 1200, 8.14814814814815, 0.00431051570689159),
]

# statsmodels 0.15 proportions_ztest([x1, x2], [n1, n2]) (pooled): (x1, n1, x2, n2, z, p).
STATSMODELS_Z = [
    (56, 70, 48, 80, 2.6501719512585336, 0.00804508136819656),
    (7, 34, 1, 34, 2.258317958127243, 0.023925843480626655),
    (9, 10, 3, 10, 2.738612787525831, 0.006169899320544151),
    (5, 56, 0, 29, 1.6586488692392285, 0.09718656817057973),
    (4321, 5000, 4200, 5000, 3.408442725733566, 0.0006533479884620346),
    (120, 1000, 100, 1200, 2.8544961285922508, 0.004310515706891587),
]

# R 4.2.2 fisher.test(matrix(c(x1, n1 - x1, x2, n2 - x2), 2, byrow = TRUE))$p.value.
R_FISHER = [
    (56, 70, 48, 80, 0.0125211297492092),
    (7, 34, 1, 34, 0.0544001304950657),
    (9, 10, 3, 10, 0.0197666110978804),
    (5, 56, 0, 29, 0.160621443209471),
    (4321, 5000, 4200, 5000, 0.00072031812614809),
    (0, 30, 3, 30, 0.23728813559322),
    (3, 10, 7, 10, 0.178895407997576),  # equal-probability tables in both tails
    (27, 40, 13, 40, 0.00338871015274646),
    (120, 1000, 100, 1200, 0.00528788995928055),
]

# R's `sleep` (Student 1908): extra hours of sleep, group 1 and group 2 (different subjects
# treated as independent samples, as R's example does).
SLEEP_1 = [0.7, -1.6, -0.2, -1.2, -0.1, 3.4, 3.7, 0.8, 0.0, 2.0]
SLEEP_2 = [1.9, 0.8, 1.1, 0.1, -0.1, 4.4, 5.5, 1.6, 4.6, 3.4]
# R 4.2.2 t.test(candidate, baseline, var.equal = FALSE): t, df, p, lower, upper.
R_WELCH_SLEEP = (1.86081346748685, 17.7764735161785, 0.0793941401873582, -0.20548323071171,
                 3.36548323071171)  # fmt: skip
CAND = [0.81, 0.64, 0.92, 0.55, 0.73, 0.88, 0.61, 0.79, 0.95, 0.70, 0.66, 0.84]
BASE = [0.52, 0.71, 0.48, 0.66, 0.59, 0.74, 0.45, 0.63, 0.57, 0.69, 0.50, 0.62, 0.58, 0.41]
R_WELCH_UNEQUAL = (3.81459478634376, 20.7352756195023, 0.00102973836925884, 0.0793041337648163,
                   0.269743485282803)  # fmt: skip
R_WELCH_UNEQUAL_90 = (0.095750708082155, 0.253296910965464)


# --- Newcombe's hybrid score interval ---------------------------------------------------------


@pytest.mark.parametrize(("x1", "n1", "x2", "n2", "lower", "upper"), NEWCOMBE_TABLE_II)
def test_newcombe_interval_matches_newcombe_1998_table_ii_method_10(x1, n1, x2, n2, lower, upper):
    ci = newcombe_independent_interval(x1, n1, x2, n2)
    assert (round(ci.lower, 4), round(ci.upper, 4)) == (lower, upper)
    assert ci.method == "newcombe" and ci.confidence == 0.95


def test_newcombe_interval_matches_fagerland_2015_worked_example():
    """Fagerland, Lydersen and Laake (2015): 7/34 vs 1/34, Newcombe hybrid score 0.019 to 0.34."""
    ci = newcombe_independent_interval(7, 34, 1, 34)
    assert (round(ci.lower, 3), round(ci.upper, 2)) == (0.019, 0.34)


@pytest.mark.parametrize(("x1", "n1", "x2", "n2", "conf", "lower", "upper"), STATSMODELS_NEWCOMBE)
def test_newcombe_interval_matches_statsmodels_newcomb(x1, n1, x2, n2, conf, lower, upper):
    ci = newcombe_independent_interval(x1, n1, x2, n2, conf)
    assert ci.lower == pytest.approx(lower, abs=1e-12)
    assert ci.upper == pytest.approx(upper, abs=1e-12)


def test_newcombe_interval_is_the_negated_mirror_when_the_arms_swap():
    ci = newcombe_independent_interval(56, 70, 48, 80)
    swapped = newcombe_independent_interval(48, 80, 56, 70)
    assert swapped.lower == pytest.approx(-ci.upper) and swapped.upper == pytest.approx(-ci.lower)


# --- the pooled two-proportion z and Fisher's exact test ----------------------------------------


@pytest.mark.parametrize(("x1", "n1", "x2", "n2", "chi2", "p"), R_PROP_TEST)
def test_pooled_z_squared_matches_r_prop_test_without_correction(x1, n1, x2, n2, chi2, p):
    z = two_proportion_z(x1, n1, x2, n2)
    assert z.statistic**2 == pytest.approx(chi2, rel=1e-12)
    assert z.p == pytest.approx(p, rel=1e-10)
    assert math.copysign(1.0, z.statistic) == math.copysign(1.0, x1 / n1 - x2 / n2)


@pytest.mark.parametrize(("x1", "n1", "x2", "n2", "z", "p"), STATSMODELS_Z)
def test_pooled_z_matches_statsmodels_proportions_ztest(x1, n1, x2, n2, z, p):
    test = two_proportion_z(x1, n1, x2, n2)
    assert test.statistic == pytest.approx(z, rel=1e-12) and test.p == pytest.approx(p, rel=1e-10)


def test_pooled_z_is_undefined_when_every_item_in_both_arms_passed():
    test = two_proportion_z(40, 40, 50, 50)
    assert math.isnan(test.statistic) and math.isnan(test.p)


@pytest.mark.parametrize(("x1", "n1", "x2", "n2", "p"), R_FISHER)
def test_fisher_exact_matches_r_fisher_test(x1, n1, x2, n2, p):
    assert fisher_exact_p(x1, n1, x2, n2) == pytest.approx(p, rel=1e-9)


@pytest.mark.parametrize(("x1", "n1", "x2", "n2", "_"), R_FISHER)
def test_fisher_exact_matches_scipy_fisher_exact_live(x1, n1, x2, n2, _):
    from scipy.stats import fisher_exact

    expected = fisher_exact([[x1, n1 - x1], [x2, n2 - x2]]).pvalue
    assert fisher_exact_p(x1, n1, x2, n2) == pytest.approx(expected, rel=1e-9)


def test_fisher_exact_is_one_on_a_table_with_an_empty_margin():
    assert fisher_exact_p(0, 40, 0, 50) == 1.0
    assert fisher_exact_p(40, 40, 50, 50) == 1.0


def test_fisher_exact_handles_a_million_items_per_arm():
    p = fisher_exact_p(900_500, 1_000_000, 900_000, 1_000_000)
    from scipy.stats import fisher_exact

    expected = fisher_exact([[900_500, 99_500], [900_000, 100_000]]).pvalue
    assert p == pytest.approx(expected, rel=1e-6)


# --- Welch's t ----------------------------------------------------------------------------------


def test_welch_matches_r_t_test_on_students_sleep_data():
    """Student (1908) sleep data as R documents `t.test(extra ~ group, data = sleep)`:
    t = -1.8608, df = 17.776, p-value = 0.07939 for group 1 - group 2."""
    test, ci = welch_t(np.array(SLEEP_2), np.array(SLEEP_1))
    t, df, p, lower, upper = R_WELCH_SLEEP
    assert (round(-test.statistic, 4), round(test.df, 3), round(test.p, 5)) == (
        -1.8608,
        17.776,
        0.07939,
    )
    assert test.statistic == pytest.approx(t, rel=1e-12)
    assert test.df == pytest.approx(df, rel=1e-12)
    assert test.p == pytest.approx(p, rel=1e-10)
    assert (ci.lower, ci.upper) == pytest.approx((lower, upper), rel=1e-10)


def test_welch_matches_r_t_test_with_unequal_sizes_and_variances():
    test, ci = welch_t(np.array(CAND), np.array(BASE))
    t, df, p, lower, upper = R_WELCH_UNEQUAL
    assert (test.statistic, test.df, test.p) == pytest.approx((t, df, p), rel=1e-10)
    assert (ci.lower, ci.upper) == pytest.approx((lower, upper), rel=1e-10)
    _, ci90 = welch_t(np.array(CAND), np.array(BASE), confidence=0.9)
    assert (ci90.lower, ci90.upper) == pytest.approx(R_WELCH_UNEQUAL_90, rel=1e-10)


def test_welch_matches_scipy_ttest_ind_unequal_variances_live():
    from scipy.stats import ttest_ind

    rng = np.random.default_rng(17)
    cand, base = rng.normal(0.62, 0.2, 300), rng.normal(0.6, 0.3, 450)
    expected = ttest_ind(cand, base, equal_var=False)
    test, ci = welch_t(cand, base)
    assert test.statistic == pytest.approx(expected.statistic, rel=1e-10)
    assert test.df == pytest.approx(expected.df, rel=1e-10)
    assert test.p == pytest.approx(expected.pvalue, rel=1e-9)
    low, high = expected.confidence_interval(0.95)
    assert (ci.lower, ci.upper) == pytest.approx((low, high), rel=1e-9)


# --- the comparisons and their verdicts ---------------------------------------------------------


def test_proportions_lead_with_the_z_test_and_report_fisher_beside_it():
    c = compare_proportions(56, 70, 48, 80)
    assert c.kind == "binary" and c.delta == pytest.approx(0.2)
    assert (c.test.name, c.other_test.name) == ("z_pooled", "fisher_exact")
    assert c.z_test.p == pytest.approx(0.00804508136819656, rel=1e-10)
    assert c.fisher.p == pytest.approx(0.0125211297492092, rel=1e-9)
    assert c.verdict == "improved" and c.flags == () and not c.small_arm
    assert (c.candidate.passes, c.candidate.n, c.baseline.passes, c.baseline.n) == (56, 70, 48, 80)
    assert c.candidate.ci.method == "wilson" and c.ci.method == "newcombe"


def test_an_expected_count_below_five_makes_fisher_the_test():
    # 40 vs 40 items: big enough arms, but 3 failures in all -> expected failures 1.5 per arm.
    c = compare_proportions(40, 40, 37, 40)
    assert c.min_expected == pytest.approx(1.5)
    assert c.small_arm and c.test.name == "fisher_exact" and c.other_test.name == "z_pooled"
    assert "fisher_leads" in c.flags and "small_n" not in c.flags
    assert c.verdict == "no_significant_difference"  # Fisher p = 0.24; z alone would say 0.077


def test_an_arm_under_thirty_items_gets_fisher_and_no_verdict():
    c = compare_proportions(9, 10, 3, 10)
    assert c.test.name == "fisher_exact" and {"small_n", "fisher_leads"} <= set(c.flags)
    assert c.verdict == "insufficient_data"
    assert c.test.p == pytest.approx(0.0197666110978804, rel=1e-9)  # still reported


def test_two_arms_that_all_passed_have_nothing_to_weigh():
    c = compare_proportions(40, 40, 60, 60)
    assert "no_variation" in c.flags and c.verdict == "insufficient_data"
    assert "ci_test_disagree" not in c.flags


def test_a_drop_in_pass_rate_is_a_regression():
    c = compare_proportions(100, 1200, 120, 1000)
    assert c.delta < 0 and c.verdict == "regressed"


def test_an_interval_and_a_test_on_opposite_sides_of_alpha_are_flagged():
    # 28/30 vs 38/50: the pooled z gives p = 0.048, while Newcombe's interval just reaches
    # below zero (-0.0024): the test decides, and the flag says the result sits on the line.
    c = compare_proportions(28, 30, 38, 50)
    assert c.test.name == "z_pooled" and c.test.p == pytest.approx(0.0482322, abs=1e-7)
    assert c.ci.lower == pytest.approx(-0.0024399, abs=1e-7) and c.ci.upper > 0
    assert "ci_test_disagree" in c.flags and c.verdict == "improved"
    # At another level the interval and the test answer different questions: no flag.
    assert "ci_test_disagree" not in compare_proportions(28, 30, 38, 50, confidence=0.9).flags


def test_scores_are_compared_with_welch_and_a_loss_reverses_the_direction():
    rng = np.random.default_rng(3)
    base, cand = rng.normal(0.5, 0.1, 200), rng.normal(0.56, 0.1, 150)
    gain = compare_scores(cand, base)
    assert gain.kind == "graded" and gain.test.name == "welch_t" and gain.other_test is None
    assert gain.verdict == "improved" and gain.ci.method == "welch"
    assert gain.candidate.sd == pytest.approx(float(np.std(cand, ddof=1)))
    loss = compare_scores(cand, base, lower_is_better=True)
    assert loss.verdict == "regressed" and loss.lower_is_better


def test_constant_scores_in_both_arms_give_no_verdict():
    c = compare_scores(np.ones(40), np.zeros(40))
    assert "zero_variance" in c.flags and c.verdict == "insufficient_data"
    assert math.isnan(c.test.p)


def test_every_flag_has_words():
    assert set(FLAG_TEXT) == {
        "small_n", "fisher_leads", "no_variation", "zero_variance", "permutation_leads",
        "ci_test_disagree", "direction_unknown",
    }  # fmt: skip


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ((5, 0, 1, 10), "candidate arm is empty"),
        ((11, 10, 1, 10), "at most n = 10"),
        ((1.0, 10, 1, 10), "integer count"),
        ((True, 10, 1, 10), "integer count"),
        ((-1, 10, 1, 10), "non-negative"),
    ],
)
def test_bad_counts_are_refused_with_the_value(args, message):
    with pytest.raises(ValueError, match=message):
        compare_proportions(*args)


def test_bad_confidence_and_alpha_are_refused():
    with pytest.raises(ValueError, match="confidence"):
        compare_proportions(5, 10, 1, 10, confidence=1.0)
    with pytest.raises(ValueError, match="alpha"):
        compare_scores(np.ones(3), np.ones(3), alpha=0)
    with pytest.raises(ValueError, match="empty"):
        compare_scores(np.array([]), np.ones(3))
