"""The contract between the loader (`formats/__init__.py`) and each input format module.

An input format is a module that sets `NAME` (what `--input-format NAME` forces) and `Options`
(a frozen dataclass of the options only that format takes, all with defaults; `NoOptions` when
it takes none), both imported from its light `<name>_options` module (`DeclaresOptions`), and
defines `sniff(path, head)` and `load(path, options, own)`. Its `load` returns a `Run` whose
transcripts reader is the format's own, reading text only on demand; the checks every harness
reader makes on what it is asked for (`check_row`, `check_text_field`, `ensure_same_file`) are
here, so all of them refuse a bad request in the same words.

Each option field says how the command line offers it (`option(...)`: its help, metavar,
choices, how the flag's text parses, and whether each arm may set its own), so the CLI's
"input formats" flags are generated from the formats (`evaltui/cli/format_flags.py`) and a new
format's options reach the command line without touching it. This module and the options
modules import no polars (nor numpy): building the parser reads them, and `--help` stays instant.

A format whose runs a harness writes into a log directory also says how to find and describe
them (`recognise(path)` and `describe_run(entry)`, the `ListsInDirectories` protocol), so the
log-directory lister (`logdir.py`) names no harness.

What the user chooses arrives as one `LoadOptions`: the options every format takes (`metric`,
`defer_hash_check`) and the format options by name. `load_run` turns those names into the
detected format's `Options` before calling `load`, so a name the format does not take is refused
with the format named instead of being ignored, and a format reads typed fields, never a bag.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import Field, dataclass, field, fields
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Protocol, runtime_checkable

from evaltui.core.errors import InputError

if TYPE_CHECKING:  # both import polars: the options declared here must stay light (see above)
    from evaltui.core.read.run_entry import RunEntry
    from evaltui.core.read.runs import Run

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
class DeclaresOptions(Protocol):
    """A format's name and options: what the command line needs to offer its flags. Declared
    in the format's light `<name>_options` module (which imports nothing heavier than this
    module), so that building the parser imports no polars, and imported from there by the
    format's module (`from ..lm_eval_options import NAME, Options`)."""

    NAME: str
    Options: type[Any]  # a frozen dataclass whose fields all have defaults


@runtime_checkable
class InputFormat(DeclaresOptions, Protocol):
    """What a format module provides (a module satisfies it through its top-level names)."""

    def sniff(self, path: Path, head: bytes) -> bool:
        """True when the file's first `HEAD_BYTES` look like this format (the name at most
        breaks a tie): detection must not depend on how the file was named."""
        ...

    def load(self, path: Path, options: LoadOptions, own: Any) -> Run:
        """The run in `path`. `options` carries what every format takes (its format options
        already moved into `own`, an instance of this format's `Options`)."""
        ...


@runtime_checkable
class ListsInDirectories(Protocol):
    """What a format module adds when a harness writes its runs into a log directory (Inspect's
    log dir, lm-eval's `--output_path`, HELM's `benchmark_output`): how `logdir.py` finds its
    runs there and describes each from its header, without a full load."""

    def recognise(self, path: Path) -> Recognised | None:
        """ "run" when `path` (a file, or a directory for a format whose runs are directories)
        is one of this format's runs; "companion" for a file read beside a run (lm-eval's
        results file: neither listed nor counted as another file); else None. Cheap: the name,
        at most the first `HEAD_BYTES`."""
        ...

    def describe_run(self, entry: RunEntry) -> RunEntry:
        """The entry (path, name, format and the file's date filled in) with what the run's
        header says: task, model, date, items, scorer, status. Reads the header only, never a
        sample; raises (InputError, OSError, ValueError, ...) when the header cannot be read,
        and the listing shows the run as unreadable with the reason."""
        ...


Recognised = Literal["run", "companion"]


# ---------------------------------------------------------------------------------------------
# How the command line offers a format's options

FLAG = "evaltui.flag"  # the key of an option field's metadata that holds its `Flag`


@dataclass(frozen=True)
class Flag:
    """How the command line offers one format option (`--NAME`, from the field's name)."""

    help: str
    metavar: str | None = None  # None: argparse's (the name in capitals)
    choices: tuple[str, ...] | None = None
    # The flag's text -> the option's value (None: not given); None: the text itself
    parse: Callable[[str], Any] | None = None
    switch: bool = False  # a flag without a value: given means True
    # Help for `--baseline-NAME` and `--candidate-NAME`, when each arm may choose its own value
    # (promptfoo's arm: two arms of one file); None: one value for both runs
    per_arm: tuple[str, str] | None = None


def option(
    help: str,
    *,
    metavar: str | None = None,
    choices: tuple[str, ...] | None = None,
    parse: Callable[[str], Any] | None = None,
    switch: bool = False,
    per_arm: tuple[str, str] | None = None,
) -> Any:
    """A format option field (default None: not given) with the flag that offers it."""
    flag = Flag(help, metavar, choices, parse, switch, per_arm)
    return field(default=None, metadata={FLAG: flag})


def flag_of(options_field: Field[Any], format_name: str) -> Flag:
    """The flag of an option field; a field declared without `option(...)` is still offered,
    as a text flag whose help names its format."""
    flag = options_field.metadata.get(FLAG)
    if isinstance(flag, Flag):
        return flag
    return Flag(f"{format_name}: its {options_field.name.replace('_', ' ')} option")


def parse_bool(text: str) -> bool:
    """ "true"/"false" (the flag's choices) as a bool."""
    return {"true": True, "false": False}[text]


def parse_list(text: str) -> tuple[str, ...] | None:
    """ "a,b,c" as ("a", "b", "c"); an empty text is not given."""
    return tuple(text.split(",")) if text else None


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
    from evaltui.core.read.runs import TEXT_FIELDS

    if name not in TEXT_FIELDS:
        raise ValueError(f"unknown transcript field '{name}'; expected one of {TEXT_FIELDS}")


def ensure_same_file(
    path: Path, stamp: tuple[int, int], *, line: int | None = None, record: str | None = None
) -> None:
    """Refuse to read a transcript from a file rewritten since it was loaded: its offsets and
    members would be another run's. `stamp` is `fingerprint(path)` taken at load."""
    from evaltui.core.read.formats.native import fingerprint

    if fingerprint(path) != stamp:
        raise InputError(
            path,
            "the file changed on disk since it was loaded; reload the run",
            line=line,
            record=record,
        )
