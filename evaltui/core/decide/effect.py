"""The one effect formatter: an estimate and the interval its verdict rests on, in parts.

Every design's first line, the run-set report's pair rows and matrix cells and the "overall" row
of every export say the effect with these functions, so the digits (`words.interval_digits`),
the unit and the sign of an effect read the same on every surface. `OverallRow.of` is the overall
row's numbers: the decision's interval, verdict and p (cluster-aware when the items cluster),
never the item-level ones the slice table computes beside the slices.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from evaltui.core.decide.vocabulary import VERDICT_SHORT, Effect
from evaltui.core.words import (
    estimate_and_interval,
    interval_digits,
    percent_and_interval,
    signed,
)


def effect_of(
    estimate: float,
    lo: float,
    hi: float,
    in_points: bool,
    *,
    qualifier: str = "",
    verdict: str = "",
    measure: str = "",
) -> Effect:
    """`+6.0 pts [-0.7, +12.4]` in parts (`words.estimate_and_interval`: decimals enough to
    read the interval; an undefined interval leaves the estimate alone)."""
    value, interval = estimate_and_interval(estimate, lo, hi, in_points)
    return Effect(value, interval, qualifier, verdict, measure)


def pair_estimate(analysis: Any) -> float:
    """The pair's overall estimate: the pass-rate delta, or the mean per-item delta."""
    return analysis.binary.delta if analysis.binary is not None else analysis.graded.mean_delta


def pair_effect(analysis: Any) -> Effect:
    """The pair's effect on its first line: the estimate, the interval the verdict rests on
    (which interval, when it is not the item-level one), the verdict. Without a verdict the
    interval is not said (its decimals still are)."""
    lo, hi = analysis.decision_ci
    verdict = VERDICT_SHORT[analysis.verdict]
    measure = "" if analysis.binary is not None else "mean Δ"
    qualifier = "(clusters)" if analysis.clustered else ""  # (none while deciding: not shown)
    effect = effect_of(
        pair_estimate(analysis),
        lo,
        hi,
        analysis.in_points,
        qualifier=qualifier,
        verdict=verdict,
        measure=measure,
    )
    if analysis.verdict == "insufficient_data" or not effect.interval:
        k = interval_digits(lo, hi, analysis.in_points)
        unit = " pts" if analysis.in_points else ""
        estimate = signed(pair_estimate(analysis), analysis.in_points, k) + unit
        return Effect(estimate, verdict=verdict, measure=measure)
    return effect


def row_effect(row: Any) -> Effect:
    """One metric of the family as its reason says it: `-25.0 pts [-37.2, -14.0]` (the row's
    interval is the one its verdict rests on)."""
    lo, hi = row.ci
    return effect_of(row.delta, lo, hi, row.in_points)


def oriented_effect(analysis: Any, sign: float = 1.0) -> Effect:
    """A run-set pair's effect and interval without the verdict (the matrix marks it), read
    candidate minus baseline (sign 1) or the other way round (sign -1)."""
    estimate = pair_estimate(analysis)
    lo, hi = analysis.decision_ci
    if sign < 0:  # 0.0 - x, not -x: a mirrored zero prints as +0.0, not "-0.0"
        estimate, lo, hi = 0.0 - estimate, 0.0 - hi, 0.0 - lo
    return effect_of(estimate, lo, hi, analysis.in_points)


def percent_effect(
    estimate: float | None,
    lo: float | None,
    hi: float | None,
    *,
    subject: str = "",
    qualifier: str = "",
    verdict: str = "",
) -> Effect:
    """A rate in percent with its interval (a preference win rate), `subject` before it:
    `v2 wins 57.5% [52.6%, 62.3%]` (`words.percent_and_interval`)."""
    value, interval = percent_and_interval(estimate, lo, hi)
    lead = f"{subject} " if subject else ""
    return Effect(lead + value, interval, qualifier, verdict)


@dataclass(frozen=True)
class OverallRow:
    """What every "overall" row shows (the slice table of the text and Markdown reports, the
    sign-off Markdown, the app's slices screen): the decision's interval, verdict and p
    (cluster-aware when the items cluster), so no export contradicts its first line."""

    ci: tuple[float, float]
    verdict: str
    p: float | None
    label: str  # the row's name
    note: str  # which interval it is: "wild cluster bootstrap-t 95%, 31 clusters"

    @classmethod
    def of(cls, analysis: Any) -> OverallRow:
        """The pair's overall row: its decision interval and verdict, and the primary
        metric's p (the cluster-aware test when the items cluster, adjusted when the metric
        is one of a family)."""
        row = next((r for r in analysis.metrics if r.metric == analysis.metric), None)
        p = row.p_adjusted if row is not None and row.p_adjusted is not None else None
        if p is None and row is not None:
            p = row.p_raw
        lo, hi = analysis.decision_ci
        return cls((lo, hi), analysis.verdict, p, "overall", analysis.decision_ci_label)
