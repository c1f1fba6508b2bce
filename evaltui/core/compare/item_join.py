"""The two arms' items side by side on their ids: the pairing's join, without gathering when
the runs list the same items in the same order."""

from __future__ import annotations

import polars as pl

from evaltui.core.read.runs import EPOCH, ITEM_ID


def side_by_side(base_items: pl.DataFrame, cand_items: pl.DataFrame) -> pl.DataFrame:
    """The two arms' items side by side, on their ids (unique per arm), in the baseline's
    order; a candidate column the baseline also has gets the suffix ``__cand``.

    Two runs of the same items usually list them in the same order. Then the join's result is
    the two frames side by side, and placing them so shares their columns instead of gathering
    new ones: at ten million items the join gathered 1.3 GB of ids (a peak of 3.7 GB against
    the 2.4 GB of reading and joining the columns alone). Otherwise, the join."""
    base_ids, cand_ids = base_items[ITEM_ID], cand_items[ITEM_ID]
    if base_ids.null_count() == 0 and base_ids.equals(cand_ids):
        shared = set(base_items.columns)
        rest = cand_items.drop(ITEM_ID)
        rest = rest.rename({c: f"{c}__cand" for c in rest.columns if c in shared})
        return pl.concat([base_items, rest], how="horizontal")
    return base_items.join(
        cand_items, on=ITEM_ID, how="inner", suffix="__cand", maintain_order="left"
    )


def first_per_item(
    baseline: pl.DataFrame, candidate: pl.DataFrame, base_column: str, cand_column: str
) -> pl.DataFrame:
    """``item_id``, ``base``, ``cand``: for each id both runs hold, the value of the column in
    its first record in each run (epochs of one item share a document), in the baseline's
    order of first appearance. For the tables of two paired runs (no (id, epoch) twice:
    `pair_runs` refuses that first).

    Two single-epoch runs that list the same ids in the same order (the usual case: lm-eval's
    samples files of one task) are placed side by side: their ids are then unique, and the
    two `unique` calls and the join over them give the same rows (they cost ~0.09 s of CPU
    per comparison on a 200,000-line lm-eval pair, and a report made five: the doc hashes at
    pairing, then the documents and the prompts in the decision and again in the JSON)."""
    base = baseline.select(ITEM_ID, pl.col(base_column).alias("base"))
    cand = candidate.select(ITEM_ID, pl.col(cand_column).alias("cand"))
    if (
        baseline[EPOCH].n_unique() == 1
        and candidate[EPOCH].n_unique() == 1
        and base[ITEM_ID].null_count() == 0
        and base[ITEM_ID].equals(cand[ITEM_ID])
    ):
        return base.with_columns(cand["cand"])
    return base.unique(ITEM_ID, keep="first", maintain_order=True).join(
        cand.unique(ITEM_ID, keep="first", maintain_order=True),
        on=ITEM_ID,
        maintain_order="left",
    )
