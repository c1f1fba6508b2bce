"""One pass over a JSON Lines file for its statistics columns, sha256 and line index.

Reading a multi-gigabyte run three times (hash, newline index, parse) costs three passes, and
handing polars the whole file maps all of it into memory. So a big file is read once, in
blocks that end at a line break: each block is hashed (in a helper thread; hashlib releases the
GIL), its line starts are recorded, and polars parses only the statistics keys of its lines.
Peak memory is a couple of blocks plus the parsed columns, whatever the file size. A file of
up to WHOLE_FILE_MAX bytes is handed to polars whole instead (mapping it costs at most that
much memory, and one call is much cheaper than many), while one pass hashes and indexes it.
"""

from __future__ import annotations

import hashlib
from array import array
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import polars as pl

from evaltui.core import meter
from evaltui.core.formats.line_index import LineIndex

# Bytes per block; grows when a single line is longer. Kept under glibc's largest mmap threshold
# (32 MiB): bigger blocks are fresh mappings each time, and their page faults made a 2.4 GB file
# take 5.4 s instead of 3.9 s (64 MiB against 16 MiB blocks, bench/scale.py breakdown).
BLOCK = 16 << 20
# Files up to this size are parsed by polars in one call (it maps the file: this much RSS at
# most); above it, block by block. 256 MiB covers ~100,000 records of 2 KB.
WHOLE_FILE_MAX = 256 << 20
WHITESPACE = b" \t\r\n"


@dataclass(frozen=True, eq=False)
class Scan:
    frame: pl.DataFrame  # the statistics columns, one row per non-blank line
    sha256: str
    lines: LineIndex
    hash_checked: bool = True  # False: sha256 is a cache entry's, not yet recomputed


def scan_jsonl(
    path: Path,
    schema: dict[str, pl.DataType],
    block: int = BLOCK,
    whole_file_max: int | None = None,
) -> Scan:
    """Parse `schema`'s keys of every non-blank line; raises polars' error on a bad line.

    Up to `whole_file_max` bytes (default WHOLE_FILE_MAX) polars parses the whole file at once
    while one pass over it hashes and indexes the lines; bigger files are parsed block by block
    so that memory stays bounded.
    """
    limit = WHOLE_FILE_MAX if whole_file_max is None else whole_file_max
    if path.stat().st_size <= limit:
        return _scan_whole(path, schema, block)
    return _scan_blocks(path, schema, block)


def _scan_whole(path: Path, schema: dict[str, pl.DataType], block: int) -> Scan:
    """polars maps and parses the file in its own threads; meanwhile this thread reads it once
    more in blocks (from the page cache) for the sha256 and the line index. Half the CPU of the
    block-by-block parse at 240 MB (polars' per-call overhead and the copies it needs)."""
    with ThreadPoolExecutor(max_workers=1) as parser:
        parsed = parser.submit(pl.read_ndjson, path, schema=schema)
        index = _LineIndexer()
        with ThreadPoolExecutor(max_workers=1) as hasher:
            digest = hashlib.sha256()
            for buf, cut in _complete_lines(path, block):
                with memoryview(buf) as view, view[:cut] as lines:
                    hashed = hasher.submit(digest.update, lines)
                    index.add(buf, cut)
                    hashed.result()
                meter.read(cut)
        frame = parsed.result()
    return Scan(frame=frame, sha256=digest.hexdigest(), lines=index.done())


def _scan_blocks(path: Path, schema: dict[str, pl.DataType], block: int) -> Scan:
    """Hash, index and parse each block of whole lines; polars gets a copy of each block (it
    takes bytes), at most two in flight, so peak memory is a few blocks plus the columns."""
    digest = hashlib.sha256()
    frames: list[pl.DataFrame] = []
    index = _LineIndexer()
    in_flight: list = []
    with (
        ThreadPoolExecutor(max_workers=1) as hasher,
        ThreadPoolExecutor(max_workers=2) as parser,
    ):
        for buf, cut in _complete_lines(path, block):
            with memoryview(buf) as view:
                chunk = bytes(view[:cut])  # polars takes bytes; the hash reads the same copy
            hashed = hasher.submit(digest.update, chunk)
            parsed = parser.submit(pl.read_ndjson, chunk, schema=schema)
            if index.add(chunk, cut):
                in_flight.append(parsed)
            # Keep at most two chunks in flight: memory stays bounded, both cores stay busy.
            while len(in_flight) > 1:
                frames.append(in_flight.pop(0).result())
            hashed.result()
            meter.read(cut)
            del chunk
        frames.extend(f.result() for f in in_flight)
    frame = pl.concat(frames) if frames else pl.DataFrame(schema=schema)
    return Scan(frame=frame, sha256=digest.hexdigest(), lines=index.done())


def _complete_lines(path: Path, block: int) -> Iterator[tuple[bytearray, int]]:
    """The file as (buffer, cut): buffer[:cut] holds the next whole lines (the last may lack
    its newline at the end of the file). One buffer is reused: use it before the next step."""
    buf = bytearray(min(block, path.stat().st_size + 1))  # a small file needs no big buffer
    have = 0  # bytes of an unfinished line carried at the front of buf
    with path.open("rb", buffering=0) as handle:
        while True:
            with memoryview(buf) as view:
                n = handle.readinto(view[have:])
            end = have + n
            if end == 0:
                return
            cut = buf.rfind(b"\n", 0, end) + 1 if n else end
            if cut == 0:  # one line fills the block: grow it and read on
                buf.extend(bytearray(len(buf)))
                have = end
                continue
            yield buf, cut
            rest = end - cut
            buf[:rest] = buf[cut:end]  # same length: no resize
            have = rest
            if n == 0:
                return


class _LineIndexer:
    """Collects the start offset and line number of every non-blank line, block by block."""

    def __init__(self) -> None:
        self._starts: list[np.ndarray] = []
        self._numbers: list[np.ndarray] = []
        self._offset = 0  # file offset of the next block
        self._line_no = 1  # 1-based number of its first line

    def add(self, data: bytes | bytearray, cut: int) -> bool:
        """Index data[:cut]; True if it holds a non-blank line."""
        line_starts, keep = _lines(data, cut)
        self._starts.append(line_starts[keep] + self._offset)
        self._numbers.append(np.arange(self._line_no, self._line_no + len(line_starts))[keep])
        self._line_no += len(line_starts)
        self._offset += cut
        return bool(keep.any())

    def done(self) -> LineIndex:
        def joined(parts: list[np.ndarray]) -> np.ndarray:
            return np.concatenate(parts).astype(np.int64) if parts else np.zeros(0, np.int64)

        return LineIndex(joined(self._starts), joined(self._numbers))


def _lines(data: bytes | bytearray, end: int) -> tuple[np.ndarray, np.ndarray]:
    """Start offsets of the lines in data[:end], and which are not blank (polars skips blank
    ones: empty, or only whitespace, which is checked among the short lines only)."""
    found = array("q", [0])
    find = data.find
    pos = find(b"\n", 0, end)
    while pos != -1:  # memchr under the hood: faster than a vectorised compare here
        found.append(pos + 1)
        pos = find(b"\n", pos + 1, end)
    line_starts = np.frombuffer(found, np.int64)
    if line_starts[-1] >= end:
        line_starts = line_starts[:-1]
    ends = np.concatenate((line_starts[1:], [end]))
    lengths = ends - line_starts
    keep = lengths > 0
    for i in np.flatnonzero(lengths <= 16):
        if not bytes(data[line_starts[i] : ends[i]]).strip(WHITESPACE):
            keep[i] = False
    return line_starts, keep
