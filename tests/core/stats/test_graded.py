"""Graded scores: paired bootstrap, reference tests and epoch summaries.

Golden values come from the reading list (000: the 400-item graded example), from exact
distributions (Binomial for two-valued deltas) and from scipy.stats, which tests may import
(product code may not: it costs ~2 s of start-up).
"""

from __future__ import annotations

import math
import tracemalloc

import numpy as np
import pytest
from scipy import stats

from evaltui.core.stats import graded as graded_module
from evaltui.core.stats.epochs import EpochSummary, epoch_summary
from evaltui.core.stats.graded import (
    GradedComparison,
    graded_regressions,
    jackknife_acceleration,
    paired_bootstrap,
)
from evaltui.core.stats.graded_reference import wilcoxon_signed_rank_p
from evaltui.core.stats.resample import resample_totals_by_counts, resample_totals_by_index

B = 10_000


def reading_list_scores() -> tuple[np.ndarray, np.ndarray]:
    """The reading list's "Illustrative graded scores in [0, 1] on the same 400 items".

    Same numpy calls in the same order as printed in 000_a6062f4c9922955f.txt (seed 7).
    """
    rng = np.random.default_rng(7)
    difficulty = rng.beta(2, 2, 400)
    scores_a = np.clip(rng.normal(0.70 - 0.20 * difficulty, 0.10), 0, 1)
    scores_b = np.clip(scores_a + rng.normal(0.02, 0.08, 400), 0, 1)
    return scores_a, scores_b


def quantile_mc_tolerance(deltas: np.ndarray, resamples: int, tail: float, k_sd: float) -> float:
    """Tolerance for comparing two independent bootstrap estimates of the same tail quantile.

    A quantile estimated from B resamples has standard error sqrt(p(1-p)/B) / f(q), with f the
    density of the bootstrap distribution at q. That distribution is close to normal with sd
    sigma_b = sd(deltas)/sqrt(n), so f(q) = phi(z_p) / sigma_b. Two independent estimates
    differ with sd sqrt(2) times that; we allow k_sd of those sds.
    """
    sigma_b = float(np.std(deltas, ddof=1)) / math.sqrt(deltas.size)
    z = stats.norm.ppf(tail)
    se_quantile = math.sqrt(tail * (1 - tail) / resamples) / stats.norm.pdf(z) * sigma_b
    return k_sd * math.sqrt(2.0) * se_quantile


# --- the reading list's bootstrap example ----------------------------------------------------


def test_reading_list_example_percentile_agrees_with_plain_index_bootstrap():
    scores_a, scores_b = reading_list_scores()
    deltas = scores_b - scores_a  # pair first
    ours = paired_bootstrap(deltas, resamples=B, seed=0, method="percentile")

    # The plain bootstrap: a resamples x n index matrix, fine at 400 items.
    rng = np.random.default_rng(1)
    idx = rng.integers(0, deltas.size, size=(B, deltas.size))
    plain = np.quantile(deltas[idx].mean(axis=1), [0.025, 0.975])

    # 5 sd of the Monte Carlo difference: about 0.19 * sigma_b, here ~7e-4 on a CI ~0.016 wide.
    tol = quantile_mc_tolerance(deltas, B, 0.025, k_sd=5)
    assert ours.method == "percentile"
    assert ours.ci == ours.percentile_ci
    assert ours.mean_delta == pytest.approx(float(deltas.mean()), abs=1e-15)
    assert ours.percentile_ci[0] == pytest.approx(plain[0], abs=tol)
    assert ours.percentile_ci[1] == pytest.approx(plain[1], abs=tol)
    # B - A is about +0.019 on this data (the article adds N(0.02, 0.08) to A, then clips).
    assert ours.mean_delta == pytest.approx(0.0192, abs=5e-4)
    assert ours.n == 400 and ours.n_distinct == 400 and ours.flags == ()


