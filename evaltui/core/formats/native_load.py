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

import polars as pl

from evaltui.core.errors import InputError
from evaltui.core.formats.columns import TEXT_TARGETS, ColumnMap, ColumnOptions, column_map
from evaltui.core.formats.contract import LoadOptions
from evaltui.core.formats.native import (
    Locator,
    canonical_stats,
    check_columns,
    polars_stat_schema,
    stat_columns,
)
from evaltui.core.runs import Run, RunSource, TranscriptReader


@dataclass(frozen=True)
class StatsPlan:
    """What to read from one file: its columns under canonical names, and the mapping back."""

    mapping: ColumnMap
    columns: list[str]  # every column of the file, canonical names (see ColumnMap)
    wanted: list[str]  # the statistics columns among them, canonical names

    @property
    def text_columns(self) -> list[str]:
        """The columns a transcript reader shows (canonical names)."""
        return [c for c in self.columns if c in TEXT_TARGETS]

    @property
    def schema(self) -> dict[str, pl.DataType]:
        """The strict schema of the statistics columns, by canonical name."""
        return polars_stat_schema(self.wanted)

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
    plan = StatsPlan(mapping=mapping, columns=columns, wanted=stat_columns(columns))
    read = file.read_stats(path, plan, options)
    try:
        table = canonical_stats(read.frame, path, read.locate)
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
