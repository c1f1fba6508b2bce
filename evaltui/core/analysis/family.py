"""Every metric of the pair at once: one row per metric, with p-values adjusted over the family.

A run that scores correctness, faithfulness and a pass/fail check offers several chances to
"find" a difference; the ones that can decide a release form a family and their p-values are
adjusted together (Holm by default). Metrics the policy lists under `monitor` are shown, with
their raw p only, and stay out of the family.

A verdict follows the adjusted p: a family member whose adjusted p is not below alpha is
"no significant difference" whatever its own interval says (its own verdict is kept beside it).
Each p tests what the row's interval describes: exact McNemar for pass/fail, the paired t test
of the mean for graded scores (Wilcoxon, which tests another location, is a labelled
reference), and with clusters the cluster-aware test the verdict interval inverts.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

from evaltui.core.analysis.metric_row import MetricRow, metric_label, names_metric
from evaltui.core.analysis.pair import analyze, metric_names
from evaltui.core.analysis.pair_result import CLUSTER_METHOD_LABELS, Analysis
from evaltui.core.compare.options import AnalysisOptions
from evaltui.core.errors import EvalTuiError
from evaltui.core.stats.multiplicity import adjust_pvalues


@dataclass(frozen=True)
class MetricRowNames:
    """What names a row and says how it is read, whatever its kind."""

    label: str
    role: str
    in_points: bool
    regressions: tuple[str, ...]


def metric_row(analysis: Analysis, in_family: bool, role: str = "decides") -> MetricRow:
    lo, hi = analysis.decision_ci
    verdict = analysis.verdict
    label = metric_label(analysis.metric, analysis.paired.baseline.metadata)
    named = MetricRowNames(label, role, analysis.in_points, analysis.regressions)
    if analysis.binary is not None:
        b = analysis.binary
        row = MetricRow(
            metric=analysis.metric,
            kind="binary",
            n=b.table.n,
            delta=b.delta,
            ci=(lo, hi),
            ci_method=b.ci_method,
            p_raw=b.mcnemar.exact_p,
            p_test="exact McNemar",
            p_adjusted=None,
            in_family=in_family,
            verdict=verdict,
            unadjusted_verdict=verdict,
            label=named.label,
            role=named.role,
            in_points=named.in_points,
            regressions=named.regressions,
        )
    else:
        g = analysis.graded_comparison
        row = MetricRow(
            metric=analysis.metric,
            kind="graded",
            n=g.n,
            delta=g.mean_delta,
            ci=(lo, hi),
            ci_method=f"bootstrap-{g.method}",
            p_raw=g.t_p,
            p_test="paired t",
            p_adjusted=None,
            in_family=in_family,
            verdict=verdict,
            unadjusted_verdict=verdict,
            p_reference=g.wilcoxon_p,
            p_reference_test="Wilcoxon signed-rank",
            label=named.label,
            role=named.role,
            in_points=named.in_points,
            regressions=named.regressions,
        )
    c = analysis.clusters
    if c is not None:  # the cluster-aware test the verdict interval inverts
        p = c.verdict_p
        return replace(
            row,
            ci_method=c.verdict_method,
            p_raw=None if p is None or math.isnan(p) else p,
            p_test=CLUSTER_METHOD_LABELS.get(c.verdict_method, c.verdict_method),
        )
    return row


def _adjusted_verdict(row: MetricRow, alpha: float, family_size: int) -> str:
    own = row.unadjusted_verdict
    if not row.in_family or family_size < 2 or own not in ("improved", "regressed"):
        return own
    if row.p_adjusted is None or row.p_adjusted >= alpha:
        return "no_significant_difference"
    return own


def metric_family(
    primary: Analysis,
    multiplicity: str = "holm",
    monitor: tuple[str, ...] = (),
    secondary: tuple[str, ...] = (),
) -> tuple[MetricRow, ...]:
    """Analyse every metric the pair carries (the primary one is reused, not recomputed).

    Every metric is in the family and can block, but the policy's `monitor` ones (shown, raw
    p, out of the family) and `secondary` ones (in the family, adjusted, shown; their
    regression does not block). The primary metric always decides."""
    paired = primary.paired
    meta = paired.baseline.metadata
    rows = []
    for metric in metric_names(paired):
        label = metric_label(metric, meta)
        watched = names_metric(monitor, metric, label) and metric != primary.metric
        minor = names_metric(secondary, metric, label) and metric != primary.metric
        role = "monitor" if watched else "secondary" if minor else "decides"
        if metric == primary.metric:
            analysis = primary
        else:
            options: AnalysisOptions = replace(primary.options, metric=metric)
            try:
                analysis = analyze(paired, options, row_only=True)  # (read for its row)
            except EvalTuiError:
                continue  # a metric with missing values in one arm: shown by its own analysis
        rows.append(metric_row(analysis, in_family=role != "monitor", role=role))
    family = [i for i, r in enumerate(rows) if r.in_family]
    adjusted = adjust_pvalues([rows[i].p_raw for i in family], multiplicity)
    for i, p in zip(family, adjusted, strict=True):
        rows[i] = replace(rows[i], p_adjusted=p)
    alpha = primary.options.alpha
    return tuple(replace(r, verdict=_adjusted_verdict(r, alpha, len(family))) for r in rows)
