"""A decision and its items as CI findings: what the JUnit file, the Actions annotations and the
job summary's regression table are written from, for every design.

A CI dashboard thinks in test cases. Each design says its findings once here (`Design.findings`
calls these), so the three CI surfaces cannot disagree with each other or with the decision:

- one suite, `evaltui`, with one case, `decision`: failed exactly when the exit code is not 0
  (blocked, or no verdict), its message the decision's first line (`vocabulary.compose_line`);
- for a pair, one suite per compared metric: each regression a failed case, each improvement a
  passed case (items that did not change are counted, not listed: a million-item run would
  otherwise write a million passing cases that say nothing); each case names the item, its
  slice, and both arms' values;
- a metric of the family with no per-item analysis of its own: one case, `effect`, failed when
  its (adjusted) verdict is "regressed";
- a run set: the pair suites of each baseline pair, named after the candidate.

Every string here may come from a run (ids, slices, metric names): the surfaces escape it for
their own syntax (XML, workflow commands, Markdown); this module only gathers it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import polars as pl

from evaltui.core.analysis.pair_result import Analysis
from evaltui.core.compare.pairing import arm_columns
from evaltui.core.read.runs import ITEM_ID, SLICE, is_verdict_metric

DECISION_SUITE = "evaltui"
DECISION_CASE = "decision"
EFFECT_CASE = "effect"


@dataclass(frozen=True)
class Finding:
    """One test case: an item (or a metric's effect, or the decision), failed or passed."""

    name: str  # the item id, `effect` or `decision`
    failed: bool
    message: str  # one line: what happened
    slice: str | None = None


@dataclass(frozen=True)
class FindingSuite:
    """One suite: a metric of a pair (or the decision). `file` is the candidate run's path as
    given on the command line, where an annotation points (None for the decision)."""

    name: str
    cases: tuple[Finding, ...]
    file: str | None = None
    unchanged: int = 0  # items compared and not listed (neither regressed nor improved)

    @property
    def failures(self) -> int:
        return sum(case.failed for case in self.cases)


@dataclass(frozen=True)
class Findings:
    """A decided design's findings: its first line, status and exit code, and its suites (the
    decision's first)."""

    line: str
    status: str
    exit_code: int
    suites: tuple[FindingSuite, ...]

    @property
    def regressions(self) -> tuple[tuple[FindingSuite, Finding], ...]:
        """Every failed case but the decision's, in suite order."""
        return tuple(
            (suite, case)
            for suite in self.suites
            if suite.name != DECISION_SUITE
            for case in suite.cases
            if case.failed
        )


def decision_suite(decision: Any) -> FindingSuite:
    """The decision as one case: it fails when the exit code does (blocked, no verdict)."""
    case = Finding(DECISION_CASE, failed=decision.exit_code != 0, message=decision.line)
    return FindingSuite(DECISION_SUITE, (case,))


def findings_of(decision: Any, suites: tuple[FindingSuite, ...] = ()) -> Findings:
    return Findings(
        line=decision.line,
        status=decision.status,
        exit_code=decision.exit_code,
        suites=(decision_suite(decision), *suites),
    )


def pair_suites(analysis: Analysis, prefix: str = "") -> tuple[FindingSuite, ...]:
    """A pair's suites, one per metric (scorer) under its name: the compared metric item by
    item, then each other metric of the family as its effect case and its regressions.
    `prefix` names the candidate in a run set."""
    file = str(analysis.paired.candidate.source.path)
    compared = next((r.name for r in analysis.metrics if r.metric == analysis.metric), None)
    name = compared or analysis.metric
    cases = _item_cases(analysis, analysis.metric, name, analysis.regressions, failed=True)
    cases += _item_cases(analysis, analysis.metric, name, analysis.improvements, failed=False)
    listed = len(analysis.regressions) + len(analysis.improvements)
    suites = [
        FindingSuite(
            f"{prefix}{name}",
            tuple(cases),
            file=file,
            unchanged=max(analysis.paired.n - listed, 0),
        )
    ]
    for row in analysis.metrics:
        if row.metric == analysis.metric:
            continue
        effect = Finding(
            EFFECT_CASE,
            failed=row.verdict == "regressed",
            message=f"{row.name}: delta {_number(row.delta)} "
            f"[{_number(row.ci[0])}, {_number(row.ci[1])}], {row.verdict.replace('_', ' ')}",
        )
        items = _item_cases(analysis, row.metric, row.name, row.regressions, failed=True)
        suites.append(FindingSuite(f"{prefix}{row.name}", (effect, *items), file=file))
    return tuple(suites)


def run_set_suites(decision: Any, names: tuple[str, ...]) -> tuple[FindingSuite, ...]:
    """A run set's suites: each baseline pair's, named after its candidate."""
    suites: list[FindingSuite] = []
    for pair, _ in decision.pairs:
        suites += pair_suites(pair.analysis, prefix=f"{names[pair.candidate]}: ")
    return tuple(suites)


def _item_cases(
    analysis: Analysis, metric: str, name: str, ids: tuple[str, ...], failed: bool
) -> list[Finding]:
    """Each item of `ids` as a case: its slice and both arms' values of `metric` (called
    `name`), read in one join."""
    if not ids:
        return []
    items = analysis.paired.items
    base_col, cand_col = arm_columns(metric)
    columns = [ITEM_ID, base_col, cand_col] + ([SLICE] if SLICE in items.columns else [])
    wanted = pl.DataFrame({ITEM_ID: list(ids)}, schema={ITEM_ID: pl.String})
    rows = wanted.join(items.select(columns), on=ITEM_ID, how="left", maintain_order="left")
    slices = rows[SLICE].to_list() if SLICE in rows.columns else [None] * len(ids)
    word = "regressed" if failed else "improved"
    out = []
    for item_id, base, cand, slice_ in zip(
        ids, rows[base_col].to_list(), rows[cand_col].to_list(), slices, strict=True
    ):
        values = _values(metric, base, cand)
        out.append(Finding(item_id, failed, f"{word} on {name}: {values}", slice_))
    return out


def _values(metric: str, base: Any, cand: Any) -> str:
    """Both arms' values in words: "baseline pass, candidate fail" for a verdict, the per-item
    pass rate over epochs, or the scores and their difference."""
    if base is None or cand is None:
        return "baseline and candidate values unavailable"
    if is_verdict_metric(metric):
        return f"baseline {_verdict(base)}, candidate {_verdict(cand)}"
    return f"baseline {base:.4g}, candidate {cand:.4g} (delta {cand - base:+.4g})"


def _verdict(rate: float) -> str:
    if rate in (0, 1):
        return "pass" if rate == 1 else "fail"
    return f"{rate * 100:.0f}% pass over epochs"


def _number(value: float | None) -> str:
    if value is None or math.isnan(value):
        return "n/a"
    return f"{value:+.4g}"
