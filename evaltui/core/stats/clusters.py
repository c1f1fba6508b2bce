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
from dataclasses import dataclass

import numpy as np
from scipy import special

from evaltui.core.stats.graded import (
    check_confidence,
    check_resamples,
    check_sample,
    check_seed,
    prefer_counts,
    resample_totals_by_counts,
    resample_totals_by_index,
)

__all__ = ["ClusteredComparison", "clustered_delta"]

FEW_CLUSTERS = 20
"""Below this many clusters both the clustered SE and the cluster bootstrap run narrow."""


@dataclass(frozen=True)
class ClusteredComparison:
    """Mean per-item delta with intervals that respect clusters of non-independent items.

    ``design_effect`` = clustered_se / naive_se, the factor by which clustering widens the
    standard error (the ratio our issue asks for). Kish's design effect is the variance ratio,
    i.e. ``design_effect ** 2``; n_items / design_effect**2 is the effective number of items.

    ``ci`` is the cluster bootstrap percentile interval; ``naive_ci`` the item-level normal
    interval mean +- z * naive_se, shown only as the contrast.

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
    design_effect: float
    ci: tuple[float, float]
    naive_ci: tuple[float, float]
    confidence: float
    resamples: int
    seed: int
    flags: tuple[str, ...]


def clustered_delta(
    deltas: np.ndarray,
    cluster_codes: np.ndarray,
    *,
    resamples: int = 10_000,
    confidence: float = 0.95,
    seed: int = 0,
) -> ClusteredComparison:
    """Clustered SE (Miller 2024, eq. 4), cluster bootstrap CI and the naive contrast.

    ``cluster_codes`` gives one cluster label per item (integer codes or strings; the labels
    need not be contiguous). Seeded with ``numpy.random.default_rng(seed)``: same inputs and
    seed give the identical interval.
    """
    x = check_sample("deltas", deltas)
    codes = np.asarray(cluster_codes)
    if codes.ndim != 1:
        raise ValueError(f"cluster_codes must be one-dimensional, got shape {codes.shape}")
    if codes.size != x.size:
        raise ValueError(
            f"cluster_codes has {codes.size} entries but deltas has {x.size}; "
            "give one cluster per item"
        )
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
    resamples = check_resamples(resamples)
    confidence = check_confidence(confidence)
    seed = check_seed(seed)

    n = x.size
    inverse = _dense_codes(codes)
    sizes = np.bincount(inverse).astype(np.float64)
    sums = np.bincount(inverse, weights=x)
    n_clusters = sizes.size
    mean = float(np.mean(x))
    z = float(special.ndtri(1.0 - (1.0 - confidence) / 2.0))

    flags: list[str] = []
    if n_clusters < FEW_CLUSTERS:
        flags.append("few_clusters")
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
        clustered_se = math.sqrt((float(cluster_resid @ cluster_resid) + ss / (n - 1)) / n**2)
    else:
        naive_se = math.nan
        clustered_se = math.nan
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

    return ClusteredComparison(
        n_items=n,
        n_clusters=n_clusters,
        mean_delta=mean,
        naive_se=naive_se,
        clustered_se=clustered_se,
        design_effect=clustered_se / naive_se,
        ci=(float(q[0]), float(q[1])),
        naive_ci=naive_ci,
        confidence=confidence,
        resamples=resamples,
        seed=seed,
        flags=tuple(flags),
    )


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
