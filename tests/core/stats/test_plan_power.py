"""Each design's `plan` delivers the power it promises (issue 30, item 3), beyond the graded,
pass/fail and k-system plans that test_calibration.py checks: epochs, clustered items and two
independent arms. Each simulation draws data from the model the plan assumes, at the plan's
size, and runs the verdict the analysis would reach on it; the share of "improved" verdicts is
the delivered power, asserted at least the promised 80% minus two Monte Carlo standard errors
(0.9 points at 2,000 replicates, 1.3 at 1,000).

Slow (a minute or two of CPU): `.ci/run` runs it with `-m slow`. The seeds are fixed;
`python -m tests.core.stats.test_plan_power` prints the numbers docs/statistics.md shows.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from evaltui.core.stats.clusters import clustered_delta
from evaltui.core.stats.independent import compare_proportions
from evaltui.core.stats.power import independent_sample_size
from evaltui.core.stats.power_designs import clustered_plan
from evaltui.core.stats.power_graded import epochs_plan, graded_sample_size
from tests.core.stats.test_calibration import graded_verdict, mc_se

PROMISED = 0.80


def epochs_power(
    delta: float, sd_between: float, sd_within: float, epochs: int, reps: int, seed: int
) -> tuple[int, float]:
    """Items from `plan --epochs`; each item's true delta ~ N(delta, sd_between^2), each record
    its arm's item mean plus N(0, sd_within^2); the verdict on the per-item mean deltas (the
    paired t, as the epochs analysis decides)."""
    n = epochs_plan(delta, sd_between, sd_within, epochs=epochs).items
    rng = np.random.default_rng(seed)
    hits = 0
    for _ in range(reps):
        true = delta + sd_between * rng.standard_normal(n)
        noise = sd_within * rng.standard_normal((2, n, epochs)).mean(axis=2)
        hits += graded_verdict(true + noise[1] - noise[0]) == "improved"
    return n, hits / reps


def clustered_power(
    delta: float, sd: float, cluster_size: int, icc: float, reps: int, seed: int
) -> tuple[int, int, float]:
    """Items from the graded plan inflated by `--cluster-size m --icc rho`; each delta is
    delta + u_cluster + e with var(u) = rho sd^2 and var(e) = (1 - rho) sd^2; the verdict from
    the clustered analysis' verdict interval (the wild cluster bootstrap-t at these cluster
    counts; 999 weights a replicate instead of 9,999, which moves a p near 0.05 by Monte Carlo
    noise only)."""
    plan = clustered_plan(graded_sample_size(delta, sd), cluster_size=cluster_size, icc=icc)
    clusters = plan.clusters
    assert clusters is not None
    n = clusters * cluster_size
    codes = np.repeat(np.arange(clusters), cluster_size)
    rng = np.random.default_rng(seed)
    hits = 0
    for rep in range(reps):
        u = math.sqrt(icc) * sd * rng.standard_normal(clusters)
        e = math.sqrt(1.0 - icc) * sd * rng.standard_normal(n)
        result = clustered_delta(delta + u[codes] + e, codes, resamples=999, seed=rep)
        low, high = result.verdict_ci
        hits += low > 0.0
    return clusters, n, hits / reps


def independent_power(
    baseline_rate: float, delta: float, reps: int, seed: int
) -> tuple[int, float]:
    """Items per arm from `plan --design independent`; each arm's passes binomial at its rate;
    the verdict of the independent comparison of two pass rates."""
    n = independent_sample_size(baseline_rate, delta)
    rng = np.random.default_rng(seed)
    hits = 0
    for _ in range(reps):
        cand = int(rng.binomial(n, baseline_rate + delta))
        base = int(rng.binomial(n, baseline_rate))
        hits += compare_proportions(cand, n, base, n).verdict == "improved"
    return n, hits / reps


@pytest.mark.slow
@pytest.mark.parametrize("epochs", [2, 5])
def test_an_epochs_plan_delivers_its_power(epochs):
    n, power = epochs_power(0.05, 0.15, 0.3, epochs, reps=2_000, seed=epochs)
    assert power >= PROMISED - 2 * mc_se(PROMISED, 2_000), f"{power:.1%} at {n} items"


@pytest.mark.slow
@pytest.mark.parametrize(("cluster_size", "icc"), [(5, 0.1), (10, 0.3)])
def test_a_clustered_plan_delivers_its_power(cluster_size, icc):
    clusters, n, power = clustered_power(0.05, 0.2, cluster_size, icc, reps=1_000, seed=7)
    assert power >= PROMISED - 2 * mc_se(PROMISED, 1_000), (
        f"{power:.1%} at {clusters} clusters of {cluster_size} ({n} items)"
    )


@pytest.mark.slow
@pytest.mark.parametrize(("baseline_rate", "delta"), [(0.85, 0.05), (0.5, 0.1)])
def test_an_independent_plan_delivers_its_power(baseline_rate, delta):
    n, power = independent_power(baseline_rate, delta, reps=2_000, seed=11)
    assert power >= PROMISED - 2 * mc_se(PROMISED, 2_000), f"{power:.1%} at {n} per arm"


if __name__ == "__main__":
    for k in (2, 5):
        n, p = epochs_power(0.05, 0.15, 0.3, k, reps=2_000, seed=k)
        print(f"epochs plan, {k} epochs: {n} items, power {p:.1%}")
    for m, rho in ((5, 0.1), (10, 0.3)):
        g, n, p = clustered_power(0.05, 0.2, m, rho, reps=1_000, seed=7)
        print(f"clustered plan m={m} icc={rho}: {g} clusters ({n} items), power {p:.1%}")
    for p0, d in ((0.85, 0.05), (0.5, 0.1)):
        n, p = independent_power(p0, d, reps=2_000, seed=11)
        print(f"independent plan {p0:.0%} {d:+.0%}: {n} per arm, power {p:.1%}")
