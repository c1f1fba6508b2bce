"""Reviewers' agreement in words and as data: the one line the app's header, the reports and
the sign-off record print, and the JSON block the report and the record carry.

The numbers are `stats/agreement.py`'s (`agreement_of_reviews`, computed by the review's owner,
`record/team_review.py`); this module only says them. With fewer than two reviews on every item
there is no number to say, and the line says so instead of giving one.
"""

from __future__ import annotations

from typing import Any

from evaltui.core.stats.agreement_result import (
    ALPHA,
    COHEN,
    FLAG_TEXT,
    AgreementStatistic,
    AgreementSummary,
)
from evaltui.core.textsafe import md_cell
from evaltui.core.words import plural

NO_TWO_REVIEWS = "no items with two reviews"
_SHORT = {COHEN: "kappa", ALPHA: "alpha"}


def _number(value: float) -> str:
    return f"{value:.2f}"


def agreement_line(summary: AgreementSummary) -> str:
    """ "agreement: kappa 0.62 [0.41, 0.80], raw 84%, 3 reviewers, 40 items", or "agreement:
    no items with two reviews"."""
    if summary.n_items == 0:
        return f"agreement: {NO_TWO_REVIEWS}"
    head = summary.headline
    name = _SHORT.get(head.name, head.label)
    if head.value is None:
        said = f"{name} undefined"
    else:
        said = f"{name} {_number(head.value)}"
        if head.ci is not None:
            said += f" [{_number(head.ci.lower)}, {_number(head.ci.upper)}]"
    raw = summary.raw.value
    raw_text = f"raw {raw * 100:.0f}%" if raw is not None else "raw undefined"
    few = " (few items: the interval may cover less)" if "few_items" in summary.flags else ""
    return (
        f"agreement: {said}, {raw_text}, {plural(summary.n_reviewers, 'reviewer')}, "
        f"{plural(summary.n_items, 'item')}{few}"
    )


def _statistic(stat: AgreementStatistic) -> dict[str, Any]:
    return {
        "name": stat.name,
        "value": stat.value,
        "ci": None if stat.ci is None else [stat.ci.lower, stat.ci.upper],
        "applicable": stat.applicable,
        "reason": stat.reason,
        "undefined_resamples": stat.undefined_resamples,
    }


def agreement_dict(summary: AgreementSummary) -> dict[str, Any]:
    """The agreement block of the report and the record: every statistic with its interval or
    its reason, per tag, and the bootstrap's seed, resamples and confidence (to recompute it)."""
    return {
        "line": agreement_line(summary),
        "headline": summary.headline.name if summary.n_items else None,
        "reviewers": list(summary.reviewers),
        "tags": list(summary.labels),
        "n_items": summary.n_items,
        "n_single": summary.n_single,
        "n_ratings": summary.n_ratings,
        "unanimous": summary.unanimous,
        "raw_agreement": _statistic(summary.raw),
        "cohen_kappa": _statistic(summary.cohen),
        "fleiss_kappa": _statistic(summary.fleiss),
        "krippendorff_alpha": _statistic(summary.alpha),
        "per_tag": [
            {"tag": t.tag, "ratings": t.ratings, "items": t.items, **_statistic(t.statistic)}
            for t in summary.tags
        ],
        "confidence": summary.confidence,
        "resamples": summary.resamples,
        "seed": summary.seed,
        "flags": [{"flag": f, "text": FLAG_TEXT.get(f, f)} for f in summary.flags],
    }


def _how(block: dict[str, Any]) -> str:
    """How the agreement was computed, in one sentence (seed and resamples, to recompute it)."""
    return (
        f"Over the {plural(block['n_items'], 'item')} with two or more reviews "
        f"({block['n_single']:,} with one left out); percentile bootstrap over items, "
        f"{block['resamples']:,} resamples, seed {block['seed']}, "
        f"{block['confidence']:.0%} intervals."
    )


def _value(stat: dict[str, Any]) -> str:
    if stat["value"] is None:
        return stat["reason"] or "undefined"
    ci = stat["ci"]
    return _number(stat["value"]) + (f" [{_number(ci[0])}, {_number(ci[1])}]" if ci else "")


def has_reviews(block: dict[str, Any]) -> bool:
    """Whether any reviewer tagged anything: the text and Markdown reports say the agreement
    only then (the JSON always carries it); a report of a review nobody started is spared a
    section about nobody."""
    return bool(block["n_items"] or block["n_single"])


def agreement_text_lines(block: dict[str, Any]) -> list[str]:
    """The agreement block as the text report's lines: the line, then how it was computed."""
    if not block["n_items"]:
        return [block["line"]]
    return [block["line"], f"  {_how(block)}"]


def agreement_markdown(block: dict[str, Any]) -> list[str]:
    """The agreement block as Markdown lines (the report's section): the line, how it was
    computed, the flags, and per tag the headline statistic of that tag against the rest."""
    lines = ["## Reviewers' agreement", "", block["line"]]
    if block["n_items"]:
        lines += ["", _how(block)]
        lines += [f"- {flag['text']}" for flag in block["flags"]]
        lines += ["", "| tag | reviews | items | tag vs the rest |", "|---|---:|---:|---|"]
        lines += [
            f"| {md_cell(t['tag'])} | {t['ratings']:,} | {t['items']:,} | {md_cell(_value(t))} |"
            for t in block["per_tag"]
        ]
    return [*lines, ""]
