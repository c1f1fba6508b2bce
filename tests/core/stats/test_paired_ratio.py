"""The relative change of a paired cost, mean(candidate) / mean(baseline) - 1, with the ratio
recomputed in each paired resample: never below -100% for non-negative figures, and the same
interval as scipy's paired bootstrap and a plain numpy recipe with the documented seed."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from evaltui.core.analysis.cost import RESAMPLES, SEED, cost_comparison
from evaltui.core.report.cost import cost_headline
from evaltui.core.stats.graded import paired_bootstrap
from evaltui.core.stats.paired_ratio import paired_ratio_bootstrap
from tests.core.agent_fixtures import agent_pair

# Total tokens per item (epochs averaged) of the drug pair, drug-5 left out (the candidate
# errored: no usage); the baseline's drug-4 ran into its token limit at 27,540.
DRUG_BASE = np.array([3650.0, 4730.0, 3650.0, 27540.0])
DRUG_CAND = np.array([3650.0, 3650.0, 3650.0, 4680.0])


def scipy_interval(base: np.ndarray, cand: np.ndarray) -> tuple[float, float]:
    result = stats.bootstrap(
        (base, cand),
        lambda b, c, axis=-1: c.mean(axis=axis) / b.mean(axis=axis) - 1,
        paired=True,
        vectorized=True,
        n_resamples=RESAMPLES,
        method="percentile",
        random_state=np.random.default_rng(SEED),
    )
    return float(result.confidence_interval.low), float(result.confidence_interval.high)


def numpy_interval(base: np.ndarray, cand: np.ndarray) -> tuple[float, float]:
    """The recipe docs/statistics.md gives: one draw of item indices for both runs."""
    idx = np.random.default_rng(SEED).integers(0, base.size, (RESAMPLES, base.size))
    ratios = cand[idx].mean(axis=1) / base[idx].mean(axis=1) - 1
    low, high = np.quantile(ratios, [0.025, 0.975])
    return float(low), float(high)


def test_the_drug_pairs_relative_token_interval_is_a_ratio_of_means_within_minus_100_percent():
    tokens = cost_comparison(agent_pair()).figure("total_tokens")
    assert tokens.relative == pytest.approx(DRUG_CAND.mean() / DRUG_BASE.mean() - 1)  # -60.5%
    low, high = tokens.relative_ci
    assert -1.0 <= low <= tokens.relative <= high
    assert (low, high) == pytest.approx(scipy_interval(DRUG_BASE, DRUG_CAND), abs=1e-12)
    assert (low, high) == pytest.approx(numpy_interval(DRUG_BASE, DRUG_CAND), abs=1e-12)
    # The old construction, the difference's interval over the baseline's mean, went below -1.
    difference = paired_bootstrap(DRUG_CAND - DRUG_BASE, resamples=RESAMPLES, method="percentile")
    assert difference.ci[0] / DRUG_BASE.mean() < -1.0
    assert "tokens -61% [-79%, +0%]" in cost_headline(cost_comparison(agent_pair()))


def test_a_skewed_baseline_keeps_the_relative_interval_above_minus_100_percent():
    # 60 items: the candidate costs a tenth; a few baseline items are huge outliers.
    rng = np.random.default_rng(7)
    base = rng.lognormal(8.0, 1.5, 60)
    cand = base * 0.1 + rng.uniform(0, 50, 60)
    found = paired_ratio_bootstrap(base, cand, resamples=RESAMPLES, seed=SEED)
    assert found.ci is not None and found.relative is not None
    assert -1.0 <= found.ci[0] <= found.relative <= found.ci[1]
    assert found.ci == pytest.approx(scipy_interval(base, cand), abs=1e-12)
    assert found.ci == pytest.approx(numpy_interval(base, cand), abs=1e-12)
    old = paired_bootstrap(cand - base, resamples=RESAMPLES, method="percentile").ci
    assert old[0] / base.mean() < -1.0  # what used to be printed


def test_a_resample_with_a_zero_baseline_counts_as_unbounded_growth():
    base = np.array([0.0, 0.0, 0.0, 10.0])
    cand = np.array([5.0, 5.0, 5.0, 10.0])
    found = paired_ratio_bootstrap(base, cand, resamples=RESAMPLES, seed=SEED)
    assert found.relative == pytest.approx(1.5)  # 25 / 10 - 1
    assert found.ci is not None and found.ci[1] == math.inf and found.ci[0] >= -1.0


def test_a_baseline_that_costs_nothing_has_no_relative_change():
    found = paired_ratio_bootstrap(np.zeros(5), np.ones(5))
    assert found.relative is None and found.ci is None
