"""The lm-eval fast read's one pass over a samples file: five keys per line, sha256, line index.

A samples line is ~1 KB of document, requests and responses around five small values the
statistics need (`doc_id`, `filter`, the metric, `doc_hash`, `prompt_hash`). polars'
`read_ndjson` builds every line's whole JSON tree before it picks those (0.42 s of CPU per
188 MB file, most of a 200,000-line pair's first screen); msgspec skips what it is not asked
for without building it (0.17 s), so here msgspec reads the five keys, block by block, while
a helper thread hashes the block and polars runs the generic JSONL scan's line check for a key
written twice or escaped (`jsonl_scan.LineCheck.file`) in its own threads, beside; the check's
typed patterns are msgspec's decoder here, which takes for each key what they let through (an
id: a text, an integer of 64 bits or null; a text key: a text or null; the metric: a number
or null) and refuses the rest.

Where msgspec is more lenient than polars, the block is checked first, so that a file takes
this path only when every JSON reader reads the same five values from it and polars' parse
would have taken it too (anything else returns None: the line-by-line reader gives its answer
or its error, in its own words):

- bytes that are not UTF-8 (msgspec does not look inside the strings it skips): the block is
  ASCII, or decodes as UTF-8;
- two values on one line, or one value over two lines (msgspec reads whitespace-separated
  values): each block is parsed as one JSON array whose elements are its lines (every newline
  a comma), so a line must hold exactly one value: a blank line or one value over two lines
  is invalid JSON, two values on one line make more elements than lines;
- a key written twice (msgspec keeps the last, Python's reader here refuses, polars keeps the
  first), also once escaped: the line check flags it, and any flagged line sends the file to
  the slow path;
- an integer id past 64 bits (read exactly, but refused by `fields.identifier`).
"""

from __future__ import annotations

import hashlib
import json
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from operator import attrgetter
from pathlib import Path
from typing import Any

import msgspec
import numpy as np
import polars as pl

from evaltui.core.read import meter
from evaltui.core.read.collector import collector_paused
from evaltui.core.read.formats.fields import INT_MAX, INT_MIN
from evaltui.core.read.formats.jsonl_scan import (
    BLOCK,
    LineCheck,
    _complete_lines,
    _escaped_key,
    _line_check,
    _rust_literal,
)
from evaltui.core.read.formats.jsontext import UTF8_BOM
from evaltui.core.read.formats.line_index import LineIndex

DOC_ID, FILTER, DOC_HASH, PROMPT_HASH = "doc_id", "filter", "doc_hash", "prompt_hash"
TEXTS = (FILTER, DOC_HASH, PROMPT_HASH)  # a string or null, as the line check requires
_NEWLINE, _COMMA, _OPEN, _CLOSE, _SPACE = 0x0A, 0x2C, 0x5B, 0x5D, 0x20
_SLICE = 1 << 18  # bytes compared at once for newlines (the temporary stays in cache)


@dataclass(frozen=True, eq=False)
class SampleScan:
    """The five columns (`doc_id`, `filter`, the metric, `doc_hash`, `prompt_hash`; polars'
    types and nulls as `read_ndjson` with that schema gives them), the file's sha256 and the
    start of every line."""

    frame: pl.DataFrame
    sha256: str
    lines: LineIndex


def scan_samples(path: Path, metric: str, block: int = BLOCK) -> SampleScan | None:
    """The five keys of every line of `path`, or None when the fast read cannot vouch for
    them (see the module docstring); `metric` is the metric's key."""
    schema: dict[str, pl.DataType] = {
        DOC_ID: pl.String(),
        FILTER: pl.String(),
        metric: pl.Float64(),
        DOC_HASH: pl.String(),
        PROMPT_HASH: pl.String(),
    }
    check = _duplicate_check(schema)
    decoder = _decoder(metric)
    # (the collector paused: each block's records are ~18,000 new objects)
    with ThreadPoolExecutor(max_workers=1) as checker, collector_paused():
        checked = checker.submit(check.file, path)
        try:
            read = _read(path, block, decoder, schema)
        finally:
            found = checked.result()
    if read is None or found is None or found.size:
        return None
    frame, digest, starts = read
    lines = LineIndex(starts, np.arange(1, starts.size + 1, dtype=np.int64))
    return SampleScan(frame=frame, sha256=digest, lines=lines)


def _duplicate_check(schema: dict[str, pl.DataType]) -> LineCheck:
    """The generic scan's line check (`jsonl_scan._line_check`) less its typed patterns: a line
    where a key is written twice or escaped (`"\\u0061cc"`: `acc` to every reader) is flagged,
    but a value's type is msgspec's to check here (the decoder takes an id, a text, a number
    or null as the generic check does and refuses anything else), which saves the check a
    fifth of its CPU. Keys the count cannot spell (a blank, a colon, a quote) get the generic
    check whole."""
    keys = list(schema)
    if any(set(key) & set(' \t\r:"\\') or not key.isprintable() for key in keys):
        return _line_check(schema, texts=TEXTS, ids=[DOC_ID])
    line = pl.col("line")
    tokens = [_rust_literal(json.dumps(key, ensure_ascii=False)) + r"[ \t\r]*:" for key in keys]
    flagged = pl.any_horizontal(
        line.str.contains(_escaped_key(keys)), *[line.str.count_matches(t) > 1 for t in tokens]
    )
    return LineCheck(flagged, flagged)


