"""A review's team side, for the header, the report and the sign-off record: who reviewed, every
review and every adjudication of the pair's discordant items, the disputes open and settled, and
the reviewers' agreement (`stats/agreement.py`'s `agreement_of_reviews`, the one call).

A review of one's own (no shared folder) is a team of one: its reviews are the reviewer's tags,
and the agreement says "no items with two reviews".
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from evaltui.core.record.journal import ItemReview, ReviewSession
from evaltui.core.report.agreement import agreement_dict, agreement_line
from evaltui.core.stats.agreement import agreement_of_reviews
from evaltui.core.stats.agreement_result import AgreementSummary

AGREEMENT_SEED = 0
AGREEMENT_RESAMPLES = 10_000  # (10,000 resamples of 2,500 items x 3 reviewers: 0.09 s here)
AGREEMENT_CONFIDENCE = 0.95
UNNAMED = "(unnamed)"  # a review journalled with no reviewer name


def _reviews(review: ItemReview) -> tuple[ItemReview, ...]:
    """Every reviewer's review of an item (a review of one's own: the one review it has)."""
    if review.reviews:
        return review.reviews
    return (review,) if review.tag is not None or review.note else ()


def review_agreement(session: ReviewSession, item_ids: list[str]) -> AgreementSummary:
    """The reviewers' agreement on these items' tags (items with two or more tagged reviews
    count), seeded and resampled as the record says."""
    ratings: dict[str, dict[str, str | None]] = {}
    single = 0  # items with one tagged review: counted, never tabled (300k of them took 1 s)
    items = session.items
    for item_id in item_ids if items else ():  # nothing reviewed: no walk over the ids
        review = items.get(item_id)
        if review is None or len(review.reviews) < 2:
            single += review is not None and review.tag is not None
            continue
        tagged: dict[str, str | None] = {
            (r.reviewer or UNNAMED): r.tag for r in review.reviews if r.tag is not None
        }
        if len(tagged) >= 2:
            ratings[item_id] = tagged
        else:
            single += len(tagged)
    used = {t for row in ratings.values() for t in row.values() if t is not None}
    labels = [*session.info.tags, *sorted(used - set(session.info.tags))]
    summary = agreement_of_reviews(
        ratings,
        labels=labels,
        resamples=AGREEMENT_RESAMPLES,
        confidence=AGREEMENT_CONFIDENCE,
        seed=AGREEMENT_SEED,
    )
    return replace(summary, n_single=summary.n_single + single)


def discordant_ids(analysis: Any) -> list[str]:
    """The items a review tags: the pair's regressions, then its improvements."""
    return [*analysis.regressions, *analysis.improvements]


def team_block(analysis: Any, session: ReviewSession) -> dict[str, Any]:
    """The record's `team_review`: every reviewer, every review (item, reviewer, tag, note,
    time), every adjudication in force (item, tag, who, why, when), the disputes still open
    and those settled (by an adjudicator or the rule), the rule, and the agreement."""
    ids = discordant_ids(analysis)
    reviews: list[dict[str, Any]] = []
    adjudications: list[dict[str, Any]] = []
    open_: list[str] = []
    settled: list[dict[str, Any]] = []
    for item_id in ids:
        merged = session.review(item_id)
        for r in _reviews(merged):
            reviews.append(
                {
                    "item_id": item_id,
                    "reviewer": r.reviewer or UNNAMED,
                    "tag": r.tag,
                    "note": r.note,
                    "time": r.updated or None,
                }
            )
        if merged.disputed:
            open_.append(item_id)
        if merged.settled:
            settled.append({"item_id": item_id, "tag": merged.tag, "how": merged.settled})
        if merged.adjudication is not None:
            a = merged.adjudication
            adjudications.append(
                {"item_id": item_id, "tag": a.tag, "by": a.by, "reason": a.reason, "time": a.time}
            )
    reviewers = sorted({str(r["reviewer"]) for r in reviews} | {a["by"] for a in adjudications})
    return {
        "reviewers": reviewers,
        "reviews": reviews,
        "adjudications": adjudications,
        "dispute_rule": session.dispute_rule,
        "disputes_open": open_,
        "disputes_settled": settled,
        "agreement": agreement_dict(review_agreement(session, ids)),
    }


def team_agreement_line(analysis: Any, session: ReviewSession) -> str | None:
    """The app's full header's agreement line for a shared review ("agreement: kappa 0.62
    [0.41, 0.80], raw 84%, 3 reviewers, 40 items", or "... no items with two reviews"); None
    for a review of one's own, which has no team to agree. Computed in the app's workers."""
    if session.team is None:
        return None
    return agreement_line(review_agreement(session, discordant_ids(analysis)))
