"""Paired binary statistics: properties over random tables, flags, verdicts and refusals.

The product module may import only scipy.special; these tests use scipy.stats and
scipy.optimize freely, so every cross-check here is computed by a different route from the one
in evaltui.core.stats.binary.
"""

from __future__ import annotations

import math
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from scipy import optimize, stats

from evaltui.core.stats.binary import (
    FLAG_TEXT,
    VERDICTS,
    BinaryComparison,
    compare_binary,
    unpaired_contrast,
)
from evaltui.core.stats.interval import wilson_interval
from evaltui.core.stats.paired_delta import CI_METHODS, paired_delta_interval
from evaltui.core.stats.paired_table import PairedTable, mcnemar
from tests.conftest import examples

COUNT = st.integers(min_value=0, max_value=200)
CONFIDENCE = st.sampled_from([0.5, 0.8, 0.9, 0.95, 0.99, 0.999])


@st.composite
def tables(draw: st.DrawFn) -> PairedTable:
    table = PairedTable(draw(COUNT), draw(COUNT), draw(COUNT), draw(COUNT))
    assume(table.n > 0)
    return table


def _z(confidence: float) -> float:
    return float(stats.norm.ppf(1 - (1 - confidence) / 2))


# ============================================================================================
# McNemar against scipy.stats
# ============================================================================================


@settings(max_examples=examples(300), deadline=None)
@given(tables())
def test_exact_p_equals_scipy_binomtest(table):
    b, c = table.regressions, table.improvements
    result = mcnemar(table)
    if b + c == 0:
        assert result.exact_p is None
        return
    expected = stats.binomtest(c, b + c, 0.5).pvalue
    assert result.exact_p == pytest.approx(expected, rel=1e-9, abs=1e-300)
    assert result.exact_p == pytest.approx(stats.binomtest(b, b + c, 0.5).pvalue, rel=1e-9)


@settings(max_examples=examples(300), deadline=None)
@given(tables())
def test_mid_p_is_half_weight_on_the_observed_outcome(table):
    b, c = table.regressions, table.improvements
    assume(b + c > 0)
    m, k = b + c, min(b, c)
    pmf = stats.binom.pmf(k, m, 0.5)
    # When b == c the only outcome as extreme as X = k is X = k itself.
    expected = 1 - 0.5 * pmf if b == c else 2 * (stats.binom.cdf(k, m, 0.5) - 0.5 * pmf)
    result = mcnemar(table)
    assert result.mid_p == pytest.approx(expected, rel=1e-9, abs=1e-300)
    assert result.mid_p <= result.exact_p


@settings(max_examples=examples(300), deadline=None)
@given(tables())
def test_chi_square_p_values_equal_scipy_chi2_sf(table):
    b, c = table.regressions, table.improvements
    assume(b + c > 0)
    result = mcnemar(table)
    assert result.chi2 == pytest.approx((b - c) ** 2 / (b + c), rel=1e-12)
    # R's mcnemar.test(correct = TRUE): (|b - c| - 1)^2 / (b + c), no floor, and no
    # correction at all when b == c.
    corrected = 0.0 if b == c else (abs(b - c) - 1) ** 2 / (b + c)
    assert result.chi2_cc == pytest.approx(corrected, rel=1e-12, abs=0)
    assert result.chi2_p == pytest.approx(stats.chi2.sf(result.chi2, 1), rel=1e-9, abs=1e-300)
    assert result.chi2_cc_p == pytest.approx(stats.chi2.sf(result.chi2_cc, 1), rel=1e-9)


@settings(max_examples=examples(200), deadline=None)
@given(tables())
def test_mcnemar_is_undefined_exactly_when_there_are_no_disagreements(table):
    result = mcnemar(table)
    values = (result.exact_p, result.mid_p, result.chi2, result.chi2_p, result.chi2_cc)
    if table.discordant == 0:
        assert all(value is None for value in values) and result.chi2_cc_p is None
        assert not result.defined
    else:
        assert all(value is not None for value in values)
        assert 0.0 <= result.exact_p <= 1.0


