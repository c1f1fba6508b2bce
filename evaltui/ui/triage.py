"""Triage at scale: tagging many items at once, undoing the last tag, and the message that
tells the screens many items changed together.

The journal writes are core's (`ReviewSession.set_tags` / `restore_tags`: one append, fsynced
before they return); this module keeps what an undo needs (each item's review as it was just
before the change) and drives the app's refresh once per change, not once per item.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from textual.message import Message

from evaltui.core.analysis.pair import item_values
from evaltui.core.errors import EvalTuiError
from evaltui.core.record.journal import ItemReview

if TYPE_CHECKING:
    from evaltui.ui.app import EvalTuiApp

UNDO_DEPTH = 50  # tag changes kept for undo (this session only: the journal keeps them all)
SHOWN_IDS = 5  # ids a bulk tag's confirmation names


class ReviewsChanged(Message):
    """Many items were tagged at once (a bulk tag or an undo; already in the journal)."""

    def __init__(self, item_ids: tuple[str, ...]) -> None:
        super().__init__()
        self.item_ids = item_ids


@dataclass(frozen=True)
class UndoStep:
    """One tag change as it can be undone: what it did, and each item's review before it."""

    label: str
    previous: tuple[ItemReview, ...]


class Triage:
    """The app's undo history of tag changes (single and bulk)."""

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


def tag_items(app: EvalTuiApp, item_ids: Sequence[str], tag: str | None) -> bool:
    """Tag every one of `item_ids` (None clears them), journalled and fsynced before the
    screen says saved; remembered for undo. False when nothing was written."""
    loaded = app.loaded
    if loaded is None or not item_ids:
        return False
    session = loaded.session
    ids = list(dict.fromkeys(item_ids))
    previous = [session.review(item_id) for item_id in ids]
    seen = item_values(loaded.analysis, ids)
    label = f"{len(ids):,} items → {tag_name(tag)}"
    try:
        session.set_tags(ids, tag, seen=seen)
    except EvalTuiError as exc:  # a full disk: nothing was kept, and the screen says so
        app.notify(f"not saved: {label}: {exc}", severity="error", timeout=10, markup=False)
        return False
    app.triage.remember(label, previous)
    after_reviews_change(app, ids)
    app.notify(f"saved: {label} (z undoes)", timeout=4, markup=False)
    return True


def undo(app: EvalTuiApp) -> tuple[str, ...]:
    """Undo the last tag or bulk tag of this session; the ids it restored."""
    loaded = app.loaded
    step = app.triage.last()
    if loaded is None:
        return ()
    if step is None:
        app.notify("nothing to undo: no tag was changed in this session", timeout=3)
        return ()
    try:
        restored = loaded.session.restore_tags(step.previous)
    except EvalTuiError as exc:
        app.notify(f"not undone: {exc}", severity="error", timeout=10, markup=False)
        return ()
    app.triage.steps.pop()
    ids = tuple(review.item_id for review in restored)
    after_reviews_change(app, ids)
    app.notify(f"undone: {step.label}", timeout=4, markup=False)
    return ids


def after_reviews_change(app: EvalTuiApp, item_ids: Sequence[str]) -> None:
    """The rows show the new tags, then the app's own after-a-tag step runs once (gates and
    decision re-evaluated in a worker, the lists and header redrawn), not once per item; the
    screens that show single items are told which ones changed."""
    loaded = app.loaded
    if loaded is None or not item_ids:
        return
    for item_id in item_ids:
        row = app._rows_by_id.get(item_id)
        if row is not None:
            row.tag = loaded.session.review(item_id).tag
    last = item_ids[-1]
    app._after_review_change(last, loaded.session.review(last).tag)
    ids = tuple(item_ids)
    app._tell_screens(lambda: ReviewsChanged(ids))
