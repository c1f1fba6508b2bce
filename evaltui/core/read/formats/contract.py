"""The contract between the loader (`formats/__init__.py`) and each input format module.

An input format is a module that sets `NAME` (what `--input-format NAME` forces) and `Options`
(a frozen dataclass of the options only that format takes, all with defaults; `NoOptions` when
it takes none), and defines `sniff(path, head)` and `load(path, options, own)`. Its `load`
returns a `Run` whose transcripts reader is the format's own, reading text only on demand; the
checks every harness reader makes on what it is asked for (`check_row`, `check_text_field`,
`ensure_same_file`) are here, so all of them refuse a bad request in the same words.

What the user chooses arrives as one `LoadOptions`: the options every format takes (`metric`,
`defer_hash_check`) and the format options by name. `load_run` turns those names into the
detected format's `Options` before calling `load`, so a name the format does not take is refused
with the format named instead of being ignored, and a format reads typed fields, never a bag.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from evaltui.core.errors import InputError
from evaltui.core.read.formats.native import fingerprint
from evaltui.core.read.runs import TEXT_FIELDS, Run

# How many first bytes of a file a sniffer sees (and a format may assume it saw, to tell a
# truncated first line from a complete one).
HEAD_BYTES = 64 * 1024


@dataclass(frozen=True)
class LoadOptions:
    """Choices a user makes about how a file is read; the defaults suit the evaltui format.

    `format_options` holds the options of one format by name (`filter`, `arm`, `id_col`...):
    the caller need not know which format a file is, and `load_run` checks them against the
    format detected. Build it with `LoadOptions.of` so it stays sorted and hashable."""

    metric: str | None = None  # which scorer/metric when a log has several (every format)
    # (name, value) pairs given by the user, sorted by name, None values dropped
    format_options: tuple[tuple[str, Any], ...] = ()
    # The app only: a JSONL run found in the scan cache may take its sha256 from the cache
    # entry, so the first screen does not wait for hashing gigabytes; the caller must then
    # confirm it (`scan_cache.confirm`) before anything records it. Headless commands never
    # set this: their hashes are always computed from the bytes.
    defer_hash_check: bool = False

    @classmethod
    def of(
        cls,
        *,
        metric: str | None = None,
        defer_hash_check: bool = False,
        **format_options: Any,
    ) -> LoadOptions:
        """Options from keyword arguments; a None value means "not given" and is dropped, and a
        list (`text_cols`) becomes a tuple so equal choices compare and hash equal."""
        pairs = (
            (name, tuple(value) if isinstance(value, list) else value)
            for name, value in format_options.items()
            if value is not None
        )
        return cls(
            metric=metric,
            format_options=tuple(sorted(pairs, key=lambda pair: pair[0])),
            defer_hash_check=defer_hash_check,
        )

    def format_dict(self) -> dict[str, Any]:
        """The format options by name, as `load_run` hands them to the format's `Options`."""
        return dict(self.format_options)


@dataclass(frozen=True)
class NoOptions:
    """The `Options` of a format that takes no options of its own."""


@runtime_checkable
class InputFormat(Protocol):
    """What a format module provides (a module satisfies it through its top-level names)."""

    NAME: str
    Options: type[Any]  # a frozen dataclass whose fields all have defaults

    def sniff(self, path: Path, head: bytes) -> bool:
        """True when the file's first `HEAD_BYTES` look like this format (the name at most
        breaks a tie): detection must not depend on how the file was named."""
        ...

    def load(self, path: Path, options: LoadOptions, own: Any) -> Run:
        """The run in `path`. `options` carries what every format takes (its format options
        already moved into `own`, an instance of this format's `Options`)."""
        ...


def option_names(options_type: type[Any]) -> tuple[str, ...]:
    """The option names a format's `Options` dataclass takes, in declaration order."""
    return tuple(f.name for f in fields(options_type))


def option_flag(name: str) -> str:
    """How the command line spells an option: `id_col` -> `--id-col`."""
    return "--" + name.replace("_", "-")


def flags_of(names: Iterable[str]) -> str:
    """Option names as a flag listing for a message ("--id-col, --pass-col")."""
    return ", ".join(option_flag(name) for name in names)


# ---------------------------------------------------------------------------------------------
# What a transcripts reader refuses


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
