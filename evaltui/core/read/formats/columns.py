"""Generic column mapping for the native formats: the user's column names -> the canonical ones.

A JSONL/CSV/Parquet file written by some other tool rarely says `item_id` and `passed`; rather
than asking the user to rewrite it, the native formats' options (`ColumnOptions`) name the
file's own columns (`id_col`, `pass_col`, `score_col`, `slice_col`, `cluster_col`, `text_cols`)
and the loaders read those
columns under their canonical names. The mapping is applied everywhere the file is read (the
fast statistics read, the Python diagnosis scan and the transcript reader), and every error is
translated back, so a message names the user's column ("field 'is_correct'"), not ours.

A mapped column that the file does not have is an error listing the columns it does have. When
the file also holds a column with the canonical name itself (a `passed` column next to the
`is_correct` the user chose), that column is not used for the statistics; the transcript shows
it as metadata under "original <name>".
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import polars as pl

from evaltui.core.errors import InputError, UsageError
from evaltui.core.read.formats.column_options import ColumnOptions
from evaltui.core.read.runs import CLUSTER, ITEM_ID, MESSAGES, PASSED, SCORE, SLICE, TEXT_FIELDS

# ColumnOptions field -> (canonical column, command-line flag named in messages)
STAT_OPTIONS: tuple[tuple[str, str, str], ...] = (
    ("id_col", ITEM_ID, "--id-col"),
    ("pass_col", PASSED, "--pass-col"),
    ("score_col", SCORE, "--score-col"),
    ("slice_col", SLICE, "--slice-col"),
    ("cluster_col", CLUSTER, "--cluster-col"),
)
TEXT_OPTION_FLAG = "--text-cols"
TEXT_TARGETS = (*TEXT_FIELDS, MESSAGES)
SHOW_COLUMNS = 40  # how many of the file's columns an error lists


@dataclass(frozen=True)
class ColumnChoice:
    """One mapped column: the file's `source` column is read as the canonical `target`."""

    source: str
    target: str
    flag: str


@dataclass(frozen=True)
class ColumnMap:
    """The user's column choices for one load; empty when nothing is mapped."""

    entries: tuple[ColumnChoice, ...] = ()

    @property
    def active(self) -> bool:
        return bool(self.entries)

    @property
    def sources(self) -> set[str]:
        return {m.source for m in self.entries}

    @property
    def targets(self) -> set[str]:
        return {m.target for m in self.entries}

    def user_name(self, canonical: str) -> str:
        """The file's name for a canonical column (the canonical name when it is not mapped)."""
        for entry in self.entries:
            if entry.target == canonical:
                return entry.source
        return canonical

    def check_present(self, path: Path, columns: Iterable[str]) -> None:
        """Every mapped column must exist in the file; else name it and list what does."""
        available = list(columns)
        have = set(available)
        for entry in self.entries:
            if entry.source not in have:
                shown = ", ".join(repr(c) for c in available[:SHOW_COLUMNS])
                if len(available) > SHOW_COLUMNS:
                    shown += f", ... ({len(available) - SHOW_COLUMNS} more)"
                raise InputError(
                    path,
                    f"no column '{entry.source}' (given with {entry.flag} for '{entry.target}'); "
                    f"the file's columns are: {shown or 'none'}",
                    field=entry.source,
                )

    def canonical_columns(self, columns: Iterable[str]) -> list[str]:
        """The file's columns as the loader should see them: mapped ones under their canonical
        names, and a column that a mapping replaces (the file's own `passed`) left out."""
        out: dict[str, None] = {}
        replaced = self.targets - self.sources
        for column in columns:
            if column in self.sources:
                for entry in self.entries:
                    if entry.source == column:
                        out.setdefault(entry.target, None)
                if column not in self.targets:
                    continue
            if column in replaced:
                continue
            out.setdefault(column, None)
        return list(out)

    def read_plan(self, canonical: Iterable[str]) -> list[tuple[str, str]]:
        """(file column, canonical name) for each canonical column wanted."""
        return [(self.user_name(name), name) for name in canonical]

    def rename_frame(self, frame: pl.DataFrame, canonical: Iterable[str]) -> pl.DataFrame:
        """A frame read with the file's column names, as the canonical `canonical` columns."""
        plan = self.read_plan(canonical)
        return frame.select([pl.col(source).alias(target) for source, target in plan])

    def rename_record(self, record: Mapping[str, Any]) -> dict[str, Any]:
        """One parsed record (JSONL line, CSV row) with its keys renamed to the canonical ones."""
        if not self.entries:
            return dict(record)
        out: dict[str, Any] = {}
        targets = self.targets
        sources = self.sources
        for key, value in record.items():
            if key in sources:
                continue  # added under its canonical name below
            if key in targets:
                out[f"original {key}"] = value  # the file's own column, replaced by a mapping
                continue
            out[key] = value
        for entry in self.entries:
            if entry.source in record:
                out[entry.target] = record[entry.source]
        return out

    def translate(self, error: InputError) -> InputError:
        """The same error, naming the user's column instead of the canonical one."""
        if not self.entries or error.field is None:
            return error
        user = self.user_name(error.field)
        if user == error.field:
            return error
        return InputError(
            error.path,
            error.problem,
            line=error.line,
            record=error.record,
            field=user,
        )


