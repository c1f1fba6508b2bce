"""Triage at scale: what an undo needs (each item's review as it was just before a tag
change), and the words a bulk change is named by.

The journal writes are core's (`ReviewSession.set_tags` / `restore_tags`: one append, fsynced
before they return); the review state (`ui/state.py`) makes them and keeps this history.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from evaltui.core.record.journal import ItemReview

UNDO_DEPTH = 50  # tag changes kept for undo (this session only: the journal keeps them all)
SHOWN_IDS = 5  # ids a bulk tag's confirmation names


@dataclass(frozen=True)
class UndoStep:
    """One tag change as it can be undone: what it did, and each item's review before it."""

    label: str
    previous: tuple[ItemReview, ...]


class Triage:
    """The review's undo history of tag changes (single and bulk)."""

    def __init__(self) -> None:
        self.steps: list[UndoStep] = []
        # Tag-and-advance: in the item screen a tag key moves on to the next untriaged item.
        self.advance = True

    def remember(self, label: str, previous: Sequence[ItemReview]) -> None:
        self.steps.append(UndoStep(label, tuple(previous)))
        del self.steps[:-UNDO_DEPTH]

    def last(self) -> UndoStep | None:
        return self.steps[-1] if self.steps else None


def tag_name(tag: str | None) -> str:
    return tag if tag is not None else "no tag"


def describe_ids(item_ids: Sequence[str], shown: int = SHOWN_IDS) -> str:
    """`a, b, c and 12 more`: the first few ids of a bulk change."""
    head = ", ".join(item_ids[:shown])
    rest = len(item_ids) - shown
    return f"{head} and {rest:,} more" if rest > 0 else head