@pytest.mark.parametrize(("method", "scipy_method"), [("percentile", "percentile"), ("bca", "BCa")])
def test_reading_list_example_agrees_with_scipy_paired_bootstrap(method, scipy_method):
    scores_a, scores_b = reading_list_scores()
    ours = paired_bootstrap(scores_b - scores_a, resamples=B, seed=0, method=method)

    def mean_delta(b, a, axis=-1):
        return np.mean(b - a, axis=axis)

    ref = stats.bootstrap(
        (scores_b, scores_a),
        mean_delta,
        paired=True,
        vectorized=True,
        n_resamples=B,
        method=scipy_method,
        rng=np.random.default_rng(2024),
    ).confidence_interval
    # BCa adds the Monte Carlo noise of z0 to that of the quantiles; 6 sd instead of 5.
    tol = quantile_mc_tolerance(scores_b - scores_a, B, 0.025, k_sd=6)
    assert ours.ci[0] == pytest.approx(ref.low, abs=tol)
    assert ours.ci[1] == pytest.approx(ref.high, abs=tol)


@pytest.mark.parametrize(("method", "scipy_method"), [("percentile", "percentile"), ("bca", "BCa")])
def test_index_engine_reproduces_scipy_bootstrap_draw_for_draw_with_the_same_seed(
    method, scipy_method
):
    # scipy 1.17 draws rng.integers(0, n, (B, n)); our chunks draw the same stream row by row,
    # so with the same seed the resampled means coincide and the intervals agree to rounding.
    # This pins the BCa arithmetic (z0 with half-counted ties, closed-form acceleration)
    # exactly, beyond what Monte Carlo tolerances can. If a future scipy changes how it draws,
    # the Monte Carlo comparison above still stands.
    scores_a, scores_b = reading_list_scores()
    deltas = scores_b - scores_a
    ours = paired_bootstrap(deltas, resamples=B, seed=5, method=method)
    ref = stats.bootstrap(
        (deltas,),
        np.mean,
        vectorized=True,
        n_resamples=B,
        method=scipy_method,
        rng=np.random.default_rng(5),
    ).confidence_interval
    assert ours.ci[0] == pytest.approx(ref.low, abs=1e-12)
    assert ours.ci[1] == pytest.approx(ref.high, abs=1e-12)


def test_closed_form_jackknife_acceleration_equals_leave_one_out_loop():
    x = np.array([0.0, 0.0, 0.5, 1.0, 1.0, 1.0, -0.5, 2.0, 0.25])
    loo = np.array([np.delete(x, i).mean() for i in range(x.size)])
    d = loo.mean() - loo
    literal = float(np.sum(d**3) / (6 * np.sum(d**2) ** 1.5))
    values, counts = np.unique(x, return_counts=True)
    assert jackknife_acceleration(values, counts, float(x.mean())) == pytest.approx(
        literal, rel=1e-12
    )


# --- exact known answers ---------------------------------------------------------------------


def test_all_equal_deltas_give_the_point_as_every_interval_and_flag_zero_variance():
    res = paired_bootstrap(np.full(50, 0.25))
    assert res.ci == res.percentile_ci == res.bca_ci == res.t_ci == (0.25, 0.25)
    assert "zero_variance" in res.flags and "all_zero" not in res.flags
    assert res.n_distinct == 1
    # Wilcoxon on 50 equal positive deltas: all ranks tied, normal approximation.
    assert res.wilcoxon_p == pytest.approx(stats.wilcoxon(np.full(50, 0.25)).pvalue, rel=1e-9)


def test_all_zero_deltas_flag_all_zero_and_leave_wilcoxon_undefined():
    res = paired_bootstrap(np.zeros(40))
    assert res.ci == (0.0, 0.0)
    assert res.wilcoxon_p is None
    assert {"zero_variance", "all_zero"} <= set(res.flags)


def test_single_item_is_a_flagged_point_without_t_interval():
    res = paired_bootstrap(np.array([0.5]))
    assert res.ci == (0.5, 0.5)
    assert {"single_item", "small_n", "zero_variance"} <= set(res.flags)
    assert all(math.isnan(v) for v in res.t_ci)
    assert res.wilcoxon_p == pytest.approx(stats.wilcoxon([0.5]).pvalue)  # 1.0


def test_small_n_is_flagged_below_thirty_items():
    rng = np.random.default_rng(3)
    assert "small_n" in paired_bootstrap(rng.normal(size=29), resamples=500).flags
    assert "small_n" not in paired_bootstrap(rng.normal(size=30), resamples=500).flags


