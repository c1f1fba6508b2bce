"""One item's review and a pair's session key: what the journal and the shared review folder
both build on, in a module of its own so neither imports the other back."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any


def session_key(baseline: str | Path, candidate: str | Path) -> str:
    """Stable id of a pair of input files: the same two paths always resume the same session."""
    from evaltui.core.read.remote.urls import url_of

    joined = "\n".join(url_of(p) or str(Path(p).resolve()) for p in (baseline, candidate))
    return hashlib.sha256(joined.encode("utf-8")).hexdigest()[:16]


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

    @property
    def triaged(self) -> bool:
        return self.tag is not None
