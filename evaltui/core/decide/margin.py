"""The policy's margin on a pair: non-inferiority or equivalence, answered for its analysis.

The statistics are in :mod:`evaltui.core.stats.margins`; this module picks the interval family
the verdict itself uses, at the margin's level 1 - 2 alpha (alpha is the policy's):

- pass/fail, one verdict per item: the policy's ``ci_method`` (Tango by default) and Tango's
  one-sided score tests;
- graded scores, or pass rates averaged over epochs (each item's epochs are averaged before
  pairing, so an item is one paired delta however often it ran): the paired t interval, the one
  the verdict reads, and the one-sided paired t tests it inverts;
- clustered items, either kind: the cluster-aware interval the verdict rests on (the wild
  cluster bootstrap-t, or CR1 t with many clusters) and one-sided CR1 t tests.

It says "undecided" where the verdict says "no verdict" for want of data (fewer than 30 paired
items, fewer than 10 labelled clusters, deltas too skewed for a test of the mean), and
"pending" while the app has not yet run the cluster bootstrap. No item changing at all is not
undecided: it is the strongest evidence of equivalence there is, and the interval says how
strong.
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import TYPE_CHECKING

from evaltui.core.analysis.pair_result import CI_METHOD_LABELS, CLUSTER_METHOD_LABELS
from evaltui.core.stats.graded_reference import paired_t_interval
from evaltui.core.stats.margins import (
    MARGIN_KINDS,
    MarginTest,
    binary_margin,
    cluster_t_one_sided,
    decide_margin,
    paired_t_one_sided,
)
from evaltui.core.words import p_is, signed

if TYPE_CHECKING:
    from evaltui.core.analysis.pair_result import Analysis
    from evaltui.core.policy.schema import Policy

__all__ = ["MARGIN_KINDS", "evaluate_margin", "margin_test"]

WORDS = {"non_inferiority": "non-inferior", "equivalence": "equivalent"}


def margin_test(policy: Policy, analysis: Analysis) -> MarginTest | None:
    """The policy's margin question on ``analysis`` (its primary metric), or None without one.
    ``analysis.clusters_pending`` must be False (see :func:`evaluate_margin`)."""
    question = policy.margin
    if question is None:
        return None
    kind, margin = question
    alpha = policy.alpha
    level = 1.0 - 2.0 * alpha
    undecided = _undecided(analysis)
    options = analysis.options
    c = analysis.clusters
    if c is not None:  # clustered
        if not math.isclose(options.confidence, level):
            from evaltui.core.analysis.pair import with_clusters

            again = with_clusters(replace(analysis, options=replace(options, confidence=level)))
            if again.clusters is None:  # the same items carry the same clusters at any level
                raise TypeError("the clusters were lost when the interval was recomputed")
            c = again.clusters
        method = CLUSTER_METHOD_LABELS.get(c.verdict_method, "no cluster interval")
        _, p_below, _ = cluster_t_one_sided(c.mean_delta, c.cr1_se, c.n_clusters, -margin)
        _, _, p_above = cluster_t_one_sided(c.mean_delta, c.cr1_se, c.n_clusters, margin)
        return decide_margin(
            kind, margin, alpha, c.mean_delta, c.verdict_ci,
            f"{method} {level * 100:g}%, {c.labelled_clusters} clusters",
            "cluster-robust t (CR1)", p_below, p_above,
            lower_is_better=analysis.lower_is_better, undecided=undecided,
        )  # fmt: skip
    if analysis.binary is not None:
        return binary_margin(
            analysis.binary.table,
            kind,
            margin,
            alpha,
            options.ci_method,
            method_label=CI_METHOD_LABELS.get(options.ci_method, options.ci_method),
            undecided=undecided,
        )
    # The paired t interval at 1 - 2 alpha: the interval the graded verdict reads, and the
    # one the one-sided paired t tests beside it invert, so the two always agree.
    ci = paired_t_interval(analysis.deltas, level)
    _, p_below, _ = paired_t_one_sided(analysis.deltas, -margin)
    _, _, p_above = paired_t_one_sided(analysis.deltas, margin)
    return decide_margin(
        kind, margin, alpha, float(analysis.deltas.mean()), ci, f"paired t {level * 100:g}%",
        "paired t", p_below, p_above,
        lower_is_better=analysis.lower_is_better, undecided=undecided,
    )  # fmt: skip


def _undecided(analysis: Analysis) -> str | None:
    """Why the data cannot answer a margin, in the verdict's own words, or None."""
    flags = analysis.flags
    if "small_n" in flags:
        return f"only {analysis.paired.n:,} paired items: counts only, no verdict"
    if "skewed_deltas" in flags and analysis.mean_check is not None:
        return analysis.mean_check.reason
    if "too_few_clusters" in flags and analysis.clusters is not None:  # only clusters flag it
        labelled = analysis.clusters.labelled_clusters
        return f"only {labelled} clusters: too few for a cluster-aware interval"
    return None