@pytest.mark.parametrize("method", ["percentile", "bca"])
def test_two_valued_deltas_bootstrap_quantiles_are_binomial_quantiles(method):
    # 300 ones and 700 zeros: a resample mean is exactly Binomial(1000, 0.3) / 1000.
    n, ones = 1000, 300
    deltas = np.zeros(n)
    deltas[:ones] = 1.0
    res = paired_bootstrap(deltas, resamples=B, seed=11, method=method)
    exact = stats.binom.ppf([0.025, 0.975], n, ones / n) / n  # [0.272, 0.329]
    # Discreteness: an empirical quantile can land one atom (1/n) either side of the exact
    # one; Monte Carlo: the CDF at the quantile has sd sqrt(.025*.975/B) = 0.0016, less than
    # the ~0.004 mass of one atom there. 2/n covers both. BCa's shift on this near-symmetric
    # binomial (skewness 0.03) is a fraction of an atom: one more 1/n.
    tol = 2 / n if method == "percentile" else 3 / n
    assert res.ci[0] == pytest.approx(exact[0], abs=tol)
    assert res.ci[1] == pytest.approx(exact[1], abs=tol)
    assert res.n_distinct == 2


def test_count_and_index_engines_draw_the_same_binomial_distribution():
    n, p = 1000, 0.3
    deltas = np.zeros(n)
    deltas[:300] = 1.0
    values, counts = np.unique(deltas, return_counts=True)
    by_counts = resample_totals_by_counts(np.random.default_rng(5), n, counts / n, values, 20_000)
    by_index = resample_totals_by_index(np.random.default_rng(6), deltas, 20_000)
    for totals in (by_counts, by_index):
        # mean n*p = 300 (sd of the average over 20k: 14.5/141 = 0.10), variance n*p*q = 210
        # (sd of the sample variance: 210*sqrt(2/20k) = 2.1); 5 sd each.
        assert totals.mean() == pytest.approx(n * p, abs=0.5)
        assert totals.var() == pytest.approx(n * p * (1 - p), abs=10.5)
        assert np.all(totals == np.round(totals))  # whole numbers of ones


# --- reproducibility -------------------------------------------------------------------------


def test_same_seed_gives_identical_result_and_another_seed_differs_slightly():
    rng = np.random.default_rng(21)
    few = rng.integers(-4, 5, size=2_000).astype(float)  # count engine
    many = rng.normal(0.1, 1.0, size=2_000)  # index engine
    for deltas in (few, many):
        first = paired_bootstrap(deltas, resamples=4_000, seed=3)
        again = paired_bootstrap(deltas, resamples=4_000, seed=3)
        other = paired_bootstrap(deltas, resamples=4_000, seed=4)
        assert first == again
        assert other.seed == 4 and first.seed == 3
        assert other.percentile_ci != first.percentile_ci
        width = first.percentile_ci[1] - first.percentile_ci[0]
        for a, b in zip(first.percentile_ci, other.percentile_ci, strict=True):
            assert abs(a - b) < 0.05 * width  # Monte Carlo noise, not a different answer


def test_result_echoes_its_inputs():
    res = paired_bootstrap(np.arange(40.0) - 10, resamples=1234, confidence=0.9, seed=8)
    assert isinstance(res, GradedComparison)
    assert (res.resamples, res.confidence, res.seed, res.method) == (1234, 0.9, 8, "bca")
    assert res.ci == res.bca_ci
    with pytest.raises(AttributeError):
        res.seed = 9  # frozen


# --- reference tests -------------------------------------------------------------------------


T_SETS = {
    "reading_list": lambda: np.subtract(*reading_list_scores()[::-1]),
    "ratings": lambda: np.random.default_rng(1).integers(-4, 5, 300).astype(float),
    "n2": lambda: np.array([0.1, 0.4]),
    "skewed": lambda: np.random.default_rng(2).exponential(size=57) - 0.8,
}


@pytest.mark.parametrize("name", sorted(T_SETS))
@pytest.mark.parametrize("confidence", [0.9, 0.95, 0.99])
def test_paired_t_interval_equals_scipy_ttest_1samp(name, confidence):
    deltas = T_SETS[name]()
    res = paired_bootstrap(deltas, resamples=200, confidence=confidence)
    ref = stats.ttest_1samp(deltas, 0.0).confidence_interval(confidence)
    assert res.t_ci[0] == pytest.approx(ref.low, abs=1e-12)
    assert res.t_ci[1] == pytest.approx(ref.high, abs=1e-12)


