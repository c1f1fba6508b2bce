"""Every metric of the pair at once: one row per metric, with p-values adjusted over the family.

A run that scores correctness, faithfulness and a pass/fail check offers several chances to
"find" a difference; the ones that can decide a release form a family and their p-values are
adjusted together (Holm by default). Metrics the policy lists under `monitor` are shown, with
their raw p only, and stay out of the family.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from evaltui.core.analysis import Analysis, AnalysisOptions, analyze
from evaltui.core.errors import EvalTuiError
from evaltui.core.pairing import PairedRuns
from evaltui.core.runs import PASSED
from evaltui.core.stats.multiplicity import adjust_pvalues


@dataclass(frozen=True)
class MetricRow:
    """One metric's comparison, as the family table shows it."""

    metric: str
    kind: str  # binary | graded
    n: int
    delta: float
    ci: tuple[float, float]
    ci_method: str
    p_raw: float | None
    p_test: str  # which test gave p_raw
    p_adjusted: float | None  # None outside the family, or when p is undefined
    in_family: bool
    verdict: str


def metric_names(paired: PairedRuns) -> tuple[str, ...]:
    return ((PASSED,) if paired.has_verdicts else ()) + tuple(paired.score_columns)


def metric_row(analysis: Analysis, in_family: bool) -> MetricRow:
    if analysis.binary is not None:
        c = analysis.binary
        return MetricRow(
            metric=analysis.metric,
            kind="binary",
            n=c.table.n,
            delta=c.delta,
            ci=(c.delta_ci.lower, c.delta_ci.upper),
            ci_method=c.ci_method,
            p_raw=c.mcnemar.exact_p,
            p_test="exact McNemar",
            p_adjusted=None,
            in_family=in_family,
            verdict=analysis.verdict,
        )
    g = analysis.graded
    return MetricRow(
        metric=analysis.metric,
        kind="graded",
        n=g.n,
        delta=g.mean_delta,
        ci=g.ci,
        ci_method=f"bootstrap-{g.method}",
        p_raw=g.wilcoxon_p,
        p_test="Wilcoxon signed-rank",
        p_adjusted=None,
        in_family=in_family,
        verdict=analysis.verdict,
    )


def metric_family(
    primary: Analysis,
    multiplicity: str = "holm",
    monitor: tuple[str, ...] = (),
) -> tuple[MetricRow, ...]:
    """Analyse every metric the pair carries (the primary one is reused, not recomputed)."""
    paired = primary.paired
    rows = []
    for metric in metric_names(paired):
        if metric == primary.metric:
            analysis = primary
        else:
            options: AnalysisOptions = replace(primary.options, metric=metric)
            try:
                analysis = analyze(paired, options)
            except EvalTuiError:
                continue  # a metric with missing values in one arm: shown by its own analysis
        rows.append(metric_row(analysis, in_family=metric not in monitor))
    family = [i for i, r in enumerate(rows) if r.in_family]
    adjusted = adjust_pvalues([rows[i].p_raw for i in family], multiplicity)
    for i, p in zip(family, adjusted, strict=True):
        rows[i] = replace(rows[i], p_adjusted=p)
    return tuple(rows)
