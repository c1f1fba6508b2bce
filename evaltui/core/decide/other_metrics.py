"""The pair's other metrics that regressed (every scorer of a log decides, issue 24): the
reasons they give the decision, and which of them a reviewer should be shown first.

Kept apart from `pair.py` because two readers need the same order: the decision (its first
line names the most significant one) and the app, which opens the list on the scorer that
blocks when the compared one does not (a first screen that shows no regressions while the
line says BLOCKED sends the reviewer hunting)."""

from __future__ import annotations

from evaltui.core.analysis.metric_row import MetricRow
from evaltui.core.analysis.pair_result import Analysis
from evaltui.core.decide.effect import row_effect
from evaltui.core.decide.vocabulary import Reason
from evaltui.core.words import format_p


def regressed_elsewhere(analysis: Analysis) -> list[MetricRow]:
    """Every other metric of the family whose (adjusted) verdict is "regressed", the most
    significant first (ties by name, so the order never depends on the log's)."""
    rows = [
        r
        for r in analysis.metrics
        if r.metric != analysis.metric and r.in_family and r.verdict == "regressed"
    ]
    rows.sort(key=lambda r: (r.p_adjusted if r.p_adjusted is not None else 1.0, r.metric))
    return rows


def metric_that_blocks(analysis: Analysis) -> str | None:
    """The metric whose regressions a reviewer must see first when the compared one did not
    regress: the most significant other metric that regressed and blocks (the one the first
    line names). None when the compared metric regressed itself (its list already holds the
    items that block), when no other metric blocks, or before the family is computed."""
    if analysis.verdict == "regressed":
        return None
    blocking = [r for r in regressed_elsewhere(analysis) if r.blocks and r.regressions]
    return blocking[0].metric if blocking else None


def other_metrics_regressed(analysis: Analysis) -> list[Reason]:
    """Every other metric of the family whose (adjusted) verdict is "regressed", the most
    significant first: it blocks like the compared one, unless the policy calls it
    `secondary` (then it asks for review). The first line names it with its effect."""
    out = []
    for r in regressed_elsewhere(analysis):
        effect = row_effect(r).text
        if r.blocks:
            out.append(
                Reason(
                    "metric_regressed",
                    f"the candidate regressed on {r.name}: {effect} ({r.ci_method}; "
                    f"p {format_p(r.p_adjusted if r.p_adjusted is not None else r.p_raw)}, "
                    "adjusted over the pair's metrics)",
                    f"{r.name} regressed {effect}",
                    blocking=True,
                    item_ids=r.regressions,
                )
            )
        else:
            out.append(
                Reason(
                    "secondary_regressed",
                    f"the candidate regressed on {r.name}, a secondary metric of the policy "
                    f"(reported, not blocking): {effect}",
                    f"{r.name} regressed (secondary)",
                    item_ids=r.regressions,
                )
            )
    return out
