"""Graded scores: the paired bootstrap of per-item deltas (percentile and BCa intervals).

The reviewer's question for graded metrics (rubric scores, judge ratings, similarity) is the
same as for pass/fail: is the candidate's mean per-item delta really different from zero, and by
how much. We resample the *pairs* (the per-item deltas, never the two score columns) and read
percentile and BCa intervals off the resampled means; the paired t interval and the Wilcoxon
signed-rank p-value (``graded_reference``) are shown next to them for reference.

Why the bootstrap here is fast and small: a resample's mean depends only on how many times each
distinct delta value is drawn. Per-item deltas usually take few distinct values (ratings,
rounded scores, per-item pass rates over a few epochs), so we draw multinomial counts over the
k distinct values instead of n indices per resample (``resample``): the resample-mean
distribution is exactly the same as the index bootstrap's, at O(k) instead of O(n) per
resample. BCa's acceleration comes from the jackknife, which for the mean is closed form, so it
costs O(k) rather than the O(n^2) of a literal leave-one-out loop.

Only numpy and ``scipy.special`` are imported: ``scipy.stats`` costs about two seconds of
start-up (see DESIGN.md, performance notes).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from evaltui.core.stats import exact_bootstrap, exact_cdf, special, validate
from evaltui.core.stats.graded_reference import (
    paired_t_interval,
    paired_t_p,
    wilcoxon_signed_rank_p,
)
from evaltui.core.stats.resample import (
    prefer_counts,
    resample_totals_by_counts,
    resample_totals_by_index,
)

__all__ = [
    "BCA_SKEW",
    "EXACT_ABOVE",
    "BCA_SMALL_N",
    "METHODS",
    "SMALL_N",
    "GradedComparison",
    "graded_regressions",
    "jackknife_acceleration",
    "paired_bootstrap",
]

METHODS = ("bca", "percentile")
SMALL_N = 30
"""Below this many items the result carries the ``small_n`` flag (reading list: report counts)."""

BCA_SMALL_N = 100
BCA_SKEW = 1.0
"""Below BCA_SMALL_N items with |skewness| above BCA_SKEW the BCa interval is flagged: in a
simulation at n = 30 with skewed deltas it covered only 83-92% at a 95% level."""


EXACT_ABOVE = 50_000_000
"""Resampling work (index draws, a multinomial category counted as ``_CATEGORY_COST`` of them)
above which deltas on a lattice get the exact bootstrap distribution instead (about 0.25 s of
draws; see ``exact_bootstrap``). Below it the seeded resamples are cheap and left as they were,
so small reports print what they always printed."""
_CATEGORY_COST = 21  # one binomial ~115 ns against ~5.5 ns per drawn-and-gathered index
_FFT_POINT_COST = 57  # one FFT point of the exact route ~315 ns, in index draws


def _exact_plan(
    n: int, values: np.ndarray, counts: np.ndarray, resamples: int
) -> exact_bootstrap.ExactPlan | None:
    """The exact route when resampling would be slow and the exact route is cheaper."""
    work = resamples * min(values.size * _CATEGORY_COST, n)
    if work < EXACT_ABOVE:
        return None
    exact = exact_bootstrap.plan(values, counts)
    if exact is None or exact.points * _FFT_POINT_COST >= work:
        return None
    return exact


def _bootstrap_means(
    deltas: np.ndarray,
    values: np.ndarray,
    counts: np.ndarray,
    resamples: int,
    rng: np.random.Generator,
) -> np.ndarray:
    """Resampled means of ``deltas``; same distribution whichever path is taken."""
    n = deltas.size
    if prefer_counts(values.size, n):
        totals = resample_totals_by_counts(rng, n, counts / n, values, resamples)
    else:
        totals = resample_totals_by_index(rng, deltas, resamples)
    return totals / n


# --------------------------------------------------------------------------------------------
# paired bootstrap
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class GradedComparison:
    """Paired comparison of graded scores: mean per-item delta (B - A) and its intervals.

    ``ci`` is the interval named by ``method``; both bootstrap intervals are always computed so
    the report can show how much the BCa correction moved the percentile interval. ``t_ci``
    and ``wilcoxon_p`` are references, not the headline.
    """

    n: int
    mean_delta: float
    ci: tuple[float, float]
    method: str
    confidence: float
    resamples: int
    seed: int
    percentile_ci: tuple[float, float]
    bca_ci: tuple[float, float]
    t_ci: tuple[float, float]
    wilcoxon_p: float | None
    n_distinct: int
    flags: tuple[str, ...]
    # The paired t test of "mean delta = 0": the p-value that answers the question the
    # interval describes (Wilcoxon tests a median-like location shift, not the mean).
    t_p: float | None = None


def paired_bootstrap(
    deltas: np.ndarray,
    *,
    resamples: int = 10_000,
    confidence: float = 0.95,
    seed: int = 0,
    method: str = "bca",
) -> GradedComparison:
    """Bootstrap CI of the mean per-item delta, resampling items (pairs) with replacement.

    Seeded with ``numpy.random.default_rng(seed)``: the same deltas, resamples, confidence and
    seed give the identical interval, so a sign-off record can be re-checked.

    Percentile: the alpha/2 and 1-alpha/2 quantiles (linear interpolation) of the resampled
    means. BCa (Efron and Tibshirani 1993, 14.3): bias correction z0 from the share of
    resampled means below the observed mean (ties counted half, which matters here because
    few-valued deltas make exact ties common) and acceleration from the jackknife, which for
    the mean is a = sum(e^3) / (6 * sum(e^2)^1.5) with e = x - mean, computed over the
    distinct values with their multiplicities.

    Flags: ``zero_variance`` (every delta equal; all intervals collapse to that point),
    ``all_zero`` (every delta is 0; Wilcoxon is undefined and reported as None),
    ``small_n`` (n < 30: report counts, no verdict), ``single_item`` (n = 1; no t interval),
    ``bca_fallback`` (bias correction infinite; BCa reported as the percentile interval),
    ``bca_extreme`` (an adjusted BCa level lies beyond the outermost resample; widen
    ``resamples``), ``exact_bootstrap`` (see below).

    Exact route: when resampling would cost more than ``EXACT_ABOVE`` and the deltas lie on a
    lattice (ratings, rounded scores, pass rates over epochs), both intervals are read off the
    exact bootstrap distribution of the mean (``exact_bootstrap``: the limit of the resampled
    estimate as ``resamples`` grows, computed by FFT convolution) and the result carries the
    ``exact_bootstrap`` flag; ``resamples`` and ``seed`` are then echoed but unused. The printed
    interval can differ from a seeded resampled one only by that estimate's Monte Carlo error.
    """
    x = validate.sample("deltas", deltas)
    resamples = validate.integer("resamples", resamples, minimum=1)
    confidence = validate.confidence(confidence)
    seed = validate.integer("seed", seed, minimum=0)
    method = validate.one_of("bootstrap method", method, METHODS)

    n = x.size
    values, counts = np.unique(x, return_counts=True)
    k = values.size
    # The observed mean computed as the resamples are (counts @ values / n), so a resample
    # that redraws the observed counts ties with it exactly.
    mean = float(counts.astype(np.float64) @ values / n)
    alpha = 1.0 - confidence
    flags: list[str] = []
    if n < SMALL_N:
        flags.append("small_n")
    if n == 1:
        flags.append("single_item")
    if k == 1:
        flags.append("zero_variance")
        if values[0] == 0.0:
            flags.append("all_zero")
        point = (float(values[0]), float(values[0]))
        return GradedComparison(
            n=n,
            mean_delta=point[0],
            ci=point,
            method=method,
            confidence=confidence,
            resamples=resamples,
            seed=seed,
            percentile_ci=point,
            bca_ci=point,
            t_ci=point if n > 1 else (math.nan, math.nan),
            wilcoxon_p=None if values[0] == 0.0 else wilcoxon_signed_rank_p(x),
            n_distinct=1,
            flags=tuple(flags),
            t_p=paired_t_p(x),
        )

    exact = _exact_plan(n, values, counts, resamples)
    if exact is not None:
        flags.append("exact_bootstrap")
        percentile_ci, bca_ci, bca_flags = _exact_intervals(exact, values, counts, mean, alpha)
    else:
        rng = np.random.default_rng(seed)
        boot = _bootstrap_means(x, values, counts, resamples, rng)
        percentile_ci = _quantile_pair(boot, alpha / 2, 1 - alpha / 2)
        bca_ci, bca_flags = _bca_interval(boot, mean, values, counts, alpha)
    if "bca_fallback" in bca_flags:
        bca_ci = percentile_ci
    flags.extend(bca_flags)
    if method == "bca" and n < BCA_SMALL_N and abs(_skewness(x)) > BCA_SKEW:
        flags.append("bca_small_skewed")

    return GradedComparison(
        n=n,
        mean_delta=mean,
        ci=bca_ci if method == "bca" else percentile_ci,
        method=method,
        confidence=confidence,
        resamples=resamples,
        seed=seed,
        percentile_ci=percentile_ci,
        bca_ci=bca_ci,
        t_ci=paired_t_interval(x, confidence),
        wilcoxon_p=wilcoxon_signed_rank_p(x, distinct=(values, counts)),
        n_distinct=k,
        flags=tuple(flags),
        t_p=paired_t_p(x),
    )


def _quantile_pair(boot: np.ndarray, lo: float, hi: float) -> tuple[float, float]:
    q = np.quantile(boot, [lo, hi])
    return float(q[0]), float(q[1])


def _bca_interval(
    boot: np.ndarray,
    mean: float,
    values: np.ndarray,
    counts: np.ndarray,
    alpha: float,
) -> tuple[tuple[float, float], list[str]]:
    """BCa interval from resampled means; O(resamples + k)."""
    b = boot.size
    # Tolerance for "equal to the observed mean": resampled totals are summed in a different
    # order than the observed one, so equal count vectors can differ in the last bits.
    # The bound grows with the number of distinct values summed; exact ties only have real
    # probability when that number is small, so the tolerance stays tiny where it matters.
    tol = 8 * values.size * np.finfo(np.float64).eps * float(np.max(np.abs(values)))
    below = int(np.count_nonzero(boot < mean - tol))
    at_or_below = int(np.count_nonzero(boot <= mean + tol))
    share = (below + at_or_below) / (2.0 * b)
    z0 = float(special.ndtri(share))
    if not math.isfinite(z0):
        return (math.nan, math.nan), ["bca_fallback"]

    accel = jackknife_acceleration(values, counts, mean)

    levels = []
    for z_tail in (float(special.ndtri(alpha / 2)), float(special.ndtri(1 - alpha / 2))):
        num = z0 + z_tail
        levels.append(float(special.ndtr(z0 + num / (1.0 - accel * num))))
    flags: list[str] = []
    if not all(math.isfinite(v) for v in levels):
        return (math.nan, math.nan), ["bca_fallback"]
    if min(levels[0], 1.0 - levels[1]) * b < 1.0:
        flags.append("bca_extreme")
    return _quantile_pair(boot, levels[0], levels[1]), flags


def _exact_intervals(
    exact: exact_bootstrap.ExactPlan,
    values: np.ndarray,
    counts: np.ndarray,
    mean: float,
    alpha: float,
) -> tuple[tuple[float, float], tuple[float, float], list[str]]:
    """Percentile and BCa intervals read off the exact bootstrap distribution of the mean.

    The same definitions as the resampled ones with the distribution in place of its estimate:
    an endpoint at level L is the smallest resample mean whose probability of not being
    exceeded reaches L; z0 weighs ties with the observed sum half, as ``_bca_interval`` does.
    """
    cdf = exact_cdf.reader(exact, counts)
    lattice = exact.lattice
    n = int(counts.sum())

    def at(level: float) -> float:
        i = cdf.first_reaching(level)
        return lattice.origin + (exact.start + min(i, cdf.points - 1)) * lattice.step / n

    percentile_ci = (at(alpha / 2), at(1 - alpha / 2))
    observed = int(counts @ lattice.offsets) - exact.start
    below = cdf.value(observed - 1) if observed > 0 else 0.0
    z0 = float(special.ndtri((below + cdf.value(observed)) / 2.0))
    accel = jackknife_acceleration(values, counts, mean)
    levels = []
    for z_tail in (float(special.ndtri(alpha / 2)), float(special.ndtri(1 - alpha / 2))):
        num = z0 + z_tail
        levels.append(float(special.ndtr(z0 + num / (1.0 - accel * num))))
    if not all(math.isfinite(v) for v in [z0, *levels]):
        return percentile_ci, percentile_ci, ["bca_fallback"]
    return percentile_ci, (at(levels[0]), at(levels[1])), []


def jackknife_acceleration(values: np.ndarray, counts: np.ndarray, mean: float) -> float:
    """BCa acceleration of the mean from the jackknife, in O(k) over distinct values.

    Leaving item i out gives the mean (S - x_i) / (n - 1); their average is the full mean, so
    the jackknife deviations are (x_i - mean) / (n - 1) and the (n - 1) factors cancel in
    a = sum(d^3) / (6 * sum(d^2)^1.5). Items with equal values contribute equal terms, so the
    sums run over the k distinct values weighted by their counts. Undefined (NaN) when every
    value is equal.
    """
    e = values - mean
    w = counts.astype(np.float64)
    s2 = float(w @ (e * e))
    s3 = float(w @ (e * e * e))
    if s2 == 0.0:
        return math.nan
    return s3 / (6.0 * s2**1.5)


def _skewness(x: np.ndarray) -> float:
    """The sample skewness g1 (0 for a constant sample)."""
    e = x - x.mean()
    m2 = float(np.mean(e * e))
    return float(np.mean(e**3)) / m2**1.5 if m2 > 0 else 0.0


# --------------------------------------------------------------------------------------------
# per-item classification
# --------------------------------------------------------------------------------------------


def graded_regressions(deltas: np.ndarray, tolerance: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
    """Boolean masks (regressed, improved): delta < -tolerance, delta > tolerance.

    Graded deltas are rarely exactly zero, so the tolerance is what stops every last-digit
    wobble of a judge score from landing in the reviewer's list of regressions.
    """
    x = validate.sample("deltas", deltas)
    tol = validate.non_negative("tolerance", tolerance)
    return x < -tol, x > tol
