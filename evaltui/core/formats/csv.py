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

import polars as pl

from evaltui.core.errors import InputError
from evaltui.core.formats.columns import ColumnMap, ColumnOptions
from evaltui.core.formats.contract import LoadOptions
from evaltui.core.formats.native import (
    ensure_unchanged,
    fingerprint,
    first_line,
    transcript_from_record,
)
from evaltui.core.formats.native_load import NativeFile, StatsPlan, StatsRead, load_native
from evaltui.core.runs import PASSED, Run, Transcript

NAME = "csv"
Options = ColumnOptions


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
    with path.open("r", encoding="utf-8", newline="") as handle:
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
    try:
        raw = pl.read_csv(path, columns=list(overrides), schema_overrides=overrides)
    except Exception as exc:
        raise InputError(path, f"cannot be read as CSV: {first_line(exc)}") from None

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
                frame = pl.read_csv(
                    self._path,
                    columns=sources,
                    schema_overrides=dict.fromkeys(sources, pl.String),
                )
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
