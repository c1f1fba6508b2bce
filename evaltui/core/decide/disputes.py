"""Disputed regressions in the decision: reviewers of a shared review whose tags disagree.

A disputed item already counts as untriaged (its merged tag is None); the first line also says
how many are disputed ("3 disputed"), because a dispute asks for something else than a missing
tag: an adjudicator's settling (`record/adjudication.py`), not another review. Approval is
refused while any regression is disputed, override or not (`record.session.check_override`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from evaltui.core.decide.vocabulary import Reason
from evaltui.core.words import plural

DISPUTED = "disputed"


def disputed_items(regressions: Sequence[str], items: Mapping[str, Any]) -> tuple[str, ...]:
    """The regressions whose reviews disagree and are not settled yet, in list order."""
    if not items:  # no review (the headless report): nothing to walk
        return ()
    if not any(getattr(review, "disputed", False) for review in items.values()):
        return ()  # (most reviews: no walk over a million-item pair's 154,260 regressions)
    return tuple(i for i in regressions if i in items and getattr(items[i], "disputed", False))


def disputed_reason(disputed: tuple[str, ...]) -> Reason | None:
    """The decision's reason for the disputed regressions (None when there are none)."""
    if not disputed:
        return None
    n = len(disputed)
    return Reason(
        DISPUTED,
        f"{plural(n, 'regression')} disputed: the reviewers' tags disagree; an adjudicator "
        "settles each (approval waits for it)",
        f"{n:,} disputed",
        item_ids=disputed,
    )


def approval_refusal(n_disputed: int) -> str:
    """Why an approval is refused while regressions are disputed, in one line."""
    return (
        f"cannot approve: {plural(n_disputed, 'regression')} disputed (the reviewers' tags "
        "disagree); an override cannot approve over a dispute: settle it first (an "
        "adjudicator's key C in the app, or evaltui adjudicate)"
    )
