"""What the harness formats' transcript readers share: the checks on what they are asked for.

Each format reads its transcripts its own way (a zip member, a line by offset, a record kept in
memory); these are the checks every one of them makes first, so all of them refuse a bad row,
an unknown field or a file rewritten since its statistics were read in the same words.
"""

from __future__ import annotations

from pathlib import Path

from evaltui.core.errors import InputError
from evaltui.core.formats.native import fingerprint
from evaltui.core.runs import TEXT_FIELDS


def check_row(row: int, count: int) -> None:
    """A row of the statistics table is an index into the reader's records (a caller's bug
    otherwise, hence IndexError, not a user-facing error)."""
    if not 0 <= row < count:
        raise IndexError(f"row {row} is out of range (0..{count - 1})")


def check_text_field(name: str) -> None:
    """`read_field` reads one of the transcript's text fields and nothing else."""
    if name not in TEXT_FIELDS:
        raise ValueError(f"unknown transcript field '{name}'; expected one of {TEXT_FIELDS}")


def ensure_same_file(
    path: Path, stamp: tuple[int, int], *, line: int | None = None, record: str | None = None
) -> None:
    """Refuse to read a transcript from a file rewritten since it was loaded: its offsets and
    members would be another run's. `stamp` is `fingerprint(path)` taken at load."""
    if fingerprint(path) != stamp:
        raise InputError(
            path,
            "the file changed on disk since it was loaded; reload the run",
            line=line,
            record=record,
        )
