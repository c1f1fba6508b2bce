"""What the two runs cost and how often a limit stopped them, compared item by item.

An agent candidate can pass as often as the baseline and still be the worse release: 20%
slower, twice the tokens, stopped by its token limit twice as often. Inspect records these per
sample (the `cost:` columns of the statistics table, `read.turns.NUMERIC_COSTS`); here they are
paired on the items the verdicts are paired on, each item's epochs averaged, as the metric is:

- per cost figure: each run's median and mean per item, and the paired difference of the means
  (candidate - baseline) with a seeded percentile bootstrap interval over items
  (`stats.graded.paired_bootstrap`), and the relative change mean(candidate) /
  mean(baseline) - 1 with its interval from the same paired resampling of items, the ratio
  recomputed in each resample (`stats.paired_ratio`: never below -100% for a cost);
- the limits: the items a limit stopped (in any epoch) in each run, and the exact McNemar test
  on the items only one run was stopped on (`stats.paired_table.mcnemar`).

Runs without cost columns (every format but Inspect's) have no cost comparison (None).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from functools import partial
from typing import Any

import numpy as np
import polars as pl

from evaltui.core.analysis.step_progress import Progress
from evaltui.core.compare.pairing import PairedRuns
from evaltui.core.read.runs import ITEM_ID
from evaltui.core.read.turns import NUMERIC_COSTS, cost_column
from evaltui.core.stats.graded import GradedComparison, paired_bootstrap
from evaltui.core.stats.paired_ratio import PairedRatio, paired_ratio_bootstrap
from evaltui.core.stats.paired_table import PairedTable, mcnemar

# The figures compared with an interval; the others (input/output/reasoning tokens, retries)
# are shown as medians and totals beside them.
COMPARED = ("total_tokens", "working_time", "total_time")
RESAMPLES = 2_000  # the intervals are printed to two or three figures
SEED = 0


@dataclass(frozen=True)
class CostFigure:
    """One cost figure over the items both runs recorded it for (`n`; `missing` paired items
    lack it in at least one run: an errored sample has no usage)."""

    name: str
    n: int
    missing: int
    median: tuple[float, float]  # per item, baseline then candidate
    mean: tuple[float, float]
    total: tuple[float, float]  # over every sample of the run (all epochs, all items)
    difference: GradedComparison | None  # candidate - baseline, per item; None: not compared
    ratio: PairedRatio | None = None  # mean(candidate) / mean(baseline) - 1; with difference

    @property
    def relative(self) -> float | None:
        """mean(candidate) / mean(baseline) - 1 (+0.2: 20% more); None: not compared, or the
        baseline's mean is 0."""
        return self.ratio.relative if self.ratio is not None else None

    @property
    def relative_ci(self) -> tuple[float, float] | None:
        """The relative change's paired bootstrap interval (the ratio of means recomputed in
        each resample of items), so never below -1 for a non-negative figure."""
        return self.ratio.ci if self.ratio is not None else None


@dataclass(frozen=True)
class LimitHits:
    """Items a limit stopped (in at least one epoch) per run, samples stopped per run and by
    limit type, and the exact McNemar p over the items only one run was stopped on."""

    items: tuple[int, int]
    samples: tuple[int, int]
    by_type: tuple[dict[str, int], dict[str, int]]
    table: PairedTable  # "pass" = not stopped: regressions are items only the candidate hit
    exact_p: float | None


@dataclass(frozen=True)
class CostComparison:
    """Every cost figure both runs record, the limits, and the paired item count."""

    n_items: int
    figures: tuple[CostFigure, ...]
    limits: LimitHits | None
    errors: tuple[int, int]  # samples that ended in an error, per run

    def figure(self, name: str) -> CostFigure | None:
        return next((f for f in self.figures if f.name == name), None)


def _present(paired: PairedRuns) -> list[str]:
    runs = (paired.baseline.table, paired.candidate.table)
    return [n for n in NUMERIC_COSTS if all(cost_column(n) in t.columns for t in runs)]


def has_costs(paired: PairedRuns) -> bool:
    """Whether the pair has a cost comparison to compute (both runs record a cost figure):
    a look at the columns, so a screen can say "computing" only where a line will come."""
    return bool(_present(paired))


def cost_comparison(
    paired: PairedRuns, compared: tuple[str, ...] = COMPARED
) -> CostComparison | None:
    """The paired cost comparison (see the module's docstring); None without cost columns.
    `compared`: the figures given a difference and a relative change with their intervals
    (a policy gate on input tokens asks for that one).

    Kept for the last pair asked about (the same object), per `compared`: the text report
    asked twice (its JSON form's dict and its cost table), each time two seeded bootstraps of
    2,000 resamples per figure, 7-8 s for a 200,000-item agent pair; seeded, so the kept
    comparison is the one a second computation gives."""
    seen = _SEEN[:1]  # one read: another thread may replace it meanwhile
    if seen and seen[0][0] is paired and compared in seen[0][1]:
        return seen[0][1][compared]
    said_to = _SAID_TO.get()
    if said_to is not None and has_costs(paired):
        items = f"{paired.items.height:,} items"
        said_to(f"comparing the runs' costs (paired bootstrap over {items})", 0, 0)
    cost = _cost_comparison(paired, compared)
    kept = seen[0][1] if seen and seen[0][0] is paired else {}
    _SEEN[:] = [(paired, {**kept, compared: cost})]
    return cost