def evaluate_margin(
    policy: Policy, analysis: Analysis
) -> tuple[str, str, str, MarginTest | None] | None:
    """The margin as a gate-like result: (status, detail, summary, test), None without a
    margin. Status is passed, failed, undecided (the data cannot answer) or pending (the
    cluster bootstrap has not run yet); ``summary`` is the few words of the first line."""
    question = policy.margin
    if question is None:
        return None
    kind, margin = question
    word = WORDS[kind]
    if analysis.clusters_pending:
        detail = f"waiting for the cluster-aware interval to decide whether it is {word}"
        return "pending", detail, f"{word}? (clusters pending)", None
    test = margin_test(policy, analysis)
    assert test is not None
    p = analysis.in_points
    unit = " pts" if p else ""
    lo, hi = test.interval
    k = _digits(test, p)

    def v(x: float) -> str:
        return signed(x, p, k)

    if test.shown is None:
        summary = f"no verdict on {kind.replace('_', '-')}"
        detail = f"{summary}: {test.undecided}"
        return "undecided", detail, summary, test
    if kind == "non_inferiority":
        side = "upper" if test.lower_is_better else "lower"
        bound = margin if test.lower_is_better else -margin
        limit = test.worse_limit
        if test.shown:
            sign = "<" if test.lower_is_better else ">"
            summary = f"{word}: {side} limit {v(limit)}{unit} {sign} {v(bound)}{unit}"
        else:
            sign = "≥" if test.lower_is_better else "≤"
            summary = f"not shown {word}: {side} limit {v(limit)}{unit} {sign} {v(bound)}{unit}"
        tested = (
            f"one-sided {test.test} p {p_is(test.p)} against Δ = {v(bound)}{unit} "
            f"at alpha {test.alpha:g}"
        )
    else:
        band = f"±{signed(margin, p, k).lstrip('+')}{unit}"
        interval = f"[{v(lo)}, {v(hi)}]{unit}"
        inside = "inside" if test.shown else "not inside"
        summary = f"{'' if test.shown else 'not shown '}{word}: {interval} {inside} {band}"
        tested = (
            f"TOST p {p_is(test.p)} (one-sided {test.test} p {_p(test.p_below)} against "
            f"Δ = {v(-margin)}{unit}, {_p(test.p_above)} against {v(margin)}{unit}) "
            f"at alpha {test.alpha:g}"
        )
    if "interval_test_disagree" in test.flags:
        tested += "; the interval and the test disagree: the result sits on the margin"
    detail = (
        f"{summary} (Δ {v(test.estimate)}{unit}, interval [{v(lo)}, {v(hi)}]{unit} by "
        f"{test.interval_method}; {tested})"
    )
    return ("passed" if test.shown else "failed"), detail, summary, test


def _p(p: float | None) -> str:
    from evaltui.core.words import format_p

    return format_p(p)


def _digits(test: MarginTest, in_points: bool) -> int:
    """Decimals enough that the limits read apart from the margin: one in points, three for
    scores, more while a limit and the margin would print alike (-1.0 > -1.0 says nothing)."""
    base = 1 if in_points else 3
    values = [x for x in test.interval if math.isfinite(x)]
    for k in range(base, base + 5):
        shown = {signed(abs(x), in_points, k) for x in values}
        if signed(test.margin, in_points, k) not in shown:
            return k
    return base + 4
