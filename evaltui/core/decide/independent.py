"""The decision on two runs of different items (an independent, unpaired comparison).

Made as the pair's is (`decide.pair`), with the same statuses, words and exit codes
(`decide.vocabulary`), and one more rule: it is at best NEEDS REVIEW (see `decide_independent`).
"""

from __future__ import annotations

from typing import Any

from evaltui.core.analysis.independent import LABEL
from evaltui.core.compare.choose_design import ITEM_SOURCE_KEYS, source_mismatch
from evaltui.core.compare.run_metadata import FINISHED_STATUSES
from evaltui.core.decide.effect import effect_of
from evaltui.core.decide.pair import Decision, status_of
from evaltui.core.decide.vocabulary import (
    VERDICT_SHORT,
    Effect,
    FirstLine,
    Reason,
    shown_reasons,
)
from evaltui.core.words import plural

# What must agree even between two samples of different items: a different scorer, metric,
# filter or harness measures something else. Different datasets or tasks are what two samples
# may have (design rule D1): said, never refused.
INDEPENDENT_SAME_KEYS = ("scorer", "metric", "filter", "harness")
NO_VERDICT_INDEPENDENT = {
    "small_n": "an arm has fewer than 30 items ({sizes}): counts only, no verdict",
    "no_variation": "every item in both arms has the same outcome: nothing to weigh, no verdict",
    "zero_variance": "every score is the same within each arm: Welch's t is undefined, no verdict",
    "direction_unknown": (
        "no directional verdict: which way is better for this metric is not known; say it with "
        "--direction higher|lower (or the policy's [metrics.NAME] direction)"
    ),
}


def decide_independent(analysis: Any, *, accept_mismatch: bool = False) -> Decision:
    """The decision on an independent (unpaired) comparison, made as `decide` makes it for a
    pair, with one more rule: it is at best NEEDS REVIEW. There are no item pairs to triage,
    and two samples of different items say less than one set of items seen twice, so a person
    reads the comparison before anyone approves (exit 0, never READY TO APPROVE).

    A "regressed" verdict blocks; no verdict (an arm under 30 items, nothing to weigh) is NOT
    ENOUGH DATA; a different scorer, metric, filter or harness is NOT COMPARABLE unless
    `--accept-mismatch`; a policy's gates and margins are read on item pairs and cannot be
    evaluated here, which is NOT ENOUGH DATA too (a CI job must not pass on gates nobody read).
    """
    c = analysis.comparison
    base_run, cand_run = analysis.runs
    label = Reason(
        "independent",
        f"{LABEL}: {analysis.design.reason}; there are no item pairs to triage, so the "
        "decision is at best needs review",
        LABEL,
    )
    reasons: list[Reason] = []
    differ = [
        f"{key} ({base_run.metadata[key]!r} vs {cand_run.metadata[key]!r})"
        for key in INDEPENDENT_SAME_KEYS
        if base_run.metadata.get(key) is not None
        and cand_run.metadata.get(key) is not None
        and base_run.metadata[key] != cand_run.metadata[key]
    ]
    if differ:
        text = "the runs measure different things: they differ in " + ", ".join(differ)
        keys = ", ".join(d.split(" ", 1)[0] for d in differ)
        if accept_mismatch:
            reasons.append(Reason("mismatch_accepted", text + " (accepted as intended)", keys))
        else:
            reasons.append(
                Reason(
                    "not_comparable",
                    text + "; if this comparison is intended, say so with --accept-mismatch",
                    f"runs differ in {keys}",
                )
            )
    sources = source_mismatch(base_run, cand_run)
    if sources:
        named = ", ".join(f"{key} {a!r} vs {b!r}" for key, a, b in sources)
        reasons.append(
            Reason(
                "different_sources",
                f"the arms come from different item sources ({named}): the comparison assumes "
                f"both are samples of one population of items ({', '.join(ITEM_SOURCE_KEYS)})",
                "different item sources",
            )
        )
    overall = independent_effect(analysis)
    effect = overall.text
    if analysis.verdict == "regressed":
        reasons.append(
            Reason("regressed", f"the candidate regressed: {effect}", "regressed", blocking=True)
        )
    if analysis.verdict == "insufficient_data":
        flag = next(f for f in NO_VERDICT_INDEPENDENT if f in c.flags)
        sizes = f"baseline {c.baseline.n:,}, candidate {c.candidate.n:,}"
        reasons.append(
            Reason(
                "direction_unknown" if flag == "direction_unknown" else "no_verdict",
                NO_VERDICT_INDEPENDENT[flag].format(sizes=sizes),
                "direction unknown (--direction)" if flag == "direction_unknown" else "no verdict",
            )
        )
    policy = analysis.policy
    unread = _policy_rules(policy)
    if unread:
        reasons.append(
            Reason(
                "gates_not_evaluated",
                f"the policy's {plural(len(unread), 'rule')} ({'; '.join(unread)}) are read on "
                "item pairs and cannot be evaluated on an independent comparison",
                f"{plural(len(unread), 'policy rule')} not evaluated",
            )
        )
    for arm, run in (("baseline", base_run), ("candidate", cand_run)):
        status = run.metadata.get("run_status")
        if status is not None and status not in FINISHED_STATUSES:
            reasons.append(
                Reason(
                    "run_incomplete",
                    f"the {arm} log's run status is {status!r}: it may be incomplete",
                    f"{arm} run {status}",
                )
            )
    status = status_of([label, *reasons])
    if unread and status in ("needs_review", "ready"):
        status = "not_enough_data"
    ordered = sorted(reasons, key=lambda r: not r.blocking)
    first_line = FirstLine(
        status, shown_reasons([r.short for r in ordered]), overall, context=(LABEL,)
    )
    return Decision(
        status=status,
        first_line=first_line,
        reasons=(label, *ordered),
        verdict=analysis.verdict,
        by_tag={},
        confirmed_by_slice={},
        untriaged=0,
        sensitivity=None,
    )


def independent_effect(analysis: Any) -> Effect:
    """The difference of the two samples with its interval, said to be independent."""
    c = analysis.comparison
    return effect_of(
        c.delta,
        c.ci.lower,
        c.ci.upper,
        analysis.in_points,
        qualifier="(independent)",
        verdict=VERDICT_SHORT[analysis.verdict],
    )


def _policy_rules(policy: Any) -> list[str]:
    """The names of the policy's rules an independent comparison cannot read."""
    if policy is None:
        return []
    names = [g.name for g in policy.gates]
    if policy.min_effect is not None:
        names.append(f"min_effect {policy.min_effect:g}")
    margin = getattr(policy, "margin", None)
    if margin is not None:
        names.append(f"{margin[0].replace('_', '-')} margin {margin[1]:g}")
    return names
