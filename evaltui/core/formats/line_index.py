"""Byte offsets of the records of a line-oriented file, found without parsing any JSON.

Two uses: an error found by the fast reader is reported with its real line number, and an item's
transcript is fetched by seeking straight to its line when the reviewer opens it.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

CHUNK = 64 << 20  # scan 64 MiB at a time so a multi-gigabyte file never needs a full-size mask


@dataclass(frozen=True, eq=False)
class LineIndex:
    """Start offset and 1-based line number of every non-blank line, in file order."""

    starts: np.ndarray  # int64 byte offsets
    line_numbers: np.ndarray  # int64, 1-based

    def __len__(self) -> int:
        return int(self.starts.shape[0])


def index_lines(path: Path) -> LineIndex:
    """Index the non-blank lines of `path` (blank: empty or only whitespace, as polars skips)."""
    size = path.stat().st_size
    if size == 0:
        return LineIndex(np.zeros(0, np.int64), np.zeros(0, np.int64))
    newline_parts = []
    with path.open("rb") as handle:
        offset = 0
        while chunk := handle.read(CHUNK):
            view = np.frombuffer(chunk, dtype=np.uint8)
            newline_parts.append(np.flatnonzero(view == 10).astype(np.int64) + offset)
            offset += len(chunk)
    newlines = np.concatenate(newline_parts) if newline_parts else np.zeros(0, np.int64)
    starts = np.concatenate(([0], newlines + 1))
    ends = np.concatenate((newlines, [size]))
    if starts[-1] >= size:  # the file ends with a newline: no line after it
        starts, ends = starts[:-1], ends[:-1]
    numbers = np.arange(1, len(starts) + 1, dtype=np.int64)
    lengths = ends - starts
    # A line of length 0 is blank; so is "\r" alone. Longer whitespace-only lines are rare, so
    # they are checked in Python, only among the short lines.
    keep = lengths > 0
    short = np.flatnonzero((lengths > 0) & (lengths <= 8))
    if short.size:
        with path.open("rb") as handle:
            for i in short:
                handle.seek(int(starts[i]))
                if not handle.read(int(lengths[i])).strip():
                    keep[i] = False
    return LineIndex(starts[keep], numbers[keep])


def read_line(path: Path, start: int) -> bytes:
    """The bytes of the line beginning at `start`, without its newline."""
    with path.open("rb") as handle:
        handle.seek(start)
        return handle.readline().rstrip(b"\r\n")
