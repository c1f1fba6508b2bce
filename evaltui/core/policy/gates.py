"""Evaluating a policy's gates on a pair of runs and the reviewer's tags.

Gates are rules, not significance tests: a safety slice of 30 items rarely reaches p < 0.05 even
when six of its answers broke, so a gate fires on counts ("no regressions in drug_interactions"),
on a pass rate, on the reviewer's tags, or on the delta interval against the minimum effect.

A gate's scope (one slice, or every item) is a polars filter over ``PairedRuns.items``, and its
counts and item lists are polars expressions over that filter, so a million-item pair costs a
few column scans per scope rather than a Python loop over rows. Gates that share a scope share
its computation.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

import polars as pl

from evaltui.core.analysis import CI_METHOD_LABELS, points
from evaltui.core.errors import InputError, UsageError
from evaltui.core.pairing import BASE_PASS, CAND_PASS, PairedRuns
from evaltui.core.policy.schema import Gate, Policy, percent
from evaltui.core.runs import ITEM_ID, PASSED, SLICE
from evaltui.core.slices import UNSLICED, slice_names
from evaltui.core.stats.binary import PairedTable, paired_delta_interval
from evaltui.core.tags import TagMeanings

if TYPE_CHECKING:  # only for hints: the gates read the session, they never build one
    from evaltui.core.analysis import Analysis
    from evaltui.core.review import ReviewSession

__all__ = ["GATE_STATUSES", "SHOW_IDS", "GateResult", "evaluate_gates", "gates_status"]

GATE_STATUSES: tuple[str, ...] = ("passed", "failed", "pending")
SHOW_IDS = 10  # ids a gate's detail spells out before "..."; item_ids always has all of them

_BASE = pl.col(BASE_PASS) >= 1.0
_CAND = pl.col(CAND_PASS) >= 1.0


@dataclass(frozen=True)
class GateResult:
    """One gate's outcome: ``status`` in :data:`GATE_STATUSES`, ``detail`` in plain words, and
    ``item_ids`` the items to look at (the ones that made it fail, or that keep it pending)."""

    name: str
    kind: str
    status: str
    detail: str
    item_ids: tuple[str, ...] = ()
    slice: str | None = None


def gates_status(results: tuple[GateResult, ...] | list[GateResult]) -> str:
    """'failed' if any gate failed, else 'pending' if any is pending, else 'passed'."""
    statuses = {r.status for r in results}
    if "failed" in statuses:
        return "failed"
    if "pending" in statuses:
        return "pending"
    return "passed"


def evaluate_gates(
    policy: Policy,
    paired: PairedRuns,
    analysis: Analysis,
    session: ReviewSession | None,
) -> tuple[GateResult, ...]:
    """Evaluate every gate of ``policy`` on the pair, in file order.

    Counts come from the pass/fail verdicts in ``paired.items``; when ``analysis`` is the binary
    analysis of this same ``paired``, its table and regression list are reused for the overall
    scope, so the gates quote the numbers on the reviewer's screen.

    ``session`` holds the reviewer's tags. Without one, the tag-based gates (``no_tag``,
    ``all_triaged``) are 'pending' while their scope has regressions (with none there is
    nothing to tag, and they pass). Slice names (and, with a session, ``no_tag`` tags) are
    checked before any gate is evaluated: an unknown one is an InputError naming the policy
    file and the gate. The ``min_effect`` gate uses the policy's ``ci_method`` and
    ``confidence``, which may differ from the analysis options.
    """
    _check_gates(policy, paired, session)
    scopes: dict[str | None, _Scope] = {}
    results = []
    for gate in policy.gates:
        if gate.slice not in scopes:
            scopes[gate.slice] = _scope(paired, gate.slice, analysis)
        scope = scopes[gate.slice]
        if gate.kind == "no_regressions":
            result = _no_regressions(gate, scope)
        elif gate.kind == "min_pass_rate":
            result = _min_pass_rate(gate, scope)
        elif gate.kind == "no_tag":
            result = _no_tag(gate, scope, session, policy.tag_meanings)
        elif gate.kind == "all_triaged":
            result = _all_triaged(gate, scope, session, policy.tag_meanings)
        elif gate.slice is None and analysis.clustered:
            result = _min_effect_clustered(gate, policy, analysis)
        else:
            result = _min_effect(gate, scope, policy)
        results.append(result)
    return tuple(results)


def _check_gates(
    policy: Policy, paired: PairedRuns, session: ReviewSession | None
) -> tuple[str, ...]:
    """Everything that depends on the pair or the session, before any gate is evaluated."""
    path = policy.source_path
    if policy.primary_metric != PASSED:
        raise InputError(
            path,
            f"primary_metric {policy.primary_metric!r} cannot be evaluated: gates are defined "
            f"on the pass/fail verdict; expected {PASSED!r}",
            field="primary_metric",
        )
    if not paired.has_verdicts or not paired.binary:
        raise UsageError(
            "the policy's gates need one pass/fail verdict per item in both runs "
            "(graded-only or multi-epoch runs are not supported yet)"
        )
    known = slice_names(paired)
    for gate in policy.gates:
        where = f"[[gates]] entry {gate.index} ({gate.name})"
        if gate.slice is not None and gate.slice not in known:
            expected = (
                f"this pair's slices are {', '.join(known)}"
                if known
                else "these runs have no 'slice' column"
            )
            raise InputError(
                path,
                f"{where}: unknown slice {gate.slice!r}; {expected}",
                line=gate.line,
                field="slice",
            )
        if gate.kind == "no_tag" and session is not None and gate.tag not in session.info.tags:
            raise InputError(
                path,
                f"{where}: tag {gate.tag!r} is not one of the review's tags "
                f"({', '.join(session.info.tags)}), so the gate could never fire",
                line=gate.line,
                field="tag",
            )
    return known


def _in_scope(slice_name: str | None) -> pl.Expr:
    """The filter selecting a scope's items; items without a slice are in :data:`UNSLICED`."""
    if slice_name is None:
        return pl.lit(True)
    return pl.col(SLICE).fill_null(UNSLICED) == slice_name


