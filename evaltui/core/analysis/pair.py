"""From paired runs to the answer a reviewer reads first: the numbers, the flags, one sentence.

The report, the sign-off record and the app all show the same `Analysis`, so the verdict a
reviewer sees on screen is word for word the one that lands in the PR.

Two kinds of analysis, chosen by the data:
- binary: one pass/fail per item and arm -> the 2x2 table, paired CI, exact McNemar;
- graded: a score per item, or a per-item pass rate over epochs -> the paired t interval of the
  mean per-item delta decides (no verdict when the deltas are too skewed for any test of the
  mean at this n: `stats.mean_check`); the paired bootstrap over per-item deltas (resampling
  items, never the two columns) and Wilcoxon are shown for reference.
Either way, a `cluster` column adds the cluster bootstrap and clustered SE, and epochs add a
summary of how much of the variance sits inside items.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from typing import TYPE_CHECKING

import numpy as np
import polars as pl

from evaltui.core.analysis.concordant import concordant_counts
from evaltui.core.analysis.pair_headline import (
    headline,
    warnings_of,
)
from evaltui.core.analysis.pair_result import Analysis
from evaltui.core.compare.direction import metric_direction
from evaltui.core.compare.options import AnalysisOptions
from evaltui.core.compare.pairing import BASE_PASS, CAND_PASS, PairedRuns, arm_columns
from evaltui.core.errors import UsageError
from evaltui.core.read.runs import (
    CLUSTER,
    ITEM_ID,
    PASSED,
    SCORE,
    STATUS,
    Run,
    is_verdict_metric,
)
from evaltui.core.read.turns import LIMIT_HITS, LIMIT_VERDICT, cost_metric
from evaltui.core.stats.binary import BinaryComparison, compare_binary
from evaltui.core.stats.clusters import (
    ClusteredComparison,
    clustered_delta,
)
from evaltui.core.stats.epochs import EpochSummary, epoch_summary
from evaltui.core.stats.graded import GradedComparison, graded_regressions, paired_bootstrap
from evaltui.core.stats.mean_check import check_mean
from evaltui.core.stats.paired_table import PairedTable

if TYPE_CHECKING:  # breakdowns filled in after the analysis (pipeline.add_breakdowns)
    pass


def item_values(analysis: Analysis, item_ids: Iterable[str] | None = None) -> dict[str, tuple]:
    """Each item's (baseline, candidate) value of the compared metric, as the reviewer sees it."""
    items = analysis.paired.items
    if item_ids is not None:
        wanted = list(item_ids)
        items = items.filter(pl.col(ITEM_ID).is_in(pl.Series(wanted, dtype=pl.String).implode()))
    cols = arm_columns(analysis.metric)
    return {row[0]: (row[1], row[2]) for row in items.select(ITEM_ID, *cols).iter_rows()}


def choose_metric(run: Run, requested: str | None) -> str | None:
    """The column `requested` names in `run`, or None when it names none (a scorer, say)."""
    if requested is None:
        return None
    if requested == LIMIT_HITS and LIMIT_VERDICT in run.table.columns:
        return LIMIT_VERDICT
    for candidate in (requested, f"score:{requested}"):
        named = candidate.startswith(SCORE) or candidate.startswith(f"{PASSED}:")
        if candidate == PASSED or (candidate in run.table.columns and named):
            return candidate  # (`passed:<scorer>`: a spec made after `m` moved to that scorer)
    return None


def check_cost_metric(run: Run, requested: str | None) -> None:
    """`--metric working_time` (a cost figure) on a run that records no costs is refused, not
    dropped: only Inspect logs record what a sample cost, and a run of another format would
    otherwise be compared on its verdicts under a metric it never had."""
    if cost_metric(requested) is None or choose_metric(run, requested) is not None:
        return
    raise UsageError(
        f"--metric {requested} is a cost figure; {run.source.path} ({run.source.format}) "
        "records no per-sample cost: only Inspect logs (.eval, .json) do"
    )


