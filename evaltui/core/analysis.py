"""From paired runs to the answer a reviewer reads first: the numbers, the flags, one sentence.

The report, the sign-off record and the app all show the same `Analysis`, so the verdict a
reviewer sees on screen is word for word the one that lands in the PR.
"""

from __future__ import annotations

from dataclasses import dataclass

import polars as pl

from evaltui.core.errors import UsageError
from evaltui.core.pairing import BASE_PASS, CAND_PASS, PairedRuns
from evaltui.core.runs import ITEM_ID
from evaltui.core.stats.binary import (
    CI_METHODS,
    FLAG_TEXT,
    BinaryComparison,
    PairedTable,
    compare_binary,
)

CI_METHOD_LABELS = {
    "newcombe": "Newcombe",
    "tango": "Tango",
    "wald": "Wald",
    "wald-cc": "Wald cc",
    "agresti-min": "Agresti-Min",
    "bonett-price": "Bonett-Price",
}


@dataclass(frozen=True)
class AnalysisOptions:
    """The statistical choices; recorded in every report so a reader knows what was done."""

    ci_method: str = "newcombe"
    confidence: float = 0.95
    alpha: float = 0.05

    def __post_init__(self) -> None:
        if self.ci_method not in CI_METHODS:
            raise UsageError(
                f"--ci-method must be one of {', '.join(CI_METHODS)}, got {self.ci_method!r}"
            )
        if not 0.0 < self.confidence < 1.0:
            raise UsageError(f"--confidence must be between 0 and 1, got {self.confidence}")
        if not 0.0 < self.alpha < 1.0:
            raise UsageError(f"--alpha must be between 0 and 1, got {self.alpha}")


@dataclass(frozen=True, eq=False)
class Analysis:
    """Everything shown about a pair: binary comparison, item lists, headline, flags in words."""

    paired: PairedRuns
    options: AnalysisOptions
    binary: BinaryComparison
    regressions: tuple[str, ...]  # item ids, baseline passed and candidate failed
    improvements: tuple[str, ...]
    headline: str
    warnings: tuple[str, ...]  # flags and pairing problems in plain words

    @property
    def verdict(self) -> str:
        return self.binary.verdict

    @property
    def flags(self) -> tuple[str, ...]:
        return self.binary.flags


def analyze(paired: PairedRuns, options: AnalysisOptions | None = None) -> Analysis:
    """Run the binary paired analysis on single-verdict items."""
    options = options or AnalysisOptions()
    if not paired.has_verdicts:
        raise UsageError(
            "these runs carry graded scores only; the graded analysis is not available yet "
            "(give a 'passed' column)"
        )
    if not paired.binary:
        raise UsageError(
            "these runs repeat items over epochs; the per-item pass-rate analysis is not "
            "available yet (give one record per item)"
        )
    base, cand = paired.verdicts()
    table = PairedTable.from_verdicts(base, cand)
    comparison = compare_binary(
        table, ci_method=options.ci_method, confidence=options.confidence, alpha=options.alpha
    )
    items = paired.items
    regressions = tuple(
        items.filter((pl.col(BASE_PASS) >= 1.0) & (pl.col(CAND_PASS) < 1.0))[ITEM_ID].to_list()
    )
    improvements = tuple(
        items.filter((pl.col(BASE_PASS) < 1.0) & (pl.col(CAND_PASS) >= 1.0))[ITEM_ID].to_list()
    )
    warnings = tuple(FLAG_TEXT[f] for f in comparison.flags) + tuple(paired.report.problems)
    return Analysis(
        paired=paired,
        options=options,
        binary=comparison,
        regressions=regressions,
        improvements=improvements,
        headline=headline(comparison),
        warnings=warnings,
    )


def points(value: float, digits: int = 1) -> str:
    """A rate difference in signed percentage points: 0.06 -> '+6.0'."""
    return f"{value * 100:+.{digits}f}"


def percent(value: float, digits: int = 1) -> str:
    return f"{value * 100:.{digits}f}%"


def format_p(p: float | None) -> str:
    """p-values the way a reader expects: three decimals, small ones in scientific notation."""
    if p is None:
        return "undefined"
    if p < 0.001:
        return f"{p:.1e}"
    return f"{p:.3f}"


def headline(c: BinaryComparison) -> str:
    """One sentence with the effect, its interval and the test, as the reading list writes it."""
    t = c.table
    if "no_discordant" in c.flags:
        return (
            f"No disagreements: both runs gave the same verdict on all {t.n} items, "
            "nothing to weigh."
        )
    counts = f"{t.regressions} regressions, {t.improvements} improvements"
    if "small_n" in c.flags:
        return f"Only {t.n} paired items ({counts}): counts only, no verdict."
    label = CI_METHOD_LABELS[c.ci_method]
    level = f"{c.confidence * 100:g}%"
    ci = f"[{points(c.delta_ci.lower)}, {points(c.delta_ci.upper)}]"
    return (
        f"Candidate {points(c.delta)} pts {ci} ({label} {level}), exact McNemar "
        f"p = {format_p(c.mcnemar.exact_p)} on {t.discordant} discordant items ({counts})."
    )


VERDICT_TEXT = {
    "improved": "improved: the interval lies above zero",
    "regressed": "regressed: the interval lies below zero",
    "no_significant_difference": "no significant difference: the interval includes zero",
    "insufficient_data": "insufficient data for a verdict",
}
