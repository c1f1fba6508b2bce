"""The decision on a run set (three or more runs): the worst of the baseline's pairs.

Each baseline pair is decided exactly as `evaltui report BASE CAND` decides it (`decide.pair`,
with its gates and the reviewer's tags for that pair, and its verdict adjusted over the family
of pairs), so a candidate that regressed blocks the set whatever the others did. The first line
names every candidate with its status and effect, then the omnibus test, so a reader of line 1
knows which candidate it is about. The pairs' decisions are made by the review workflow
(`record.session.judge_run_set`, which opens each pair's review); this module folds them.

When the runs carry several scorers (issue 24), every pair compares all of them (the family is
every baseline pair's every scorer, `analysis.run_set`), and the line says which: it names the
worst candidate and scorer that regressed ("candidate2 regressed on safe_advice"), each
candidate's effect is the effect of a named scorer (the one that blocks it, else the compared
one), and the omnibus test names the scorer it tested. With one scorer the line is as it was.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from evaltui.core.analysis.metric_row import MetricRow, metric_label
from evaltui.core.analysis.run_set import PairResult, RunSetAnalysis
from evaltui.core.decide.effect import row_effect
from evaltui.core.decide.other_metrics import regressed_elsewhere
from evaltui.core.decide.pair import Decision
from evaltui.core.decide.vocabulary import (
    VERDICT_SHORT,
    CandidateEffect,
    ComposedLine,
    Effect,
    FirstLine,
    worst_status,
)
from evaltui.core.words import p_is


@dataclass(frozen=True)
class ScorerRegression:
    """One candidate's scorer that regressed and blocks (its row in the pair's family)."""

    candidate: int  # index into the run set
    name: str  # the candidate's name
    row: MetricRow

    @property
    def scorer(self) -> str:
        return self.row.name

    def to_dict(self) -> dict[str, Any]:
        return {
            "candidate": self.candidate,
            "name": self.name,
            "metric": self.row.metric,
            "scorer": self.scorer,
        }


@dataclass(frozen=True, eq=False)
class RunSetDecision(ComposedLine):
    """The set's status (the worst of the baseline pairs'), its first line and each pair's."""

    status: str
    first_line: FirstLine
    pairs: tuple[tuple[PairResult, Decision], ...]  # the baseline against each candidate
    # Every (candidate, scorer) that regressed and blocks, the worst first (`regressions_of`).
    regressed: tuple[ScorerRegression, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "status": self.status,
            "line": self.line,
            "exit_code": self.exit_code,
            "regressed": [r.to_dict() for r in self.regressed],
            "pairs": [
                {
                    "baseline": pair.baseline,
                    "candidate": pair.candidate,
                    "status": decision.status,
                    "line": decision.line,
                }
                for pair, decision in self.pairs
            ],
        }


def decide_run_set(
    run_set: RunSetAnalysis, decided: Sequence[tuple[PairResult, Decision]]
) -> RunSetDecision:
    """Fold the baseline pairs' decisions (`decided`, in the set's order) into one status
    and one first line."""
    status = worst_status([d.status for _, d in decided])
    names = run_set.names
    several = several_scorers(run_set)
    regressed = regressions_of(run_set, decided) if several else ()
    candidates = tuple(
        _candidate_effect(names[pair.candidate], pair, d, several) for pair, d in decided
    )
    reasons: tuple[str, ...] = ()
    if regressed:
        worst = regressed[0]
        more = f" (worst of {len(regressed)})" if len(regressed) > 1 else ""
        reasons = (f"{worst.name} regressed on {worst.scorer}{more}",)
    first_line = FirstLine(
        status,
        context=(f"{run_set.k} runs against {names[0]}",),
        reasons=reasons,
        candidates=candidates,
        notes=(omnibus_short(run_set, compared_scorer(run_set) if several else ""),),
    )
    return RunSetDecision(status, first_line, tuple(decided), regressed)