def test_mcnemar_with_a_million_items_is_finite_and_matches_scipy():
    # The design notes: big-integer exact McNemar takes hours at 1M items; the incomplete beta
    # takes microseconds and must still be right.
    table = PairedTable(0, 499_000, 501_000, 0)
    expected = stats.binomtest(499_000, 1_000_000, 0.5).pvalue
    assert mcnemar(table).exact_p == pytest.approx(expected, rel=1e-8)


# ============================================================================================
# Wilson and Newcombe against scipy's Wilson
# ============================================================================================


@settings(max_examples=examples(300), deadline=None)
@given(st.integers(1, 800).flatmap(lambda n: st.tuples(st.integers(0, n), st.just(n))), CONFIDENCE)
def test_wilson_equals_scipy_binomtest_wilson(counts, confidence):
    k, n = counts
    ours = wilson_interval(k, n, confidence)
    ref = stats.binomtest(k, n).proportion_ci(confidence_level=confidence, method="wilson")
    assert ours.lower == pytest.approx(ref.low, abs=1e-12)
    assert ours.upper == pytest.approx(ref.high, abs=1e-12)
    assert ours.method == "wilson" and ours.confidence == confidence


def _newcombe_by_hand(table: PairedTable, confidence: float) -> tuple[float, float]:
    """Newcombe 1998 method 10 rebuilt from scipy's Wilson intervals (cells e, f, g, h)."""
    e, f, g, h = table.both_pass, table.improvements, table.regressions, table.both_fail
    n = table.n
    p1, p2 = (e + f) / n, (e + g) / n
    w1 = stats.binomtest(e + f, n).proportion_ci(confidence_level=confidence, method="wilson")
    w2 = stats.binomtest(e + g, n).proportion_ci(confidence_level=confidence, method="wilson")
    margins = (e + f) * (g + h) * (e + g) * (f + h)
    cross = e * h - f * g
    if margins == 0:
        phi = 0.0
    elif cross > n / 2:
        phi = (cross - n / 2) / math.sqrt(margins)
    elif cross >= 0:
        phi = 0.0
    else:
        phi = cross / math.sqrt(margins)
    dl2 = (p1 - w1.low) ** 2 - 2 * phi * (p1 - w1.low) * (w2.high - p2) + (w2.high - p2) ** 2
    du2 = (w1.high - p1) ** 2 - 2 * phi * (w1.high - p1) * (p2 - w2.low) + (p2 - w2.low) ** 2
    theta = (f - g) / n
    return max(-1.0, theta - math.sqrt(max(dl2, 0))), min(1.0, theta + math.sqrt(max(du2, 0)))


@settings(max_examples=examples(300), deadline=None)
@given(tables(), CONFIDENCE)
def test_newcombe_equals_independent_recomputation_from_scipy_wilson(table, confidence):
    ours = paired_delta_interval(table, "newcombe", confidence)
    lower, upper = _newcombe_by_hand(table, confidence)
    assert ours.lower == pytest.approx(lower, abs=1e-10)
    assert ours.upper == pytest.approx(upper, abs=1e-10)


# ============================================================================================
# Tango: the bounds solve the score equation
# ============================================================================================


def _tango_statistic(delta0: float, x12: int, x21: int, n: int) -> float:
    """Tango (1998) score statistic, textbook form.

    At the point estimate the numerator is 0; where the variance vanishes there too (b = c = 0,
    or every item discordant one way) the statistic tends to 0, so 0 is returned.
    """
    numerator = x12 - x21 - n * delta0
    if numerator == 0:
        return 0.0
    a = 2 * n
    b = -x12 - x21 + (2 * n - x12 + x21) * delta0
    c = -x21 * delta0 * (1 - delta0)
    p21 = (math.sqrt(max(b * b - 4 * a * c, 0.0)) - b) / (2 * a)
    variance = n * (2 * p21 + delta0 * (1 - delta0))
    if variance <= 0:
        return math.copysign(math.inf, numerator)
    return numerator / math.sqrt(variance)