def check_metric_named(run: Run, requested: str | None) -> None:
    """`--metric X` on a run whose format has no scorers to choose among (JSONL, CSV, Parquet,
    promptfoo: `CHOOSES_SCORER` is the formats' that do) and no score column X was dropped
    without a word: the run was compared on its default metric. Refused, naming what it has."""
    if requested is None or cost_metric(requested) is not None:
        return
    if choose_metric(run, requested) is not None:
        return
    from evaltui.core.read.formats import format_options

    declared = format_options(run.source.format)
    if declared is None or getattr(declared, "CHOOSES_SCORER", False):
        return  # (its loader chose the scorer, or refused the name in its own words)
    scores = ", ".join(c.removeprefix(SCORE) for c in run.score_columns) or "none"
    raise UsageError(
        f"--metric {requested}: {run.source.path} ({run.source.format}) has no score of that "
        f"name (its scores: {scores}); --metric picks a scorer of an Inspect, lm-eval, HELM or "
        "OpenAI evals log, or one of a run's score columns"
    )


def check_cost_threshold(requested: str | None, pass_threshold: float | None) -> None:
    """`--pass-threshold` passes a score at or above it: on a cost (lower is better) that
    would pass the expensive samples, and limit hits are already a verdict. Refused with
    what to use instead."""
    figure = cost_metric(requested)
    if figure is None or pass_threshold is None:
        return
    if figure == LIMIT_HITS:
        raise UsageError(
            "--pass-threshold does not apply to --metric limit_hits: each sample is already "
            "stopped or not (the paired test is exact McNemar); drop --pass-threshold"
        )
    instead = "or bound its growth with a policy gate (max_cost_growth)"
    raise UsageError(
        f"--pass-threshold would pass the samples whose {figure} is at or above it, but "
        f"{figure} is a cost (lower is better): compare it per item without --pass-threshold"
        + ("" if figure == "retries" else f", {instead}")
    )


def apply_threshold(run: Run, metric: str, threshold: float) -> Run:
    """Turn a graded metric into verdicts: score >= threshold passes; errored records fail."""
    if metric not in run.table.columns:
        raise UsageError(
            f"--pass-threshold needs a score column; {run.source.path} has none named {metric!r}"
        )
    table = run.table.with_columns(
        pl.when(pl.col(STATUS) != "ok")
        .then(False)
        .otherwise(pl.col(metric) >= threshold)
        .fill_null(False)
        .alias(PASSED)
    )
    return Run(run.source, table, run.transcripts, run.metadata)


def metric_names(paired: PairedRuns) -> list[str]:
    """Every metric both runs carry, the verdicts first: `passed`, `passed:<scorer>`, scores."""
    verdicts = [PASSED] if paired.has_verdicts else []
    return verdicts + list(paired.verdict_columns) + list(paired.score_columns)


def resolve_metric(paired: PairedRuns, requested: str | None) -> str:
    if requested is not None:
        if requested == PASSED and paired.has_verdicts:
            return PASSED
        if requested in paired.score_columns or requested in paired.verdict_columns:
            return requested
        available = metric_names(paired)
        raise UsageError(f"no metric {requested!r} in both runs; available: {', '.join(available)}")
    if paired.has_verdicts:
        return PASSED
    return paired.score_columns[0]


