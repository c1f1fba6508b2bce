"""Clustered items: cluster-robust standard error and cluster bootstrap of the mean delta.

Items that share a source document, a conversation or an author are not independent draws;
treating them as such makes every interval too narrow (reading list 000, "Open question").
Two remedies are computed side by side, with the naive item-level interval as the contrast:

- the clustered standard error of Miller (2024), "Adding Error Bars to Evals: A Statistical
  Approach to Language Model Evaluations", arXiv:2411.00640, clustered standard errors, eq. (4):

      SE_clustered^2 = SE_CLT^2 + (1/n^2) sum_c sum_i sum_{j != i} (x_ic - xbar)(x_jc - xbar)

  with SE_CLT^2 = sum_i (x_i - xbar)^2 / (n (n - 1)) (Miller eq. 2, the ddof=1 variance).
  Writing E_c for cluster c's residual sum, that is
  (sum_c E_c^2 + sum_i e_i^2 / (n - 1)) / n^2: the within-cluster cross terms come from the
  sandwich form sqrt(sum_c E_c^2) / n of Miller's appendix A, and the diagonal keeps the ddof=1
  convention of SE_CLT, so every-cluster-a-singleton gives exactly the naive SE;
- the cluster bootstrap: resample whole clusters with replacement; a resample's mean is
  (sum of drawn cluster sums) / (sum of drawn cluster sizes). As with items, only how often
  each cluster is drawn matters, so we draw multinomial counts over clusters
  (counts @ sums / counts @ sizes), in bounded chunks; when nearly every cluster is
  different, drawing cluster indices in chunks is cheaper and gives the same distribution.

Numpy and ``scipy.special`` only (``scipy.stats`` costs about 2 s of import).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from evaltui.core.stats import special, validate
from evaltui.core.stats.resample import (
    prefer_counts,
    resample_totals_by_counts,
    resample_totals_by_index,
)

__all__ = ["ClusteredComparison", "clustered_delta", "wild_cluster_interval"]

FEW_CLUSTERS = 20
"""Below this many clusters both the clustered SE and the cluster bootstrap run narrow."""

MIN_CLUSTERS = 10
"""Below this many labelled clusters no cluster interval is trusted enough for a verdict.

