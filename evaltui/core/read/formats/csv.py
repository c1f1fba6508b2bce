"""The evaltui run format as CSV: a header row with the canonical column names.

Only the statistics columns are parsed up front. Text columns are read once, on the first
drill-down, because CSV has no cheap way to jump to a record (quoted cells may span lines).
`messages`, if present, holds a JSON list of {role, content}.
"""

from __future__ import annotations

import csv as std_csv
import io
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import polars as pl

from evaltui.core.errors import InputError
from evaltui.core.read.formats.columns import ColumnMap, ColumnOptions
from evaltui.core.read.formats.contract import LoadOptions
from evaltui.core.read.formats.csv_options import NAME
from evaltui.core.read.formats.csv_options import Options as Options
from evaltui.core.read.formats.jsontext import describe
from evaltui.core.read.formats.native import (
    POLARS_FAILURES,
    ensure_unchanged,
    fingerprint,
    first_line,
    transcript_from_record,
)
from evaltui.core.read.formats.native_load import NativeFile, StatsPlan, StatsRead, load_native
from evaltui.core.read.runs import PASSED, Run, Transcript


def sniff(path: Path, head: bytes) -> bool:
    """A text file whose first line reads as a header of several columns (checked on load)."""
    try:
        first = head.decode("utf-8").splitlines()[0]
    except (UnicodeDecodeError, IndexError):
        return False
    if first.lstrip().startswith(("{", "[")):
        return False
    header = next(std_csv.reader(io.StringIO(first)), [])
    return len(header) >= 2 or "item_id" in [h.strip() for h in header]


def _header(path: Path) -> list[str]:
    """The header row. A column named twice is refused: readers disagree on which one a name
    means (polars renames the second `passed_duplicated_0`, others keep the last)."""
    with path.open("r", encoding="utf-8-sig", newline="") as handle:  # a BOM is no column name
        try:
            header = next(std_csv.reader(handle), [])
        except (UnicodeDecodeError, std_csv.Error) as exc:
            raise InputError(path, f"cannot read the CSV header: {exc}", line=1) from None
    seen: set[str] = set()
    for name in header:
        if name in seen:
            raise InputError(
                path,
                "the header names this column twice; readers disagree on which one counts: "
                "rename or remove one",
                line=1,
                field=name,
            )
        seen.add(name)
    return header


def load(path: Path, options: LoadOptions, own: ColumnOptions) -> Run:
    return load_native(path, options, own, FILE)


def _read_stats(path: Path, plan: StatsPlan, options: LoadOptions) -> StatsRead:
    """The statistics columns only; verdicts are read as text and parsed strictly here."""
    schema = plan.schema
    # Read verdicts as text first: polars would take "1" or "yes" for a boolean column.
    overrides = {src: (pl.String if dst == PASSED else schema[dst]) for src, dst in plan.reads}
    records = check_quoting(path)
    try:
        raw = pl.read_csv(path, columns=list(overrides), schema_overrides=overrides, glob=False)
    except POLARS_FAILURES as exc:
        raise InputError(path, f"cannot be read as CSV: {first_line(exc)}") from None
    if raw.height != records:
        raise InputError(
            path,
            f"polars read {raw.height:,} records where the file's line breaks outside quotes "
            f"make {records:,}; refusing a file its readers split differently",
        )
    _refuse_broken_labels(raw, path, plan)

    def locate(row: int) -> tuple[int | None, str | None]:
        return None, f"data row {row + 1}"

    return StatsRead(
        frame=(
            plan.renamed(raw)  # --pass-col: 0/1 too, parsed by load_native
            if plan.loose_verdicts
            else _parse_verdicts(plan.renamed(raw), path, plan.mapping.user_name(PASSED))
        ),
        locate=locate,
        transcripts=CsvTranscripts(path, plan.text_columns, plan.mapping),
    )