def analyze(
    paired: PairedRuns,
    options: AnalysisOptions | None = None,
    clusters: bool = True,
    *,
    row_only: bool = False,
) -> Analysis:
    """Compare the two arms of `paired` on one metric, with the right interval for the data.

    `clusters=False` leaves the cluster bootstrap for `with_clusters` (the app shows its first
    screen first); `clusters_pending` then says so. `row_only=True` is for an analysis read
    only for its metric family row (`family.metric_row`, which names the regressions, never
    the improvements): the improvements' ids are not listed (an empty tuple; 0.03 s of Python
    strings for a graded metric at a million items), so neither its headline nor its lists are
    to be shown.
    """
    options = options or AnalysisOptions()
    metric = resolve_metric(paired, options.metric)
    items = paired.items
    if metric == PASSED:
        base_values, cand_values = items[BASE_PASS], items[CAND_PASS]
    else:
        base_values, cand_values = (items[c] for c in arm_columns(metric))
        missing = items.filter(base_values.is_null() | cand_values.is_null())
        if missing.height:
            shown = ", ".join(repr(i) for i in missing[ITEM_ID].head(5).to_list())
            raise UsageError(
                f"{missing.height} paired item(s) have no {metric} in one run (errored records "
                f"carry no score): {shown}; use --on-error exclude, or give them a score"
            )
    deltas = (cand_values - base_values).to_numpy().astype(np.float64)
    ids = items[ITEM_ID]

    binary: BinaryComparison | None = None
    graded: GradedComparison | None = None
    if paired.is_binary(metric):
        base, cand = paired.verdicts(metric)
        binary = compare_binary(
            PairedTable.from_verdicts(base, cand),
            ci_method=options.ci_method,
            confidence=options.confidence,
            alpha=options.alpha,
        )
        regressed, improved = base & ~cand, ~base & cand
    else:
        graded = paired_bootstrap(
            deltas,
            resamples=options.resamples,
            confidence=options.confidence,
            seed=options.seed,
            method=options.bootstrap,
        )
        regressed, improved = graded_regressions(deltas, options.tolerance)
        # A loss (mae, a distance; declared by the log, given by the user or inferred from the
        # name: compare.direction): a drop is the improvement. With the direction unknown no
        # item is called either until the user says which way is better.
        runs = (paired.baseline, paired.candidate)
        direction = metric_direction(
            metric, [r.metadata for r in runs], options.direction, options.policy_directions
        )
        if not is_verdict_metric(metric) and direction.lower_is_better:
            regressed, improved = improved, regressed  # Analysis.lower_is_better: the verdict too
        elif not direction.known:
            regressed = improved = np.zeros(len(deltas), dtype=bool)
    regressions = tuple(ids.filter(pl.Series(regressed)).to_list())
    improvements = () if row_only else tuple(ids.filter(pl.Series(improved)).to_list())

    epochs = _epochs(paired, metric) if paired.report.has_epochs else None
    partial = Analysis(
        paired, options, metric, binary, graded, epochs, None, deltas,
        regressions, improvements, "", (),
        mean_check=check_mean(deltas) if graded is not None else None,
    )  # fmt: skip
    changed = np.asarray(regressed, dtype=bool) | np.asarray(improved, dtype=bool)
    concordant = concordant_counts(partial, changed)
    partial = replace(partial, headline=headline(partial), concordant=concordant)
    return with_clusters(partial) if clusters else replace(partial, warnings=warnings_of(partial))


def with_clusters(analysis: Analysis) -> Analysis:
    """Add the cluster bootstrap and clustered SE (when items carry clusters) and the warnings
    that depend on them."""
    clustered = _clusters(analysis.paired.items, analysis.deltas, analysis.options)
    done = replace(analysis, clusters=clustered, clusters_done=True)
    done = replace(done, headline=headline(done))
    return replace(done, warnings=warnings_of(done))


def _epochs(paired: PairedRuns, metric: str) -> dict[str, EpochSummary]:
    out = {}
    for arm, run in (("baseline", paired.baseline), ("candidate", paired.candidate)):
        table = run.table.filter(pl.col(ITEM_ID).is_in(paired.items[ITEM_ID].implode()))
        if metric == PASSED:
            values = table[PASSED].fill_null(False).cast(pl.Float64)
        else:
            values = table[metric].cast(pl.Float64)
        keep = values.is_not_null()
        codes = table[ITEM_ID].cast(pl.Categorical).to_physical()
        out[arm] = epoch_summary(codes.filter(keep).to_numpy(), values.filter(keep).to_numpy())
    return out


def _clusters(
    items: pl.DataFrame, deltas: np.ndarray, options: AnalysisOptions
) -> ClusteredComparison | None:
    if CLUSTER not in items.columns or items[CLUSTER].null_count() == items.height:
        return None
    # An item without a cluster is its own cluster: never pooled with strangers.
    labels = items.select(pl.coalesce(CLUSTER, pl.lit("\0item:") + pl.col(ITEM_ID))).to_series()
    # Integer codes in the labels' sorted order (the bootstrap draws clusters by code, so the
    # order must not depend on the file's row order). Sorting the distinct labels and mapping
    # them back is 0.13 s at a million items; rank("dense") sorted all of them (0.34 s).
    distinct = labels.unique().sort()
    codes = labels.replace_strict(
        distinct, pl.int_range(distinct.len(), eager=True), return_dtype=pl.Int64
    ).to_numpy()
    return clustered_delta(
        deltas,
        codes,
        resamples=options.resamples,
        confidence=options.confidence,
        seed=options.seed,
        unlabelled_items=items[CLUSTER].null_count(),
    )


VERDICT_TEXT = {
    "improved": "improved: the interval lies above zero",
    "regressed": "regressed: the interval lies below zero",
    "no_significant_difference": "no significant difference: the interval includes zero",
    "insufficient_data": "insufficient data for a verdict",
}
