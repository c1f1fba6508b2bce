"""The reference tests shown beside the paired bootstrap: the paired t interval and p-value, and
the Wilcoxon signed-rank p-value, each matching scipy.stats to its documented defaults.

The t test answers the question the bootstrap interval describes (is the mean delta zero); the
Wilcoxon test a median-like location shift. Neither is the headline.

Only numpy and ``scipy.special`` are imported: ``scipy.stats`` costs about two seconds of
start-up (see DESIGN.md, performance notes).
"""

from __future__ import annotations

import math

import numpy as np

from evaltui.core.stats import special, validate

__all__ = ["paired_t_interval", "paired_t_p", "wilcoxon_signed_rank_p"]

# Exact Wilcoxon limits, as in scipy.stats.wilcoxon(method="auto") (scipy 1.17).
_WILCOXON_EXACT_MAX_N = 50
_WILCOXON_SIGNFLIP_MAX_N = 13


def paired_t_interval(deltas: np.ndarray, confidence: float = 0.95) -> tuple[float, float]:
    """Paired t interval mean +- t_{n-1} * sd / sqrt(n), as scipy.stats.ttest_1samp computes it.

    NaNs for a single item (no degrees of freedom); a zero-variance sample gives the point.
    """
    x = validate.sample("deltas", deltas)
    confidence = validate.confidence(confidence)
    n = x.size
    if n < 2:
        return (math.nan, math.nan)
    mean = float(np.mean(x))
    se = math.sqrt(float(np.var(x, ddof=1)) / n)
    tail = (1.0 - confidence) / 2.0
    lo = float(special.stdtrit(n - 1, tail)) * se + mean
    hi = float(special.stdtrit(n - 1, 1.0 - tail)) * se + mean
    return (lo, hi)


def paired_t_p(deltas: np.ndarray) -> float | None:
    """Two-sided p of the paired t test of mean delta = 0, as scipy.stats.ttest_1samp gives it.

    None for a single item; with zero variance the mean is exactly known: p is 1 when it is
    0 and 0 otherwise (scipy returns NaN there, which no reader can act on).
    """
    x = validate.sample("deltas", deltas)
    n = x.size
    if n < 2:
        return None
    mean = float(np.mean(x))
    var = float(np.var(x, ddof=1))
    if var == 0.0:
        return 1.0 if mean == 0.0 else 0.0
    t = mean / math.sqrt(var / n)
    return float(2.0 * special.stdtr(n - 1, -abs(t)))


def wilcoxon_signed_rank_p(
    deltas: np.ndarray, distinct: tuple[np.ndarray, np.ndarray] | None = None
) -> float | None:
    """Two-sided Wilcoxon signed-rank p-value, matching scipy.stats.wilcoxon's defaults.

    scipy 1.17 defaults: zeros dropped (``zero_method="wilcox"``), no continuity correction,
    ``method="auto"``, which means, with n counted *before* dropping zeros:

    - n <= 50, no zeros and no tied |delta|: exact null distribution of W+;
    - n <= 13 with zeros or ties: exact sign-flip (permutation) distribution of W+ with
      average ranks (scipy enumerates all 2^n sign patterns);
    - otherwise: normal approximation with the tie correction sum(t^3 - t) / 48.

    Both exact cases are one dynamic programme over sums of doubled ranks (integers, so the
    counts are exact in float64 for n <= 50). Returns None when every delta is zero: there is
    nothing to rank, and "p = 1" would read as evidence of no difference.

    `distinct`: the deltas' sorted distinct values and their counts (``np.unique(deltas,
    return_counts=True)``), when the caller has them. Above the exact sizes the normal
    approximation needs only each tie group's size and its positive members, so it is then
    computed over the distinct values (O(k log k) instead of ranking all n items: the same
    integers, so the same p; 0.3 s at a million items with a few thousand distinct deltas).
    """
    x = validate.sample("deltas", deltas)
    n_total = x.size
    if n_total > max(_WILCOXON_EXACT_MAX_N, _WILCOXON_SIGNFLIP_MAX_N):
        values, counts = np.unique(x, return_counts=True) if distinct is None else distinct
        return _wilcoxon_normal_p(values, counts)
    nonzero = x[x != 0.0]
    m = nonzero.size
    if m == 0:
        return None
    doubled, tie_sizes = _doubled_average_ranks(np.abs(nonzero))
    r2_plus = int(doubled[nonzero > 0].sum())
    has_ties = bool(np.any(tie_sizes > 1))
    has_zeros = m < n_total
    exact = (n_total <= _WILCOXON_EXACT_MAX_N and not (has_ties or has_zeros)) or (
        n_total <= _WILCOXON_SIGNFLIP_MAX_N
    )
    if exact:
        dist = _signflip_distribution(doubled)
        total = float(dist.sum())  # 2**m
        p_le = float(dist[: r2_plus + 1].sum()) / total
        p_ge = float(dist[r2_plus:].sum()) / total
        return min(1.0, 2.0 * min(p_le, p_ge))
    return _normal_p(r2_plus, m, tie_sizes)


