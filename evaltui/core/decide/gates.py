"""Evaluating a policy's gates on a pair of runs and the reviewer's tags.

Gates are rules, not significance tests: a safety slice of 30 items rarely reaches p < 0.05 even
when six of its answers broke, so a gate fires on counts ("no regressions in drug_interactions"),
on a pass rate, the reviewer's tags, the delta interval against the minimum effect, or a cost.

A gate's scope (one slice, or every item) and its counts are `gate_scope.py`'s: a polars filter
over ``PairedRuns.items``, computed once for every gate that shares it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from evaltui.core.analysis.metric_row import metric_label
from evaltui.core.analysis.pair import analyze, metric_names
from evaltui.core.analysis.pair_result import CI_METHOD_LABELS
from evaltui.core.analysis.slices import slice_names
from evaltui.core.compare.pairing import PairedRuns
from evaltui.core.decide.cost_gate import cost_gate_outcome, limit_gate_outcome
from evaltui.core.decide.gate_scope import Scope, scope_of
from evaltui.core.decide.margin import MARGIN_KINDS, evaluate_margin
from evaltui.core.errors import InputError
from evaltui.core.policy.schema import Gate, Policy, percent
from evaltui.core.policy.tags import TagMeanings
from evaltui.core.read.runs import PASSED, SCORE, SCORE_PREFIX, VERDICT_PREFIX
from evaltui.core.stats.margins import MarginTest
from evaltui.core.stats.paired_delta import paired_delta_interval
from evaltui.core.words import plural, points, signed

if TYPE_CHECKING:  # only for hints
    from evaltui.core.analysis.pair_result import Analysis


class _TagSet(Protocol):
    @property
    def tags(self) -> tuple[str, ...]: ...


class _ItemTag(Protocol):
    @property
    def tag(self) -> str | None: ...


class ReviewSession(Protocol):
    """What the gates read of a review (the journal's `ReviewSession` is one): its tag set
    and each item's tag. Declared here so the decide stage never imports the journal."""

    @property
    def info(self) -> _TagSet: ...

    def review(self, item_id: str) -> _ItemTag: ...


__all__ = [
    "GATE_STATUSES",
    "MARGIN_KINDS",
    "SHOW_IDS",
    "GateResult",
    "evaluate_gates",
    "gates_status",
    "margin_accepts_regression",
    "primary_analysis",
]

GATE_STATUSES: tuple[str, ...] = ("passed", "failed", "pending", "undecided")
"""'undecided' is a margin's only: the data cannot answer it (too few items or clusters)."""
SHOW_IDS = 10  # ids a gate's detail spells out before "..."; item_ids always has all of them


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
    # A margin's result (kind in MARGIN_KINDS): its numbers, and the few words the decision's
    # first line carries ("non-inferior: lower limit -0.6 > -1.0 pts").
    margin: MarginTest | None = None
    summary: str | None = None


def gates_status(results: tuple[GateResult, ...] | list[GateResult]) -> str:
    """'failed' if any gate failed, else 'pending' if any is pending, else 'undecided' if a
    margin could not be answered, else 'passed'."""
    statuses = {r.status for r in results}
    for status in ("failed", "pending", "undecided"):
        if status in statuses:
            return status
    return "passed"


def margin_accepts_regression(gates: tuple | list) -> bool:
    """Whether a margin the policy states was shown: then a candidate that is worse (the
    interval below zero) is worse by less than the policy allows, and that does not block.
    Reads evaluated gates or their plain form in a record."""
    for gate in gates:
        kind = gate.get("kind") if isinstance(gate, dict) else gate.kind
        status = gate.get("status") if isinstance(gate, dict) else gate.status
        if kind in MARGIN_KINDS and status == "passed":
            return True
    return False


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
    primary = primary_analysis(policy, paired, analysis)
    _check_gates(policy, paired, session, primary)
    scopes: dict[str | None, Scope] = {}
    results = []
    for gate in policy.gates:
        if gate.slice not in scopes:
            scopes[gate.slice] = scope_of(paired, gate.slice, primary)
        scope = scopes[gate.slice]
        if gate.kind == "max_cost_growth":
            result = _result(gate, *cost_gate_outcome(gate, policy, paired))
        elif gate.kind == "max_limit_hits_growth":
            result = _result(gate, *limit_gate_outcome(gate, policy, paired))
        elif gate.kind == "no_regressions":
            result = _no_regressions(gate, scope)
        elif gate.kind == "min_pass_rate":
            result = _min_pass_rate(gate, scope)
        elif gate.kind == "no_tag":
            result = _no_tag(gate, scope, session, policy.tag_meanings)
        elif gate.kind == "all_triaged":
            result = _all_triaged(gate, scope, session, policy.tag_meanings)
        elif gate.slice is None and (primary.clustered or primary.binary is None):
            result = _min_effect_overall(gate, policy, primary)
        else:
            result = _min_effect(gate, scope, policy)
        results.append(result)
    margin = evaluate_margin(policy, primary)
    if margin is not None and policy.margin is not None:  # only a policy with a margin has one
        status, detail, summary, test = margin
        kind, size = policy.margin
        name = _margin_name(kind, size, primary.in_points)
        results.append(GateResult(name, kind, status, detail, margin=test, summary=summary))
    return tuple(results)


def _margin_name(kind: str, margin: float, in_points: bool) -> str:
    size = _units(margin, in_points)
    if kind == "non_inferiority":
        return f"non-inferiority (margin {size})"
    return f"equivalence (±{size})"


def _units(value: float, in_points: bool) -> str:
    """A margin as the policy states it: 0.01 on a pass rate is '1 pt', 0.5 on a score '0.5'."""
    if not in_points:
        return f"{value:g}"
    pts = round(value * 100, 10)
    return f"{pts:g} pt" + ("" if pts == 1 else "s")


def resolve_primary_metric(policy: Policy, paired: PairedRuns) -> str:
    """The column of `paired` the policy's ``primary_metric`` names ("passed", "score",
    "score:<name>" or just "<name>"); an InputError naming the file when the pair has none."""
    name = policy.primary_metric
    if name == PASSED and paired.has_verdicts:
        return PASSED
    for column in (name, SCORE_PREFIX + name, VERDICT_PREFIX + name):
        if name != PASSED and column in (*paired.score_columns, *paired.verdict_columns):
            return column
    available = metric_names(paired)
    meta = paired.baseline.metadata
    if paired.has_verdicts and name == metric_label(PASSED, meta):
        return PASSED  # the scorer whose verdicts are the plain `passed` column
    if SCORE in paired.score_columns and name == metric_label(SCORE, meta):
        return SCORE
    what = (
        "these runs have no pass/fail verdict"
        if name == PASSED
        else "these runs have no such metric"
    )
    raise InputError(
        policy.source_path,
        f"primary_metric {name!r} cannot be evaluated: {what}; expected one of "
        f"{', '.join(repr(a) for a in available)}",
        field="primary_metric",
    )


def primary_analysis(policy: Policy, paired: PairedRuns, analysis: Analysis) -> Analysis:
    """The analysis of the policy's primary metric on this pair: `analysis` itself when it is
    that (the usual case), else the same options on the primary metric (the app's metric
    switch shows another metric; the gates and the margin stay on the one the policy chose)."""
    metric = resolve_primary_metric(policy, paired)
    if analysis.paired is paired and analysis.metric == metric:
        return analysis
    from dataclasses import replace

    return analyze(paired, replace(analysis.options, metric=metric))


def _check_gates(
    policy: Policy, paired: PairedRuns, session: ReviewSession | None, primary: Analysis
) -> tuple[str, ...]:
    """Everything that depends on the pair or the session, before any gate is evaluated.

    Graded analyses (scores, or pass rates averaged over epochs) have no 2x2 table; their
    regressions are the analysis's own (an item whose delta is below -tolerance, oriented by
    lower_is_better), which the reviewer tags, so the gates that count or tag regressions work
    on them. What cannot be evaluated there is refused, naming the gate: a pass rate of scores
    (``min_pass_rate`` needs verdicts, or per-item pass rates over epochs), and an effect on a
    slice (graded slices have no interval; the overall one is the verdict's)."""
    path = policy.source_path
    known = slice_names(paired)
    for gate in policy.gates:
        where = f"[[gates]] entry {gate.index} ({gate.name})"
        if primary.binary is None:
            problem = None
            if gate.kind == "min_pass_rate" and primary.metric != PASSED:
                problem = (
                    f"a pass rate needs pass/fail verdicts, and {primary.metric!r} is a score; "
                    "give the runs verdicts (or --pass-threshold) or drop the gate"
                )
            elif gate.kind == "min_effect" and gate.slice is not None:
                problem = (
                    "an effect on a slice needs pass/fail verdicts (a graded metric has an "
                    "interval overall only); drop 'slice' or the gate"
                )
            if problem is not None:
                raise InputError(
                    path,
                    f"{where}: cannot be evaluated on this pair: {problem}",
                    line=gate.line,
                    field="slice" if gate.kind == "min_effect" else "kind",
                )
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


def _pct(value: float) -> str:
    return f"{value * 100:.1f}%"


def _ids(ids: tuple[str, ...] | list[str]) -> str:
    shown = ", ".join(ids[:SHOW_IDS])
    more = len(ids) - SHOW_IDS
    return shown + (f", ... ({more} more)" if more > 0 else "")


def _result(gate: Gate, status: str, detail: str, ids: tuple[str, ...] = ()) -> GateResult:
    return GateResult(gate.name, gate.kind, status, detail, ids, gate.slice)


def _no_regressions(gate: Gate, scope: Scope) -> GateResult:
    t = scope.table
    if t is not None:
        passes = f"baseline {t.baseline_passes} -> candidate {t.candidate_passes} passes of {t.n}"
    else:
        passes = f"{plural(scope.n, 'item')}; a regression is a delta below -{scope.tolerance:g}"
    regs = scope.regressions
    if regs:
        detail = f"{plural(len(regs), 'regression')} in {scope.label} ({passes}): {_ids(regs)}"
        return _result(gate, "failed", detail, regs)
    return _result(gate, "passed", f"no regressions in {scope.label} ({passes})")


def _min_pass_rate(gate: Gate, scope: Scope) -> GateResult:
    t = scope.table
    arm = gate.arm or "candidate"
    required = gate.rate if gate.rate is not None else 0.0
    if t is not None:
        passes = t.candidate_passes if arm == "candidate" else t.baseline_passes
        rate = passes / t.n
        shown = f"{passes}/{t.n} = {_pct(rate)}"
    else:  # per-item pass rates over epochs: the arm's mean of them
        rates = scope.rates or (0.0, 0.0)
        rate = rates[1] if arm == "candidate" else rates[0]
        shown = f"{_pct(rate)} (mean over epochs of {plural(scope.n, 'item')})"
    ok = rate >= required
    detail = (
        f"{arm} pass rate on {scope.label} {shown} "
        f"{'>=' if ok else '<'} required {percent(required)}"
    )
    if ok:
        return _result(gate, "passed", detail)
    failures = scope.candidate_failures if arm == "candidate" else scope.baseline_failures
    return _result(gate, "failed", detail, failures)


def _no_tag(
    gate: Gate, scope: Scope, session: ReviewSession | None, meanings: TagMeanings
) -> GateResult:
    regs = scope.regressions
    if session is None:
        detail = (
            f"no review session: cannot tell whether any of the {plural(len(regs), 'regression')}"
            f" in {scope.label} is tagged '{gate.tag}'"
        )
        return _result(gate, "pending" if regs else "passed", detail, regs)
    tagged = tuple(i for i in regs if session.review(i).tag == gate.tag)
    if tagged:
        detail = (
            f"{len(tagged)} of {plural(len(regs), 'regression')} in {scope.label} tagged "
            f"'{gate.tag}': {_ids(tagged)}"
        )
        return _result(gate, "failed", detail, tagged)
    untriaged = sum(1 for i in regs if not meanings.triaged(session.review(i).tag))
    note = f" ({untriaged} still untriaged)" if untriaged else ""
    detail = (
        f"none of the {plural(len(regs), 'regression')} in {scope.label} is tagged "
        f"'{gate.tag}'{note}"
    )
    return _result(gate, "passed", detail)


def _all_triaged(
    gate: Gate, scope: Scope, session: ReviewSession | None, meanings: TagMeanings
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


def _min_effect_overall(gate: Gate, policy: Policy, analysis: Analysis) -> GateResult:
    """The overall effect gate on clustered items or a graded metric: the interval the verdict
    rests on (cluster-aware, or the bootstrap), not the item-level 2x2 one (which is too narrow
    for clustered items, and which a graded metric does not have)."""
    minimum = policy.min_effect if policy.min_effect is not None else 0.0
    if analysis.options.confidence != policy.confidence:  # the policy's level, as always
        from dataclasses import replace

        from evaltui.core.analysis.pair import with_clusters

        options = replace(analysis.options, confidence=policy.confidence)
        if analysis.clustered:
            analysis = with_clusters(replace(analysis, options=options))
        else:
            analysis = analyze(analysis.paired, options)
    lower = analysis.decision_ci[0]
    if analysis.clustered and math.isnan(lower):
        detail = (
            f"{analysis.decision_ci_label}: too few clusters for a cluster-aware interval, "
            "so the effect cannot be shown"
        )
        return _result(gate, "failed", detail)
    p = analysis.in_points
    unit = " pts" if p else ""
    binary = analysis.binary
    estimate = binary.delta if binary is not None else analysis.graded_comparison.mean_delta
    ok = lower >= minimum
    detail = (
        f"delta on all items {signed(estimate, p, 2 if p else None)}{unit}; "
        f"{analysis.decision_ci_label} lower bound {signed(lower, p, 2 if p else None)}{unit} "
        f"{'>=' if ok else '<'} minimum effect {signed(minimum, p, 2 if p else None)}{unit}"
    )
    return _result(gate, "passed" if ok else "failed", detail)


def _min_effect(gate: Gate, scope: Scope, policy: Policy) -> GateResult:
    minimum = policy.min_effect if policy.min_effect is not None else 0.0
    table = scope.table
    if table is None:  # _check_gates refuses a slice's min_effect on a graded analysis
        raise TypeError("min_effect on a slice needs a pass/fail table")
    interval = paired_delta_interval(table, policy.ci_method, policy.confidence)
    ok = interval.lower >= minimum
    label = CI_METHOD_LABELS.get(policy.ci_method, policy.ci_method)
    detail = (
        f"delta on {scope.label} {points(table.delta, 2)} pts; "
        f"{policy.confidence * 100:g}% {label} lower bound {points(interval.lower, 2)} pts "
        f"{'>=' if ok else '<'} minimum effect {points(minimum, 2)} pts"
    )
    return _result(gate, "passed" if ok else "failed", detail)
