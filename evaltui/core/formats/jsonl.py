"""The evaltui run format as JSON Lines: one object per record with the canonical keys.

polars parses only the statistics keys with a strict schema (the transcripts stay on disk); a
byte-offset index of the lines, built in the same pass over the file, lets drill-down seek to an
item's line and lets an error name its line number.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from itertools import islice
from pathlib import Path
from typing import Any

import polars as pl

from evaltui.core.errors import InputError
from evaltui.core.formats import LoadOptions
from evaltui.core.formats.columns import ColumnMap, column_map
from evaltui.core.formats.line_index import LineIndex, index_lines, read_line
from evaltui.core.formats.native import (
    canonical_stats,
    check_columns,
    check_record,
    ensure_unchanged,
    fingerprint,
    polars_stat_schema,
    stat_columns,
    transcript_from_record,
)
from evaltui.core.runs import Run, RunSource, Transcript

NAME = "jsonl"
KEY_SAMPLE_LINES = 1000  # lines read in Python to learn which keys the records use


def sniff(path: Path, head: bytes) -> bool:
    text = head.lstrip()
    if not text.startswith(b"{"):
        return False
    first, newline, _ = text.partition(b"\n")
    if not newline:
        return len(head) >= 64 * 1024  # one long line: assume JSONL, the loader will say if not
    try:
        return isinstance(json.loads(first), dict)
    except ValueError:
        return False


def load(path: Path, options: LoadOptions) -> Run:
    source = RunSource.of(path, NAME)
    mapping = column_map(options)
    lines = index_lines(path)
    if len(lines) == 0:
        raise InputError(path, "holds no records; expected one JSON object per line")
    file_columns = _discover_columns(path, lines)
    mapping.check_present(path, file_columns)
    columns = mapping.canonical_columns(file_columns)
    check_columns(path, columns)
    wanted = stat_columns(columns)
    # polars reads the file's own column names; they become the canonical ones right after.
    plan = mapping.read_plan(wanted)
    schema = polars_stat_schema(wanted)
    file_schema = {source: schema[target] for source, target in plan}
    try:
        raw = pl.read_ndjson(path, schema=file_schema)
    except Exception as exc:  # polars says what, not where: find the line ourselves
        raise _diagnose(path, lines, wanted, exc, mapping) from None
    if raw.height != len(lines):
        raise _diagnose(path, lines, wanted, None, mapping)
    raw = mapping.rename_frame(raw, wanted)

    def locate(row: int) -> tuple[int | None, str | None]:
        return int(lines.line_numbers[row]), None

    try:
        table = canonical_stats(raw, path, locate)
    except InputError as exc:
        raise mapping.translate(exc) from None
    return Run(source=source, table=table, transcripts=JsonlTranscripts(path, lines, mapping))


def _discover_columns(path: Path, lines: LineIndex) -> list[str]:
    keys: dict[str, None] = {}
    with path.open("rb") as handle:
        for i, raw_line in enumerate(islice(_nonblank(handle), KEY_SAMPLE_LINES)):
            record = _parse(path, raw_line, int(lines.line_numbers[i]))
            if not isinstance(record, dict):
                raise InputError(
                    path,
                    f"expected a JSON object, got {type(record).__name__}",
                    line=int(lines.line_numbers[i]),
                )
            keys.update(dict.fromkeys(record))
    return list(keys)


def _nonblank(handle: Any):
    for raw_line in handle:
        if raw_line.strip():
            yield raw_line


def _parse(path: Path, raw_line: bytes, line: int) -> Any:
    try:
        return json.loads(raw_line)
    except UnicodeDecodeError:
        raise InputError(path, "is not valid UTF-8", line=line) from None
    except json.JSONDecodeError as exc:
        raise InputError(
            path, f"invalid JSON ({exc.msg} at column {exc.colno}); a truncated line?", line=line
        ) from None
    except RecursionError:
        raise InputError(path, "JSON nested too deeply", line=line) from None


def _diagnose(
    path: Path,
    lines: LineIndex,
    columns: list[str],
    exc: Exception | None,
    mapping: ColumnMap | None = None,
) -> InputError:
    """Scan in Python for the first record the fast reader could not take, and say why.

    Records are renamed as the fast reader saw them, and the field is named as the file does.
    """
    mapping = mapping or ColumnMap()
    with path.open("rb") as handle:
        for i, raw_line in enumerate(_nonblank(handle)):
            line = int(lines.line_numbers[i]) if i < len(lines) else None
            record = _parse(path, raw_line, line or 0)
            if isinstance(record, dict):
                record = mapping.rename_record(record)
            problem = check_record(record, columns)
            if problem is not None:
                field, text = problem
                return mapping.translate(InputError(path, text, line=line, field=field or None))
    detail = f": {exc}" if exc is not None else ""
    return InputError(path, f"could not be read as JSON Lines{detail}")


class JsonlTranscripts:
    """Reads one record's text by seeking to its line; nothing is kept in memory."""

    def __init__(self, path: Path, lines: LineIndex, mapping: ColumnMap | None = None) -> None:
        self._path = path
        self._lines = lines
        self._mapping = mapping or ColumnMap()
        self._fingerprint = fingerprint(path)

    def _record(self, row: int) -> dict[str, Any]:
        line = int(self._lines.line_numbers[row])
        ensure_unchanged(self._path, self._fingerprint, line)
        record = _parse(self._path, read_line(self._path, int(self._lines.starts[row])), line)
        if not isinstance(record, dict):
            raise InputError(self._path, "changed since it was loaded", line=line)
        return self._mapping.rename_record(record)

    def read(self, row: int) -> Transcript:
        return transcript_from_record(self._record(row))

    def read_field(self, rows: Sequence[int], name: str) -> list[str | None]:
        out: list[str | None] = []
        for row in rows:
            value = self._record(row).get(name)
            out.append(value if isinstance(value, str) or value is None else json.dumps(value))
        return out
