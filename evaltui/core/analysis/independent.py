"""Two runs of different items, compared as independent samples: the unpaired counterpart of
`analysis.Analysis` (design rule D1; the tests of R9 and R10, in `stats.independent`).

Each arm is reduced to one value per item, on its own: the verdict (or, with epochs, the item's
pass rate) or the item's mean score. Nothing is joined: an item of one arm has no partner in
the other. Errored records count as failures unless `--on-error exclude` removes them, and then
from their own arm only, counted. The result says everywhere that it is the independent
(unpaired) comparison, and why the paired one was impossible (`design.reason`).

Item-level triage (the regression and improvement lists), slices, clusters and the metric family
are paired notions and are not computed here.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import polars as pl

from evaltui.core.analysis.pair_result import CI_METHOD_LABELS
from evaltui.core.compare.choose_design import DesignChoice
from evaltui.core.compare.direction import metric_direction
from evaltui.core.compare.errored import errored_treatment
from evaltui.core.compare.options import AnalysisOptions
from evaltui.core.compare.pairing import (
    ArmReport,
    _arm_report,
    _check_duplicates,
    _crashed_takes_the_others_shape,
    _per_item,
)
from evaltui.core.compare.run_metadata import metadata_warnings
from evaltui.core.errors import InputError, UsageError
from evaltui.core.read.runs import CLUSTER, FAILURE_STATUSES, ITEM_ID, PASSED, STATUS, Run
from evaltui.core.read.turns import LIMIT_VERDICT
from evaltui.core.stats.independent import (
    FLAG_TEXT,
    IndependentComparison,
    compare_proportions,
    compare_scores,
)
from evaltui.core.words import estimate_and_interval, p_is, percent

LABEL = "independent (unpaired) comparison"
ARMS = ("baseline", "candidate")
# The verdict rests on the test at alpha (stats.independent), not on the interval.
VERDICT_TEXT = {
    "improved": "improved: the test finds a difference at alpha, in the candidate's favour",
    "regressed": "regressed: the test finds a difference at alpha, against the candidate",
    "no_significant_difference": "no significant difference: the test finds none at alpha",
    "insufficient_data": "insufficient data for a verdict",
}


@dataclass(frozen=True, eq=False)
class Arm:
    """One arm: its run, what loading and `--on-error` did to it, and one value per item."""

    run: Run
    report: ArmReport
    values: np.ndarray  # per item, in file order: 0/1 verdicts, pass rates or mean scores
    binary: bool  # every value is 0 or 1

    @property
    def n(self) -> int:
        return int(self.values.size)


@dataclass(frozen=True, eq=False)
class IndependentAnalysis:
    """Everything shown about two runs of different items: the comparison, why it is not
    paired, the headline and the warnings. `kind` is binary or graded, as for a pair."""

    baseline: Arm
    candidate: Arm
    design: DesignChoice
    options: AnalysisOptions
    metric: str
    comparison: IndependentComparison
    on_error: str
    headline: str
    warnings: tuple[str, ...]
    spec: Any = None  # the CompareSpec (compare sets it)
    policy: Any = None

    label = LABEL

    @property
    def kind(self) -> str:
        return self.comparison.kind

    @property
    def verdict(self) -> str:
        return self.comparison.verdict

    @property
    def flags(self) -> tuple[str, ...]:
        return self.comparison.flags

    @property
    def in_points(self) -> bool:
        return self.metric == PASSED

    @property
    def runs(self) -> tuple[Run, Run]:
        return self.baseline.run, self.candidate.run

    @property
    def decision_ci(self) -> tuple[float, float]:
        return self.comparison.ci.lower, self.comparison.ci.upper

    @property
    def decision_ci_label(self) -> str:
        level = f"{self.comparison.confidence * 100:g}%"
        method = "Newcombe" if self.comparison.ci.method == "newcombe" else "Welch"
        return f"{method} {level}, independent"


def resolve_metric(baseline: Run, candidate: Run, requested: str | None) -> str:
    """The metric both runs carry: `requested`, else passed, else the first shared score."""
    scores = [c for c in baseline.score_columns if c in candidate.score_columns]
    verdicts = baseline.has_verdicts and candidate.has_verdicts
    if requested is not None:
        if (requested == PASSED and verdicts) or requested in scores:
            return requested
        available = ([PASSED] if verdicts else []) + scores
        if requested.startswith(f"{PASSED}:"):
            # Another scorer's verdicts, or limit hits (`passed:no_limit_hit`): the arms here
            # are the runs' own verdicts or a score, so say what the paired design offers.
            what = "limit hits" if requested == LIMIT_VERDICT else f"the verdicts {requested!r}"
            raise UsageError(
                f"--design independent compares {' or '.join(map(repr, available)) or 'nothing'}"
                f", not {what}: compare {what} with the paired design (drop --design independent)"
            )
        raise UsageError(f"no metric {requested!r} in both runs; available: {', '.join(available)}")
    if verdicts:
        return PASSED
    if scores:
        return scores[0]
    missing = candidate if baseline.has_verdicts else baseline
    raise InputError(
        missing.source.path,
        "shares no metric with the other run (neither 'passed' verdicts nor a score column); "
        "both runs need the same metric",
    )


def _arm(run: Run, metric: str, on_error: str) -> Arm:
    """One value per item of `run` on `metric`, after `--on-error`."""
    _check_duplicates(run)
    excluded_records = 0
    table = run.table
    if on_error == "exclude":
        errored = table.filter(pl.col(STATUS).is_in(list(FAILURE_STATUSES)))
        excluded_records = errored.height
        if errored.height:
            gone = errored[ITEM_ID].unique().implode()
            table = table.filter(~pl.col(ITEM_ID).is_in(gone))
    report = _arm_report(run, excluded_records, ())
    kept = Run(run.source, table, run.transcripts, run.metadata) if table is not run.table else run
    scores = (metric,) if metric != PASSED else ()
    items = _per_item(kept, scores)
    column = "pass" if metric == PASSED else metric
    if items.height == 0:
        raise UsageError(
            f"{run.source.path} has no items left to compare"
            + (" after --on-error exclude" if excluded_records else "")
        )
    missing = items.filter(pl.col(column).is_null())
    if missing.height:
        ids = ", ".join(repr(i) for i in missing[ITEM_ID].head(5).to_list())
        raise InputError(
            run.source.path,
            f"{missing.height} item(s) have no {metric} (errored records carry no score): {ids}; "
            "use --on-error exclude, or give them a score",
            field=metric,
        )
    values = items[column].cast(pl.Float64).to_numpy()
    binary = bool(np.all((values == 0.0) | (values == 1.0)))
    return Arm(kept, report, values, binary)


def analyze_independent(
    baseline: Run,
    candidate: Run,
    design: DesignChoice,
    options: AnalysisOptions,
    *,
    on_error: str = "fail",
    spec: Any = None,
    policy: Any = None,
) -> IndependentAnalysis:
    """Compare two runs of different items as independent samples (see the module docstring).

    Pass/fail verdicts, one per item, get the proportions comparison (R9); scores, or pass
    rates over epochs, get Welch's t (R10)."""
    baseline, candidate = _crashed_takes_the_others_shape(baseline, candidate)
    metric = resolve_metric(baseline, candidate, options.metric)
    base, cand = _arm(baseline, metric, on_error), _arm(candidate, metric, on_error)
    # The same rule as the paired analysis (compare.direction): the user, the policy, the log,
    # the name; an unknown direction gives no directional verdict, as for a pair.
    direction = (
        None
        if metric == PASSED
        else metric_direction(
            metric,
            [baseline.metadata, candidate.metadata],
            options.direction,
            options.policy_directions,
        )
    )
    lower_is_better = direction is not None and direction.lower_is_better
    if metric == PASSED and base.binary and cand.binary:
        comparison = compare_proportions(
            int(cand.values.sum()),
            cand.n,
            int(base.values.sum()),
            base.n,
            confidence=options.confidence,
            alpha=options.alpha,
        )
    else:
        comparison = compare_scores(
            cand.values,
            base.values,
            confidence=options.confidence,
            alpha=options.alpha,
            lower_is_better=lower_is_better,
            seed=options.seed,
        )
    if direction is not None and not direction.known and comparison.kind == "graded":
        comparison = replace(
            comparison,
            verdict="insufficient_data",
            flags=(*comparison.flags, "direction_unknown"),
        )
    partial = IndependentAnalysis(
        base, cand, design, options, metric, comparison, on_error, "", (), spec, policy
    )
    return IndependentAnalysis(
        base,
        cand,
        design,
        options,
        metric,
        comparison,
        on_error,
        headline(partial),
        warnings_of(partial),
        spec,
        policy,
    )