def column_map(options: ColumnOptions) -> ColumnMap:
    """Build the mapping from the user's column choices; a malformed one is a `UsageError`."""
    entries: list[ColumnChoice] = []
    for option, target, flag in STAT_OPTIONS:
        value = getattr(options, option)
        if value is None:
            continue
        if not isinstance(value, str) or not value.strip():
            raise UsageError(f"{flag} needs a column name, got {value!r}")
        entries.append(ColumnChoice(value, target, flag))
    entries.extend(_text_entries(options.text_cols))
    seen: dict[str, str] = {}
    for entry in entries:
        if entry.target in seen:
            raise UsageError(
                f"'{entry.target}' is mapped twice (from '{seen[entry.target]}' and "
                f"'{entry.source}'); map each canonical column from one column only"
            )
        seen[entry.target] = entry.source
    return ColumnMap(tuple(entries))


def _text_entries(text_cols: Any) -> list[ColumnChoice]:
    if text_cols is None:
        return []
    if isinstance(text_cols, str):
        text_cols = tuple(part.strip() for part in text_cols.split(","))
    if not isinstance(text_cols, tuple | list):
        raise UsageError(f"{TEXT_OPTION_FLAG} needs column names, got {text_cols!r}")
    entries: list[ColumnChoice] = []
    for position, raw in enumerate(text_cols):
        if not isinstance(raw, str):
            raise UsageError(f"{TEXT_OPTION_FLAG} needs column names, got {raw!r}")
        item = raw.strip()
        if not item:
            continue  # an empty slot skips that field: "question,,answer" maps target
        if "=" in item:
            source, _, target = (part.strip() for part in item.rpartition("="))
            if not source or target not in TEXT_TARGETS:
                raise UsageError(
                    f"{TEXT_OPTION_FLAG}: cannot read {item!r}; expected COLUMN=FIELD with FIELD "
                    f"one of {', '.join(TEXT_TARGETS)}"
                )
        else:
            if position >= len(TEXT_FIELDS):
                raise UsageError(
                    f"{TEXT_OPTION_FLAG}: {item!r} is entry {position + 1}, but only "
                    f"{len(TEXT_FIELDS)} fields are mapped by position "
                    f"({', '.join(TEXT_FIELDS)}); use COLUMN=FIELD"
                )
            source, target = item, TEXT_FIELDS[position]
        entries.append(ColumnChoice(source, target, TEXT_OPTION_FLAG))
    return entries