def scorer_that_blocks(run_set: RunSetAnalysis, decision: RunSetDecision) -> MetricRow | None:
    """The scorer a reviewer of the set must see first when the compared one does not block:
    the worst regression's (`decision.regressed`), when it is another scorer and the compared
    one regressed in no pair (its lists then already hold items that block). The app opens
    the set on it (`analysis.run_set.on_metric`), as it opens a pair on the scorer that
    blocks."""
    if not decision.regressed:
        return None
    if any(r.row.metric == run_set.metric for r in decision.regressed):
        return None
    return decision.regressed[0].row


def several_scorers(run_set: RunSetAnalysis) -> bool:
    """Whether the runs carry more than one scorer (metric): then every number names one."""
    return any(len(p.analysis.metrics) > 1 for p in run_set.baseline_pairs)


def compared_scorer(run_set: RunSetAnalysis) -> str:
    """The name of the scorer the matrix and the omnibus test compare ("answered")."""
    for pair in run_set.baseline_pairs:
        row = next((r for r in pair.analysis.metrics if r.metric == run_set.metric), None)
        if row is not None:
            return row.name
    return metric_label(run_set.metric, run_set.runs[0].metadata)


def pair_regressions(pair: PairResult, decision: Decision) -> list[MetricRow]:
    """The pair's scorers that regressed and block, the most significant first: the compared
    one when its decision blocks on it (not when a policy margin accepts it), then every other
    scorer whose adjusted verdict is "regressed" and whose role decides."""
    analysis = pair.analysis
    rows: list[MetricRow] = []
    primary = next((r for r in analysis.metrics if r.metric == analysis.metric), None)
    if primary is not None and any(r.kind == "regressed" and r.blocking for r in decision.reasons):
        rows.append(primary)
    rows += [r for r in regressed_elsewhere(analysis) if r.blocks]
    rows.sort(key=_severity)
    return rows


def regressions_of(
    run_set: RunSetAnalysis, decided: Sequence[tuple[PairResult, Decision]]
) -> tuple[ScorerRegression, ...]:
    """Every (candidate, scorer) that regressed and blocks, the worst first: the smallest p
    adjusted over the family (the most certain regression), then the larger drop, then the
    candidate given first (never the log's order of scorers alone)."""
    names = run_set.names
    out = [
        ScorerRegression(pair.candidate, names[pair.candidate], row)
        for pair, d in decided
        for row in pair_regressions(pair, d)
    ]
    out.sort(key=lambda r: (*_severity(r.row), r.candidate))
    return tuple(out)


def _severity(row: MetricRow) -> tuple[float, float, str]:
    p = row.p_adjusted if row.p_adjusted is not None else row.p_raw
    return (1.0 if p is None else p, row.delta, row.metric)


def _candidate_effect(
    name: str, pair: PairResult, decision: Decision, several: bool
) -> CandidateEffect:
    """The candidate's part of the line: its status and an effect. With several scorers, the
    effect of the scorer that blocks it (the worst), else of the compared one, named."""
    effect = decision.first_line.effect or Effect(decision.effect)
    if not several:
        return CandidateEffect(name, effect, status=decision.status)
    rows = pair_regressions(pair, decision)
    analysis = pair.analysis
    if rows and rows[0].metric != analysis.metric:
        worst = rows[0]
        effect = replace(row_effect(worst), verdict=VERDICT_SHORT[worst.verdict])
        return CandidateEffect(name, effect, status=decision.status, subject=worst.name)
    row = next((r for r in analysis.metrics if r.metric == analysis.metric), None)
    subject = row.name if row is not None else analysis.metric
    return CandidateEffect(name, effect, status=decision.status, subject=subject)


def omnibus_short(run_set: RunSetAnalysis, scorer: str = "") -> str:
    """The omnibus test on the first line: "Cochran's Q p = 0.012", "Cochran's Q on answered
    p = 0.012" when the runs carry several scorers (it tests the compared one)."""
    o = run_set.omnibus
    on = f" on {scorer}" if scorer else ""
    if o is None or o.p is None:
        return f"omnibus test{on} undefined"
    return f"{o.label}{on} p {p_is(o.p)}"
