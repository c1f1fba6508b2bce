"""The items neither run changed on, as the app lists them: both pass and both fail (an item
with epochs: on at least half of them), or, for runs without verdicts, one list of unchanged
items.

One definition for the two uses: the analysis counts each list once, with the lists of changed
items (`Analysis.concordant`, what the list titles show before a list is built), and the app's
worker lists their ids when the reviewer first opens one (a big run has many more unchanged
items than changed ones). A count on the UI thread was a polars filter over every item.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import polars as pl

from evaltui.core.compare.pairing import BASE_PASS, CAND_PASS
from evaltui.core.read.runs import ITEM_ID

if TYPE_CHECKING:
    from evaltui.core.analysis.pair_result import Analysis

BOTH_PASS, BOTH_FAIL, UNCHANGED = "both pass", "both fail", "unchanged"


def _frames(analysis: Analysis) -> dict[str, pl.DataFrame]:
    items = analysis.paired.items
    changed = pl.Series([*analysis.regressions, *analysis.improvements], dtype=pl.String)
    same = items.filter(~pl.col(ITEM_ID).is_in(changed.implode()))
    if BASE_PASS not in same.columns:
        return {UNCHANGED: same}
    passed = (pl.col(BASE_PASS) >= 0.5) & (pl.col(CAND_PASS) >= 0.5)
    return {BOTH_PASS: same.filter(passed), BOTH_FAIL: same.filter(~passed)}


def concordant_split(analysis: Analysis) -> dict[str, list[str]]:
    """Each list's item ids, in file order."""
    return {name: frame[ITEM_ID].to_list() for name, frame in _frames(analysis).items()}


def concordant_counts(
    analysis: Analysis, changed: np.ndarray | None = None
) -> tuple[tuple[str, int], ...]:
    """How many items each list holds, without listing their ids: (name, count) in list order.

    `changed`: which rows of the paired items are regressions or improvements (the masks the
    analysis drew the lists from; ids are unique per pair), so the counts need no look-up of
    the changed ids among all items (0.1 s per metric at a million items); without it, the
    lists are found as `concordant_split` finds them."""
    if changed is None:
        return tuple((name, frame.height) for name, frame in _frames(analysis).items())
    items = analysis.paired.items
    same = pl.Series(~np.asarray(changed, dtype=bool))
    if BASE_PASS not in items.columns:
        return ((UNCHANGED, int(same.sum())),)
    # A row whose verdict is missing is in neither list, as `_frames`' filters leave it out.
    passed = items.select((pl.col(BASE_PASS) >= 0.5) & (pl.col(CAND_PASS) >= 0.5)).to_series()
    both_pass = int((same & passed.fill_null(False)).sum())
    both_fail = int((same & (~passed).fill_null(False)).sum())
    return ((BOTH_PASS, both_pass), (BOTH_FAIL, both_fail))
