"""One item's review: its tag and note, who made them and when (and, in a shared review, every
reviewer's review of it, and the adjudication that settled a dispute). Its own module so the
journal and the shared folder's reader (`journal.py`, `shared.py`) both build it without
importing each other."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Adjudication:
    """An adjudicator's settling of a disputed item: the settled tag, who, why and when (one
    `adjudication` line of the adjudicator's own journal; see `adjudication.py`)."""

    item_id: str
    tag: str
    by: str
    reason: str
    time: str


@dataclass(frozen=True)
class ItemReview:
    """The current tag and note of one item, with when and by whom they were last changed."""

    item_id: str
    tag: str | None = None
    note: str = ""
    updated: str = ""
    reviewer: str = ""
    seen: tuple[Any, Any] | None = None  # (baseline, candidate) values when it was tagged
    # A shared review (`shared.py`): every reviewer's review of the item, and whether their
    # tags disagree (then `tag` is None: a disputed item counts as untriaged).
    reviews: tuple[Any, ...] = ()
    disputed: bool = False
    # A dispute settled (`adjudication.py`): by an adjudicator's journalled adjudication, or by
    # the policy's rule ("any_confirmed_wins"); `settled` says which in words ("" when not).
    adjudication: Adjudication | None = None
    settled: str = ""

    @property
    def triaged(self) -> bool:
        return self.tag is not None