def _wilcoxon_normal_p(values: np.ndarray, counts: np.ndarray) -> float | None:
    """The normal approximation of `wilcoxon_signed_rank_p` from distinct values and counts.

    The items of a tie group (equal |delta|) hold the ranks start+1..end of the sorted |delta|
    and share their average, so W+ (doubled) is the sum over groups of (start + 1 + end) times
    the group's positive items: the integers the item-by-item ranking sums."""
    counts = np.asarray(counts, dtype=np.int64)
    nonzero = values != 0.0
    values, counts = values[nonzero], counts[nonzero]
    m = int(counts.sum())
    if m == 0:
        return None
    groups, group_of = np.unique(np.abs(values), return_inverse=True)
    sizes = np.zeros(groups.size, dtype=np.int64)
    np.add.at(sizes, group_of, counts)
    positive = np.zeros(groups.size, dtype=np.int64)
    np.add.at(positive, group_of, np.where(values > 0, counts, 0))
    ends = np.cumsum(sizes)
    starts = ends - sizes
    r2_plus = int(((starts + 1 + ends) * positive).sum())
    return _normal_p(r2_plus, m, sizes)


def _normal_p(r2_plus: int, m: int, tie_sizes: np.ndarray) -> float:
    """The two-sided normal-approximation p of W+ (given doubled) over `m` non-zero deltas,
    the variance corrected for ties (no continuity correction, as scipy's default)."""
    mean = m * (m + 1) * 0.25
    t = tie_sizes.astype(np.float64)
    var = (m * (m + 1.0) * (2.0 * m + 1.0) - float(np.sum(t**3 - t)) / 2.0) / 24.0
    z = (r2_plus / 2.0 - mean) / math.sqrt(var)
    return float(2.0 * special.ndtr(-abs(z)))


def _doubled_average_ranks(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Twice the average ranks of ``a`` (integers) and the size of each tie group."""
    order = np.argsort(a, kind="mergesort")
    sorted_a = a[order]
    starts = np.flatnonzero(np.concatenate(([True], sorted_a[1:] != sorted_a[:-1])))
    ends = np.append(starts[1:], a.size)  # exclusive
    sizes = ends - starts
    # ranks start..end-1 are 1-based start+1..end; their average doubled is start + 1 + end
    group_doubled = starts + 1 + ends
    doubled = np.empty(a.size, dtype=np.int64)
    doubled[order] = np.repeat(group_doubled, sizes)
    return doubled, sizes


def _signflip_distribution(doubled_ranks: np.ndarray) -> np.ndarray:
    """Counts of each value of sum(doubled rank * B_i), B_i iid fair coin flips."""
    total = int(doubled_ranks.sum())
    dist = np.zeros(total + 1, dtype=np.float64)
    dist[0] = 1.0
    reach = 0
    for r in doubled_ranks.tolist():
        dist[r : reach + r + 1] += dist[: reach + 1].copy()
        reach += r
    return dist