@settings(max_examples=examples(300), deadline=None)
@given(tables(), CONFIDENCE)
def test_tango_bounds_satisfy_the_score_equation(table, confidence):
    z = _z(confidence)
    n, x12, x21 = table.n, table.improvements, table.regressions
    ours = paired_delta_interval(table, "tango", confidence)
    estimate = table.delta
    eps = 1e-12
    if x21 != n:  # the lower limit is a root of Z = +z on (-1, estimate)
        root = optimize.brentq(
            lambda d: _tango_statistic(d, x12, x21, n) - z, -1 + eps, estimate, xtol=1e-14
        )
        assert ours.lower == pytest.approx(root, abs=1e-9)
        assert _tango_statistic(ours.lower, x12, x21, n) == pytest.approx(z, abs=1e-6)
    else:
        assert ours.lower == -1.0
    if x12 != n:  # the upper limit is a root of Z = -z on (estimate, 1)
        root = optimize.brentq(
            lambda d: _tango_statistic(d, x12, x21, n) + z, estimate, 1 - eps, xtol=1e-14
        )
        assert ours.upper == pytest.approx(root, abs=1e-9)
        assert _tango_statistic(ours.upper, x12, x21, n) == pytest.approx(-z, abs=1e-6)
    else:
        assert ours.upper == 1.0


# ============================================================================================
# Every interval method
# ============================================================================================


@settings(max_examples=examples(200), deadline=None)
@given(tables(), CONFIDENCE, st.sampled_from(CI_METHODS))
def test_every_interval_is_ordered_and_inside_minus_one_to_one(table, confidence, method):
    interval = paired_delta_interval(table, method, confidence)
    assert -1.0 <= interval.lower <= interval.upper <= 1.0
    assert interval.method == method and interval.confidence == confidence


@settings(max_examples=examples(200), deadline=None)
@given(tables(), CONFIDENCE, st.sampled_from(["newcombe", "tango", "wald", "wald-cc"]))
def test_intervals_centred_on_delta_contain_the_point_estimate(table, confidence, method):
    # Newcombe and Tango are built around delta itself, the two Walds are symmetric about it.
    # Agresti-Min and Bonett-Price are centred on a shrunken estimate and need not contain
    # delta (e.g. 50% Agresti-Min on 0/0/200/0 stops below 1), so they are checked below.
    interval = paired_delta_interval(table, method, confidence)
    assert interval.lower - 1e-12 <= table.delta <= interval.upper + 1e-12


@settings(max_examples=examples(200), deadline=None)
@given(tables(), CONFIDENCE)
def test_adjusted_wald_intervals_are_centred_on_their_shrunken_estimates(table, confidence):
    n, b, c = table.n, table.regressions, table.improvements
    z = _z(confidence)
    # Agresti & Min 2005: add 0.5 to every cell (Agresti's diffpropci R function).
    centre = (c - b) / (n + 2)
    half = z * math.sqrt(b + c + 1 - (c - b) ** 2 / (n + 2)) / (n + 2)
    am = paired_delta_interval(table, "agresti-min", confidence)
    assert am.lower == pytest.approx(max(-1, centre - half), abs=1e-12)
    assert am.upper == pytest.approx(min(1, centre + half), abs=1e-12)
    # Bonett & Price 2012: add 1 to each discordant cell and 2 to n.
    p12, p21 = (c + 1) / (n + 2), (b + 1) / (n + 2)
    half = z * math.sqrt((p12 + p21 - (p12 - p21) ** 2) / (n + 2))
    bp = paired_delta_interval(table, "bonett-price", confidence)
    assert bp.lower == pytest.approx(max(-1, p12 - p21 - half), abs=1e-12)
    assert bp.upper == pytest.approx(min(1, p12 - p21 + half), abs=1e-12)


