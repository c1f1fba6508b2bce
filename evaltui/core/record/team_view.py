"""A team's review as one reviewer and as the report see it (issue 26, item 2).

One reviewer: while the regressions are split among a team (an assignment), the other
reviewers' tags and notes on an item stay hidden from a reviewer until they have tagged it
themselves (`shown_review`): a second judgment made after seeing the first is not a second
judgment, and the agreement measured over such items would be inflated. Once they have tagged
it, every review is shown, with who made it. The decision is not affected: it counts the
merged view (`shared.merge_reviews`) whatever one screen shows.

The report: each reviewer's share of the regressions (assigned, tagged by them, still open to
them) and every reviewed regression with each reviewer's tag (`team_review`), so a team lead
sees who is behind and a script can check that nobody's tag was lost.
"""

from __future__ import annotations

from typing import Any

from evaltui.core.record.assignment import Team, Workload, workloads
from evaltui.core.record.review_item import ItemReview


def shown_review(review: ItemReview, reviewer: str) -> tuple[ItemReview, int]:
    """What `reviewer` is shown of an item's (merged) review while an assignment is in force,
    and how many other reviewers' reviews are hidden from them (see the module): until they
    have tagged the item themselves, their own review only."""
    others = [r for r in review.reviews if r.reviewer != reviewer and (r.tag or r.note)]
    own = next((r for r in review.reviews if r.reviewer == reviewer), None)
    if not others or (own is not None and own.tag is not None):
        return review, 0
    return (own if own is not None else ItemReview(review.item_id)), len(others)


def reviews_of(review: ItemReview) -> tuple[ItemReview, ...]:
    """Each reviewer's review of an item: a shared review keeps them all; a single reviewer's
    journal has the one (or none)."""
    if review.reviews:
        return tuple(review.reviews)
    return (review,) if review.tag is not None or review.note else ()


def team_review(
    regressions: list[str] | tuple[str, ...], session: Any, team: Team | None
) -> dict[str, Any] | None:
    """The report's `review` block (docs/report.md), or None for a single reviewer's review
    with no team stated (the report then has no such block, as before)."""
    if team is None and getattr(session, "team", None) is None:
        return None
    assignment = team.deal(regressions) if team is not None else None
    tagged_by: dict[str, set[str]] = {}
    items = []
    for item_id in regressions:
        merged = session.review(item_id)
        tagged = [r for r in reviews_of(merged) if r.tag is not None]
        for review in tagged:
            tagged_by.setdefault(review.reviewer, set()).add(item_id)
        if not tagged:
            continue
        entry: dict[str, Any] = {
            "item_id": item_id,
            "tag": merged.tag,
            "disputed": merged.disputed,
            "reviews": [{"reviewer": r.reviewer, "tag": r.tag} for r in tagged],
        }
        if assignment is not None:
            entry["assigned"] = list(assignment.by_item.get(item_id, ()))
        items.append(entry)
    shares: list[Workload] = list(workloads(assignment, tagged_by)) if assignment else []
    named = {share.reviewer for share in shares}
    shares += [  # reviewers outside the team (or every reviewer, with no team stated)
        Workload(name, None, len(ids))
        for name, ids in sorted(tagged_by.items())
        if name not in named
    ]
    return {
        "team": None
        if team is None
        else {
            "reviewers": list(team.reviewers),
            "reviews_per_item": team.per_item,
            "source": team.source,
        },
        "reviewers": [share.to_dict() for share in shares],
        "items": items,
    }
