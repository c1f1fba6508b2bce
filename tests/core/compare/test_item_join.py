"""The pairing's join: the same frame whether the arms list their items in the same order
(placed side by side) or not (joined)."""

from __future__ import annotations

import polars as pl
import pytest

from evaltui.core.compare.item_join import first_per_item, side_by_side


def _join(base: pl.DataFrame, cand: pl.DataFrame) -> pl.DataFrame:
    return base.join(cand, on="item_id", how="inner", suffix="__cand", maintain_order="left")


BASE = pl.DataFrame(
    {"item_id": ["a", "b", "c"], "passed": [1.0, 0.0, 1.0], "slice": ["x", None, "y"]}
)


@pytest.mark.parametrize(
    "cand_ids",
    [["a", "b", "c"], ["c", "a", "b"], ["a", "b"], ["a", "b", "c", "d"], ["b", "c", "z"]],
    ids=["same order", "another order", "one missing", "one more", "one different"],
)
def test_side_by_side_is_the_inner_join_in_the_baselines_order(cand_ids):
    cand = pl.DataFrame(
        {
            "item_id": cand_ids,
            "passed": [float(i % 2) for i in range(len(cand_ids))],
            "only_cand": list(range(len(cand_ids))),
        }
    )
    joined = side_by_side(BASE, cand)
    expected = _join(BASE, cand)
    assert joined.columns == expected.columns == [
        "item_id", "passed", "slice", "passed__cand", "only_cand",
    ]  # fmt: skip
    assert joined.equals(expected)


def test_a_missing_id_is_never_paired_even_in_the_same_order():
    base = BASE.with_columns(pl.Series("item_id", ["a", None, "c"]))
    cand = base.select("item_id", pl.col("passed") * 0)
    assert side_by_side(base, cand).equals(_join(base, cand))
    assert side_by_side(base, cand).height == 2


def _first_joined(base: pl.DataFrame, cand: pl.DataFrame, column: str) -> pl.DataFrame:
    """What `first_per_item` computed before it placed aligned runs side by side."""
    return (
        base.select("item_id", pl.col(column).alias("base"))
        .unique("item_id", keep="first", maintain_order=True)
        .join(
            cand.select("item_id", pl.col(column).alias("cand")).unique(
                "item_id", keep="first", maintain_order=True
            ),
            on="item_id",
            maintain_order="left",
        )
    )


def _hashes(ids: list[str], hashes: list[str | None], epochs: list[int] | None = None):
    return pl.DataFrame(
        {"item_id": ids, "epoch": epochs or [1] * len(ids), "doc_hash": hashes},
        schema_overrides={"doc_hash": pl.String},
    )


@pytest.mark.parametrize(
    ("base", "cand"),
    [
        (_hashes(["a", "b", "c"], ["1", "2", None]), _hashes(["a", "b", "c"], ["1", "9", "3"])),
        (_hashes(["a", "b", "c"], ["1", "2", "3"]), _hashes(["c", "a", "b"], ["3", "1", "7"])),
        (_hashes(["a", "b", "c"], ["1", "2", "3"]), _hashes(["a", "b"], ["1", "5"])),
        (
            _hashes(["a", "a", "b", "b"], ["1", "1", "2", "2"], [1, 2, 1, 2]),
            _hashes(["a", "a", "b", "b"], ["1", "1", "8", "8"], [1, 2, 1, 2]),
        ),
    ],
    ids=["same order", "another order", "one missing", "two epochs in the same order"],
)
def test_first_per_item_is_the_join_of_each_runs_first_records(base, cand):
    got = first_per_item(base, cand, "doc_hash", "doc_hash")
    assert got.columns == ["item_id", "base", "cand"]
    assert got.equals(_first_joined(base, cand, "doc_hash"))