def _wilcoxon_sets() -> dict[str, np.ndarray]:
    rng = np.random.default_rng(99)
    with_zeros_200 = np.round(rng.normal(0.1, 1, 200), 1)
    with_zeros_200[:15] = 0.0
    return {
        # exact null distribution (n <= 50, no ties, no zeros)
        "n10_exact": np.array([1.83, 0.5, -1.62, 2.48, 1.68, 1.88, 1.55, 3.06, 1.3, -0.07]),
        "n30_exact": rng.normal(0.3, 1, 30),
        "n50_exact": rng.normal(0.1, 1, 50),
        "n1": np.array([-0.3]),
        # exact sign-flip distribution with average ranks (n <= 13 with ties or zeros)
        "n10_ties_and_zeros": np.array([1, -1, 2, 2, 0, 3, -3, 0.5, 4, 1.0]),
        "n13_zeros": np.array([0, 0, 1.5, -0.5, 2, 3, 4, 5, -6, 7, 8, 9, 10.0]),
        "n5_all_tied": np.full(5, 0.2),
        # normal approximation with tie correction
        "n14_ties": np.array([1, 1, 2, 2, 3, -3, 4, 5, -6, 7, 8, 9, 10, 11.0]),
        "n30_ratings": rng.integers(-2, 3, 30).astype(float),
        "n51_no_ties": rng.normal(0.2, 1, 51),
        "n200_normal": rng.normal(0.1, 1, 200),
        "n200_ties_zeros": with_zeros_200,
        "n60_mostly_zero": np.concatenate([np.zeros(57), [0.5, -0.25, 1.0]]),
    }


@pytest.mark.parametrize("name", sorted(_wilcoxon_sets()))
def test_wilcoxon_p_equals_scipy_default(name):
    deltas = _wilcoxon_sets()[name]
    ours = wilcoxon_signed_rank_p(deltas)
    ref = stats.wilcoxon(deltas).pvalue
    assert ours == pytest.approx(ref, rel=1e-9, abs=1e-12)


def test_wilcoxon_from_distinct_values_equals_scipy_with_ties_across_signs():
    # Rounded deltas: many items share |delta| with opposite signs (one tie group), and zeros.
    rng = np.random.default_rng(28)
    deltas = np.round(rng.normal(0.02, 0.2, 5000), 2)
    values, counts = np.unique(deltas, return_counts=True)
    ours = wilcoxon_signed_rank_p(deltas, distinct=(values, counts))
    assert ours == wilcoxon_signed_rank_p(deltas)
    assert ours == pytest.approx(stats.wilcoxon(deltas).pvalue, rel=1e-9, abs=1e-12)


def test_wilcoxon_exact_small_sample_known_value():
    # n = 10, no ties: W+ = 3 (ranks 1 and 2 negative -> W- = 3). P(W+ <= 3) = 5/1024 for
    # n = 10 (subsets of {1..10} summing to <= 3: {}, {1}, {2}, {3}, {1,2}); two-sided 10/1024.
    deltas = np.array([-0.1, -0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0])
    assert wilcoxon_signed_rank_p(deltas) == pytest.approx(10 / 1024, rel=1e-12)


# --- per-item classification -----------------------------------------------------------------


def test_graded_regressions_masks_respect_tolerance():
    deltas = np.array([-0.3, -0.05, 0.0, 0.05, 0.3])
    regressed, improved = graded_regressions(deltas, tolerance=0.05)
    assert regressed.tolist() == [True, False, False, False, False]
    assert improved.tolist() == [False, False, False, False, True]
    regressed, improved = graded_regressions(deltas)
    assert regressed.tolist() == [True, True, False, False, False]
    assert improved.tolist() == [False, False, False, True, True]


# --- invalid arguments -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "needle"),
    [
        ({"resamples": 0}, "resamples"),
        ({"resamples": 2.5}, "2.5"),
        ({"resamples": True}, "True"),
        ({"confidence": 1.0}, "1.0"),
        ({"confidence": 95}, "95"),
        ({"seed": -1}, "-1"),
        ({"method": "bc"}, "'bc'"),
    ],
)
def test_invalid_bootstrap_arguments_raise_value_error_naming_the_value(kwargs, needle):
    with pytest.raises(ValueError, match=needle):
        paired_bootstrap(np.arange(10.0), **kwargs)


