"""The evaltui run format as Parquet: canonical columns, `messages` as list<struct<role,content>>.

Parquet is columnar, so reading only the statistics columns is free; a transcript is one row
of the text columns, read by slicing a lazy scan when the item is opened.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import polars as pl
from polars.exceptions import PanicException

from evaltui.core.errors import InputError
from evaltui.core.formats.columns import ColumnMap, ColumnOptions
from evaltui.core.formats.contract import LoadOptions
from evaltui.core.formats.native import (
    POLARS_FAILURES,
    ensure_unchanged,
    fingerprint,
    first_line,
    transcript_from_record,
)
from evaltui.core.formats.native_load import NativeFile, StatsPlan, StatsRead, load_native
from evaltui.core.runs import MESSAGES, Run, Transcript

NAME = "parquet"
Options = ColumnOptions
MAGIC = b"PAR1"


def sniff(path: Path, head: bytes) -> bool:
    return head.startswith(MAGIC)


def load(path: Path, options: LoadOptions, own: ColumnOptions) -> Run:
    return load_native(path, options, own, FILE)


def _columns(path: Path) -> list[str]:
    try:
        return list(pl.read_parquet_schema(path))
    except POLARS_FAILURES as exc:
        raise _unreadable(path, exc) from None


def _read_stats(path: Path, plan: StatsPlan, options: LoadOptions) -> StatsRead:
    """The statistics columns only: Parquet is columnar, the others are never decoded."""
    try:
        raw = plan.renamed(pl.read_parquet(path, columns=plan.sources))
    except POLARS_FAILURES as exc:
        raise _unreadable(path, exc) from None

    def locate(row: int) -> tuple[int | None, str | None]:
        return None, f"row {row}"

    return StatsRead(
        frame=raw,
        locate=locate,
        transcripts=ParquetTranscripts(path, plan.text_columns, plan.mapping),
    )


def _unreadable(path: Path, exc: BaseException, row: int | None = None) -> InputError:
    """The error for a file polars cannot read; a panic is named as one (the file is corrupt
    in a way polars did not expect)."""
    how = (
        "polars panicked reading it (a corrupt file?): " if isinstance(exc, PanicException) else ""
    )
    record = None if row is None else f"row {row}"
    return InputError(path, f"cannot be read as Parquet: {how}{first_line(exc)}", record=record)


class ParquetTranscripts:
    """Reads the text columns of the requested rows only."""

    def __init__(self, path: Path, columns: list[str], mapping: ColumnMap | None = None) -> None:
        self._path = path
        self._fingerprint = fingerprint(path)
        self._columns = columns  # canonical names
        self._mapping = mapping or ColumnMap()

    def _select(self, names: Sequence[str]) -> list[pl.Expr]:
        return [pl.col(src).alias(dst) for src, dst in self._mapping.read_plan(names)]

    def _rows(self, row: int, length: int = 1) -> pl.DataFrame:
        try:
            scan = pl.scan_parquet(self._path).select(self._select(self._columns))
            return scan.slice(row, length).collect()
        except POLARS_FAILURES as exc:  # a page the statistics did not need may be the corrupt one
            raise _unreadable(self._path, exc, row) from None

    def read(self, row: int) -> Transcript:
        ensure_unchanged(self._path, self._fingerprint)
        if not self._columns:
            return Transcript()
        return transcript_from_record(self._rows(row).row(0, named=True))

    def read_quick(self, row: int) -> Transcript | None:
        """The flat text fields of one row without `messages`, or None when there is nothing
        slower to wait for. polars reads one row of a flat column in a few ms, but decodes a
        nested column (list<struct>) for its whole row group: 150 ms for 100,000 rows of
        ~2 KB, so drill-down shows this first and the messages when `read` returns."""
        if MESSAGES not in self._columns:
            return None
        ensure_unchanged(self._path, self._fingerprint)
        flat = [c for c in self._columns if c != MESSAGES]
        if not flat:
            return Transcript(complete=False)
        try:
            scan = pl.scan_parquet(self._path).select(self._select(flat))
            record = scan.slice(row, 1).collect().row(0, named=True)
        except POLARS_FAILURES as exc:
            raise _unreadable(self._path, exc, row) from None
        return replace(transcript_from_record(record), complete=False)

    # Each call decodes the whole column once: ask for many rows at a time.
    batch_size = 500_000

    def read_field(self, rows: Sequence[int], name: str) -> list[str | None]:
        ensure_unchanged(self._path, self._fingerprint)
        if name not in self._columns or not rows:
            return [None] * len(rows)
        try:
            column = (
                pl.scan_parquet(self._path)
                .select(self._select([name]))
                .with_row_index("_row")
                .filter(pl.col("_row").is_in(pl.Series(list(rows), dtype=pl.UInt32).implode()))
                .collect()
            )
        except POLARS_FAILURES as exc:
            raise _unreadable(self._path, exc) from None
        by_row = dict(zip(column["_row"].to_list(), column[name].to_list(), strict=True))
        return [by_row.get(r) for r in rows]


FILE = NativeFile(NAME, _columns, _read_stats)
