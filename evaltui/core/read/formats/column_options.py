"""The native formats' options (JSONL, CSV, Parquet: `ColumnOptions`), declared apart from the
column mapping (`columns.py`, which needs polars) so that the command line builds its flags from
them without importing polars (see `contract.py`)."""

from __future__ import annotations

from dataclasses import dataclass

from evaltui.core.read.formats.contract import option as format_option
from evaltui.core.read.formats.contract import parse_list


@dataclass(frozen=True)
class ColumnOptions:
    """The options of the native formats (JSONL, CSV, Parquet): the file's own column names for
    the canonical ones. `text_cols` maps onto input, output, target, explanation in that order;
    an entry "name=field" maps the file's column `name` onto `field` instead (a string is split
    at commas). Checked when the mapping is built (`column_map`), not here, so that a bad value
    is a UsageError at load time."""

    id_col: str | None = format_option("the column holding the item id", metavar="COL")
    pass_col: str | None = format_option("the column holding the pass/fail verdict", metavar="COL")
    score_col: str | None = format_option("the column holding the graded score", metavar="COL")
    slice_col: str | None = format_option("the column holding the slice", metavar="COL")
    cluster_col: str | None = format_option("the column holding the cluster", metavar="COL")
    text_cols: tuple[str, ...] | str | None = format_option(
        "columns for input, output, target, explanation (or name=field pairs)",
        metavar="A,B,C,D",
        parse=parse_list,
    )