def test_agresti_min_need_not_contain_delta():
    table = PairedTable(0, 0, 200, 0)  # delta = 1
    assert paired_delta_interval(table, "agresti-min", 0.5).upper < table.delta


@settings(max_examples=examples(200), deadline=None)
@given(tables())
def test_wald_family_matches_the_formulas(table):
    n, b, c = table.n, table.regressions, table.improvements
    z = _z(0.95)
    se = math.sqrt(b + c - (c - b) ** 2 / n) / n
    wald = paired_delta_interval(table, "wald")
    assert wald.lower == pytest.approx(max(-1, table.delta - z * se), abs=1e-12)
    assert wald.upper == pytest.approx(min(1, table.delta + z * se), abs=1e-12)
    # Fagerland, Lydersen & Laake 2014: the correction sits inside the variance.
    se_cc = math.sqrt(max(b + c - (abs(c - b) - 1) ** 2 / n, 0)) / n
    wald_cc = paired_delta_interval(table, "wald-cc")
    assert wald_cc.lower == pytest.approx(max(-1, table.delta - z * se_cc), abs=1e-12)
    assert wald_cc.upper == pytest.approx(min(1, table.delta + z * se_cc), abs=1e-12)


@settings(max_examples=examples(200), deadline=None)
@given(
    tables(),
    st.sampled_from(CI_METHODS),
    st.sampled_from([(0.5, 0.8), (0.8, 0.9), (0.9, 0.95), (0.95, 0.99)]),
)
def test_intervals_widen_with_confidence(table, method, levels):
    narrow = paired_delta_interval(table, method, levels[0])
    wide = paired_delta_interval(table, method, levels[1])
    assert wide.lower <= narrow.lower + 1e-12
    assert wide.upper >= narrow.upper - 1e-12


@settings(max_examples=examples(200), deadline=None)
@given(tables(), CONFIDENCE, st.sampled_from(CI_METHODS))
def test_swapping_baseline_and_candidate_mirrors_every_interval(table, confidence, method):
    forward = paired_delta_interval(table, method, confidence)
    backward = paired_delta_interval(table.swapped(), method, confidence)
    assert backward.lower == pytest.approx(-forward.upper, abs=1e-9)
    assert backward.upper == pytest.approx(-forward.lower, abs=1e-9)


@settings(max_examples=examples(200), deadline=None)
@given(tables())
def test_swapping_baseline_and_candidate_leaves_p_values_unchanged(table):
    forward, backward = mcnemar(table), mcnemar(table.swapped())
    for name in ("exact_p", "mid_p", "chi2", "chi2_p", "chi2_cc", "chi2_cc_p"):
        assert getattr(backward, name) == getattr(forward, name)
    assert (backward.regressions, backward.improvements) == (
        forward.improvements,
        forward.regressions,
    )


@settings(max_examples=examples(200), deadline=None)
@given(tables())
def test_swapping_mirrors_the_comparison_verdict_and_keeps_the_flags(table):
    forward, backward = compare_binary(table), compare_binary(table.swapped())
    mirror = {"improved": "regressed", "regressed": "improved"}
    assert backward.verdict == mirror.get(forward.verdict, forward.verdict)
    assert backward.flags == forward.flags
    assert backward.unpaired.se == pytest.approx(forward.unpaired.se, rel=1e-12)


@settings(max_examples=examples(200), deadline=None)
@given(tables(), CONFIDENCE)
def test_unpaired_contrast_is_the_independent_two_proportion_wald(table, confidence):
    n = table.n
    pa, pb = table.baseline_passes / n, table.candidate_passes / n
    se = math.sqrt(pa * (1 - pa) / n + pb * (1 - pb) / n)
    contrast = unpaired_contrast(table, confidence)
    assert contrast.se == pytest.approx(se, rel=1e-12, abs=1e-15)
    assert contrast.ci.lower == pytest.approx(max(-1, table.delta - _z(confidence) * se), abs=1e-12)
    assert contrast.ci.method == "unpaired-wald"


