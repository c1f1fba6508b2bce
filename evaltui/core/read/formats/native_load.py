"""The one loading procedure of the three native formats (JSONL, CSV, Parquet).

Every native file is read the same way: the user's column choices (`ColumnOptions`) are applied
to the file's columns, the statistics columns are checked to be there, the file type reads only
those, every value is checked against the canonical schema (an error names the user's column
and the line or row), and the run gets the file type's transcript reader, which reads text
only when an item is opened. What differs is how a file type lists its columns, reads and
locates the statistics, hashes itself and reads transcripts; it supplies those as a
`NativeFile`, so each format module keeps only what is particular to its file type.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import polars as pl

from evaltui.core.errors import InputError
from evaltui.core.read.formats.columns import TEXT_TARGETS, ColumnMap, ColumnOptions, column_map
from evaltui.core.read.formats.contract import LoadOptions
from evaltui.core.read.formats.jsontext import describe
from evaltui.core.read.formats.native import (
    Locator,
    canonical_stats,
    check_columns,
    polars_stat_schema,
    stat_columns,
)
from evaltui.core.read.runs import PASSED, Run, RunSource, TranscriptReader


@dataclass(frozen=True)
class StatsPlan:
    """What to read from one file: its columns under canonical names, and the mapping back."""

    mapping: ColumnMap
    columns: list[str]  # every column of the file, canonical names (see ColumnMap)
    wanted: list[str]  # the statistics columns among them, canonical names
    # True when the verdicts come from the user's `--pass-col`: exported tables mostly hold
    # 0/1 there, so the column is read as it is and 0/1 taken beside true/false (`loose_verdicts`)
    loose_verdicts: bool = False

    @property
    def text_columns(self) -> list[str]:
        """The columns a transcript reader shows (canonical names)."""
        return [c for c in self.columns if c in TEXT_TARGETS]

    @property
    def schema(self) -> dict[str, pl.DataType]:
        """The strict schema of the statistics columns, by canonical name (verdicts from
        `--pass-col` as text, parsed by `loose_verdicts`)."""
        schema = polars_stat_schema(self.wanted)
        if self.loose_verdicts and PASSED in schema:
            schema[PASSED] = pl.String()
        return schema

    @property
    def reads(self) -> list[tuple[str, str]]:
        """(file column, canonical name) of each statistics column."""
        return self.mapping.read_plan(self.wanted)

    @property
    def sources(self) -> list[str]:
        """The file columns the statistics are read from, once each."""
        return list(dict.fromkeys(source for source, _ in self.reads))

    def renamed(self, frame: pl.DataFrame) -> pl.DataFrame:
        """A frame read under the file's column names, as the canonical statistics columns."""
        return self.mapping.rename_frame(frame, self.wanted)


@dataclass(frozen=True, eq=False)
class StatsRead:
    """What a file type's read of the statistics gives back."""

    frame: pl.DataFrame  # the statistics columns (canonical names) as the file holds them
    locate: Locator  # 0-based record -> (line, record label), for error messages
    transcripts: TranscriptReader
    # The file's source, from a read that hashes as it goes (`NativeFile.hashes_itself`).
    source: RunSource | None = None
    # Called once every record passed the checks (JSONL keeps its scan in the cache then).
    accepted: Callable[[], None] | None = field(default=None)
    # True: `frame` passed every check of `canonical_stats` under this plan before (a scan
    # cache entry kept after they passed: `scan_cache.checked_under`); they are not run again.
    checked: bool = False


@dataclass(frozen=True)
class NativeFile:
    """The particulars of one native file type."""

    name: str  # the format's NAME
    columns: Callable[[Path], list[str]]  # the file's column names, as the file spells them
    read_stats: Callable[[Path, StatsPlan, LoadOptions], StatsRead]
    # True: `read_stats` hashes the bytes it reads and returns the source (JSONL's one pass).
    # False: the file is hashed in a helper thread while it is read (`RunSource.begin`), so a
    # big run is not read twice in a row.
    hashes_itself: bool = False


def load_native(path: Path, options: LoadOptions, own: ColumnOptions, file: NativeFile) -> Run:
    """Load a native run: the steps every native file type shares, with `file`'s particulars."""
    hashing = None if file.hashes_itself else RunSource.begin(path, file.name)
    mapping = column_map(own)
    file_columns = file.columns(path)
    mapping.check_present(path, file_columns)
    columns = mapping.canonical_columns(file_columns)
    check_columns(path, columns)
    plan = StatsPlan(
        mapping=mapping,
        columns=columns,
        wanted=stat_columns(columns),
        loose_verdicts=own.pass_col is not None,
    )
    read = file.read_stats(path, plan, options)
    frame = read.frame
    if plan.loose_verdicts:
        # a JSON file's values are quoted as JSON, a CSV cell or Parquet value as Python does
        quote = describe if file.name == "jsonl" else repr
        frame = loose_verdicts(frame, path, read.locate, mapping.user_name(PASSED), quote)
    try:
        table = canonical_stats(frame, path, read.locate, checked=read.checked)
    except InputError as exc:
        raise mapping.translate(exc) from None
    if read.accepted is not None:
        read.accepted()
    if hashing is None:
        if read.source is None:
            raise AssertionError(f"{file.name}: a file type that hashes itself gave no source")
        return Run(source=read.source, table=table, transcripts=read.transcripts)
    unhashed, pending_source = hashing
    return Run(
        source=unhashed, pending_source=pending_source, table=table, transcripts=read.transcripts
    )


TRUE_WORDS = ("true", "1", "1.0")
FALSE_WORDS = ("false", "0", "0.0")


def loose_verdicts(
    frame: pl.DataFrame,
    path: Path,
    locate: Locator,
    field: str,
    quote: Callable[[Any], str] = repr,
) -> pl.DataFrame:
    """Verdicts from a `--pass-col` column: true/false or 0/1 (as numbers, or as text in CSV);
    anything else is an error naming the record and the user's column. The run format itself
    stays strict (true/false only): there the column's name promises a boolean."""
    if PASSED not in frame.columns or frame.schema[PASSED] == pl.Boolean:
        return frame
    column = pl.col(PASSED)
    if frame.schema[PASSED].is_numeric():
        bad = column.is_not_null() & ~column.is_in([0, 1])
        verdict = column == 1
    else:
        text = column.cast(pl.String).str.strip_chars().str.to_lowercase()
        bad = text.is_not_null() & (text != "") & ~text.is_in([*TRUE_WORDS, *FALSE_WORDS])
        verdict = (
            pl.when(text.is_in(TRUE_WORDS)).then(True).when(text.is_in(FALSE_WORDS)).then(False)
        )
    hit = frame.select(bad.arg_true().first()).item()
    if hit is not None:
        line, record = locate(int(hit))
        value = frame[PASSED][int(hit)]
        raise InputError(
            path,
            f"expected true or false (or 0/1, which --pass-col takes too), got {quote(value)}",
            line=line,
            record=record,
            field=field,
        )
    return frame.with_columns(verdict.alias(PASSED))
