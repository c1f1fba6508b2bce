"""The exact bootstrap distribution (FFT convolution) against closed forms and direct sums."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from evaltui.core.stats import exact_bootstrap
from evaltui.core.stats import graded as graded_module
from evaltui.core.stats.graded import paired_bootstrap


def _cdf(values: np.ndarray, counts: np.ndarray) -> tuple[exact_bootstrap.ExactPlan, np.ndarray]:
    exact = exact_bootstrap.plan(values, counts)
    assert exact is not None
    return exact, exact_bootstrap.sum_cdf(exact, counts)


def test_two_valued_sum_distribution_is_the_binomial_cdf():
    n, ones = 1_000, 300
    exact, cdf = _cdf(np.array([0.0, 1.0]), np.array([n - ones, ones]))
    k = exact.start + np.arange(cdf.size)
    inside = (k >= 0) & (k <= n)
    want = stats.binom.cdf(k[inside], n, ones / n)
    assert np.max(np.abs(cdf[inside] - want)) < 1e-12


def test_three_valued_sum_distribution_equals_repeated_direct_convolution():
    values, counts = np.array([-0.5, 0.0, 1.0]), np.array([30, 50, 20])
    n = int(counts.sum())
    exact, cdf = _cdf(values, counts)
    one = np.zeros(4)  # offsets 0, 1, 3 on the lattice of step 0.5
    one[exact.lattice.offsets] = counts / n
    pmf = np.array([1.0])
    for _ in range(n):
        pmf = np.convolve(pmf, one)
    k = exact.start + np.arange(cdf.size)
    inside = (k >= 0) & (k < pmf.size)
    assert np.max(np.abs(cdf[inside] - np.cumsum(pmf)[k[inside]])) < 1e-12


def test_lattice_of_rounded_score_differences_is_their_grid():
    rng = np.random.default_rng(0)
    a, b = np.round(rng.random(5_000), 3), np.round(rng.random(5_000), 3)
    lattice = exact_bootstrap.find_lattice(np.unique(b - a))
    assert lattice is not None
    assert lattice.step == pytest.approx(0.001, rel=1e-12)


def test_lattice_step_may_divide_the_smallest_gap_and_continuous_values_have_none():
    lattice = exact_bootstrap.find_lattice(np.array([0.0, 0.3, 0.5]))
    assert lattice is not None and lattice.step == pytest.approx(0.1)
    assert list(lattice.offsets) == [0, 3, 5]
    continuous = np.sort(np.random.default_rng(1).normal(size=500))
    assert exact_bootstrap.find_lattice(continuous) is None


@pytest.mark.parametrize("method", ["percentile", "bca"])
def test_exact_route_percentile_endpoints_are_binomial_quantiles(monkeypatch, method):
    monkeypatch.setattr(graded_module, "EXACT_ABOVE", 0)
    monkeypatch.setattr(graded_module, "_FFT_POINT_COST", 0)
    n, ones = 2_000, 150
    deltas = np.r_[np.zeros(n - ones), np.ones(ones)]
    res = paired_bootstrap(deltas, method=method)
    assert "exact_bootstrap" in res.flags
    lo, hi = stats.binom.ppf([0.025, 0.975], n, ones / n) / n
    assert res.percentile_ci == pytest.approx((lo, hi), abs=1e-12)
    # BCa from the same distribution: z0 from the binomial's own CDF at the observed count
    p = ones / n
    share = (stats.binom.cdf(ones - 1, n, p) + stats.binom.cdf(ones, n, p)) / 2
    z0 = stats.norm.ppf(share)
    e = deltas - deltas.mean()
    a = (e**3).sum() / (6 * ((e**2).sum()) ** 1.5)
    z = stats.norm.ppf([0.025, 0.975])
    levels = stats.norm.cdf(z0 + (z0 + z) / (1 - a * (z0 + z)))
    assert res.bca_ci == pytest.approx(tuple(stats.binom.ppf(levels, n, p) / n), abs=1e-12)