def _value(analysis: IndependentAnalysis, value: float) -> str:
    return percent(value) if analysis.in_points else f"{value:.4g}"


def arm_text(analysis: IndependentAnalysis, arm: str) -> str:
    """ "72.0% of 120 items" or "mean 0.615 over 150 items"."""
    a = getattr(analysis.comparison, arm)
    if analysis.comparison.kind == "binary":
        return f"{percent(a.value)} of {a.n:,} items"
    what = "pass rate per item" if analysis.in_points else "mean"
    return f"{what} {_value(analysis, a.value)} over {a.n:,} items"


def tests_text(c: IndependentComparison) -> str:
    """The test the verdict rests on first, the other beside it: "two-proportion z (pooled)
    p = 0.008 (Fisher exact p = 0.013)"; "Welch t = 2.10, df 315.2, p = 0.036"."""
    if c.kind == "graded":
        t = c.test
        if t.statistic is None or math.isnan(t.statistic):
            return "Welch t undefined"
        if t.name == "permutation_welch_t" and c.other_test is not None:
            w = c.other_test
            return (
                f"permutation test of Welch t = {t.statistic:.2f}, p {p_is(_p(t.p))} "
                f"(Welch's own p {p_is(_p(w.p))}, df {w.df:.1f}: an arm is too skewed for it)"
            )
        return f"Welch t = {t.statistic:.2f}, df {t.df:.1f}, p {p_is(_p(t.p))}"
    lead = f"{c.test.label} p {p_is(_p(c.test.p))}"
    other = c.other_test
    return lead + (f" ({other.label} p {p_is(_p(other.p))})" if other is not None else "")


