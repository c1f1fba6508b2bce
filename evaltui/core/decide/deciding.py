"""While the analysis that decides is still running: what the first line may already say.

The app shows its first screen before the cluster bootstrap and the metric family are done
(`pipeline.compare(complete=False)`), and either can change the verdict: on the demo the
item-level interval says "improved" and the cluster-aware one "no significant difference". So
until they are done no surface says a status or a verdict: the first line is "DECIDING…" with
what it waits for, then only what no pending part can change (`FirstLine.deciding`). A headless
command always completes the analysis first and never meets this line.
"""

from __future__ import annotations

from collections.abc import Sequence

from evaltui.core.analysis.pair_result import Analysis
from evaltui.core.analysis.pipeline import COMPLETING_STEPS
from evaltui.core.decide.effect import pair_effect
from evaltui.core.decide.notices import INPUTS_CHANGED, POLICY_CHANGED, STALE_TAGS
from evaltui.core.decide.vocabulary import Effect, FirstLine, Reason, shown_reasons

# Reasons that rest on the items, the tags, the metadata or the files, never on an interval or
# a verdict: the deciding line may say them (the rest, such as "regressed", a gate or a
# margin, may change when the pending parts arrive).
KNOWN_BEFORE_DECIDED = (
    "not_comparable",
    "mismatch_accepted",
    "confirmed_regressions",
    "untriaged",
    "run_incomplete",
    INPUTS_CHANGED,
    STALE_TAGS,
    POLICY_CHANGED,
)


def waiting_for(analysis: Analysis) -> tuple[str, ...]:
    """What the decision still waits for (empty: the analysis is complete and decides)."""
    pending = []
    if analysis.clusters_pending:
        pending.append(COMPLETING_STEPS[0])
    if analysis.breakdowns_pending:
        pending.append(COMPLETING_STEPS[1])
    return tuple(pending)


def deciding_line(analysis: Analysis, reasons: Sequence[Reason]) -> FirstLine:
    """The first line of a pair whose analysis is still running (`waiting_for` is not empty):
    what it waits for, the reasons no pending part can change, and the estimate alone (the
    interval and the verdict are what is pending)."""
    pending = waiting_for(analysis)
    known = [r.short for r in reasons if r.kind in KNOWN_BEFORE_DECIDED]
    effect = pair_effect(analysis)
    estimate = Effect(effect.estimate, qualifier="(interval pending)", measure=effect.measure)
    step = COMPLETING_STEPS.index(pending[0]) + 1  # (the progress reports then say the same)
    return FirstLine.deciding(
        pending[0], shown_reasons(known), estimate, step, len(COMPLETING_STEPS)
    )