@dataclass(frozen=True)
class _Scope:
    """The items one or more gates look at: their 2x2 table and the ids each gate may list."""

    label: str
    table: PairedTable
    regressions: tuple[str, ...]
    baseline_failures: tuple[str, ...]
    candidate_failures: tuple[str, ...]


def _scope(paired: PairedRuns, slice_name: str | None, analysis: Analysis) -> _Scope:
    items = paired.items.filter(_in_scope(slice_name))

    def ids(where: pl.Expr) -> tuple[str, ...]:
        return tuple(items.filter(where)[ITEM_ID].to_list())

    cells = items.select(
        (_BASE & _CAND).sum().alias("both_pass"),
        (_BASE & ~_CAND).sum().alias("regressions"),
        (~_BASE & _CAND).sum().alias("improvements"),
        (~_BASE & ~_CAND).sum().alias("both_fail"),
    ).row(0, named=True)
    table = PairedTable(**cells)
    regressions = ids(_BASE & ~_CAND)
    binary = getattr(analysis, "binary", None)
    if slice_name is None and binary is not None and analysis.paired is paired:
        # The overall scope is exactly what the reviewer sees in the analysis (the same numbers
        # either way for a binary pair; this keeps them the same object).
        table, regressions = binary.table, tuple(analysis.regressions)
    return _Scope(
        label=f"slice {slice_name}" if slice_name is not None else "all items",
        table=table,
        regressions=regressions,
        baseline_failures=ids(~_BASE),
        candidate_failures=ids(~_CAND),
    )


def _pct(value: float) -> str:
    return f"{value * 100:.1f}%"


def _ids(ids: tuple[str, ...] | list[str]) -> str:
    shown = ", ".join(ids[:SHOW_IDS])
    more = len(ids) - SHOW_IDS
    return shown + (f", ... ({more} more)" if more > 0 else "")


def _plural(count: int, word: str) -> str:
    return f"{count} {word}" + ("" if count == 1 else "s")


def _result(gate: Gate, status: str, detail: str, ids: tuple[str, ...] = ()) -> GateResult:
    return GateResult(gate.name, gate.kind, status, detail, ids, gate.slice)


def _no_regressions(gate: Gate, scope: _Scope) -> GateResult:
    t = scope.table
    passes = f"baseline {t.baseline_passes} -> candidate {t.candidate_passes} passes of {t.n}"
    regs = scope.regressions
    if regs:
        detail = f"{_plural(len(regs), 'regression')} in {scope.label} ({passes}): {_ids(regs)}"
        return _result(gate, "failed", detail, regs)
    return _result(gate, "passed", f"no regressions in {scope.label} ({passes})")


