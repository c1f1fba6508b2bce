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
  values): a block whose every line starts with `{` and ends with `}` cannot hold a value
  over two lines (inside one JSON value a `}` is never followed by `{`), so it is decoded
  where it lies and must give as many values as lines; any other block is parsed as one JSON
  array whose elements are its lines (every newline a comma), so a line must hold exactly
  one value: a blank line or one value over two lines is invalid JSON, two values on one
  line make more elements than lines;
- a key written twice (msgspec keeps the last, Python's reader here refuses, polars keeps the
  first), also once escaped: the line check flags it, and any flagged line sends the file to
  the slow path;
- an integer id past 64 bits (read exactly, but refused by `fields.identifier`).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
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
    _escaped_key,
    _line_check,
    _rust_literal,
)
from evaltui.core.read.formats.jsontext import UTF8_BOM
from evaltui.core.read.formats.line_index import LineIndex

DOC_ID, FILTER, DOC_HASH, PROMPT_HASH = "doc_id", "filter", "doc_hash", "prompt_hash"
TEXTS = (FILTER, DOC_HASH, PROMPT_HASH)  # a string or null, as the line check requires
_NEWLINE, _COMMA, _OPEN, _CLOSE, _SPACE = 0x0A, 0x2C, 0x5B, 0x5D, 0x20
_OPEN_BRACE, _CLOSE_BRACE, _RETURN = 0x7B, 0x7D, 0x0D


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
    decoders = _decoder(metric)
    # (the collector paused: each block's records are ~18,000 new objects)
    with ThreadPoolExecutor(max_workers=1) as checker, collector_paused():
        checked = checker.submit(check.file, path)
        try:
            read = _read(path, block, decoders, schema)
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


def _decoder(metric: str) -> _Decoders:
    """Decoders of records holding only the five keys (each None when absent or null, as
    polars reads them; any other type is a validation error): of a JSON array of lines, and
    of the lines themselves (`decode_lines`)."""
    names = [DOC_ID, FILTER, metric, DOC_HASH, PROMPT_HASH]
    types: list[Any] = [int | str | None, str | None, float | None, str | None, str | None]
    record = msgspec.defstruct(
        "LmEvalKeys",
        [(f"k{i}", kind, None) for i, kind in enumerate(types)],
        rename={f"k{i}": name for i, name in enumerate(names)},
        gc=False,  # 200,000 records of five scalars: nothing for the collector to find
    )
    return _Decoders(
        array=msgspec.json.Decoder(list[record]),  # type: ignore[valid-type]
        lines=msgspec.json.Decoder(record),
    )


@dataclass(frozen=True)
class _Decoders:
    array: msgspec.json.Decoder[list[Any]]
    lines: msgspec.json.Decoder[Any]


def _read(
    path: Path,
    block: int,
    decoders: _Decoders,
    schema: dict[str, pl.DataType],
) -> tuple[pl.DataFrame, str, np.ndarray] | None:
    """The five columns, the sha256, the line starts; None at the first block msgspec, the
    UTF-8 test or the ids refuse. Each block's records become columns before the next block
    is read, so the Python objects alive are one block's, whatever the file's size."""
    digest = hashlib.sha256()
    frames: list[pl.DataFrame] = []
    starts: list[np.ndarray] = []
    offset = 0
    with ThreadPoolExecutor(max_workers=1) as hasher:
        for buffers, cut, newlines in _blocks(path, block):
            hashed = hasher.submit(digest.update, buffers.raw[:cut].data)
            try:
                found = _records(decoders, buffers, cut, newlines, first=offset == 0)
            finally:
                hashed.result()  # (the buffer is reused by the next block)
            unended = buffers.raw[cut - 1] != _NEWLINE  # the file's last line, without one
            if found is None or len(found) != newlines.size + unended:
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


