"""Non-inferiority and equivalence margins: the statistics (evaltui/core/stats/margins.py).

References, computed once and pinned here (the scripts and their output are in
tests/data/reference/: margins_r.R -> margins_r.txt, margins_statsmodels.py ->
margins_statsmodels.txt):

- Tango's score test at a shifted null: R 4.2, ratesci (petelaud/ratesci at dbe2ab7, sourced
  from its R/ folder), ``scorepairci(x, contrast = "RD", skew = FALSE, bcf = FALSE, cc = 0,
  theta0 = -m or +m, level = 0.90)``: ``scorenull`` is Z, ``pval_right`` the p of the null
  "RD <= theta0" and ``pval_left`` that of "RD >= theta0".
- the paired TOST: R 4.2 ``t.test(d, mu = -m, alternative = "greater")`` and
  ``t.test(d, mu = m, alternative = "less")``; statsmodels 0.15
  ``statsmodels.stats.weightstats.ttost_paired(d, 0, -m, m)`` gives the same to 12 digits.
- Tango's own worked example: Tango T. (1998), "Equivalence test and confidence interval for the
  difference in proportions for the paired-sample design", Stat Med 17:891-908: 44 pairs with a
  single discordant one (x = (43, 0, 1, 0)), 90% score interval -0.096 to 0.037, the level an
  equivalence test at alpha = 0.05 reads (as pinned in ratesci's tests/testthat/test3.R and in
  tests/core/stats/test_binary_published.py).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from evaltui.core.stats.margins import (
    MarginTest,
    binary_margin,
    cluster_t_one_sided,
    decide_margin,
    paired_t_one_sided,
    tango_one_sided,
)
from evaltui.core.stats.paired_delta import paired_delta_interval
from evaltui.core.stats.paired_table import PairedTable


def _from_paper(n11: int, n12: int, n21: int, n22: int) -> PairedTable:
    """A paper's (n11, n12, n21, n22), delta = (n12 - n21)/n, in our orientation (n12 is the
    candidate-only cell: improvements)."""
    return PairedTable(both_pass=n11, regressions=n21, improvements=n12, both_fail=n22)


TANGO_EXAMPLE = _from_paper(43, 0, 1, 0)
CAVO = _from_paper(59, 6, 16, 80)
EVAL_1000 = _from_paper(700, 30, 40, 230)
NO_CHANGE = _from_paper(500, 0, 0, 500)

# (table, margin): (Z at -m, p of "delta <= -m", Z at +m, p of "delta >= +m"), from
# tests/data/reference/margins_r.txt (R 4.2, ratesci scorepairci, Tango's statistic).
TANGO_R = {
    ("tango", 0.01): (-0.744617650573, 0.771748552734, -1.20604537831, 0.113899996994),
    ("tango", 0.02): (-0.129219147676, 0.551407877212, -1.38505138783, 0.0830183773898),
    ("tango", 0.05): (0.830057356639, 0.203253177809, -1.83532587096, 0.0332287100085),
    ("tango", 0.10): (1.70856428594, 0.0437658444386, -2.44948974278, 0.00715293921771),
    ("cavo", 0.01): (-1.81205848769, 0.965011420125, -2.43725474953, 0.00739962463827),
    ("cavo", 0.02): (-1.47833229552, 0.930340571264, -2.72805350988, 0.00318546362086),
    ("cavo", 0.05): (-0.426057791474, 0.664967132297, -3.52485800259, 0.000211854925295),
    ("cavo", 0.10): (1.24891823247, 0.105847491126, -4.67718694813, 1.45418544764e-06),
    ("eval", 0.01): (0.0, 0.5, -2.34953118259, 0.00939853478992),
    ("eval", 0.02): (1.17712147254, 0.119573512894, -3.4230763436, 0.00030958342507),
    ("eval", 0.05): (4.26073336701, 1.01878600606e-05, -6.13163477886, 4.34903005554e-10),
    ("eval", 0.10): (8.10591988647, None, -9.58543940329, 4.60324594956e-22),
    ("none", 0.01): (3.17820863082, 0.00074094038736, -3.17820863082, 0.00074094038736),
    ("none", 0.02): (4.51753951453, 3.12811778369e-06, -4.51753951453, 3.12811778371e-06),
    ("none", 0.05): (7.2547625011, None, -7.2547625011, None),
}
# None: R's 1 - pnorm(Z) loses every digit there (it printed 2.2e-16 or 0); Z is still pinned.
TABLES = {"tango": TANGO_EXAMPLE, "cavo": CAVO, "eval": EVAL_1000, "none": NO_CHANGE}


@pytest.mark.parametrize(("key", "expected"), list(TANGO_R.items()), ids=str)
def test_tango_one_sided_score_tests_match_r_ratesci(key, expected):
    table = TABLES[key[0]]
    margin = key[1]
    z_low, p_below, z_high, p_above = expected
    z, p_greater, _ = tango_one_sided(table, -margin)
    assert z == pytest.approx(z_low, abs=1e-9)
    if p_below is not None:
        assert p_greater == pytest.approx(p_below, rel=1e-8, abs=1e-12)
    z, _, p_less = tango_one_sided(table, margin)
    assert z == pytest.approx(z_high, abs=1e-9)
    if p_above is not None:
        assert p_less == pytest.approx(p_above, rel=1e-8)


def test_tango_worked_example_is_non_inferior_at_ten_points_not_at_five():
    # Tango (1998): 44 pairs, one discordant; at alpha = 0.05 the 90% score interval is
    # -0.096 to 0.037 (his example, as pinned in ratesci's test3.R): it clears a 10-point
    # margin and not a 5-point one; his score test at delta0 = -0.10 agrees (p = 0.0438).
    at_ten = binary_margin(TANGO_EXAMPLE, "non_inferiority", 0.10, 0.05, "tango")
    assert (round(at_ten.interval[0], 3), round(at_ten.interval[1], 3)) == (-0.096, 0.037)
    assert at_ten.level == pytest.approx(0.90)
    assert at_ten.shown is True
    assert at_ten.p == pytest.approx(0.0437658444386, rel=1e-8)
    assert at_ten.flags == ()
    at_five = binary_margin(TANGO_EXAMPLE, "non_inferiority", 0.05, 0.05, "tango")
    assert at_five.shown is False and at_five.p == pytest.approx(0.203253177809, rel=1e-8)


def test_the_interval_is_the_analysis_method_at_one_minus_two_alpha():
    # Newcombe's hybrid score (method 10) at 90%: ratesci moverpairci(type = "wilson",
    # corc = TRUE, level = 0.90), tests/data/reference/margins_r.txt, 6 decimals.
    for table, expected in (
        (TANGO_EXAMPLE, (-0.095662, 0.037827)),
        (CAVO, (-0.109745, -0.013786)),
        (EVAL_1000, (-0.023904, 0.003875)),
        (NO_CHANGE, (-0.001643, 0.001643)),
    ):
        result = binary_margin(table, "equivalence", 0.05, 0.05, "newcombe")
        assert result.interval_method == "newcombe 90%"
        assert tuple(round(v, 6) for v in result.interval) == expected
        same = paired_delta_interval(table, "newcombe", 0.90)
        assert result.interval == (same.lower, same.upper)


def test_tango_interval_at_ninety_percent_matches_r_ratesci():
    # ratesci rounds its limits to 6 decimals.
    for table, expected in (
        (TANGO_EXAMPLE, (-0.095662, 0.036517)),
        (CAVO, (-0.113126, -0.015058)),
        (EVAL_1000, (-0.024121, 0.003829)),
        (NO_CHANGE, (-0.002698, 0.002698)),
    ):
        interval = paired_delta_interval(table, "tango", 0.90)
        assert (round(interval.lower, 6), round(interval.upper, 6)) == expected


def test_tango_test_and_tango_interval_agree_at_every_margin():
    # The Tango interval inverts the Tango test: non-inferiority by one is non-inferiority by
    # the other, so with ci_method = "tango" no result is flagged as on the line.
    for table in TABLES.values():
        for margin in (0.005, 0.01, 0.02, 0.03, 0.05, 0.1, 0.2):
            for kind in ("non_inferiority", "equivalence"):
                result = binary_margin(table, kind, margin, 0.05, "tango")
                assert result.shown == (result.p < 0.05), (table, margin, kind)
                assert result.flags == ()


def test_newcombe_and_tango_can_disagree_on_the_line_and_say_so():
    # Cavo: Newcombe's 90% lower limit is -0.10975, Tango's -0.11313; a margin of 11.1
    # points lies between them, so the interval clears it and Tango's test does not.
    result = binary_margin(CAVO, "non_inferiority", 0.111, 0.05, "newcombe")
    assert result.shown is True  # Newcombe's lower limit -0.1097 > -0.111
    assert result.p > 0.05  # Tango's test does not reject at delta0 = -0.111
    assert result.flags == ("interval_test_disagree",)


# --- graded: the paired t TOST ------------------------------------------------------------

DELTAS40 = np.array(
    [0.05, 0.4, -0.35, 0.0, 0.35, -0.4, -0.05, 0.65, -0.1, 0.25, -0.5, -0.15, 0.2, -0.55,
     0.15, 0.5, -0.25, 0.1, 0.45, -0.3, 0.05, -0.35, 0.0, 0.35, -0.4, -0.05, 0.3, -0.45, 0.25,
     0.6, -0.15, 0.2, -0.55, -0.2, 0.15, -0.25, 0.1, 0.45, -0.3, 0.05]
)  # fmt: skip
# margin: (t at -m, p greater, t at +m, p less, TOST p) from R t.test and statsmodels
# ttost_paired (tests/data/reference/margins_r.txt, margins_statsmodels.txt).
TOST_REFERENCE = {
    0.05: (1.0794687, 0.143504875463, -0.83958676667, 0.20312876161, 0.20312876161),
    0.10: (2.03899643334, 0.0241343943295, -1.79911450001, 0.039871073593, 0.039871073593),
    0.15: (2.99852416668, 0.00235249763657, -2.75864223335, 0.00439563191349, 0.00439563191349),
}


@pytest.mark.parametrize("margin", sorted(TOST_REFERENCE))
def test_paired_t_tost_matches_r_t_test_and_statsmodels_ttost_paired(margin):
    t_low, p_greater, t_high, p_less, tost = TOST_REFERENCE[margin]
    t, greater, _ = paired_t_one_sided(DELTAS40, -margin)
    assert t == pytest.approx(t_low, rel=1e-8) and greater == pytest.approx(p_greater, rel=1e-8)
    t, _, less = paired_t_one_sided(DELTAS40, margin)
    assert t == pytest.approx(t_high, rel=1e-8) and less == pytest.approx(p_less, rel=1e-8)
    # The 90% paired t interval (R: t.test(d, conf.level = 0.90)) decides like the TOST.
    interval = (-0.0815471039, 0.0940471039)
    result = decide_margin(
        "equivalence", margin, 0.05, float(DELTAS40.mean()), interval, "paired t 90%",
        "paired t", greater, less,
    )  # fmt: skip
    assert result.p == pytest.approx(tost, rel=1e-8)
    assert result.shown is (tost < 0.05)
    assert result.flags == ()


def test_paired_t_one_sided_matches_scipy_ttest_1samp_live():
    rng = np.random.default_rng(7)
    deltas = rng.normal(0.01, 0.2, size=57)
    for delta0 in (-0.05, 0.0, 0.03):
        t, greater, less = paired_t_one_sided(deltas, delta0)
        ref_g = stats.ttest_1samp(deltas, delta0, alternative="greater")
        ref_l = stats.ttest_1samp(deltas, delta0, alternative="less")
        assert t == pytest.approx(ref_g.statistic, rel=1e-12)
        assert greater == pytest.approx(ref_g.pvalue, rel=1e-10)
        assert less == pytest.approx(ref_l.pvalue, rel=1e-10)


def test_paired_t_with_all_deltas_equal_knows_the_mean_exactly():
    t, greater, less = paired_t_one_sided(np.full(40, -0.01), -0.02)
    assert t == math.inf and greater == 0.0 and less == 1.0
    t, greater, less = paired_t_one_sided(np.full(40, -0.03), -0.02)
    assert greater == 1.0 and less == 0.0


def test_cluster_t_one_sided_is_the_cr1_t_on_g_minus_one_df():
    mean, cr1, g = 0.02, 0.01, 15
    t, greater, less = cluster_t_one_sided(mean, cr1, g, -0.01)
    assert t == pytest.approx((mean + 0.01) / cr1)
    assert greater == pytest.approx(stats.t.sf(t, g - 1), rel=1e-10)
    assert less == pytest.approx(stats.t.cdf(t, g - 1), rel=1e-10)


# --- the decision rule --------------------------------------------------------------------


def _decide(kind, interval, margin=0.01, lower_is_better=False, **kw) -> MarginTest:
    return decide_margin(
        kind, margin, 0.05, sum(interval) / 2, interval, "x 90%", "t", None, None,
        lower_is_better=lower_is_better, **kw,
    )  # fmt: skip


def test_non_inferiority_reads_the_worse_limit_strictly():
    assert _decide("non_inferiority", (-0.006, 0.02)).shown is True
    assert _decide("non_inferiority", (-0.014, 0.02)).shown is False
    assert _decide("non_inferiority", (-0.01, 0.02)).shown is False  # on the margin: not shown
    # A loss (lower is better): a rise is worse, so the upper limit is read against +margin.
    assert _decide("non_inferiority", (-0.03, 0.006), lower_is_better=True).shown is True
    assert _decide("non_inferiority", (-0.03, 0.014), lower_is_better=True).shown is False
    assert _decide("non_inferiority", (-0.03, 0.006), lower_is_better=True).worse_limit == 0.006


def test_equivalence_needs_the_whole_interval_inside_the_band():
    assert _decide("equivalence", (-0.006, 0.009)).shown is True
    assert _decide("equivalence", (-0.006, 0.011)).shown is False
    assert _decide("equivalence", (-0.011, 0.002)).shown is False
    # Orientation does not move a symmetric band.
    assert _decide("equivalence", (-0.006, 0.009), lower_is_better=True).shown is True


def test_a_result_with_no_interval_or_no_data_is_undecided():
    assert _decide("non_inferiority", (math.nan, 0.01)).shown is None
    assert _decide("equivalence", (-0.001, math.nan)).undecided is not None
    result = _decide("non_inferiority", (-0.001, 0.002), undecided="only 12 paired items")
    assert result.shown is None and result.undecided == "only 12 paired items"


@pytest.mark.parametrize(
    ("kwargs", "fragment"),
    [
        ({"kind": "superiority"}, "unknown margin kind"),
        ({"margin": 0.0}, "margin must be a positive number"),
        ({"margin": -0.01}, "margin must be a positive number"),
        ({"margin": math.inf}, "margin must be a finite number"),
        ({"alpha": 0.5}, "alpha must be strictly between 0 and 0.5"),
    ],
)
def test_invalid_arguments_name_the_value(kwargs, fragment):
    args = {"kind": "non_inferiority", "margin": 0.01, "alpha": 0.05} | kwargs
    with pytest.raises(ValueError, match=fragment):
        decide_margin(
            args["kind"], args["margin"], args["alpha"], 0.0, (-0.1, 0.1), "x", "t", None, None
        )


def test_a_pass_rate_margin_must_be_below_one():
    with pytest.raises(ValueError, match="below 1"):
        binary_margin(CAVO, "non_inferiority", 1.0)