def _refuse_broken_labels(raw: pl.DataFrame, path: Path, plan: StatsPlan) -> None:
    """An id, verdict, status, slice or cluster never holds a line break; one that does is most
    likely lines joined into one cell by stray quotes (well-formed, so every reader agrees, and
    the records in between are gone), so it is refused, naming the record and the column."""
    for name in raw.columns:
        if raw.schema[name] != pl.String:
            continue
        hit = raw.select(pl.col(name).str.contains("[\r\n]").arg_true().first()).item()
        if hit is not None:
            raise InputError(
                path,
                f"holds a line break ({describe(raw[name][int(hit)], 60)}); a statistics cell "
                "never does: a stray quote may have joined the following lines into this cell",
                record=f"data row {int(hit) + 1}",
                field=name,
            )


def _parse_verdicts(raw: pl.DataFrame, path: Path, field: str) -> pl.DataFrame:
    """Accept exactly true/false (any case); anything else is named by its data row and by
    `field`, the file's name for the verdict column."""
    if PASSED not in raw.columns:
        return raw
    text = pl.col(PASSED).str.strip_chars().str.to_lowercase()
    bad = raw.select(
        (text.is_not_null() & (text != "") & ~text.is_in(["true", "false"])).arg_true().first()
    ).item()
    if bad is not None:
        value = raw[PASSED][int(bad)]
        raise InputError(
            path,
            f"expected true or false, got {value!r}",
            record=f"data row {int(bad) + 1}",
            field=field,
        )
    return raw.with_columns(
        pl.when(text == "true").then(True).when(text == "false").then(False).alias(PASSED)
    )


_QUOTE, _COMMA, _LF, _CR = b'"'[0], b","[0], b"\n"[0], b"\r"[0]


def check_quoting(path: Path) -> int:
    """Check the file's quoting as RFC 4180 has it and return its number of data records; the
    first fault is an InputError naming its line. A quote that opens a cell must start it, one
    that closes a cell must end it, every quoted cell must close, and a line ends with LF or
    CRLF: a stray quote otherwise makes readers split the rest of the file into other records
    (or one), and a reader that takes it quietly loses the tail.

    Inside and outside quoted cells alternate with the parity of the quotes seen so far (a
    doubled quote inside a cell counts two), so numpy finds every fault at once: a run of
    consecutive quotes that opens a cell must follow a comma or a line break, one after which
    the cell is closed must precede a comma, CR, LF or the end of the file, a CR outside a cell
    must precede LF, and the file must end outside a cell."""
    from evaltui.core.read.formats.jsonl_scan import BLOCK, _complete_lines

    quotes = 0  # quotes before the block
    lines = 0  # line breaks before the block
    records = 0  # line breaks outside quotes
    last = _LF
    opened_line = 1
    fields: int | None = None  # the header's commas; every record must have as many
    carry = 0  # commas of the record still open at the end of the previous block
    for buf, cut in _complete_lines(path, BLOCK):
        data = np.frombuffer(buf, np.uint8, count=cut)  # released below: buf is reused
        at = np.flatnonzero(data == _QUOTE)
        breaks = np.flatnonzero(data == _LF)
        faults: list[tuple[int, str]] = []
        if at.size:
            first = np.r_[True, np.diff(at) != 1]  # the first quote of each run
            final = np.r_[np.diff(at) != 1, True]  # the last quote of each run
            ordinal = np.arange(at.size) + quotes
            opens = at[first & (ordinal % 2 == 0)]
            before = np.where(opens > 0, data[np.maximum(opens - 1, 0)], _LF)
            bad = opens[(before != _COMMA) & (before != _LF)]
            if bad.size:
                faults.append((int(bad[0]), "a quote inside an unquoted cell"))
            if opens.size:  # where the last cell opened, should it never close
                opened_line = lines + int(np.searchsorted(breaks, opens[-1])) + 1
            closes = at[final & ((ordinal + 1) % 2 == 0)]
            after = np.where(closes + 1 < cut, data[np.minimum(closes + 1, cut - 1)], _LF)
            bad = closes[(after != _COMMA) & (after != _LF) & (after != _CR)]
            if bad.size:
                faults.append((int(bad[0]), "a quoted cell that goes on after its closing quote"))
        inside = (np.searchsorted(at, breaks) + quotes) % 2 == 1
        ends = breaks[~inside]  # where records end in this block
        commas = np.flatnonzero(data == _COMMA)
        commas = commas[(np.searchsorted(at, commas) + quotes) % 2 == 0]
        per_record = np.bincount(np.searchsorted(ends, commas), minlength=ends.size + 1)
        per_record[0] += carry
        if fields is None and ends.size:
            fields = int(per_record[0])
        complete = per_record[: ends.size]
        expected = np.full(complete.size, fields if fields is not None else 0)
        if records == 0 and complete.size:
            expected[0] = complete[0]  # the header sets the count
        ragged = np.flatnonzero(complete != expected)
        if ragged.size:
            k = int(ragged[0])
            faults.append(
                (
                    int(ends[k]),
                    f"a record of {int(complete[k]) + 1} cells where the header has "
                    f"{(fields or 0) + 1} (a cut or joined line?)",
                )
            )
        carry = int(per_record[-1])
        records += int(ends.size)
        returns = np.flatnonzero(data == _CR) if buf.find(b"\r", 0, cut) != -1 else at[:0]
        if returns.size:
            outside = (np.searchsorted(at, returns) + quotes) % 2 == 0
            follows = np.where(returns + 1 < cut, data[np.minimum(returns + 1, cut - 1)], 0)
            bare = returns[outside & (follows != _LF)]
            if bare.size:
                faults.append((int(bare[0]), "a carriage return (CR) that does not end a line"))
        if faults:
            position, what = min(faults)
            line = lines + int(np.searchsorted(breaks, position)) + 1
            raise InputError(
                path,
                f"{what}; expected RFC 4180 quoting (a cell holding a quote, comma or line break "
                'is quoted, its quotes doubled: "say ""hi""") and LF or CRLF line ends',
                line=line,
            )
        quotes += at.size
        lines += breaks.size
        if cut:
            last = int(data[cut - 1])
        del data  # the buffer may grow for the next block only once nothing views it
    if last != _LF and fields is not None and carry != fields:
        raise InputError(
            path,
            f"the last record has {carry + 1} cells where the header has {fields + 1} (a file "
            "cut short?); expected RFC 4180 records of one length",
            line=lines + 1,
        )
    if quotes % 2:
        raise InputError(
            path,
            "a quote opens a cell that never closes (the rest of the file would be its text); "
            "expected RFC 4180 quoting",
            line=opened_line,
        )
    return records - 1 + (0 if last == _LF else 1)  # the header, and a last line without LF