@pytest.mark.parametrize(
    ("deltas", "needle"),
    [
        (np.array([0.1, np.nan, 0.2]), r"deltas\[1\] is nan"),
        (np.array([0.1, np.inf]), r"deltas\[1\] is inf"),
        (np.zeros((3, 2)), r"shape \(3, 2\)"),
        (np.array([]), "empty"),
    ],
)
def test_invalid_deltas_raise_value_error_naming_the_item(deltas, needle):
    with pytest.raises(ValueError, match=needle):
        paired_bootstrap(deltas)


def test_negative_tolerance_is_refused():
    with pytest.raises(ValueError, match="-0.1"):
        graded_regressions(np.zeros(3), tolerance=-0.1)


# --- speed and memory ------------------------------------------------------------------------


@pytest.mark.slow
def test_bootstrap_of_200k_continuous_deltas_stays_under_200_mb():
    deltas = np.random.default_rng(12).normal(0.01, 0.3, 200_000)
    tracemalloc.start()
    try:
        res = paired_bootstrap(deltas, resamples=2_000, seed=1)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    # A resamples x n index matrix would be 2,000 x 200,000 x 8 B = 3.2 GB.
    assert peak < 200 * 2**20, f"peak {peak / 2**20:.0f} MiB"
    assert res.n_distinct == 200_000
    assert res.ci[0] < 0.01 < res.ci[1]


class _CountingRng:
    """A numpy Generator that counts what it draws: multinomial cells and integer indices."""

    def __init__(self, rng: np.random.Generator, drawn: dict[str, int]) -> None:
        self._rng, self._drawn = rng, drawn

    def multinomial(self, *args, **kwargs):
        out = self._rng.multinomial(*args, **kwargs)
        self._drawn["cells"] += out.size
        return out

    def integers(self, *args, **kwargs):
        out = self._rng.integers(*args, **kwargs)
        self._drawn["indices"] += np.size(out)
        self._drawn["largest_block"] = max(self._drawn["largest_block"], np.size(out))
        return out

    def __getattr__(self, name):
        return getattr(self._rng, name)


def count_resampling_draws(monkeypatch) -> dict[str, int]:
    """Route both resampling engines of `paired_bootstrap` through a counting generator."""
    drawn = {"cells": 0, "indices": 0, "largest_block": 0}
    for name in ("resample_totals_by_counts", "resample_totals_by_index"):
        engine = getattr(graded_module, name)

        def counted(rng, *args, _engine=engine, **kwargs):
            return _engine(_CountingRng(rng, drawn), *args, **kwargs)

        monkeypatch.setattr(graded_module, name, counted)
    return drawn


def test_few_distinct_values_bootstrap_a_million_items_draws_counts_not_indices(monkeypatch):
    # Judge-rating deltas in {-4..4}: counts over 9 values, not a million indices per resample.
    # (Its speed against scipy is measured in bench/bootstrap_vs_scipy.py, not asserted here.)
    deltas = np.random.default_rng(13).integers(-4, 5, 1_000_000).astype(float)
    drawn = count_resampling_draws(monkeypatch)
    tracemalloc.start()
    try:
        res = paired_bootstrap(deltas, resamples=B, seed=0)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    # The index engine would draw B x n = 10^10 indices (about a minute of work).
    assert drawn["indices"] == 0
    assert drawn["cells"] == B * 9  # one multinomial cell per distinct value and resample
    # No resamples x items array: B x n x 8 B would be 80 GB; the item-sized arrays stay few.
    assert peak < 20 * deltas.nbytes, f"peak {peak / 2**20:.0f} MiB"
    assert res.n_distinct == 9
    assert res.ci[0] < res.mean_delta < res.ci[1]


def test_continuous_deltas_bootstrap_draws_indices_in_blocks_not_one_matrix(monkeypatch):
    # Every delta distinct: the index engine, B x n draws in all, never all of them at once.
    deltas = np.random.default_rng(14).normal(0.0, 1.0, 5_000)
    drawn = count_resampling_draws(monkeypatch)
    res = paired_bootstrap(deltas, resamples=1_000, seed=0)
    assert drawn["cells"] == 0
    assert drawn["indices"] == 1_000 * 5_000
    assert drawn["largest_block"] <= 1_000 * 5_000 // 10
    assert res.n_distinct == 5_000


# --- epochs ----------------------------------------------------------------------------------


