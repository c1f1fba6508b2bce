"""Byte offsets of the records of a line-oriented file (built by `jsonl_scan` as it reads).

Two uses: an error found by the fast reader is reported with its real line number, and an item's
transcript is fetched by seeking straight to its line when the reviewer opens it.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np


@dataclass(frozen=True, eq=False)
class LineIndex:
    """Start offset and 1-based line number of every non-blank line, in file order."""

    starts: np.ndarray  # int64 byte offsets
    line_numbers: np.ndarray  # int64, 1-based

    def __len__(self) -> int:
        return int(self.starts.shape[0])


def read_line(path: Path, start: int) -> bytes:
    """The bytes of the line beginning at `start`, without its newline."""
    with path.open("rb") as handle:
        handle.seek(start)
        return handle.readline().rstrip(b"\r\n")
