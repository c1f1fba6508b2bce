"""One bounded-memory pass over a JSON Lines file: statistics columns, sha256 and line index.

Reading a multi-gigabyte run three times (hash, newline index, parse) costs three passes, and
handing polars the whole file maps all of it into memory. Here the file is read once, in blocks
that end at a line break: each block is hashed (in a helper thread; hashlib releases the GIL),
its line starts are recorded, and polars parses only the statistics keys of its lines. Peak
memory is a couple of blocks plus the parsed columns, whatever the file size.
"""

from __future__ import annotations

import hashlib
from array import array
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
WHITESPACE = b" \t\r\n"


@dataclass(frozen=True, eq=False)
class Scan:
    frame: pl.DataFrame  # the statistics columns, one row per non-blank line
    sha256: str
    lines: LineIndex
    hash_checked: bool = True  # False: sha256 is a cache entry's, not yet recomputed


def scan_jsonl(path: Path, schema: dict[str, pl.DataType], block: int = BLOCK) -> Scan:
    """Parse `schema`'s keys of every non-blank line; raises polars' error on a bad line."""
    digest = hashlib.sha256()
    buf = bytearray(min(block, path.stat().st_size + 1))  # a small file needs no big buffer
    have = 0  # bytes of an unfinished line carried at the front of buf
    offset = 0  # file offset of buf[0]
    line_no = 1  # 1-based line number of the line starting at buf[0]
    frames: list[pl.DataFrame] = []
    starts: list[np.ndarray] = []
    numbers: list[np.ndarray] = []
    # One worker runs the hash updates in file order while polars parses the same chunk.
    in_flight: list = []
    with (
        ThreadPoolExecutor(max_workers=1) as hasher,
        ThreadPoolExecutor(max_workers=2) as parser,
        path.open("rb", buffering=0) as handle,
    ):
        while True:
            with memoryview(buf) as view:
                n = handle.readinto(view[have:])
            end = have + n
            if end == 0:
                break
            cut = buf.rfind(b"\n", 0, end) + 1 if n else end
            if cut == 0:  # one line fills the block: grow it and read on
                buf.extend(bytearray(len(buf)))
                have = end
                continue
            with memoryview(buf) as view:
                chunk = bytes(view[:cut])  # polars takes bytes; the hash reads the same copy
            hashed = hasher.submit(digest.update, chunk)
            parsed = parser.submit(pl.read_ndjson, chunk, schema=schema)
            line_starts, keep = _lines(chunk)
            starts.append(line_starts[keep] + offset)
            numbers.append(np.arange(line_no, line_no + len(line_starts))[keep])
            if keep.any():
                in_flight.append(parsed)
            # Keep at most two chunks in flight: memory stays bounded, both cores stay busy.
            while len(in_flight) > 1:
                frames.append(in_flight.pop(0).result())
            hashed.result()
            meter.read(cut)
            del chunk
            line_no += len(line_starts)
            offset += cut
            rest = end - cut
            buf[:rest] = buf[cut:end]  # same length: no resize
            have = rest
            if n == 0:
                break
        frames.extend(f.result() for f in in_flight)
    frame = pl.concat(frames) if frames else pl.DataFrame(schema=schema)
    index = LineIndex(
        np.concatenate(starts).astype(np.int64) if starts else np.zeros(0, np.int64),
        np.concatenate(numbers).astype(np.int64) if numbers else np.zeros(0, np.int64),
    )
    return Scan(frame=frame, sha256=digest.hexdigest(), lines=index)


def _lines(chunk: bytes) -> tuple[np.ndarray, np.ndarray]:
    """Start offsets of the lines in `chunk`, and which are not blank (polars skips blank ones:
    empty, or only whitespace, which is checked among the short lines only)."""
    found = array("q", [0])
    find = chunk.find
    pos = find(b"\n")
    while pos != -1:  # memchr under the hood: faster than a vectorised compare here
        found.append(pos + 1)
        pos = find(b"\n", pos + 1)
    line_starts = np.frombuffer(found, np.int64)
    if line_starts[-1] >= len(chunk):
        line_starts = line_starts[:-1]
    ends = np.concatenate((line_starts[1:], [len(chunk)]))
    lengths = ends - line_starts
    keep = lengths > 0
    for i in np.flatnonzero(lengths <= 16):
        if not chunk[line_starts[i] : ends[i]].strip(WHITESPACE):
            keep[i] = False
    return line_starts, keep