def _decoder(metric: str) -> msgspec.json.Decoder[list[Any]]:
    """A decoder of a JSON array of lines into records holding only the five keys (each None
    when absent or null, as polars reads them; any other type is a validation error)."""
    names = [DOC_ID, FILTER, metric, DOC_HASH, PROMPT_HASH]
    types: list[Any] = [int | str | None, str | None, float | None, str | None, str | None]
    record = msgspec.defstruct(
        "LmEvalKeys",
        [(f"k{i}", kind, None) for i, kind in enumerate(types)],
        rename={f"k{i}": name for i, name in enumerate(names)},
        gc=False,  # 200,000 records of five scalars: nothing for the collector to find
    )
    return msgspec.json.Decoder(list[record])  # type: ignore[valid-type]


def _read(
    path: Path,
    block: int,
    decoder: msgspec.json.Decoder[list[Any]],
    schema: dict[str, pl.DataType],
) -> tuple[pl.DataFrame, str, np.ndarray] | None:
    """The five columns, the sha256, the line starts; None at the first block msgspec, the
    UTF-8 test or the ids refuse. Each block's records become columns before the next block
    is read, so the Python objects alive are one block's, whatever the file's size."""
    digest = hashlib.sha256()
    frames: list[pl.DataFrame] = []
    starts: list[np.ndarray] = []
    offset = 0
    array = bytearray()  # reused: a fresh 16 MiB buffer per block is a fresh mapping to fault in
    with ThreadPoolExecutor(max_workers=1) as hasher:
        for buf, cut in _complete_lines(path, block):
            if len(array) < cut + 2:
                array = bytearray(cut + 2)
            with memoryview(buf) as view, view[:cut] as lines:
                hashed = hasher.submit(digest.update, lines)
                try:
                    newlines = _as_array(lines, array, first=offset == 0)
                    found = _decoded(decoder, lines, array, cut)
                finally:
                    hashed.result()  # (the buffer is reused by the next block)
            if found is None or len(found) != newlines.size + (buf[cut - 1] != _NEWLINE):
                return None  # more values than lines: two on one line
            frame = _frame(found, schema)
            if frame is None:
                return None
            frames.append(frame)
            starts.append(np.concatenate(([0], newlines[newlines < cut - 1] + 1)) + offset)
            offset += cut
            meter.read(cut)
    if not frames:
        return None
    joined = pl.concat(frames, rechunk=True)
    return joined, digest.hexdigest(), np.concatenate(starts).astype(np.int64)


def _as_array(lines: memoryview, array: bytearray, first: bool) -> np.ndarray:
    """Write `[line,line,...]` into `array`: the block's lines as the elements of one JSON
    array (each newline a comma, the last one the closing bracket); where the newlines are."""
    size = len(lines)
    array[0] = _OPEN
    array[1 : size + 1] = lines
    if first and lines[: len(UTF8_BOM)] == UTF8_BOM:
        array[1 : 1 + len(UTF8_BOM)] = bytes([_SPACE]) * len(UTF8_BOM)  # JSON whitespace
    raw = np.frombuffer(lines, np.uint8)
    parts = [
        np.flatnonzero(raw[at : at + _SLICE] == _NEWLINE) + at for at in range(0, size, _SLICE)
    ]
    newlines = np.concatenate(parts) if parts else np.zeros(0, np.int64)
    np.frombuffer(array, np.uint8)[newlines + 1] = _COMMA
    ends_line = newlines.size and newlines[-1] == size - 1  # (else the file's unended last line)
    array[size if ends_line else size + 1] = _CLOSE
    return newlines


def _decoded(
    decoder: msgspec.json.Decoder[list[Any]], lines: memoryview, array: bytearray, size: int
) -> list[Any] | None:
    """The block's records (`array`'s first `size` + 2 bytes, or + 1 when the bracket took
    the place of the last newline), or None: not UTF-8, not one JSON value per line, a value
    of another type than the keys take, or too deep."""
    if np.frombuffer(lines, np.uint8).max(initial=0) >= 0x80:
        try:
            str(lines, "utf-8")
        except UnicodeDecodeError:
            return None
    end = size + 1 if array[size] == _CLOSE else size + 2
    try:
        with memoryview(array) as view, view[:end] as text:
            return decoder.decode(text)
    except (msgspec.MsgspecError, RecursionError):
        return None


def _frame(records: list[Any], schema: dict[str, pl.DataType]) -> pl.DataFrame | None:
    """The records as polars' frame of the five columns (an integer id as its decimal text,
    as polars writes a number read into a text column); None for an id no reader here takes
    (an integer past 64 bits: the line check flags it too)."""
    names = list(schema)
    values = [list(map(attrgetter(f"k{i}"), records)) for i in range(len(names))]
    ids: Any = values[0]
    try:  # the usual lm-eval id, an int: made text by polars
        id_column = pl.Series(DOC_ID, ids, dtype=pl.Int64, strict=True).cast(pl.String)
    except (TypeError, OverflowError, pl.exceptions.PolarsError):  # text, or past 64 bits
        if any(v.__class__ is int and not INT_MIN <= v <= INT_MAX for v in ids):
            return None  # an id past 64 bits: refused by the slow path, in its words
        ids = [v if v is None or v.__class__ is str else str(v) for v in ids]
        id_column = pl.Series(DOC_ID, ids, dtype=pl.String)
    rest = [pl.Series(name, values[i], dtype=schema[name]) for i, name in enumerate(names) if i]
    return pl.DataFrame([id_column, *rest])