def compare_costs_said(paired: PairedRuns, progress: Progress | None) -> None:
    """The pair's cost comparison computed now (kept for whoever prints it next), `progress`
    told first: its bootstraps over a 200,000-item agent pair take seconds, which `report`
    and `verify` spent with a silent terminal after their progress line."""
    with costs_said_to(progress):
        cost_comparison(paired)


@contextmanager
def costs_said_to(progress: Progress | None) -> Iterator[None]:
    """Within it, a cost comparison about to be computed (not one kept) is said to `progress`
    first. `signoff` computes the record's costs only once the approval is allowed, inside
    the record (an approval over untriaged regressions was refused after the costs before,
    7 s later on a 200,000-item pair), and says so while it computes them. Scoped to the
    calling thread's context (a `ContextVar`, not a module-wide stack): a comparison another
    thread computes meanwhile says nothing to this command's line."""
    token = _SAID_TO.set(progress)
    try:
        yield
    finally:
        _SAID_TO.reset(token)


# The last pair's comparisons by `compared` (the last pair's only: one pair is reviewed, and
# a run set's pairs are compared in turn).
_SEEN: list[tuple[PairedRuns, dict[tuple[str, ...], CostComparison | None]]] = []
_SAID_TO: ContextVar[Progress | None] = ContextVar("evaltui_costs_said_to", default=None)


def _cost_comparison(paired: PairedRuns, compared: tuple[str, ...]) -> CostComparison | None:
    runs = (paired.baseline.table, paired.candidate.table)
    present = _present(paired)
    if not present:
        return None
    ids = paired.items.select(ITEM_ID)
    per_item = [
        ids.join(
            t.group_by(ITEM_ID).agg(
                [pl.col(cost_column(n)).mean().alias(n) for n in present]
                + ([_stopped(t)] if cost_column("limit") in t.columns else [])
            ),
            on=ITEM_ID,
            how="left",
        )
        for t in runs
    ]
    paired_values = []  # (name, items both runs recorded it for, baseline's, candidate's)
    for name in present:
        base = per_item[0][name].to_numpy().astype(np.float64)
        cand = per_item[1][name].to_numpy().astype(np.float64)
        both = ~(np.isnan(base) | np.isnan(cand))
        if both.any():
            paired_values.append((name, both, base[both], cand[both]))
    intervals = figure_intervals([(b, c) for name, _, b, c in paired_values if name in compared])
    figures = []
    for name, both, b, c in paired_values:
        difference, ratio = intervals.pop(0) if name in compared else (None, None)
        figures.append(
            CostFigure(
                name=name,
                n=int(both.sum()),
                missing=int((~both).sum()),
                median=(float(np.median(b)), float(np.median(c))),
                mean=(float(b.mean()), float(c.mean())),
                total=(_sum(runs[0], name), _sum(runs[1], name)),
                difference=difference,
                ratio=ratio,
            )
        )
    errors = tuple(int(t.filter(pl.col("status") == "error").height) for t in runs)
    return CostComparison(
        n_items=paired.n,
        figures=tuple(figures),
        limits=_limits(runs, per_item),
        errors=(errors[0], errors[1]),
    )


def figure_intervals(
    values: list[tuple[np.ndarray, np.ndarray]], workers: int | None = None
) -> list[tuple[GradedComparison, PairedRatio]]:
    """Each figure's difference and relative change with their seeded bootstrap intervals,
    for its (baseline, candidate) values per item. The bootstraps run side by side, one a
    thread, on up to `workers` (the machine's cores): one after the other, three figures of a
    200,000-item pair took 11 s of `report`'s 18 (the reading 5). numpy draws, gathers and
    sums with the GIL released, and each bootstrap draws from its own generator, seeded, so
    the intervals are those computed one after the other, bit for bit."""
    tasks: list[Callable[[], Any]] = []
    for b, c in values:
        tasks.append(
            partial(paired_bootstrap, c - b, resamples=RESAMPLES, seed=SEED, method="percentile")
        )
        tasks.append(partial(paired_ratio_bootstrap, b, c, resamples=RESAMPLES, seed=SEED))
    workers = min(len(tasks), workers or os.cpu_count() or 1)
    if workers <= 1:
        done = [task() for task in tasks]
    else:
        with ThreadPoolExecutor(workers, thread_name_prefix="evaltui-cost") as pool:
            done = list(pool.map(_call, tasks))
    return list(zip(done[::2], done[1::2], strict=True))


def _call(task: Callable[[], Any]) -> Any:
    return task()


def _sum(table: pl.DataFrame, name: str) -> float:
    return float(table[cost_column(name)].fill_null(0.0).sum())


def _stopped(table: pl.DataFrame) -> pl.Expr:
    return pl.col(cost_column("limit")).is_not_null().any().alias("stopped")


def _limits(runs: tuple[pl.DataFrame, ...], per_item: list[pl.DataFrame]) -> LimitHits | None:
    column = cost_column("limit")
    if not all(column in t.columns for t in runs):
        return None
    stopped = [p["stopped"].fill_null(False).to_numpy().astype(bool) for p in per_item]
    table = PairedTable.from_verdicts(~stopped[0], ~stopped[1])
    counts = [t[column].drop_nulls().value_counts(sort=True) for t in runs]
    by_type = [dict(zip(c[column].to_list(), c["count"].to_list(), strict=True)) for c in counts]
    return LimitHits(
        items=(int(stopped[0].sum()), int(stopped[1].sum())),
        samples=(
            int(runs[0][column].is_not_null().sum()),
            int(runs[1][column].is_not_null().sum()),
        ),
        by_type=(by_type[0], by_type[1]),
        table=table,
        exact_p=mcnemar(table).exact_p,
    )
