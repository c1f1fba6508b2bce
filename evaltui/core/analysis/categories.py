"""The outcome categories of a pair: each item's outcome in both runs -> the categorical comparison.

Beside the pass/fail (or score) verdict, a run may say how each item ended: correct, incorrect,
refused, error (the `outcome` column; Inspect's C / I / P / N letters). When both runs carry
it with at least three levels between them, the pair also gets the Stuart-Maxwell test of
whether the mix of outcomes moved, and each category's change (`stats.categorical`). The
verdict still comes from the metric; a mix that moved is something to review, not a verdict.

Only runs with one record per item are compared this way: with epochs an item has several
outcomes per arm, and no one of them is the item's.
"""

from __future__ import annotations

import polars as pl

from evaltui.core.compare.pairing import PairedRuns
from evaltui.core.errors import InputError
from evaltui.core.read.runs import EPOCH, ITEM_ID, OUTCOME, Run
from evaltui.core.stats.categorical import CategoricalComparison, compare_categorical
from evaltui.core.stats.categorical_table import CategoricalTable
from evaltui.core.stats.paired_delta import DEFAULT_CI_METHOD

__all__ = ["MIN_LEVELS", "outcome_comparison"]

MIN_LEVELS = 3
"""Fewer levels than this add nothing to the 2x2 table: two outcomes are pass and fail."""


def _outcomes(run: Run, items: pl.DataFrame) -> list[str]:
    """The run's outcome for each paired item, in the paired order."""
    found = items.select(ITEM_ID).join(
        run.table.select(ITEM_ID, OUTCOME), on=ITEM_ID, how="left", maintain_order="left"
    )
    missing = found.filter(pl.col(OUTCOME).is_null())
    if missing.height:
        raise InputError(
            run.source.path,
            f"item {missing[ITEM_ID][0]!r} has no outcome; expected every record to have one "
            "once the file has outcomes",
            field=OUTCOME,
        )
    return found[OUTCOME].to_list()


def outcome_comparison(
    paired: PairedRuns,
    *,
    ci_method: str = DEFAULT_CI_METHOD,
    confidence: float = 0.95,
    alpha: float = 0.05,
    adjust: str = "holm",
) -> CategoricalComparison | None:
    """The categorical comparison of the pair's outcomes, or None when it does not apply:
    either run lacks outcomes, an item ran more than one epoch, or fewer than
    :data:`MIN_LEVELS` levels occur between the two runs."""
    runs = (paired.baseline, paired.candidate)
    if any(OUTCOME not in run.table.columns for run in runs):
        return None
    if any((run.table[EPOCH] > 1).any() for run in runs):
        return None
    if paired.n == 0:
        return None
    base = _outcomes(paired.baseline, paired.items)
    cand = _outcomes(paired.candidate, paired.items)
    table = CategoricalTable.from_labels(base, cand)
    if len(table.levels) < MIN_LEVELS:
        return None
    return compare_categorical(
        table, ci_method=ci_method, confidence=confidence, alpha=alpha, adjust=adjust
    )
