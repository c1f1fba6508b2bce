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
from evaltui.core.read.formats.columns import ColumnMap, ColumnOptions
from evaltui.core.read.formats.contract import LoadOptions
from evaltui.core.read.formats.native import (
    POLARS_FAILURES,
    ensure_unchanged,
    fingerprint,
    first_line,
    transcript_from_record,
)
from evaltui.core.read.formats.native_load import NativeFile, StatsPlan, StatsRead, load_native
from evaltui.core.read.formats.parquet_options import NAME
from evaltui.core.read.formats.parquet_options import Options as Options
from evaltui.core.read.runs import MESSAGES, Run, Transcript

MAGIC = b"PAR1"


def sniff(path: Path, head: bytes) -> bool:
    return head.startswith(MAGIC)


def load(path: Path, options: LoadOptions, own: ColumnOptions) -> Run:
    return load_native(path, options, own, FILE)


def _columns(path: Path) -> list[str]:
    try:
        return list(pl.scan_parquet(path, glob=False).collect_schema())
    except POLARS_FAILURES as exc:
        raise _unreadable(path, exc) from None


def _read_stats(path: Path, plan: StatsPlan, options: LoadOptions) -> StatsRead:
    """The statistics columns only: Parquet is columnar, the others are never decoded."""
    check_pages(path, set(plan.sources))
    try:
        raw = plan.renamed(pl.read_parquet(path, columns=plan.sources, glob=False))
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


# ---------------------------------------------------------------------------------------------
# Page headers polars would trust into an abort
#
# polars 2.1 takes a data page's value count as it is written: a negative one (one flipped
# byte of a page header) makes it ask for 2**61 bytes, and Rust ends the process on a failed
# allocation (SIGABRT, exit 134: no panic, nothing to catch). So before polars decodes a
# column, the footer and the header of every page of it are read here (Thrift's compact
# protocol, with every length and count bounded by the bytes there are) and their counts and
# sizes checked against the column chunk they sit in. A footer this reader cannot parse is
# left to polars (it refuses or panics on those, both caught); a page header that is damaged
# or out of bounds is an input error naming the column and the page's offset.

_MAX_DEPTH = 24


class _Damaged(Exception):
    pass


class _Compact:
    """Just enough of Thrift's compact protocol to read Parquet's footer and page headers."""

    def __init__(self, data: bytes, pos: int, end: int) -> None:
        self.data, self.pos, self.end = data, pos, end

    def byte(self) -> int:
        if self.pos >= self.end:
            raise _Damaged("the metadata ends early")
        self.pos += 1
        return self.data[self.pos - 1]

    def varint(self) -> int:
        value = shift = 0
        for _ in range(10):
            b = self.byte()
            value |= (b & 0x7F) << shift
            if not b & 0x80:
                return value
            shift += 7
        raise _Damaged("a number of more than 10 bytes")

    def signed(self) -> int:
        n = self.varint()
        return (n >> 1) ^ -(n & 1)

    def value(self, kind: int, depth: int) -> object:
        if kind in (1, 2):
            return kind == 1
        if kind == 3:
            return self.byte()
        if kind in (4, 5, 6):
            return self.signed()
        if kind == 7:
            self.skip(8)
            return None
        if kind == 8:
            n = self.varint()
            self.skip(n)
            return self.data[self.pos - n : self.pos]
        if kind in (9, 10):
            head = self.byte()
            size = head >> 4 if head >> 4 != 15 else self.varint()
            if size > self.end - self.pos:
                raise _Damaged("a list longer than the metadata")
            return [self.value(head & 0x0F, depth + 1) for _ in range(size)]
        if kind == 11:
            size = self.varint()
            if size:
                types = self.byte()
                if 2 * size > self.end - self.pos:
                    raise _Damaged("a map longer than the metadata")
                for _ in range(size):
                    self.value(types >> 4, depth + 1)
                    self.value(types & 0x0F, depth + 1)
            return None
        if kind == 12:
            return self.struct(depth + 1)
        raise _Damaged(f"an unknown field type {kind}")

    def skip(self, n: int) -> None:
        if n < 0 or self.pos + n > self.end:
            raise _Damaged("a field longer than the metadata")
        self.pos += n

    def struct(self, depth: int = 0) -> dict[int, object]:
        if depth > _MAX_DEPTH:
            raise _Damaged("metadata nested too deep")
        fields: dict[int, object] = {}
        last = 0
        while True:
            head = self.byte()
            if head == 0:
                return fields
            delta, kind = head >> 4, head & 0x0F
            field = last + delta if delta else self.signed()
            fields[field] = self.value(kind, depth)
            last = field


def check_pages(path: Path, columns: set[str]) -> None:
    """Refuse a file whose pages of `columns` (top-level names) hold counts or sizes no writer
    makes (see above). Costs a read of the footer and of each page header of those columns."""
    try:
        with path.open("rb") as handle:
            handle.seek(0, 2)
            size = handle.tell()
            if size < 12:
                return  # polars says what is wrong with it
            handle.seek(size - 8)
            tail = handle.read(8)
            length = int.from_bytes(tail[:4], "little")
            if tail[4:] != MAGIC or not 0 < length <= size - 12:
                return
            handle.seek(size - 8 - length)
            footer = handle.read(length)
            try:
                meta = _Compact(footer, 0, len(footer)).struct()
            except (_Damaged, RecursionError):
                return  # a footer polars will refuse or panic on
            groups = meta.get(4)  # the row groups: a list, unless the footer is damaged
            for group in groups if isinstance(groups, list) else []:
                for chunk in (group.get(1) or []) if isinstance(group, dict) else []:
                    column = chunk.get(3) if isinstance(chunk, dict) else None
                    if isinstance(column, dict):
                        _check_chunk(handle, path, size, column, columns)
    except OSError as exc:
        raise InputError(path, f"cannot read the file: {exc.strerror or exc}") from None


