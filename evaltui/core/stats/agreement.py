"""Agreement between reviewers on their tags: raw agreement, Cohen's kappa, Fleiss' kappa and
Krippendorff's alpha (nominal), overall and per tag, each with a bootstrap interval over items.

When several reviewers tag the same regressions, a tag is only as good as a second reviewer's
willingness to give it too. Raw agreement alone flatters a skewed tag mix (two reviewers who
both say "confirmed regression" 90% of the time agree 82% of the time by chance), so each
statistic is chance-corrected, and each carries its uncertainty.

Which statistic (docs/statistics.md, "Agreement between reviewers"):
- Cohen's kappa when exactly two reviewers reviewed the items (each counted item then has both
  reviews); it is the headline then.
- Fleiss' kappa when every counted item has the same number of reviews (any reviewers):
  reported beside the headline, never as it, because it stops applying whenever one item has
  an extra review.
- Krippendorff's alpha (nominal) for any pattern of missing reviews: the headline with three or
  more reviewers, so the headline's method does not change as reviews arrive.
- Raw agreement (the mean share of agreeing pairs of reviews per item) always, next to them.
Only items with two or more reviews count. A statistic that cannot be computed says why (not
applicable, or not enough data: e.g. every review gave one tag, so chance agreement is 1 and
kappa is 0/0) instead of giving a number.

Per tag: the headline statistic (Cohen's kappa or Krippendorff's alpha) of the tag-vs-rest
dichotomy, this tag against any other. Recoding the same way, Fleiss' kappa gives Fleiss' (1971)
own per-category kappa.

The interval: a percentile bootstrap over items (items resampled with replacement, all
statistics recomputed on each resample; ``agreement_table`` draws the resamples as multinomial
counts over item patterns, which is the item bootstrap exactly). Resamples on which a statistic
is undefined are left out of its percentiles and counted; when more than
:data:`UNDEFINED_LIMIT` of them are, no interval is given (the data cannot support one).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import numpy as np

from evaltui.core.stats import agreement_formulas as formulas
from evaltui.core.stats import validate
from evaltui.core.stats.agreement_result import (
    ALPHA,
    COHEN,
    FLEISS,
    RAW,
    SMALL_N,
    AgreementStatistic,
    AgreementSummary,
    TagAgreement,
)
from evaltui.core.stats.agreement_table import MISSING, Features, Ratings, features
from evaltui.core.stats.interval import Interval
from evaltui.core.stats.resample import resample_totals_by_counts

__all__ = [
    "INTERVAL_METHOD",
    "SMALL_N",
    "UNDEFINED_LIMIT",
    "AgreementStatistic",
    "AgreementSummary",
    "TagAgreement",
    "agreement",
    "agreement_of_reviews",
]

INTERVAL_METHOD = "bootstrap percentile"
UNDEFINED_LIMIT = 0.05
"""Above this share of resamples on which a statistic is undefined, it gets no interval."""

Formula = Callable[[Features, np.ndarray], np.ndarray]


def _percentile(values: np.ndarray, confidence: float) -> tuple[Interval | None, int, str]:
    """The percentile interval of the defined resampled values, and how many were undefined."""
    defined = values[np.isfinite(values)]
    undefined = int(values.size - defined.size)
    if undefined > UNDEFINED_LIMIT * values.size:
        why = (
            f"no interval: the statistic is undefined on {undefined / values.size:.0%} of the "
            "bootstrap resamples (too few items tell the tags apart for a resample to keep one)"
        )
        return None, undefined, why
    tail = (1.0 - confidence) / 2.0
    lower, upper = np.quantile(defined, [tail, 1.0 - tail])
    return Interval(float(lower), float(upper), INTERVAL_METHOD, confidence), undefined, ""


def _statistic(
    name: str,
    point: float,
    boot: np.ndarray,
    confidence: float,
    undefined_reason: str,
) -> AgreementStatistic:
    if not np.isfinite(point):
        return AgreementStatistic(name, None, None, True, undefined_reason, 0)
    ci, undefined, why = _percentile(boot, confidence)
    return AgreementStatistic(name, float(point), ci, True, why, undefined)


def _not_applicable(name: str, reason: str) -> AgreementStatistic:
    return AgreementStatistic(name, None, None, False, reason, 0)


def _one_tag_reason(f: Features, totals: np.ndarray, labels: Sequence[str]) -> str:
    """Why a statistic is undefined on the data: its chance agreement is 1, which happens only
    when every review gave the same tag."""
    used = [labels[j] for j in range(f.k) if totals[f.block("n")][j] > 0]
    return (
        f"not enough data: every review gave {used[0]!r}, so chance agreement is 1 and the "
        "statistic is 0/0"
    )


def agreement(
    ratings: Ratings,
    *,
    resamples: int = 10_000,
    confidence: float = 0.95,
    seed: int = 0,
) -> AgreementSummary:
    """Every agreement statistic that applies to ``ratings``, with bootstrap intervals.

    Seeded with ``numpy.random.default_rng(seed)``; the same ratings, resamples, confidence and
    seed give identical intervals. All statistics share the same resamples.
    """
    validate.instance("ratings", ratings, Ratings)
    resamples = validate.integer("resamples", resamples, minimum=1)
    confidence = validate.confidence(confidence)
    seed = validate.integer("seed", seed, minimum=0)
    f = features(ratings)
    n_items = int(f.counted.size)
    m_all = (ratings.as_array() != MISSING).sum(axis=1)
    n_single = int((m_all == 1).sum())
    reviewers = tuple(ratings.reviewers[r] for r in f.reviewers)
    totals = f.table.sum(axis=0)
    flags = ("few_items",) if n_items < SMALL_N else ()

    if n_items == 0:
        return _no_items(ratings.labels, n_single, confidence, resamples, seed, flags)

    first, counts = f.patterns()
    boot_totals = resample_totals_by_counts(
        np.random.default_rng(seed), n_items, counts / n_items, f.table[first], resamples
    )
    undefined = _one_tag_reason(f, totals, ratings.labels)
    n_c = totals[f.block("n")]
    m_values = np.unique(f.table[:, f.M])
    fixed_m = float(m_values[0]) if m_values.size == 1 else None

    def computed(name: str, formula: Formula) -> AgreementStatistic:
        return _statistic(
            name, float(formula(f, totals)), formula(f, boot_totals), confidence, undefined
        )

    raw = computed(RAW, formulas.raw_agreement)
    alpha = computed(ALPHA, formulas.krippendorff_alpha)
    if f.two_reviewers:
        cohen = computed(COHEN, formulas.cohen_kappa)
    else:
        cohen = _not_applicable(
            COHEN,
            f"not applicable: Cohen's kappa is for exactly two reviewers; {len(reviewers)} "
            "reviewed these items",
        )
    if fixed_m is not None:
        fleiss = computed(FLEISS, formulas.fleiss_kappa)
    else:
        fleiss = _not_applicable(
            FLEISS,
            f"not applicable: items have {int(m_values[0])} to {int(m_values[-1])} reviews; "
            "Fleiss' kappa needs the same number on every item (Krippendorff's alpha does not)",
        )

    if f.two_reviewers:
        name, point, boot = (
            COHEN,
            formulas.tag_cohen_kappa(f, totals),
            formulas.tag_cohen_kappa(f, boot_totals),
        )
    else:
        name, point, boot = (
            ALPHA,
            formulas.tag_krippendorff_alpha(f, totals),
            formulas.tag_krippendorff_alpha(f, boot_totals),
        )
    given = f.table[:, f.block("n")]
    tags = []
    for j, tag in enumerate(ratings.labels):
        if n_c[j] == 0:
            why = "not enough data: no review gave this tag"
        else:
            why = "not enough data: every review gave this tag, so there is no rest to tell apart"
        statistic = _statistic(name, float(point[j]), boot[:, j], confidence, why)
        tags.append(TagAgreement(tag, int(n_c[j]), int((given[:, j] > 0).sum()), statistic))

    unanimous = int((f.table[:, f.PAIRS] == 1.0).sum())
    return AgreementSummary(
        reviewers=reviewers,
        labels=ratings.labels,
        n_items=n_items,
        n_single=n_single,
        n_ratings=int(totals[f.M]),
        unanimous=unanimous,
        raw=raw,
        cohen=cohen,
        fleiss=fleiss,
        alpha=alpha,
        tags=tuple(tags),
        confidence=confidence,
        resamples=resamples,
        seed=seed,
        flags=flags,
    )


def _no_items(
    labels: tuple[str, ...],
    n_single: int,
    confidence: float,
    resamples: int,
    seed: int,
    flags: tuple[str, ...],
) -> AgreementSummary:
    """The summary when no item has two reviews: every statistic "not enough data"."""
    why = "not enough data: no item has two or more reviews"

    def nothing(name: str) -> AgreementStatistic:
        return AgreementStatistic(name, None, None, True, why, 0)

    return AgreementSummary(
        reviewers=(),
        labels=labels,
        n_items=0,
        n_single=n_single,
        n_ratings=0,
        unanimous=0,
        raw=nothing(RAW),
        cohen=nothing(COHEN),
        fleiss=nothing(FLEISS),
        alpha=nothing(ALPHA),
        tags=tuple(TagAgreement(tag, 0, 0, nothing(ALPHA)) for tag in labels),
        confidence=confidence,
        resamples=resamples,
        seed=seed,
        flags=flags,
    )


def agreement_of_reviews(
    reviews: Mapping[str, Mapping[str, str | None]],
    *,
    labels: Sequence[str] | None = None,
    resamples: int = 10_000,
    confidence: float = 0.95,
    seed: int = 0,
) -> AgreementSummary:
    """The agreement summary of a merged review, item -> {reviewer: tag or None}: the one call
    the header, the report and the sign-off record make (see :meth:`Ratings.from_reviews`)."""
    ratings = Ratings.from_reviews(reviews, labels)
    return agreement(ratings, resamples=resamples, confidence=confidence, seed=seed)
