"""Splitting a pair's regressions among a team of reviewers (issue 26, item 2; core only so far).

Each item goes to `per_item` different reviewers, and every reviewer gets the same number of
items give or take one. The split is deterministic: the same items and reviewers give the same
assignment on every machine and in any order they are listed, so a team need not share a file
to know who reviews what. Items are dealt in the order of their ids' sha256, not file order, so
one reviewer does not get all of one slice or one stretch of the run (files are often sorted by
category).

Not wired yet: no command-line option, no policy `[review]` table, no "assigned to you" in the
app. Those read this.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Assignment:
    """Who reviews which item: `by_item` maps each item to its reviewers (in name order)."""

    reviewers: tuple[str, ...]  # sorted
    per_item: int
    by_item: Mapping[str, tuple[str, ...]]

    def of(self, reviewer: str) -> tuple[str, ...]:
        """The items assigned to `reviewer`, in the dealing order."""
        return tuple(item for item, names in self.by_item.items() if reviewer in names)

    def loads(self) -> dict[str, int]:
        """How many items each reviewer has."""
        counts = dict.fromkeys(self.reviewers, 0)
        for names in self.by_item.values():
            for name in names:
                counts[name] += 1
        return counts


def assign(item_ids: Sequence[str], reviewers: Sequence[str], per_item: int) -> Assignment:
    """Deal `item_ids` to `reviewers`, `per_item` distinct reviewers each (see the module).

    Slot s of the n * per_item slots (item s // per_item) goes to reviewer s mod R: consecutive
    slots of one item are distinct reviewers because per_item <= R, and the slots go round the
    reviewers, so the loads differ by at most one.
    """
    names = tuple(sorted(reviewers))
    if not names or any(not n.strip() for n in names):
        raise ValueError(f"reviewers must be one or more non-empty names, got {list(reviewers)!r}")
    if len(set(names)) != len(names):
        raise ValueError(f"reviewers must be distinct, got {list(reviewers)!r}")
    if not 1 <= per_item <= len(names):
        raise ValueError(
            f"per_item must be between 1 and the number of reviewers ({len(names)}), "
            f"got {per_item!r}"
        )
    order = sorted(dict.fromkeys(item_ids), key=_dealing_key)
    by_item = {
        item: tuple(sorted(names[(i * per_item + j) % len(names)] for j in range(per_item)))
        for i, item in enumerate(order)
    }
    return Assignment(names, per_item, by_item)


def _dealing_key(item_id: str) -> tuple[str, str]:
    return hashlib.sha256(item_id.encode("utf-8")).hexdigest(), item_id