def _check_chunk(handle, path: Path, size: int, column: dict, columns: set[str]) -> None:
    names = column.get(3)
    top = names[0] if isinstance(names, list) and names and isinstance(names[0], bytes) else b""
    if top.decode("utf-8", "replace") not in columns:
        return
    start = column.get(11) if isinstance(column.get(11), int) else column.get(9)
    total, values, unpacked = column.get(7), column.get(5), column.get(6)
    where = f"column {top.decode('utf-8', 'replace')!r}"

    def damaged(problem: str) -> InputError:
        return InputError(path, f"a damaged Parquet page ({where}): {problem}")

    if not (
        isinstance(start, int)
        and isinstance(total, int)
        and isinstance(values, int)
        and isinstance(unpacked, int)
    ):
        raise damaged("its chunk has no offset, size or value count")
    if start < 4 or total < 0 or start + total > size or values < 0 or unpacked < 0:
        raise damaged("its chunk's offset, size or value count is out of bounds")
    pos = counted = 0
    while pos < total:
        window = 1 << 16
        while True:  # a header with long statistics may need a wider window
            handle.seek(start + pos)
            data = handle.read(min(window, total - pos))
            reader = _Compact(data, 0, len(data))
            try:
                header = reader.struct()
                break
            except _Damaged as exc:
                if len(data) >= total - pos:
                    raise damaged(
                        f"the page header at byte {start + pos} is damaged: {exc}"
                    ) from None
                window *= 16
            except RecursionError:
                raise damaged(f"the page header at byte {start + pos} is damaged") from None
        packed, plain = header.get(3), header.get(2)
        if not isinstance(packed, int) or not isinstance(plain, int):
            raise damaged(f"the page header at byte {start + pos} has no sizes")
        if packed < 0 or plain < 0 or pos + reader.pos + packed > total or plain > unpacked:
            raise damaged(
                f"the page at byte {start + pos} claims {packed:,} bytes ({plain:,} unpacked) "
                f"in a chunk of {total:,} ({unpacked:,} unpacked)"
            )
        for key in (5, 7, 8):  # data page, dictionary page, data page v2
            page = header.get(key)
            if isinstance(page, dict):
                counts = [page.get(1)] + ([page.get(2), page.get(3)] if key == 8 else [])
                if not all(isinstance(c, int) and 0 <= c <= values for c in counts):
                    raise damaged(
                        f"the page at byte {start + pos} counts {counts[0]} values in a chunk "
                        f"of {values:,}"
                    )
                if key != 7:
                    counted += page[1]
        pos += reader.pos + packed
    if counted > values:
        raise damaged(f"its pages count {counted:,} values where the chunk has {values:,}")


class ParquetTranscripts:
    """Reads the text columns of the requested rows only."""

    def __init__(self, path: Path, columns: list[str], mapping: ColumnMap | None = None) -> None:
        self._path = path
        self._fingerprint = fingerprint(path)
        self._columns = columns  # canonical names
        self._mapping = mapping or ColumnMap()
        self._pages_checked = False

    def _checked(self) -> None:
        """The text columns' pages, checked once before polars first decodes them (above)."""
        if not self._pages_checked:
            check_pages(self._path, {src for src, _ in self._mapping.read_plan(self._columns)})
            self._pages_checked = True

    def _select(self, names: Sequence[str]) -> list[pl.Expr]:
        return [pl.col(src).alias(dst) for src, dst in self._mapping.read_plan(names)]

    def _rows(self, row: int, length: int = 1) -> pl.DataFrame:
        try:
            scan = pl.scan_parquet(self._path, glob=False).select(self._select(self._columns))
            return scan.slice(row, length).collect()
        except POLARS_FAILURES as exc:  # a page the statistics did not need may be the corrupt one
            raise _unreadable(self._path, exc, row) from None

    def read(self, row: int) -> Transcript:
        ensure_unchanged(self._path, self._fingerprint)
        if not self._columns:
            return Transcript()
        self._checked()
        return transcript_from_record(self._rows(row).row(0, named=True))

    def read_quick(self, row: int) -> Transcript | None:
        """The flat text fields of one row without `messages`, or None when there is nothing
        slower to wait for. polars reads one row of a flat column in a few ms, but decodes a
        nested column (list<struct>) for its whole row group: 150 ms for 100,000 rows of
        ~2 KB, so drill-down shows this first and the messages when `read` returns."""
        if MESSAGES not in self._columns:
            return None
        ensure_unchanged(self._path, self._fingerprint)
        self._checked()
        flat = [c for c in self._columns if c != MESSAGES]
        if not flat:
            return Transcript(complete=False)
        try:
            scan = pl.scan_parquet(self._path, glob=False).select(self._select(flat))
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
        self._checked()
        try:
            column = (
                pl.scan_parquet(self._path, glob=False)
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
