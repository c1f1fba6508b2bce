"""A gate's scope: the items of one slice (or every item) and what gates count over them.

A scope is a polars filter over ``PairedRuns.items``; its 2x2 table and its id lists are
polars expressions over that filter, so a million-item pair costs a few column scans per scope
rather than a Python loop over rows. Gates that share a scope share its computation
(`gates.py` keeps one per slice named).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, cast

import polars as pl

from evaltui.core.analysis.slices import UNSLICED
from evaltui.core.compare.pairing import BASE_PASS, CAND_PASS, PairedRuns
from evaltui.core.read.runs import ITEM_ID, PASSED, SLICE
from evaltui.core.stats.paired_table import PairedTable

if TYPE_CHECKING:  # only for hints
    from evaltui.core.analysis.pair_result import Analysis

_BASE = pl.col(BASE_PASS) >= 1.0
_CAND = pl.col(CAND_PASS) >= 1.0


def _in_scope(slice_name: str | None) -> pl.Expr:
    """The filter selecting a scope's items; items without a slice are in :data:`UNSLICED`."""
    if slice_name is None:
        return pl.lit(True)
    return pl.col(SLICE).fill_null(UNSLICED) == slice_name


@dataclass(frozen=True)
class Scope:
    """The items one or more gates look at: their 2x2 table (None for a graded analysis, which
    has none) and the ids each gate may list."""

    label: str
    table: PairedTable | None
    regressions: tuple[str, ...]
    baseline_failures: tuple[str, ...]
    candidate_failures: tuple[str, ...]
    n: int = 0
    rates: tuple[float, float] | None = None  # graded pass rates: (baseline, candidate) means
    tolerance: float = 0.0


def scope_of(paired: PairedRuns, slice_name: str | None, analysis: Analysis) -> Scope:
    """The items a gate on `slice_name` (None: every item) looks at, computed once for every
    gate that shares the scope."""
    items = paired.items.filter(_in_scope(slice_name))
    label = f"slice {slice_name}" if slice_name is not None else "all items"

    def ids(where: pl.Expr) -> tuple[str, ...]:
        return tuple(items.filter(where)[ITEM_ID].to_list())

    if analysis.binary is None:
        return _graded_scope(items, label, slice_name, analysis)
    cells = items.select(
        (_BASE & _CAND).sum().alias("both_pass"),
        (_BASE & ~_CAND).sum().alias("regressions"),
        (~_BASE & _CAND).sum().alias("improvements"),
        (~_BASE & ~_CAND).sum().alias("both_fail"),
    ).row(0, named=True)
    table = PairedTable(**cells)
    regressions = ids(_BASE & ~_CAND)
    if slice_name is None and analysis.paired is paired:
        # The overall scope is exactly what the reviewer sees in the analysis (the same numbers
        # either way for a binary pair; this keeps them the same object).
        table, regressions = analysis.binary.table, tuple(analysis.regressions)
    return Scope(
        label=label,
        table=table,
        regressions=regressions,
        baseline_failures=ids(~_BASE),
        candidate_failures=ids(~_CAND),
        n=table.n,
    )


def _graded_scope(
    items: pl.DataFrame, label: str, slice_name: str | None, analysis: Analysis
) -> Scope:
    """A graded scope: the analysis's own regressions (the list the reviewer tags) that fall
    in it, and for per-item pass rates over epochs the arms' mean pass rates."""
    if slice_name is None:
        regressions = tuple(analysis.regressions)
    else:
        wanted = pl.Series(list(analysis.regressions), dtype=pl.String).implode()
        regressions = tuple(items.filter(pl.col(ITEM_ID).is_in(wanted))[ITEM_ID].to_list())
    rates = None
    base_failures = cand_failures = ()
    if analysis.metric == PASSED and items.height:
        base, cand = (cast(float, items[c].mean()) for c in (BASE_PASS, CAND_PASS))
        rates = (float(base), float(cand))  # polars types a mean as any value: a float here
        base_failures = tuple(items.filter(~_BASE)[ITEM_ID].to_list())
        cand_failures = tuple(items.filter(~_CAND)[ITEM_ID].to_list())
    return Scope(
        label=label,
        table=None,
        regressions=regressions,
        baseline_failures=base_failures,
        candidate_failures=cand_failures,
        n=items.height,
        rates=rates,
        tolerance=analysis.options.tolerance,
    )
