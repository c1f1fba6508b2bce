"""The paired comparison slice by slice, with p-values adjusted across the slices.

An overall win can hide an unacceptable regression on a small slice, so each slice gets its own
2x2 table, delta interval and exact McNemar p. Reading six slices at once is six tests, so the
raw p-values are adjusted across the slice family (Holm by default); the overall row is the
primary comparison, not a member of that family, and keeps its raw p.

A safety slice is better guarded by a rule written down beforehand (see policy.py) than by any
p-value: 30 items rarely reach significance even when six of them broke.
"""

from __future__ import annotations

from dataclasses import dataclass

import polars as pl

from evaltui.core.compare.pairing import BASE_PASS, CAND_PASS, PairedRuns
from evaltui.core.errors import UsageError
from evaltui.core.read.runs import SLICE
from evaltui.core.stats.binary import BinaryComparison, compare_binary
from evaltui.core.stats.multiplicity import adjust_pvalues
from evaltui.core.stats.paired_delta import DEFAULT_CI_METHOD
from evaltui.core.stats.paired_table import PairedTable

__all__ = ["OVERALL", "UNSLICED", "SliceResult", "slice_comparisons", "slice_names"]

OVERALL = "overall"
"""Name of the row that covers every paired item."""

UNSLICED = "(no slice)"
"""Name given to items whose slice is missing (null) in both files."""


@dataclass(frozen=True, repr=False)
class SliceResult:
    """One slice's paired comparison (or the overall row, ``is_overall`` True).

    ``p_raw`` is the exact McNemar p (None when the slice has no disagreements: nothing to
    weigh). ``p_adjusted`` is that p adjusted across the slices with ``adjust`` (None when
    undefined); for the overall row it equals ``p_raw``.
    """

    name: str
    n: int
    table: PairedTable
    comparison: BinaryComparison
    p_raw: float | None
    p_adjusted: float | None
    adjust: str
    is_overall: bool = False
    alpha: float = 0.05

    @property
    def verdict(self) -> str:
        """The slice's verdict, after the multiplicity adjustment: a slice whose adjusted p is
        not below alpha is never "improved" or "regressed", whatever its own interval says.
        The overall row is the primary comparison and keeps its own verdict."""
        own = self.comparison.verdict
        if self.is_overall or own not in ("improved", "regressed"):
            return own
        if self.p_adjusted is None or self.p_adjusted >= self.alpha:
            return "no_significant_difference"
        return own

    def __repr__(self) -> str:
        t = self.table
        raw = "undefined" if self.p_raw is None else f"{self.p_raw:.4g}"
        adj = "undefined" if self.p_adjusted is None else f"{self.p_adjusted:.4g}"
        return (
            f"SliceResult({self.name!r}, n={self.n}, both_pass={t.both_pass}, "
            f"regressions={t.regressions}, improvements={t.improvements}, "
            f"both_fail={t.both_fail}, delta={t.delta:+.4f}, p_raw={raw}, "
            f"p_adjusted={adj} ({self.adjust}))"
        )


def _check_binary(paired: PairedRuns) -> None:
    if not paired.has_verdicts:
        raise UsageError(
            "these runs carry graded scores only; slices are compared on the 'passed' verdict"
        )
    if not paired.binary:
        raise UsageError(
            "these runs repeat items over epochs; the per-slice pass/fail tables need one "
            "verdict per item"
        )


def slice_names(paired: PairedRuns) -> tuple[str, ...]:
    """The pair's slice names, sorted; items without a slice are named :data:`UNSLICED`.

    Empty when the runs have no slice column at all.
    """
    if SLICE not in paired.items.columns:
        return ()
    names = paired.items[SLICE].fill_null(UNSLICED).unique().to_list()
    return tuple(sorted(str(name) for name in names))


def _table(frame: pl.DataFrame) -> PairedTable:
    base = frame[BASE_PASS].to_numpy() >= 1.0
    cand = frame[CAND_PASS].to_numpy() >= 1.0
    return PairedTable.from_verdicts(base, cand)


def slice_comparisons(
    paired: PairedRuns,
    ci_method: str = DEFAULT_CI_METHOD,
    confidence: float = 0.95,
    alpha: float = 0.05,
    adjust: str = "holm",
) -> tuple[SliceResult, ...]:
    """One :class:`SliceResult` per slice (sorted by name), then the overall row.

    The slices' exact McNemar p-values form the family adjusted with ``adjust`` (see
    :data:`evaltui.core.stats.multiplicity.ADJUST_METHODS`); slices without disagreements have
    no p and do not count in it. The per-slice tables add up to the overall table.
    """
    _check_binary(paired)
    if SLICE not in paired.items.columns:
        raise UsageError(
            "these runs have no 'slice' column; give each item a slice (its intent or risk "
            "class) to compare slice by slice"
        )
    # Validate the method before any work, so a typo fails the same way with one slice or six.
    adjust_pvalues([], adjust)
    items = paired.items.with_columns(pl.col(SLICE).fill_null(UNSLICED))
    rows: list[tuple[str, PairedTable, BinaryComparison]] = []
    for name in slice_names(paired):
        table = _table(items.filter(pl.col(SLICE) == name))
        rows.append((name, table, compare_binary(table, ci_method, confidence, alpha)))
    raw = [comparison.mcnemar.exact_p for _, _, comparison in rows]
    adjusted = adjust_pvalues(raw, adjust)
    results = [
        SliceResult(
            name=name,
            n=table.n,
            table=table,
            comparison=comparison,
            p_raw=p,
            p_adjusted=p_adj,
            adjust=adjust,
            alpha=alpha,
        )
        for (name, table, comparison), p, p_adj in zip(rows, raw, adjusted, strict=True)
    ]
    overall_table = _table(items)
    overall = compare_binary(overall_table, ci_method, confidence, alpha)
    results.append(
        SliceResult(
            name=OVERALL,
            n=overall_table.n,
            table=overall_table,
            comparison=overall,
            p_raw=overall.mcnemar.exact_p,
            p_adjusted=overall.mcnemar.exact_p,
            adjust=adjust,
            is_overall=True,
            alpha=alpha,
        )
    )
    return tuple(results)
