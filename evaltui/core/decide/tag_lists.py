"""The decision's lists of regressions by tag, and the confirmed ones by slice: asked once
per distinct tag (a million-item pair has ~150,000 regressions and a handful of tags)."""

from __future__ import annotations

from collections.abc import Callable

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