class CsvTranscripts:
    """Loads the text columns on the first request and keeps them (CSV cannot seek by record)."""

    def __init__(self, path: Path, columns: list[str], mapping: ColumnMap | None = None) -> None:
        self._path = path
        self._fingerprint = fingerprint(path)
        self._columns = columns  # canonical names
        self._mapping = mapping or ColumnMap()
        self._frame: pl.DataFrame | None = None

    def _texts(self) -> pl.DataFrame:
        if self._frame is None:
            if not self._columns:
                self._frame = pl.DataFrame()
            else:
                sources = list(
                    dict.fromkeys(src for src, _ in self._mapping.read_plan(self._columns))
                )
                try:
                    frame = pl.read_csv(
                        self._path,
                        columns=sources,
                        schema_overrides=dict.fromkeys(sources, pl.String),
                        glob=False,
                    )
                except POLARS_FAILURES as exc:
                    raise InputError(
                        self._path, f"cannot read the text columns: {first_line(exc)}"
                    ) from None
                self._frame = self._mapping.rename_frame(frame, self._columns)
        return self._frame

    def read(self, row: int) -> Transcript:
        ensure_unchanged(self._path, self._fingerprint)
        frame = self._texts()
        record = frame.row(row, named=True) if frame.width else {}
        return transcript_from_record(record)

    batch_size = 500_000  # the text columns are read once and kept

    def read_field(self, rows: Sequence[int], name: str) -> list[str | None]:
        ensure_unchanged(self._path, self._fingerprint)
        frame = self._texts()
        if name not in frame.columns:
            return [None] * len(rows)
        column = frame[name]
        return [column[r] for r in rows]


FILE = NativeFile(NAME, _header, _read_stats)