@settings(max_examples=examples(200), deadline=None)
@given(st.lists(st.tuples(st.booleans(), st.booleans()), max_size=300))
def test_from_verdicts_counts_each_cell(pairs):
    base = np.array([p[0] for p in pairs], dtype=bool)
    cand = np.array([p[1] for p in pairs], dtype=bool)
    table = PairedTable.from_verdicts(base, cand)
    assert table.n == len(pairs)
    assert table.both_pass == sum(1 for x, y in pairs if x and y)
    assert table.regressions == sum(1 for x, y in pairs if x and not y)
    assert table.improvements == sum(1 for x, y in pairs if y and not x)
    assert table.baseline_passes == int(base.sum()) and table.candidate_passes == int(cand.sum())


@settings(max_examples=examples(200), deadline=None)
@given(tables(), st.sampled_from(CI_METHODS))
def test_compare_binary_echoes_inputs_and_uses_known_flags_in_order(table, method):
    result = compare_binary(table, method)
    assert result.table == table and result.ci_method == method
    assert result.delta == table.delta and result.delta_ci.method == method
    assert result.verdict in VERDICTS
    order = list(FLAG_TEXT)
    assert list(result.flags) == sorted(result.flags, key=order.index)
    assert len(set(result.flags)) == len(result.flags)


# ============================================================================================
# Flags and verdicts, one by one
# ============================================================================================


def test_no_disagreements_flags_no_discordant_and_gives_no_verdict():
    result = compare_binary(PairedTable(60, 0, 0, 40))
    assert result.flags == ("no_discordant",)
    assert result.verdict == "insufficient_data"
    assert result.mcnemar.exact_p is None and result.mcnemar.chi2_cc_p is None
    assert FLAG_TEXT["no_discordant"] == "no disagreements, nothing to weigh"


def test_fewer_than_25_disagreements_flags_few_discordant():
    assert "few_discordant" in compare_binary(PairedTable(50, 12, 12, 26)).flags
    assert "few_discordant" not in compare_binary(PairedTable(50, 12, 13, 25)).flags


def test_all_disagreements_one_way_flags_nested():
    assert "nested" in compare_binary(PairedTable(80, 0, 3, 17)).flags
    assert "nested" in compare_binary(PairedTable(80, 3, 0, 17)).flags
    assert "nested" not in compare_binary(PairedTable(80, 1, 3, 16)).flags
    assert "nested" not in compare_binary(PairedTable(80, 0, 0, 20)).flags


def test_fewer_than_30_items_flags_small_n_and_gives_no_verdict_even_if_ci_excludes_zero():
    result = compare_binary(PairedTable(0, 0, 29, 0))
    assert "small_n" in result.flags
    assert result.delta_ci.lower > 0
    assert result.verdict == "insufficient_data"
    assert "small_n" not in compare_binary(PairedTable(0, 0, 30, 0)).flags


def test_interval_and_exact_test_disagreeing_flags_ci_test_disagree():
    # 1 regression, 7 improvements in 100: the Newcombe interval excludes 0 (about +0.002 to
    # +0.128) while the exact p is 0.0703. The verdict follows the interval (the headline).
    result = compare_binary(PairedTable(92, 1, 7, 0))
    assert result.delta_ci.lower > 0 and result.mcnemar.exact_p >= 0.05
    assert result.flags == ("few_discordant", "ci_test_disagree")
    assert result.verdict == "improved"


def test_flags_come_in_the_documented_order():
    result = compare_binary(PairedTable(10, 0, 5, 5))
    assert result.flags[:3] == ("few_discordant", "nested", "small_n")


def test_clear_gain_is_improved():
    assert compare_binary(PairedTable(141, 9, 21, 29)).verdict == "improved"


def test_clear_loss_is_regressed():
    assert compare_binary(PairedTable(141, 21, 9, 29)).verdict == "regressed"


