"""Input formats: each module turns one kind of file into the canonical run (see `runs.py`).

A format module exposes:
    NAME: str                                  # what `--format NAME` forces
    def sniff(path: Path, head: bytes) -> bool # True when the file's first bytes look like it
    def load(path: Path, options: LoadOptions) -> Run

Detection looks at the content, not only the name, so a misnamed file still opens; `--format`
overrides it. Formats are tried in REGISTRY order, most specific first.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

from evaltui.core.errors import InputError, UsageError
from evaltui.core.runs import Run

HEAD_BYTES = 64 * 1024


@dataclass(frozen=True)
class LoadOptions:
    """Choices a user makes about how a file is read; the defaults suit the evaltui format."""

    metric: str | None = None  # which scorer/metric when a log has several
    filter: str | None = None  # lm-eval: which filter when a task has several
    arm: str | None = None  # promptfoo: which provider/prompt is this run
    # Native JSONL/CSV/Parquet only: the file's own column names for the canonical ones
    # (see `columns.py`). `text_cols` maps onto input, output, target, explanation in that
    # order; an entry "name=field" maps the file's column `name` onto `field` instead.
    id_col: str | None = None
    pass_col: str | None = None
    score_col: str | None = None
    slice_col: str | None = None
    cluster_col: str | None = None
    text_cols: tuple[str, ...] | None = None
    # The app only: a JSONL run found in the scan cache may take its sha256 from the cache
    # entry, so the first screen does not wait for hashing gigabytes; the caller must then
    # confirm it (`scan_cache.confirm`) before anything records it. Headless commands never
    # set this: their hashes are always computed from the bytes.
    defer_hash_check: bool = False


# Module names under evaltui.core.formats, most specific first. The native formats come last:
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


def _module(name: str) -> ModuleType | None:
    try:
        return importlib.import_module(f"evaltui.core.formats.{name}")
    except ModuleNotFoundError as exc:
        if exc.name == f"evaltui.core.formats.{name}":
            return None  # a format not shipped in this build
        raise


def available_formats() -> list[str]:
    return [name for name in REGISTRY if _module(name) is not None]


def detect_format(path: Path) -> str:
    """Name the format of `path` from its first bytes (and its name only as a tie-breaker)."""
    _check_readable(path)
    with path.open("rb") as handle:
        head = handle.read(HEAD_BYTES)
    if not head.strip():
        raise InputError(path, "the file is empty; expected an eval run")
    for name in REGISTRY:
        module = _module(name)
        if module is not None and module.sniff(path, head):
            return module.NAME
    raise InputError(
        path,
        "cannot tell the file's format from its content; expected one of "
        + ", ".join(available_formats())
        + " (use --input-format NAME to force one)",
    )


def load_run(
    path: str | Path,
    format_name: str | None = None,
    options: LoadOptions | None = None,
    *,
    wait_for_hash: bool = True,
) -> Run:
    """Load one run, detecting its format unless `format_name` forces one.

    `wait_for_hash=False` may return a run whose sha256 is still being computed (see
    `Run.pending_source`); the caller must call `.resolved()` before using the source."""
    path = Path(path)
    _check_readable(path)
    name = format_name or detect_format(path)
    if name not in available_formats():
        raise UsageError(
            f"unknown input format '{name}'; expected one of {', '.join(available_formats())}"
        )
    module = _module(name)
    assert module is not None
    run = module.load(path, options or LoadOptions())
    return run.resolved() if wait_for_hash else run


def _check_readable(path: Path) -> None:
    if not path.exists():
        raise InputError(path, "no such file")
    if path.is_dir():
        raise InputError(path, "is a directory; expected an eval run file")
    if not path.is_file():
        raise InputError(
            path, "is not a regular file (a FIFO or device?); expected an eval run file"
        )
