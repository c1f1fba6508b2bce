"""The decision's lists of regressions by tag, and the confirmed ones by slice: asked once
per distinct tag (a million-item pair has ~150,000 regressions and a handful of tags)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import polars as pl

from evaltui.core.read.runs import ITEM_ID, SLICE


def ids_tagged_as(
    tags: dict[str, str | None], wanted: Callable[[str | None], bool]
) -> tuple[str, ...]:
    """The ids (in `tags`' order) whose tag is `wanted`. Asked once per distinct tag, not per
    item: a million-item pair has ~150,000 regressions and a handful of tags; with none tagged
    (the headless report) every id shares one answer and the list is taken whole."""
    answers = {tag: wanted(tag) for tag in set(tags.values())}
    if not any(answers.values()):
        return ()
    if all(answers.values()):
        return tuple(tags)
    return tuple(i for i, tag in tags.items() if answers[tag])


class RegressionTags:
    """Each regression's tag (None: untagged), in the regression list's order. Built per
    regression only when the review tagged something: a reopened million-item pair has
    154,260 regressions, and a dict of them, its distinct tags and its counts cost ~30 ms of
    the decision when nothing is tagged, where every regression's tag is None."""

    def __init__(self, regressions: Sequence[str], items: Mapping[str, Any]) -> None:
        self.regressions = tuple(regressions)
        self.by_id: dict[str, str | None] | None = None  # None: every regression untagged
        if any(review.tag is not None for review in items.values()):
            self.by_id = {i: (items[i].tag if i in items else None) for i in self.regressions}

    def ids(self, wanted: Callable[[str | None], bool]) -> tuple[str, ...]:
        """The regressions whose tag is `wanted`, in list order (`ids_tagged_as`)."""
        if self.by_id is None:
            return self.regressions if self.regressions and wanted(None) else ()
        return ids_tagged_as(self.by_id, wanted)

    def ids_among(
        self, among: tuple[str, ...], wanted: Callable[[str | None], bool]
    ) -> tuple[str, ...]:
        """Those of `among` (some of the regressions, in list order) whose tag is `wanted`."""
        if self.by_id is None:
            return among if among and wanted(None) else ()
        tags = self.by_id
        return ids_tagged_as(
            {i: tags[i] for i in among} if len(among) < len(tags) else tags, wanted
        )

    def counts(self) -> dict[str, int]:
        """How many regressions carry each tag, in the order the tags first appear."""
        if self.by_id is None:
            return {}
        # Counter counts in C and keeps the tags in the order first seen, as a loop would.
        return {tag: n for tag, n in Counter(self.by_id.values()).items() if tag is not None}


def count_by_slice(items: pl.DataFrame, item_ids: tuple[str, ...]) -> dict[str, int]:
    """How many of `item_ids` fall in each slice, most first (empty without slices)."""
    if not item_ids or SLICE not in items.columns:
        return {}
    wanted = pl.Series(list(item_ids), dtype=pl.String).implode()
    counts = (
        items.filter(pl.col(ITEM_ID).is_in(wanted))
        .group_by(pl.col(SLICE).fill_null("(no slice)"))
        .len()
        .sort(["len", SLICE], descending=[True, False])
    )
    return dict(zip(counts[SLICE].to_list(), counts["len"].to_list(), strict=True))
