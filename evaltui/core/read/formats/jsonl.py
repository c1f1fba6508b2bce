"""The evaltui run format as JSON Lines: one object per record with the canonical keys.

One bounded-memory pass (`jsonl_scan`) hashes the file, indexes its lines and lets polars parse
only the statistics keys with a strict schema (the transcripts stay on disk). The line index lets
drill-down seek to an item's line and lets an error name its line number.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from evaltui.core.errors import InputError
from evaltui.core.read.formats import scan_cache
from evaltui.core.read.formats.columns import ColumnMap, ColumnOptions
from evaltui.core.read.formats.contract import HEAD_BYTES, LoadOptions
from evaltui.core.read.formats.jsonl_options import NAME
from evaltui.core.read.formats.jsonl_options import Options as Options
from evaltui.core.read.formats.jsonl_scan import Scan, scan_jsonl, suspect_lines
from evaltui.core.read.formats.jsontext import UTF8_BOM, nonstandard_constant, parse_json_line
from evaltui.core.read.formats.line_index import LineIndex, read_line
from evaltui.core.read.formats.native import (
    POLARS_FAILURES,
    check_record,
    ensure_unchanged,
    fingerprint,
    transcript_from_record,
)
from evaltui.core.read.formats.native_load import NativeFile, StatsPlan, StatsRead, load_native
from evaltui.core.read.runs import (
    CLUSTER,
    ITEM_ID,
    OUTCOME,
    SLICE,
    STATUS,
    Run,
    RunSource,
    Transcript,
)

KEY_SAMPLE_LINES = 1000  # lines read in Python to learn which keys the records use


def sniff(path: Path, head: bytes) -> bool:
    text = head.removeprefix(UTF8_BOM).lstrip()  # a BOM is not part of the first line
    if not text.startswith(b"{"):
        return False
    first, newline, _ = text.partition(b"\n")
    if not newline:
        return len(head) >= HEAD_BYTES  # one long line: assume JSONL, the loader will say if not
    try:
        return isinstance(json.loads(first), dict)
    except ValueError:
        return False


def load(path: Path, options: LoadOptions, own: ColumnOptions) -> Run:
    return load_native(path, options, own, FILE)


def _read_stats(path: Path, plan: StatsPlan, options: LoadOptions) -> StatsRead:
    """One pass (or a scan cache entry) for the statistics columns, sha256 and line index."""
    # polars reads the file's own column names; they become the canonical ones right after.
    schema = plan.schema
    file_schema = {source: schema[target] for source, target in plan.reads}
    scan = scan_cache.lookup(path, file_schema, check_hash=not options.defer_hash_check)
    fresh = scan is None
    if scan is None:
        try:
            scan = scan_jsonl(
                path,
                file_schema,
                texts=[plan.mapping.user_name(c) for c in (STATUS, SLICE, CLUSTER, OUTCOME)],
                ids=[plan.mapping.user_name(ITEM_ID)],
            )
        except POLARS_FAILURES as exc:  # polars says what, not where: find the line ourselves
            raise _diagnose(path, plan.wanted, exc, plan.mapping) from None
    lines = scan.lines
    if scan.frame.height != len(lines):
        raise _diagnose(path, plan.wanted, None, plan.mapping)
    if len(lines) == 0:
        raise InputError(path, "holds no records; expected one JSON object per line")
    # An entry kept after this plan's checks passed on its frame need not run them again
    # (`scan_cache.checked_under` says what they depend on); a fresh parse runs them all.
    plan_words = scan_cache.checked_under(plan.reads, plan.loose_verdicts)
    checked = not fresh and scan.checked == plan_words
    if not checked:
        _check_suspects(path, scan, plan)

    def locate(row: int) -> tuple[int | None, str | None]:
        return int(lines.line_numbers[row]), None

    def accepted() -> None:
        if fresh:  # only a scan whose records all passed the checks is kept
            scan_cache.store(path, file_schema, scan, checked=plan_words)

    source = RunSource(
        path=str(path),
        format=NAME,
        size=path.stat().st_size,
        sha256=scan.sha256,
        hash_checked=scan.hash_checked,
    )
    return StatsRead(
        frame=plan.renamed(scan.frame),
        locate=locate,
        transcripts=JsonlTranscripts(path, lines, plan.mapping),
        source=source,
        accepted=accepted,
        checked=checked,
    )


def _check_suspects(path: Path, scan: Scan, plan: StatsPlan) -> None:
    """Read again, in Python, the lines the scan could not vouch for (`Scan.suspects`: a key
    written twice or escaped, a value polars would have turned into text); the first one that
    is wrong is the error, naming its line, field and value. Usually there are none."""
    lines = scan.lines
    texts = [name for name, dtype in scan.frame.schema.items() if dtype == pl.String]
    # polars reads a lone surrogate escape ("\ud800") as a NUL: Python's reading says which
    nul = (
        scan.frame.select(
            pl.any_horizontal(pl.col(name).str.contains("\x00", literal=True) for name in texts)
            .fill_null(False)
            .arg_true()
        ).to_series()
        if texts
        else pl.Series([], dtype=pl.UInt32)
    )
    suspects = np.union1d(scan.suspects, lines.line_numbers[nul.to_numpy()])
    rows = np.searchsorted(lines.line_numbers, suspects)
    for number, row in zip(suspects.tolist(), rows.tolist(), strict=True):
        if row >= len(lines) or int(lines.line_numbers[row]) != number:
            continue  # a blank line
        record = parse_json_line(path, read_line(path, int(lines.starts[row])), number)
        if isinstance(record, dict):
            record = plan.mapping.rename_record(record)
        problem = check_record(record, plan.wanted, loose_verdicts=plan.loose_verdicts)
        if problem is not None:
            field, text = problem
            raise plan.mapping.translate(InputError(path, text, line=number, field=field or None))


def _discover_columns(path: Path) -> list[str]:
    """The keys of the first records, read in Python (cheap, and it can name a bad line)."""
    keys: dict[str, None] = {}
    with path.open("rb") as handle:
        seen = 0
        for line_no, raw_line in enumerate(handle, start=1):
            if not raw_line.strip():
                continue
            record = parse_json_line(path, raw_line, line_no)
            if not isinstance(record, dict):
                raise InputError(
                    path, f"expected a JSON object, got {type(record).__name__}", line=line_no
                )
            keys.update(dict.fromkeys(record))
            seen += 1
            if seen >= KEY_SAMPLE_LINES:
                break
    if not keys:
        raise InputError(path, "holds no records; expected one JSON object per line")
    return list(keys)


def _nonblank(handle: Any):
    for raw_line in handle:
        if raw_line.strip():
            yield raw_line


def _diagnose(
    path: Path,
    columns: list[str],
    exc: Exception | None,
    mapping: ColumnMap | None = None,
) -> InputError:
    """Scan in Python for the first record the fast reader could not take, and say why.

    Records are renamed as the fast reader saw them, and the field is named as the file does.
    """
    mapping = mapping or ColumnMap()
    with path.open("rb") as handle:
        for line_no, raw_line in enumerate(handle, start=1):
            if not raw_line.strip():
                continue
            record = parse_json_line(path, raw_line, line_no)
            if isinstance(record, dict):
                record = mapping.rename_record(record)
            problem = check_record(record, columns) or nonstandard_constant(raw_line)
            if problem is not None:
                field, text = problem
                return mapping.translate(InputError(path, text, line=line_no, field=field or None))
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
        record = parse_json_line(
            self._path, read_line(self._path, int(self._lines.starts[row])), line
        )
        if not isinstance(record, dict):
            raise InputError(self._path, "changed since it was loaded", line=line)
        return self._mapping.rename_record(record)

    def read(self, row: int) -> Transcript:
        return transcript_from_record(self._record(row))

    def read_field(self, rows: Sequence[int], name: str) -> list[str | None]:
        """One field of many records: one open, seeks in file order, one batch parse."""
        if not rows:
            return []
        ensure_unchanged(self._path, self._fingerprint)
        order = sorted(range(len(rows)), key=lambda i: self._lines.starts[rows[i]])
        raw: list[bytes] = [b""] * len(rows)
        with self._path.open("rb") as handle:
            for i in order:
                handle.seek(int(self._lines.starts[rows[i]]))
                raw[i] = handle.readline().rstrip(b"\r\n")
        source = self._mapping.user_name(name)
        joined = b"\n".join(raw)
        # polars would take the first of a key written twice: such lines go to the reader below,
        # which refuses them as opening the item does
        if not suspect_lines(joined, {source: pl.String()}).size:
            try:  # the common case: the field is text in every record
                column = pl.read_ndjson(joined, schema={source: pl.String})[source]
                if column.len() == len(rows):
                    return column.to_list()
            except POLARS_FAILURES:  # not all strings: one record at a time
                pass
        out: list[str | None] = []
        for i, line in enumerate(raw):
            record = parse_json_line(self._path, line, int(self._lines.line_numbers[rows[i]]))
            value = (
                self._mapping.rename_record(record).get(name) if isinstance(record, dict) else None
            )
            out.append(value if isinstance(value, str) or value is None else json.dumps(value))
        return out

    batch_size = 20_000  # records per read_field call when filling previews


FILE = NativeFile(NAME, _discover_columns, _read_stats, hashes_itself=True)
