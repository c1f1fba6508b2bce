"""Input formats: each module turns one kind of file into the canonical run (see `runs.py`).

What a format module provides is the `InputFormat` protocol (`contract.py`): `NAME`, `Options`
(the options only it takes, each declaring the flag that offers it: the command line generates
its format flags from them), `sniff(path, head)` and `load(path, options, own)`; a format whose
runs fill log directories adds `recognise(path)` and `describe_run(entry)` for the lister.

A format's `NAME` and `Options` are declared once, in its light `<name>_options.py` (which
imports nothing heavier than `contract.py`), and its module imports them from there: the
command line reads them through `format_options` to build its flags without importing polars,
so `--help` stays instant. A new format is its module, its `<name>_options` module and its name
in `REGISTRY`: neither the CLI nor the lister changes. (A format without an options module still
works, declaring both in its module: the parser then imports it.)

Detection looks at the content, not only the name, so a misnamed file still opens;
`--input-format` overrides it. Formats are tried in REGISTRY order, most specific first.
`load_run` also turns the user's format options into the format's `Options`, refusing one the
format does not take rather than ignoring it.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import typing
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from evaltui.core.errors import InputError, UsageError
from evaltui.core.read.formats.contract import (
    HEAD_BYTES,
    DeclaresOptions,
    InputFormat,
    LoadOptions,
    NoOptions,
    flags_of,
    option_flag,
    option_names,
)
from evaltui.core.read.formats.harness_sniffs import SNIFFS
from evaltui.core.read.formats.refusals import explain

if TYPE_CHECKING:  # imports polars: this package must stay light for the command line's flags
    from evaltui.core.read.remote.blob import Stamp
    from evaltui.core.read.runs import Run

__all__ = [
    "HEAD_BYTES",
    "REGISTRY",
    "InputFormat",
    "LoadOptions",
    "NoOptions",
    "available_formats",
    "detect_format",
    "format_module",
    "format_options",
    "load_run",
    "own_options",
]

# Module names under evaltui.core.read.formats, most specific first. The native formats come last:
# they accept any JSONL/CSV/Parquet with an item_id column. Each harness format's sniff looks for
# keys only that harness writes, so none of them takes a native file.
REGISTRY: tuple[str, ...] = (
    "inspect_eval",
    "inspect_json",
    "lm_eval",
    "promptfoo",
    "openai_evals",
    "helm",
    "parquet",
    "jsonl",
    "csv",
)


def format_module(name: str) -> InputFormat | None:
    """The module of the format named `name`, or None when this build does not ship it."""
    module = _shipped(f"evaltui.core.read.formats.{name}")
    return None if module is None else cast(InputFormat, module)


def format_options(name: str) -> DeclaresOptions | None:
    """The format's `NAME` and `Options` without importing its reader (nor polars): its
    `<name>_options` module, else (a format declaring both in its module) the module itself;
    None when this build does not ship the format."""
    light = _shipped(f"evaltui.core.read.formats.{name}_options")
    if light is not None:
        return cast(DeclaresOptions, light)
    return format_module(name)


def available_formats() -> list[str]:
    return [name for name in REGISTRY if format_options(name) is not None]


def _shipped(module_name: str) -> Any:
    """The module, or None when this build does not have it (a missing import inside it is
    the module's own bug and propagates)."""
    try:
        return importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name == module_name:
            return None
        raise


def detect_format(path: Path) -> str:
    """Name the format of `path` from its first bytes (and its name only as a tie-breaker)."""
    _check_readable(path)
    with path.open("rb") as handle:
        head = handle.read(HEAD_BYTES)
    if not head.strip():
        raise InputError(path, "the file is empty; expected an eval run")
    for name in REGISTRY:
        if _sniff(name, path, head):
            return name
    reason = explain(path, head)  # a file we know, that holds no per-item data
    if reason is not None:
        raise InputError(path, reason)
    raise InputError(
        path,
        "cannot tell the file's format from its content; expected one of "
        + ", ".join(available_formats())
        + " (use --input-format NAME to force one)",
    )


def _sniff(name: str, path: Path, head: bytes) -> bool:
    """Whether the format `name` (when this build ships it) takes the file. A harness format is
    asked through `harness_sniffs`, which imports none of the readers: a plain JSONL or Parquet
    run then imports only its own reader, not every harness's."""
    light = SNIFFS.get(name)
    if light is None:
        module = format_module(name)
        return module is not None and module.sniff(path, head)
    return _ships(name) and light(path, head)


def _ships(name: str) -> bool:
    """Whether this build has the format's reader module, found without importing it."""
    return importlib.util.find_spec(f"evaltui.core.read.formats.{name}") is not None


def load_run(
    path: str | Path,
    format_name: str | None = None,
    options: LoadOptions | None = None,
    *,
    wait_for_hash: bool = True,
) -> Run:
    """Load one run, detecting its format unless `format_name` forces one.

    `wait_for_hash=False` may return a run whose sha256 is still being computed (see
    `Run.pending_source`); the caller must call `.resolved()` before using the source.
    A URL (`s3://`, `gs://`, `az://`, `hf://`, `https://`) is read where it lives
    (`remote/load.py`)."""
    from evaltui.core.read.remote.urls import url_of

    url = url_of(path)
    if url is not None:
        return load_url(url, format_name, options, wait_for_hash=wait_for_hash)
    path = Path(path)
    if path.is_dir():  # a HELM run directory is a run; anything else is refused here
        name = _directory_format(path, format_name)
    else:
        _check_readable(path)
        name = format_name or detect_format(path)
    module = format_module(name) if name in REGISTRY else None
    if module is None:
        raise UsageError(
            f"unknown input format '{name}'; expected one of {', '.join(available_formats())}"
        )
    options = options or LoadOptions()
    own = own_options(module, options, path)
    from polars.exceptions import PanicException  # the reader imported polars already

    try:
        run = module.load(path, replace(options, format_options=()), own)
    except PanicException as exc:  # a BaseException: past every `except Exception` of a loader
        raise InputError(
            path,
            f"polars panicked reading it as {module.NAME} (a corrupt file?): "
            + " ".join(str(exc).split())[:200],
        ) from None
    return run.resolved() if wait_for_hash else run


def load_url(
    url: str,
    format_name: str | None = None,
    options: LoadOptions | None = None,
    *,
    wait_for_hash: bool = True,
    stamp: Stamp | None = None,
) -> Run:
    """`load_run` of a URL (`remote/load.py`). With `stamp`, the object is read at the version
    a caller has looked at already (no new look, its ETag pinned): `inspect_elsewhere`'s second
    process, and its caller when the log is read here after all."""
    from evaltui.core.read.remote.load import load_remote

    remote = load_remote(
        url,
        format_name,
        options or LoadOptions(),
        load_local=load_run,
        eval_format=format_module("inspect_eval"),
        own_options=own_options,
        stamp=stamp,
    )
    return remote.resolved() if wait_for_hash else remote


def own_options(module: DeclaresOptions, options: LoadOptions, path: str | os.PathLike[str]) -> Any:
    """The format's `Options` from the user's format options; an option the format does not
    take is a UsageError naming it, the formats that do take it and the ones this one takes."""
    takes = option_names(module.Options)
    given = options.format_dict()
    for name in given:
        if name not in takes:
            raise UsageError(_not_taken(name, module, path))
    hints = typing.get_type_hints(module.Options)
    for name, value in given.items():
        if hints.get(name) == (str | None) and not isinstance(value, str):
            raise UsageError(
                f"{option_flag(name)} needs text, got {value!r} (reading {path} as {module.NAME})"
            )
    return module.Options(**given)


def _not_taken(name: str, module: DeclaresOptions, path: str | os.PathLike[str]) -> str:
    takers = [
        other
        for other in available_formats()
        if name in option_names(cast(DeclaresOptions, format_options(other)).Options)
    ]
    flag = option_flag(name)
    if takers:
        owner = f"{flag} is an option of {_joined(takers)}"
    else:
        owner = f"{flag} is not an option of any input format"
    own = option_names(module.Options)
    listing = f"its options: {flags_of(own)}" if own else "it takes no format options"
    return f"{owner}; {path} is read as {module.NAME} ({listing})"


def _joined(names: list[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def _directory_format(path: Path, forced: str | None) -> str:
    from evaltui.core.read.formats import helm

    if forced not in (None, helm.NAME):
        raise InputError(path, f"is a directory; --input-format {forced} reads a file")
    if helm.is_run_directory(path):
        return helm.NAME
    raise InputError(
        path,
        f"is a directory, not a run: a HELM run directory holds {helm.PER_INSTANCE_FILE} or "
        f"{helm.PREDICTIONS_FILE}; a log directory (Inspect, lm-eval, HELM benchmark_output) "
        "opens with `evaltui DIR`, or `evaltui report DIR --baseline RUN --candidate RUN`",
    )


def _check_readable(path: Path) -> None:
    if not path.exists():
        raise InputError(path, "no such file")
    if path.is_dir():
        raise InputError(path, "is a directory; expected an eval run file")
    if not path.is_file():
        raise InputError(
            path, "is not a regular file (a FIFO or device?); expected an eval run file"
        )
