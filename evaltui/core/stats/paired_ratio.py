"""The relative change of a paired non-negative figure (cost: tokens, seconds): the ratio of the
candidate's mean to the baseline's, minus one, with a paired percentile bootstrap interval.

Why not the interval of the mean difference divided by the baseline's mean: that takes the
baseline's mean as known, while it is as uncertain as the candidate's, and it can print a
change below -100%, which a non-negative cost cannot have (the drug pair printed "tokens -61%
[-173%, +0%]"). Here each resample draws item indices once for both runs (the pairing is
kept), and the statistic is recomputed per resample: mean(candidate) / mean(baseline) - 1.
Every resample of non-negative figures is then at least -1, so the interval is too.

The indices are drawn as the paired bootstrap of the difference draws them when it takes
the index path (``resample.resample_totals_by_index``, ``numpy.random.default_rng(seed)``),
the same seed and resample count, so the documented recipe is reproducible with numpy alone:
``idx = default_rng(seed).integers(0, n, (resamples, n))`` in one chunk when
``resamples * n`` is at most 2**18 cells, the percentile interval by
``numpy.quantile(..., method="linear")``.

A resample whose baseline total is 0 has no ratio: it counts as +inf when the candidate's
total is positive (any growth from nothing) and as 0 when both are 0 (no change).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from evaltui.core.stats import validate
from evaltui.core.stats.resample import resample_totals_by_index

__all__ = ["PairedRatio", "paired_ratio_bootstrap"]


@dataclass(frozen=True)
class PairedRatio:
    """mean(candidate) / mean(baseline) - 1 and its percentile interval (None: the baseline's
    mean is 0, so the relative change is undefined)."""

    relative: float | None
    ci: tuple[float, float] | None
    confidence: float
    resamples: int
    seed: int


def paired_ratio_bootstrap(
    baseline: np.ndarray,
    candidate: np.ndarray,
    *,
    resamples: int = 2_000,
    confidence: float = 0.95,
    seed: int = 0,
) -> PairedRatio:
    """The relative change of the means and its paired percentile bootstrap interval."""
    base = validate.sample("baseline", baseline)
    cand = validate.sample("candidate", candidate)
    if base.size != cand.size:
        raise ValueError(f"paired samples differ in length: {base.size} vs {cand.size}")
    resamples = validate.integer("resamples", resamples, minimum=1)
    confidence = validate.confidence(confidence)
    seed = validate.integer("seed", seed, minimum=0)
    base_total = float(base.sum())
    if base_total == 0.0:
        return PairedRatio(None, None, confidence, resamples, seed)
    relative = float(cand.sum()) / base_total - 1.0
    rng = np.random.default_rng(seed)
    totals = resample_totals_by_index(rng, np.column_stack([base, cand]), resamples)
    b, c = totals[:, 0], totals[:, 1]
    with np.errstate(divide="ignore", invalid="ignore"):
        ratios = np.where(b > 0, c / b - 1.0, np.where(c > 0, math.inf, 0.0))
    alpha = 1.0 - confidence
    return PairedRatio(
        relative=relative,
        ci=(_quantile(ratios, alpha / 2), _quantile(ratios, 1 - alpha / 2)),
        confidence=confidence,
        resamples=resamples,
        seed=seed,
    )


def _quantile(values: np.ndarray, level: float) -> float:
    """numpy's linear quantile, but +inf when either neighbour is +inf (numpy would give nan
    for inf * 0 when the level falls on the finite neighbour exactly)."""
    ordered = np.sort(values)
    position = level * (ordered.size - 1)
    low, high = ordered[math.floor(position)], ordered[math.ceil(position)]
    if math.isinf(low) or math.isinf(high):
        return math.inf
    return float(np.quantile(ordered, level))