def _p(p: float) -> float | None:
    return None if math.isnan(p) else p


def effect_text(analysis: IndependentAnalysis) -> str:
    """The difference with its interval: "+12.0 pts [-0.6, +24.0]"."""
    c = analysis.comparison
    value, interval = estimate_and_interval(c.delta, c.ci.lower, c.ci.upper, analysis.in_points)
    return f"{value} {interval}".rstrip()


def headline(analysis: IndependentAnalysis) -> str:
    """One sentence, labelled as the independent comparison it is."""
    c = analysis.comparison
    arms = (
        f"candidate {arm_text(analysis, 'candidate')} vs baseline {arm_text(analysis, 'baseline')}"
    )
    if "small_n" in c.flags:
        return f"Independent (unpaired) comparison, {arms}: too few items for a verdict."
    if {"no_variation", "zero_variance"} & set(c.flags):
        return f"Independent (unpaired) comparison, {arms}: nothing to weigh, no verdict."
    method = CI_METHOD_LABELS["newcombe"] if c.kind == "binary" else "Welch"
    level = f"{c.confidence * 100:g}%"
    what = "" if c.kind == "binary" else "mean "
    return (
        f"Independent (unpaired) comparison: candidate {what}{effect_text(analysis)} "
        f"({method} {level}, independent samples), {tests_text(c)}; {arms}."
    )


def warnings_of(analysis: IndependentAnalysis) -> tuple[str, ...]:
    """The flags, the arms' error and epoch counts and the runs' metadata, in plain words."""
    out = [FLAG_TEXT[f] for f in analysis.comparison.flags]
    for name, arm in (("baseline", analysis.baseline), ("candidate", analysis.candidate)):
        r = arm.report
        if analysis.on_error == "exclude" and r.excluded_records:
            out.append(f"{r.excluded_records} errored record(s) excluded from the {name}")
        elif analysis.on_error == "fail" and r.errored_records:
            how = errored_treatment(analysis.metric)  # the default keeps its printed words
            default = how == "counted as failures"
            where = f"{how} in the {name}" if default else f"in the {name} {how}"
            out.append(f"errors/timeouts {where}: {r.errored_records}")
        if r.unequal_epochs:
            out.append(f"unequal epochs in the {name}: {r.epochs_min} to {r.epochs_max} per item")
    if analysis.options.pass_threshold is not None:
        out.append(
            f"verdicts from {analysis.options.threshold_metric}: pass when >= "
            f"{analysis.options.pass_threshold:g}"
        )
    clustered = [
        name
        for name, arm in (("baseline", analysis.baseline), ("candidate", analysis.candidate))
        if CLUSTER in arm.run.table.columns and arm.run.table[CLUSTER].null_count() < arm.n
    ]
    if clustered:
        out.append(
            f"the {' and the '.join(clustered)} items carry clusters: these tests treat every "
            "item as independent of the others, so their p-values and intervals are too "
            "optimistic"
        )
    out.extend(metadata_warnings(analysis.baseline.run, analysis.candidate.run))
    return tuple(out)