def test_epoch_summary_hand_example_with_unequal_epochs():
    # item 7: [1, 0, 1] mean 2/3, var (1/9 + 4/9 + 1/9) / 2 = 1/3
    # item 3: [1, 1]    mean 1,   var 0
    # item 9: [0]       mean 0,   one epoch: no within-item information
    item = np.array([7, 3, 7, 9, 3, 7])
    vals = np.array([1.0, 1.0, 0.0, 0.0, 1.0, 1.0])
    s = epoch_summary(item, vals)
    assert isinstance(s, EpochSummary)
    assert (s.epochs_min, s.epochs_max, s.n_items) == (1, 3, 3)
    assert s.epochs_mean == pytest.approx(2.0)
    assert s.unequal and "unequal_epochs" in s.flags
    within = (1 / 3 + 0) / 2  # mean over the two multi-epoch items
    item_means = np.var([2 / 3, 1.0, 0.0], ddof=1)  # = 21/81 = 7/27
    assert s.within_item_variance == pytest.approx(within, rel=1e-12)
    assert s.item_mean_variance == pytest.approx(7 / 27, rel=1e-12)
    assert item_means == pytest.approx(7 / 27)
    # The item means still hold within/K of epoch noise: K = 3, 2, 1, mean(1/K) = 11/18, so
    # the items' true means vary by 7/27 - (1/6)(11/18) = 17/108.
    assert s.between_item_variance == pytest.approx(17 / 108, rel=1e-12)
    assert s.within_share == pytest.approx(18 / 35, rel=1e-12)  # (1/6) / (1/6 + 17/108)


def test_epoch_summary_flags_single_epoch_and_no_variance():
    s = epoch_summary(np.arange(5), np.ones(5))
    assert s.epochs_min == s.epochs_max == 1 and not s.unequal
    assert s.within_item_variance == 0.0 and s.within_share == 0.0
    assert {"single_epoch", "no_variance"} <= set(s.flags)


def test_epoch_noise_in_item_means_is_within_variance_over_k():
    # Miller (2024): Var(item mean over K epochs) = within-item variance / K when items share
    # one true pass rate. 2,000 items x K=4 epochs at p = 0.5: within = 0.25, so the
    # between-item variance of observed means should be ~0.25 / 4 = 0.0625 (sd of the
    # estimate ~0.0625 * sqrt(2/2000) = 0.002; allow 0.008).
    rng = np.random.default_rng(17)
    k, items = 4, 2_000
    codes = np.repeat(np.arange(items), k)
    verdicts = (rng.random(items * k) < 0.5).astype(float)
    s = epoch_summary(codes, verdicts)
    assert s.within_item_variance == pytest.approx(0.25, abs=0.01)  # ddof=1: unbiased
    assert s.item_mean_variance == pytest.approx(s.within_item_variance / k, abs=0.008)
    # The items share one true rate: nothing varies between them, all of it is within.
    assert s.between_item_variance == pytest.approx(0.0, abs=0.005)
    assert s.within_share == pytest.approx(1.0, abs=0.03)


def test_within_share_recovers_the_true_split_of_the_variance():
    """Items with true pass rates uniform on [0.2, 0.8], 3 epochs each: the true variance
    between items is 0.6^2/12 = 0.03 and within them E[p(1 - p)] = 0.22, a within share of
    0.88. Dividing by the item-mean variance instead would read 0.22 / (0.22 + 0.03 + 0.22/3)
    = 0.68: the mislabel this pins down."""
    rng = np.random.default_rng(5)
    items, k = 40_000, 3
    rates = rng.uniform(0.2, 0.8, size=items)
    codes = np.repeat(np.arange(items), k)
    verdicts = (rng.random(items * k) < np.repeat(rates, k)).astype(float)
    s = epoch_summary(codes, verdicts)
    assert s.within_item_variance == pytest.approx(0.22, abs=0.005)
    assert s.between_item_variance == pytest.approx(0.03, abs=0.004)
    assert s.within_share == pytest.approx(0.88, abs=0.015)


def test_epoch_summary_refuses_mismatched_lengths_and_float_codes():
    with pytest.raises(ValueError, match="3 entries but values has 2"):
        epoch_summary(np.array([1, 2, 3]), np.array([0.0, 1.0]))
    with pytest.raises(ValueError, match="float64"):
        epoch_summary(np.array([1.0, 2.0]), np.array([0.0, 1.0]))