def test_interval_straddling_zero_is_no_significant_difference():
    assert compare_binary(PairedTable(407, 40, 53, 0)).verdict == "no_significant_difference"


def test_binary_comparison_repr_is_one_readable_line():
    text = repr(compare_binary(PairedTable(141, 9, 21, 29)))
    assert isinstance(compare_binary(PairedTable(141, 9, 21, 29)), BinaryComparison)
    assert "\n" not in text
    assert "regressions=9" in text and "improvements=21" in text and "'improved'" in text


def test_every_flag_has_plain_words():
    assert list(FLAG_TEXT) == [
        "no_discordant",
        "few_discordant",
        "nested",
        "small_n",
        "ci_test_disagree",
    ]
    assert all(isinstance(text, str) and text for text in FLAG_TEXT.values())


# ============================================================================================
# Refusals
# ============================================================================================


def test_unknown_interval_method_is_refused_by_name():
    with pytest.raises(ValueError, match="clopper"):
        paired_delta_interval(PairedTable(1, 2, 3, 4), "clopper")
    with pytest.raises(ValueError, match="clopper"):
        compare_binary(PairedTable(1, 2, 3, 4), ci_method="clopper")


@pytest.mark.parametrize("confidence", [1.5, 0.0, 1.0, -0.2, math.nan])
def test_confidence_outside_zero_one_is_refused_by_value(confidence):
    with pytest.raises(ValueError, match=str(confidence)):
        paired_delta_interval(PairedTable(1, 2, 3, 4), confidence=confidence)
    with pytest.raises(ValueError, match="confidence"):
        wilson_interval(3, 10, confidence)
    with pytest.raises(ValueError, match="confidence"):
        compare_binary(PairedTable(1, 2, 3, 4), confidence=confidence)


def test_alpha_outside_zero_one_is_refused():
    with pytest.raises(ValueError, match="alpha"):
        compare_binary(PairedTable(1, 2, 3, 4), alpha=1.5)


def test_negative_count_is_refused_by_value():
    with pytest.raises(ValueError, match="-1"):
        PairedTable(5, -1, 3, 2)


@pytest.mark.parametrize("bad", [2.5, "3", True, None])
def test_non_integer_count_is_refused_by_value(bad):
    with pytest.raises(ValueError, match="improvements"):
        PairedTable(5, 1, bad, 2)


def test_numpy_integer_counts_are_accepted_as_plain_ints():
    table = PairedTable(np.int64(5), np.int32(1), np.uint8(3), 2)
    assert table == PairedTable(5, 1, 3, 2) and type(table.both_pass) is int


def test_empty_table_is_refused_for_intervals_and_comparison():
    empty = PairedTable(0, 0, 0, 0)
    assert math.isnan(empty.delta)
    with pytest.raises(ValueError, match="n = 0"):
        paired_delta_interval(empty)
    with pytest.raises(ValueError, match="n = 0"):
        compare_binary(empty)


def test_wilson_refuses_impossible_counts():
    with pytest.raises(ValueError, match="11"):
        wilson_interval(11, 10)
    with pytest.raises(ValueError, match="n must be at least 1"):
        wilson_interval(0, 0)


def test_from_verdicts_refuses_non_boolean_and_unpaired_arrays():
    with pytest.raises(ValueError, match="boolean"):
        PairedTable.from_verdicts(np.array([1, 0, 1]), np.array([1, 1, 0]))
    with pytest.raises(ValueError, match="3 verdicts but candidate has 2"):
        PairedTable.from_verdicts(np.array([True, False, True]), np.array([True, True]))


# ============================================================================================
# Start-up cost and layering
# ============================================================================================


def test_binary_module_imports_neither_slow_scipy_modules_nor_the_ui():
    code = (
        "import sys, evaltui.core.stats.binary; "
        "bad = [m for m in ('scipy.stats', 'scipy.optimize', 'textual', 'rich') "
        "if m in sys.modules]; print(','.join(bad))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""
