"""The decision on a run set (three or more runs): the worst of the baseline's pairs.

Each baseline pair is decided exactly as `evaltui report BASE CAND` decides it (`decide.pair`,
with its gates and the reviewer's tags for that pair, and its verdict adjusted over the family
of pairs), so a candidate that regressed blocks the set whatever the others did. The first line
names every candidate with its status and effect, then the omnibus test, so a reader of line 1
knows which candidate it is about. The pairs' decisions are made by the review workflow
(`record.session.judge_run_set`, which opens each pair's review); this module folds them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from evaltui.core.analysis.run_set import PairResult, RunSetAnalysis
from evaltui.core.decide.pair import Decision
from evaltui.core.decide.vocabulary import (
    CandidateEffect,
    ComposedLine,
    Effect,
    FirstLine,
    worst_status,
)
from evaltui.core.words import format_p


@dataclass(frozen=True, eq=False)
class RunSetDecision(ComposedLine):
    """The set's status (the worst of the baseline pairs'), its first line and each pair's."""

    status: str
    first_line: FirstLine
    pairs: tuple[tuple[PairResult, Decision], ...]  # the baseline against each candidate

    def to_dict(self) -> dict[str, Any]:
        return {
            "status": self.status,
            "line": self.line,
            "exit_code": self.exit_code,
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
    candidates = tuple(
        CandidateEffect(
            names[pair.candidate],
            d.first_line.effect or Effect(d.effect),
            status=d.status,
        )
        for pair, d in decided
    )
    first_line = FirstLine(
        status,
        context=(f"{run_set.k} runs against {names[0]}",),
        candidates=candidates,
        notes=(omnibus_short(run_set),),
    )
    return RunSetDecision(status, first_line, tuple(decided))


def omnibus_short(run_set: RunSetAnalysis) -> str:
    """The omnibus test on the first line: "Cochran's Q p = 0.012"."""
    o = run_set.omnibus
    if o is None or o.p is None:
        return "omnibus test undefined"
    return f"{o.label} p = {format_p(o.p)}"