class _Buffers:
    """One scan's buffers, reused block after block: the bytes read (`raw`), the block as
    one JSON array (`array`: `[`, the lines, `]`) and where its newlines are (`newline`).

    numpy's, not bytearrays: a large numpy allocation is advised huge pages and first
    touched by the kernel's read or numpy's copy, which release the GIL, where a 16 MiB
    bytearray is zeroed page by page under it (a page fault costs this VM microseconds,
    more with other threads faulting: ~0.1 s of the GIL per pair of files, all of it
    while the UI's imports and the other file's read waited)."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.raw = np.empty(size, np.uint8)
        self.array = np.empty(size + 2, np.uint8)
        self.newline = np.empty(size, np.bool_)

    def grown(self, have: int) -> _Buffers:
        """Twice the room, the first `have` bytes read kept (one line fills the block)."""
        larger = _Buffers(2 * self.size)
        larger.raw[:have] = self.raw[:have]
        return larger


def _blocks(path: Path, block: int) -> Iterator[tuple[_Buffers, int, np.ndarray]]:
    """The file as (buffers, cut, newlines): `buffers.raw[:cut]` holds the next whole lines
    (the last may lack its newline at the end of the file), `newlines` where their newlines
    are (`buffers.newline` marks them), as `jsonl_scan._complete_lines` cuts a file; the one
    newline search (numpy, the whole block at once, without the GIL) finds the cut, the
    line starts and the commas. The buffers are reused: use them before the next step."""
    buffers = _Buffers(max(min(block, path.stat().st_size + 1), 1))
    have = 0  # bytes of an unfinished line carried at the front of buffers.raw
    with path.open("rb", buffering=0) as handle:
        while True:
            with buffers.raw.data as view:
                n = handle.readinto(view[have:])
            end = have + n
            if end == 0:
                return
            np.equal(buffers.raw[:end], _NEWLINE, out=buffers.newline[:end])
            newlines = np.flatnonzero(buffers.newline[:end])
            last = int(newlines[-1]) + 1 if newlines.size else 0  # (0: no newline)
            cut = last if n else end  # at the end of the file: what is left
            if cut == 0:  # one line fills the block: grow it and read on
                buffers = buffers.grown(end)
                have = end
                continue
            yield buffers, cut, newlines
            rest = end - cut
            buffers.raw[:rest] = buffers.raw[cut:end].copy()  # (a line's tail: small)
            have = rest
            if n == 0:
                return


def _records(
    decoders: _Decoders, buffers: _Buffers, cut: int, newlines: np.ndarray, first: bool
) -> list[Any] | None:
    """The block's records, or None (`_decoded`). A block whose every line starts with `{`
    and ends with `}` (a `\\r` before its newline aside) is decoded as it lies in the buffer
    (`decode_lines`): no value can then run over a newline (a `}` followed by `{` is never
    inside one JSON value), so a count of values equal to the count of lines is one value a
    line, and the copy into a JSON array is not needed (0.05 s of CPU per 188 MB file). Any
    other block is decoded as that array, whose commas make a line hold exactly one value."""
    if not _one_object_a_line(buffers.raw, cut, newlines, first):
        _as_array(buffers, cut, newlines, first)
        return _decoded(decoders.array, buffers, cut)
    if not _utf8(buffers.raw[:cut]):
        return None
    begin = len(UTF8_BOM) if first and bytes(buffers.raw[: len(UTF8_BOM)]) == UTF8_BOM else 0
    try:
        with buffers.raw.data as view, view[begin:cut] as text:
            return decoders.lines.decode_lines(text)
    except (msgspec.MsgspecError, RecursionError):
        return None


def _one_object_a_line(raw: np.ndarray, cut: int, newlines: np.ndarray, first: bool) -> bool:
    """Whether every line of `raw[:cut]` (the byte order mark of the file's first aside)
    starts with `{` and ends with `}`, or with `}` and a carriage return."""
    begin = len(UTF8_BOM) if first and bytes(raw[: len(UTF8_BOM)]) == UTF8_BOM else 0
    ended = newlines[newlines < cut]
    unended = ended.size == 0 or ended[-1] != cut - 1  # the file's last line, without one
    starts = np.concatenate(([begin], ended[: ended.size - (not unended)] + 1))
    ends = np.append(ended, cut) if unended else ended  # (each line's end, exclusive)
    if starts.size != ends.size or (ends <= starts).any():
        return False  # (a blank line)
    last = raw[ends - 1]
    before = raw[np.maximum(ends - 2, starts)]
    closed = (last == _CLOSE_BRACE) | ((last == _RETURN) & (before == _CLOSE_BRACE))
    return bool((raw[starts] == _OPEN_BRACE).all() and closed.all())


def _as_array(buffers: _Buffers, cut: int, newlines: np.ndarray, first: bool) -> None:
    """Write `[line,line,...]` into `buffers.array`: the block's lines as the elements of one
    JSON array (each newline a comma, the last one the closing bracket). The copy and the
    commas are numpy's whole-block calls, which release the GIL (a bytearray copy, a search
    in slices and a fancy-index write held it: ~0.4 s of the GIL over a 200,000-line pair
    in a profile of the app, while the other file's read and the UI's imports waited)."""
    body = buffers.array[1 : cut + 1]
    np.copyto(body, buffers.raw[:cut])
    np.copyto(body, _COMMA, where=buffers.newline[:cut])
    buffers.array[0] = _OPEN
    if first and bytes(body[: len(UTF8_BOM)]) == UTF8_BOM:
        body[: len(UTF8_BOM)] = _SPACE  # JSON whitespace
    ends_line = newlines.size and newlines[-1] == cut - 1  # (else the file's unended last line)
    buffers.array[cut if ends_line else cut + 1] = _CLOSE


def _decoded(
    decoder: msgspec.json.Decoder[list[Any]], buffers: _Buffers, cut: int
) -> list[Any] | None:
    """The block's records (`buffers.array`'s first `cut` + 2 bytes, or + 1 when the bracket
    took the place of the last newline), or None: not UTF-8, not one JSON value per line, a
    value of another type than the keys take, or too deep."""
    if not _utf8(buffers.raw[:cut]):
        return None
    end = cut + 1 if buffers.array[cut] == _CLOSE else cut + 2
    try:
        with buffers.array.data as view, view[:end] as text:
            return decoder.decode(text)
    except (msgspec.MsgspecError, RecursionError):
        return None


def _utf8(raw: np.ndarray) -> bool:
    """Whether the bytes are UTF-8 (msgspec does not look inside the strings it skips): ASCII
    by one `max`, anything else decoded."""
    if raw.max(initial=0) < 0x80:
        return True
    try:
        with raw.data as lines:
            str(lines, "utf-8")
    except UnicodeDecodeError:
        return False
    return True


def _frame(records: list[Any], schema: dict[str, pl.DataType]) -> pl.DataFrame | None:
    """The records as polars' frame of the five columns (an integer id as its decimal text,
    as polars writes a number read into a text column); None for an id no reader here takes
    (an integer past 64 bits: the line check flags it too)."""
    names = list(schema)
    # (a comprehension per field: half the GIL of `list(map(attrgetter(...)))`, 1.0 against
    # 2.2 ms a 16 MiB block, whose Python work holds up the other file's read and the UI)
    values: list[list[Any]] = [
        [r.k0 for r in records],
        [r.k1 for r in records],
        [r.k2 for r in records],
        [r.k3 for r in records],
        [r.k4 for r in records],
    ]
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