Cameron and Miller (2015), "A Practitioner's Guide to Cluster-Robust Inference", J. Human
Resources 50(2), section VI: "few" clusters ranges "from less than 20 to less than 50 clusters
in the balanced case", and cluster-robust tests over-reject there; the wild cluster bootstrap-t
(Cameron, Gelbach and Miller 2008, REStat 90(3)) is their remedy. With Rademacher weights it
has only 2^G distinct draws, and Webb (2023), "Reworking wild bootstrap-based inference for
clustered errors", Canadian J. Economics 56(3), shows it breaks down below about 10 clusters.
"""

WILD_UP_TO = 2_000
"""Up to this many clusters the verdict interval is the wild cluster bootstrap-t (right at
the nominal rate where the cluster bootstrap percentile interval still over-rejects: 7% at
50 clusters, 6% at 150 in our null simulation); beyond it, where the bootstrap would cost
seconds, the CR1 t(G - 1) interval, which is accurate with that many clusters."""

WILD_EXACT_UP_TO = 12  # enumerate all 2^G Rademacher sign vectors up to this many clusters
WILD_WORK = 2_000_000  # bootstrap weights (draws x clusters) at most


@dataclass(frozen=True)
class ClusteredComparison:
    """Mean per-item delta with intervals that respect clusters of non-independent items.

    ``design_effect`` is Kish's design effect, the variance ratio (clustered_se / naive_se)^2:
    the literature's usual one, so n_items / design_effect is the effective number of items.
    ``se_ratio`` = clustered_se / naive_se is the factor by which clustering widens an interval.

    ``ci`` is the cluster bootstrap percentile interval; ``naive_ci`` the item-level normal
    interval mean +- z * naive_se, shown only as the contrast. ``verdict_ci`` is the interval a
    verdict may rest on (``verdict_method``): the wild cluster bootstrap-t up to
    ``WILD_UP_TO`` clusters, else the CR1 t interval; NaN with fewer than ``MIN_CLUSTERS``
    labelled clusters (no verdict).

    ``unlabelled_items`` carried no cluster label; each counts as a cluster of its own in the
    computation, but never towards ``labelled_clusters``, the count the warnings and the
    verdict rule use (15 real clusters and 200 unlabelled items are 15 clusters, not 215).

    Flags: ``few_clusters`` (< 20), ``single_cluster`` (nothing to resample: clustered SE,
    design effect and ``ci`` are NaN), ``all_singletons`` (every cluster holds one item, so
    clustering changes nothing), ``zero_variance`` (all deltas equal: intervals are the point,
    design effect NaN), ``single_item``.
    """

    n_items: int
    n_clusters: int
    mean_delta: float
    naive_se: float
    clustered_se: float
    design_effect: float  # Kish: (clustered_se / naive_se) ** 2
    ci: tuple[float, float]
    naive_ci: tuple[float, float]
    confidence: float
    resamples: int
    seed: int
    flags: tuple[str, ...]
    verdict_ci: tuple[float, float] = (math.nan, math.nan)
    verdict_method: str = "none"
    unlabelled_items: int = 0
    verdict_p: float = math.nan  # the test `verdict_ci` inverts, of "mean delta = 0"
    # The CR1 standard error (clubSandwich's "CR1" of lm(delta ~ 1) clustered): what the
    # cluster-robust t interval, its test and the margins' one-sided tests use. Miller's
    # `clustered_se` above, the one the design effect reads, differs from it by up to ~1%.
    cr1_se: float = math.nan

    @property
    def se_ratio(self) -> float:
        """clustered_se / naive_se: how much wider clustering makes an interval."""
        return math.sqrt(self.design_effect) if self.design_effect >= 0 else math.nan

    @property
    def labelled_clusters(self) -> int:
        return self.n_clusters - self.unlabelled_items


def clustered_delta(
    deltas: np.ndarray,
    cluster_codes: np.ndarray,
    *,
    resamples: int = 10_000,
    confidence: float = 0.95,
    seed: int = 0,
    unlabelled_items: int = 0,
) -> ClusteredComparison:
    """Clustered SE (Miller 2024, eq. 4), cluster bootstrap CI and the naive contrast.

    ``cluster_codes`` gives one cluster label per item (integer codes or strings; the labels
    need not be contiguous). ``unlabelled_items`` says how many of the clusters are items that
    carried no label (coded as clusters of one by the caller). Seeded with
    ``numpy.random.default_rng(seed)``: same inputs and seed give the identical interval.
    """
    x = validate.sample("deltas", deltas)
    codes = validate.aligned("cluster_codes", cluster_codes, "deltas", x.size)
    if codes.dtype.kind == "O":
        # polars and pandas hand string columns over as object arrays; accept str labels.
        for i, label in enumerate(codes.tolist()):
            if not isinstance(label, str | int) or isinstance(label, bool):
                raise ValueError(
                    f"cluster_codes[{i}] is {label!r}; every item needs a cluster label "
                    "(integer code or string)"
                )
        codes = codes.astype(str)
    elif codes.dtype.kind not in "iuUS":
        raise ValueError(f"cluster_codes must be integer codes or strings, got dtype {codes.dtype}")
    resamples = validate.integer("resamples", resamples, minimum=1)
    confidence = validate.confidence(confidence)
    seed = validate.integer("seed", seed, minimum=0)

    n = x.size
    inverse = _dense_codes(codes)
    sizes = np.bincount(inverse).astype(np.float64)
    sums = np.bincount(inverse, weights=x)
    n_clusters = sizes.size
    if not 0 <= unlabelled_items <= n_clusters:
        raise ValueError(
            f"unlabelled_items must be between 0 and the {n_clusters} clusters, "
            f"got {unlabelled_items}"
        )
    labelled = n_clusters - unlabelled_items
    mean = float(np.mean(x))
    z = float(special.ndtri(1.0 - (1.0 - confidence) / 2.0))

    flags: list[str] = []
    if labelled < FEW_CLUSTERS:
        flags.append("few_clusters")
    if labelled < MIN_CLUSTERS:
        flags.append("too_few_clusters")
    if n_clusters == 1:
        flags.append("single_cluster")
    if n_clusters == n and n > 1:
        flags.append("all_singletons")
    if n == 1:
        flags.append("single_item")

    e = x - mean
    ss = float(e @ e)
    if n > 1:
        naive_se = math.sqrt(ss / (n * (n - 1)))
        cluster_resid = np.bincount(inverse, weights=e)
        between = float(cluster_resid @ cluster_resid)
        clustered_se = math.sqrt((between + ss / (n - 1)) / n**2)
        cr1 = cr1_se(between, n, n_clusters)
    else:
        naive_se = math.nan
        clustered_se = math.nan
        cr1 = math.nan
    naive_ci = (mean - z * naive_se, mean + z * naive_se)

    if np.all(x == x[0]):
        flags.append("zero_variance")
        point = (mean, mean)
        return ClusteredComparison(
            n_items=n,
            n_clusters=n_clusters,
            mean_delta=mean,
            naive_se=0.0 if n > 1 else math.nan,
            clustered_se=0.0 if n_clusters > 1 else math.nan,
            design_effect=math.nan,
            ci=point if n_clusters > 1 else (math.nan, math.nan),
            naive_ci=point if n > 1 else (math.nan, math.nan),
            confidence=confidence,
            resamples=resamples,
            seed=seed,
            flags=tuple(flags),
            verdict_ci=point if labelled >= MIN_CLUSTERS else (math.nan, math.nan),
            verdict_method="exact" if labelled >= MIN_CLUSTERS else "none",
            unlabelled_items=unlabelled_items,
            verdict_p=(1.0 if mean == 0.0 else 0.0) if labelled >= MIN_CLUSTERS else math.nan,
        )

    if n_clusters == 1:
        # One cluster: its residual sum is zero by construction, so eq. (4) would report a
        # tiny SE; and every bootstrap resample is the same cluster. Neither says anything.
        return ClusteredComparison(
            n_items=n,
            n_clusters=1,
            mean_delta=mean,
            naive_se=naive_se,
            clustered_se=math.nan,
            design_effect=math.nan,
            ci=(math.nan, math.nan),
            naive_ci=naive_ci,
            confidence=confidence,
            resamples=resamples,
            seed=seed,
            flags=tuple(flags),
            unlabelled_items=unlabelled_items,
        )

    rng = np.random.default_rng(seed)
    table = np.column_stack([sums, sizes])
    # Clusters with the same (sum, size) are interchangeable in a resample, so counts over the
    # distinct pairs (often few: binary deltas, similar cluster sizes) give the same
    # resample-mean distribution as drawing clusters one by one.
    pairs, pair_counts = np.unique(table, axis=0, return_counts=True)
    if prefer_counts(pairs.shape[0], n_clusters, columns=2):
        totals = resample_totals_by_counts(
            rng, n_clusters, pair_counts / n_clusters, pairs, resamples
        )
    else:
        totals = resample_totals_by_index(rng, table, resamples)
    boot = totals[:, 0] / totals[:, 1]
    alpha = 1.0 - confidence
    q = np.quantile(boot, [alpha / 2, 1 - alpha / 2])
    ci = (float(q[0]), float(q[1]))
    if labelled < MIN_CLUSTERS:
        verdict_ci, verdict_method, verdict_p = (math.nan, math.nan), "none", math.nan
    elif n_clusters <= WILD_UP_TO:
        weights = rademacher_weights(n_clusters, seed=seed, resamples=resamples)
        verdict_ci = wild_cluster_interval(sums, sizes, confidence=confidence, weights=weights)
        verdict_method = "wild-cluster-t"
        verdict_p = wild_cluster_p(sums, sizes, 0.0, weights)
    else:
        verdict_ci = cluster_t_interval(mean, cr1, n_clusters, confidence)
        verdict_method = "cluster-t"
        verdict_p = float(2.0 * special.stdtr(n_clusters - 1, -abs(mean) / cr1))

    return ClusteredComparison(
        n_items=n,
        n_clusters=n_clusters,
        mean_delta=mean,
        naive_se=naive_se,
        clustered_se=clustered_se,
        design_effect=(clustered_se / naive_se) ** 2,
        ci=ci,
        naive_ci=naive_ci,
        confidence=confidence,
        resamples=resamples,
        seed=seed,
        flags=tuple(flags),
        verdict_ci=verdict_ci,
        verdict_method=verdict_method,
        unlabelled_items=unlabelled_items,
        verdict_p=verdict_p,
        cr1_se=cr1,
    )


def rademacher_weights(n_clusters: int, *, seed: int = 0, resamples: int = 9_999) -> np.ndarray:
    """The sign vectors of the wild cluster bootstrap: every one of the 2^G up to
    ``WILD_EXACT_UP_TO`` clusters (no randomness at all), else seeded draws, at most
    ``WILD_WORK`` weights in all (fewer draws for many clusters, never fewer than 399)."""
    if n_clusters <= WILD_EXACT_UP_TO:
        grid = np.meshgrid(*[[-1.0, 1.0]] * n_clusters, indexing="ij")
        return np.array(grid).reshape(n_clusters, -1).T
    draws = max(
        399, min(validate.integer("resamples", resamples, minimum=1), WILD_WORK // n_clusters)
    )
    return np.random.default_rng(seed).choice([-1.0, 1.0], size=(draws, n_clusters))


def _mean_and_cr1_se(
    cluster_sums: np.ndarray, sizes: np.ndarray, n: float
) -> tuple[np.ndarray, np.ndarray]:
    """Mean per-item delta and its CR1 standard error, per row of `cluster_sums`."""
    g = sizes.size
    m = cluster_sums.sum(axis=-1) / n
    resid = cluster_sums - sizes * np.expand_dims(m, -1)
    return m, np.sqrt((resid**2).sum(axis=-1) * g / (g - 1)) / n


def wild_cluster_p(sums: np.ndarray, sizes: np.ndarray, theta: float, weights: np.ndarray) -> float:
    """Two-sided p of "mean delta = theta" by the wild cluster restricted bootstrap-t.

    Cameron, Gelbach and Miller (2008): residuals under the null (cluster sum minus
    size * theta) are multiplied by each row of Rademacher `weights` and the CR1 t statistic
    recomputed; p is the share of bootstrap |t| at least the observed |t|.
    """
    return _wild_test(sums, sizes, weights)(theta)


def _wild_test(
    sums: np.ndarray, sizes: np.ndarray, weights: np.ndarray
) -> Callable[[float], float]:
    """`wild_cluster_p` as a function of theta, with the work that does not depend on theta
    done once. Each bootstrap row's mean and residuals are linear in theta (boot = W * sums +
    theta * sizes * (1 - W)), so its sum of squared residuals is a quadratic in theta whose
    three coefficients are computed here: a p then costs one pass over the rows instead of
    rows x clusters, which is what inverting the test for an interval (some 60 p-values) pays.
    """
    sums = np.asarray(sums, dtype=np.float64)
    sizes = np.asarray(sizes, dtype=np.float64)
    n = float(sizes.sum())
    g = sizes.size
    mean, se = (float(v) for v in _mean_and_cr1_se(sums, sizes, n))
    weights = np.asarray(weights, dtype=np.float64)
    level = weights @ sums / n  # each row's mean at theta = 0
    slope = weights @ sizes / n  # its mean minus theta is level - theta * slope
    fixed = weights * sums - np.outer(level, sizes)  # residuals: fixed + theta * moving
    moving = sizes * (slope[:, None] - weights)
    quadratic = (
        (fixed * fixed).sum(axis=1),
        2.0 * (fixed * moving).sum(axis=1),
        (moving * moving).sum(axis=1),
    )
    scale = g / (g - 1)

    def p_at(theta: float) -> float:
        if not se > 0.0:
            return 1.0 if mean == theta else 0.0
        t_obs = abs(mean - theta) / se
        c0, c1, c2 = quadratic
        squares = np.maximum(c0 + theta * (c1 + theta * c2), 0.0)
        s = np.sqrt(squares * scale) / n
        with np.errstate(divide="ignore", invalid="ignore"):
            t = np.where(s > 0.0, np.abs(level - theta * slope) / s, 0.0)
        return float(np.mean(t >= t_obs * (1.0 - 1e-12)))

    return p_at


def wild_cluster_interval(
    sums: np.ndarray,
    sizes: np.ndarray,
    *,
    confidence: float = 0.95,
    seed: int = 0,
    resamples: int = 9_999,
    weights: np.ndarray | None = None,
) -> tuple[float, float]:
    """The wild cluster bootstrap-t interval of the mean per-item delta: every theta whose
    `wild_cluster_p` exceeds alpha. The same weights serve every theta, so the interval is
    one deterministic set for a seed. Under a true null with 10 to 50 clusters of uneven size
    it rejects at or below the nominal rate, where the cluster bootstrap percentile interval
    and the CR1 t interval reject 8-10% of the time at 5% (tests/core/test_cluster_verdict.py).
    """
    sums = np.asarray(sums, dtype=np.float64)
    sizes = np.asarray(sizes, dtype=np.float64)
    g = sums.size
    if g < 2:
        return (math.nan, math.nan)
    alpha = 1.0 - validate.confidence(confidence)
    if weights is None:
        weights = rademacher_weights(g, seed=seed, resamples=resamples)
    mean, se = (float(v) for v in _mean_and_cr1_se(sums, sizes, float(sizes.sum())))
    if not se > 0.0:
        return (mean, mean)

    p_at = _wild_test(sums, sizes, weights)

    def bound(direction: float) -> float:
        inside, step = mean, se
        outside = mean + direction * step
        while p_at(outside) > alpha:  # widen until rejected
            inside, step = outside, step * 2.0
            outside = mean + direction * step
            if step > 1e6 * (abs(mean) + se):
                return direction * math.inf
        for _ in range(60):  # bisect to a precision far below what is printed
            mid = (inside + outside) / 2.0
            if p_at(mid) > alpha:
                inside = mid
            else:
                outside = mid
            if abs(outside - inside) <= 1e-9 * (abs(mean) + se):
                break
        # The first rejected value, not the midpoint: the interval then never leaves out a
        # value the test keeps, so "the interval excludes zero" implies "the test rejects".
        return outside

    return (bound(-1.0), bound(1.0))


def cr1_se(residual_sum_squares: float, n_items: int, n_clusters: int) -> float:
    """The CR1 standard error of a mean: sqrt(G / (G - 1) * sum_c E_c^2) / n, E_c cluster c's
    residual sum (``residual_sum_squares`` = sum_c E_c^2). This is the sandwich estimator of the
    intercept-only regression with clubSandwich's CR1 factor G / (G - 1) (and statsmodels'
    cluster covariance, whose (N - 1) / (N - K) factor is 1 with one regressor). NaN with one
    cluster."""
    if n_clusters < 2:
        return math.nan
    return math.sqrt(residual_sum_squares * n_clusters / (n_clusters - 1)) / n_items


def cluster_t_interval(
    mean: float, cr1: float, n_clusters: int, confidence: float = 0.95
) -> tuple[float, float]:
    """mean +- t_{G-1} * the CR1 SE (``cr1_se``), Cameron and Miller (2015) section VI.A: the
    interval for many clusters, where the bootstrap is slow."""
    g = n_clusters
    half = float(special.stdtrit(g - 1, 1.0 - (1.0 - confidence) / 2.0)) * cr1
    return (mean - half, mean + half)


def _dense_codes(codes: np.ndarray) -> np.ndarray:
    """0..K-1 in the labels' sorted order, as np.unique's inverse; small non-negative integer
    codes (the usual case: already dense) are compacted by counting instead of sorting."""
    if (
        codes.dtype.kind in "iu"
        and codes.size
        and codes.min() >= 0
        and codes.max() < 4 * codes.size
    ):
        present = np.bincount(codes) > 0
        return (np.cumsum(present) - 1)[codes]
    _, inverse = np.unique(codes, return_inverse=True)
    return inverse.reshape(-1)