def _min_pass_rate(gate: Gate, scope: _Scope) -> GateResult:
    t = scope.table
    arm = gate.arm or "candidate"
    passes = t.candidate_passes if arm == "candidate" else t.baseline_passes
    required = gate.rate if gate.rate is not None else 0.0
    rate = passes / t.n
    ok = rate >= required
    detail = (
        f"{arm} pass rate on {scope.label} {passes}/{t.n} = {_pct(rate)} "
        f"{'>=' if ok else '<'} required {percent(required)}"
    )
    if ok:
        return _result(gate, "passed", detail)
    failures = scope.candidate_failures if arm == "candidate" else scope.baseline_failures
    return _result(gate, "failed", detail, failures)


def _no_tag(
    gate: Gate, scope: _Scope, session: ReviewSession | None, meanings: TagMeanings
) -> GateResult:
    regs = scope.regressions
    if session is None:
        detail = (
            f"no review session: cannot tell whether any of the {_plural(len(regs), 'regression')}"
            f" in {scope.label} is tagged '{gate.tag}'"
        )
        return _result(gate, "pending" if regs else "passed", detail, regs)
    tagged = tuple(i for i in regs if session.review(i).tag == gate.tag)
    if tagged:
        detail = (
            f"{len(tagged)} of {_plural(len(regs), 'regression')} in {scope.label} tagged "
            f"'{gate.tag}': {_ids(tagged)}"
        )
        return _result(gate, "failed", detail, tagged)
    untriaged = sum(1 for i in regs if not meanings.triaged(session.review(i).tag))
    note = f" ({untriaged} still untriaged)" if untriaged else ""
    detail = (
        f"none of the {_plural(len(regs), 'regression')} in {scope.label} is tagged "
        f"'{gate.tag}'{note}"
    )
    return _result(gate, "passed", detail)


def _all_triaged(
    gate: Gate, scope: _Scope, session: ReviewSession | None, meanings: TagMeanings
) -> GateResult:
    regs = scope.regressions
    if not regs:
        return _result(gate, "passed", f"no regressions to triage in {scope.label}")
    untriaged = tuple(
        i for i in regs if session is None or not meanings.triaged(session.review(i).tag)
    )
    if untriaged:
        detail = f"{len(untriaged)} of {len(regs)} regressions untriaged in {scope.label}"
        if session is None:
            detail += " (no review session)"
        return _result(gate, "pending", detail, untriaged)
    return _result(gate, "passed", f"all {len(regs)} regressions in {scope.label} are tagged")


def _min_effect_clustered(gate: Gate, policy: Policy, analysis: Analysis) -> GateResult:
    """The overall effect gate on clustered items: the cluster-aware interval the verdict
    rests on, not the item-level one (which is too narrow for clustered items)."""
    minimum = policy.min_effect if policy.min_effect is not None else 0.0
    if analysis.options.confidence != policy.confidence:  # the policy's level, as always
        from dataclasses import replace

        from evaltui.core.analysis import with_clusters

        options = replace(analysis.options, confidence=policy.confidence)
        analysis = with_clusters(replace(analysis, options=options))
    lower = analysis.decision_ci[0]
    if math.isnan(lower):
        detail = (
            f"{analysis.decision_ci_label}: too few clusters for a cluster-aware interval, "
            "so the effect cannot be shown"
        )
        return _result(gate, "failed", detail)
    ok = lower >= minimum
    detail = (
        f"delta on all items {points(analysis.binary.delta, 2)} pts; {analysis.decision_ci_label} "
        f"lower bound {points(lower, 2)} pts {'>=' if ok else '<'} minimum effect "
        f"{points(minimum, 2)} pts"
    )
    return _result(gate, "passed" if ok else "failed", detail)


def _min_effect(gate: Gate, scope: _Scope, policy: Policy) -> GateResult:
    minimum = policy.min_effect if policy.min_effect is not None else 0.0
    interval = paired_delta_interval(scope.table, policy.ci_method, policy.confidence)
    ok = interval.lower >= minimum
    label = CI_METHOD_LABELS.get(policy.ci_method, policy.ci_method)
    detail = (
        f"delta on {scope.label} {points(scope.table.delta, 2)} pts; "
        f"{policy.confidence * 100:g}% {label} lower bound {points(interval.lower, 2)} pts "
        f"{'>=' if ok else '<'} minimum effect {points(minimum, 2)} pts"
    )
    return _result(gate, "passed" if ok else "failed", detail)
