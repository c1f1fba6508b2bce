"""The decision on a judge's preferences (`evaltui prefer`), in the words every design speaks.

The same statuses, words and exit codes as `evaltui report` (`decide.vocabulary`), with the
candidate in place of the candidate run and the judge's preferences in place of the 2x2 table:

- ``blocked``: a candidate's head-to-head win rate against the baseline is significantly below
  1/2 (the exact sign test rejects at alpha, its p adjusted over the pairs when there are
  several);
- ``not_enough_data``: some candidate has no verdict: never judged against the baseline, every
  judgment a tie, or fewer than 30 judged items;
- ``needs_review``: the win-rate interval and the exact sign test disagree for a candidate (the
  result sits on the line: a reader must look);
- ``ready``: none of the above.

A preference file has no items to triage (there is no transcript to tag), so nothing here waits
on a reviewer's tags; ``needs_review`` only ever means "read the numbers yourself". The decision
rests on direct head-to-head judgments; the Bradley-Terry fit (three or more systems) is shown
as context and never decides, because it pools indirect comparisons through a model.
"""

from __future__ import annotations

from dataclasses import dataclass

from evaltui.core.analysis.preference import NAME_WIDTH, PreferenceAnalysis
from evaltui.core.decide.effect import percent_effect
from evaltui.core.decide.vocabulary import (
    VERDICT_SHORT,
    CandidateEffect,
    ComposedLine,
    Effect,
    FirstLine,
    Reason,
    shown_reasons,
)
from evaltui.core.stats.preference import TIE_RULE_TEXT
from evaltui.core.stats.preference_matrix import PairResult
from evaltui.core.textsafe import one_line


@dataclass(frozen=True)
class PreferenceDecision(ComposedLine):
    """The status, the first line in parts and its reasons, and each candidate's verdict
    against the baseline."""

    status: str
    first_line: FirstLine
    verdicts: dict[str, str]
    reasons: tuple[Reason, ...]

    @property
    def effect(self) -> str:
        """Every candidate's effect against the baseline, as the first line says them."""
        line = self.first_line
        return f"vs {line.versus}: " + "; ".join(c.text for c in line.candidates)


def win_rate_effect(candidate: str, result: PairResult | None, verdict: str) -> Effect:
    """``v2 wins 57.5% [52.6%, 62.3%] (ties count half), improved`` in parts."""
    name = one_line(candidate, NAME_WIDTH)
    if result is None:
        return Effect(f"{name} never judged against the baseline", verdict=VERDICT_SHORT[verdict])
    rate = result.comparison.primary
    ci = rate.ci
    return percent_effect(
        rate.estimate,
        ci.lower if ci else None,
        ci.upper if ci else None,
        subject=f"{name} wins",
        qualifier=f"({TIE_RULE_TEXT[result.comparison.ties]})",
        verdict=VERDICT_SHORT[verdict],
    )


def _no_verdict_text(candidate: str, baseline: str, result: PairResult | None) -> str:
    name, base = one_line(candidate, NAME_WIDTH), one_line(baseline, NAME_WIDTH)
    if result is None:
        return f"{name} was never judged against the baseline {base}: no verdict"
    flags = result.comparison.flags
    n = result.comparison.counts.n
    if "no_decisive" in flags:
        return f"every one of the {n:,} judgments of {name} against {base} is a tie: no verdict"
    if "small_n" in flags:
        return f"only {n:,} judged items for {name} against {base}: counts only, no verdict"
    return f"{name} against {base}: no verdict"


def decide_preferences(analysis: PreferenceAnalysis) -> PreferenceDecision:
    """Each candidate's head-to-head result against the baseline, folded into one status."""
    baseline = analysis.baseline
    reasons: list[Reason] = []
    verdicts: dict[str, str] = {}
    effects: list[CandidateEffect] = []
    for candidate, result in analysis.head_to_head.items():
        verdict = "insufficient_data" if result is None else result.verdict
        verdicts[candidate] = verdict
        effect = win_rate_effect(candidate, result, verdict)
        effects.append(CandidateEffect(candidate, effect))
        name = one_line(candidate, NAME_WIDTH)
        if verdict == "regressed":
            reasons.append(
                Reason(
                    "regressed",
                    f"the judge prefers the baseline {one_line(baseline, NAME_WIDTH)} "
                    f"over {name}: {effect.text}",
                    f"{name} regressed",
                    blocking=True,
                )
            )
        elif verdict == "insufficient_data":
            reasons.append(
                Reason(
                    "no_verdict",
                    _no_verdict_text(candidate, baseline, result),
                    f"{name}: no verdict",
                )
            )
        if result is not None and "ci_test_disagree" in result.comparison.flags:
            reasons.append(
                Reason(
                    "on_the_line",
                    f"{name}: the win-rate interval and the exact sign test disagree about "
                    "significance; the result sits on the line",
                    f"{name} on the line",
                )
            )
    kinds = {r.kind for r in reasons}
    if any(r.blocking for r in reasons):
        status = "blocked"
    elif "no_verdict" in kinds:
        status = "not_enough_data"
    elif reasons:
        status = "needs_review"
    else:
        status = "ready"
    shorts = shown_reasons([r.short for r in sorted(reasons, key=lambda r: not r.blocking)])
    first_line = FirstLine(
        status,
        shorts,
        candidates=tuple(effects),
        versus=one_line(baseline, NAME_WIDTH),
    )
    return PreferenceDecision(status, first_line, verdicts, tuple(reasons))
