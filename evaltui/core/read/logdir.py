"""The runs in a log directory: what `evaltui DIR` lists and `--baseline/--candidate` pick from.

Reviewers point evaltui at the folder a harness writes into: an Inspect log directory (often
hundreds of `.eval` logs side by side), an lm-eval `--output_path` (one folder per model with
`samples_<task>_<date>.jsonl` and `results_<date>.json`), a HELM `benchmark_output` (one
directory per run under `runs/<suite>/`). Listing must stay fast on hundreds of logs, so each
run is described from its header only: an `.eval` zip's central directory and `header.json`
(never a sample), the first kilobytes of an Inspect `.json` log, an lm-eval samples file's first
line and the results file beside it, a HELM run's `run_spec.json`. The full load happens only
for the two runs picked.

A file that looks like a log but cannot be described is listed as such (status "unreadable",
with the reason), and files that are not harness logs are counted, never dropped silently.

The lister names no harness: each format that can head a log directory says how to recognise
its runs and describe one from its header (`recognise` and `describe_run`, the `ListsInDirectories`
protocol in `formats/contract.py`), and the formats are asked in `REGISTRY` order.
"""

from __future__ import annotations

import os
import zipfile
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from pathlib import Path
from typing import cast

from evaltui.core.errors import InputError, UsageError
from evaltui.core.read.formats import available_formats, format_module
from evaltui.core.read.formats.contract import ListsInDirectories, Recognised
from evaltui.core.read.run_entry import RunEntry, mtime

__all__ = [
    "Listing",
    "RunEntry",
    "choose_pair",
    "default_pair",
    "is_log_directory",
    "list_runs",
    "listing_formats",
    "select",
]

MAX_DEPTH = 4  # benchmark_output/runs/<suite>/<run> is the deepest layout listed
WORKERS = 4
Progress = Callable[[int, int], object]  # runs described so far, runs found (result unused)
Found = tuple[Path, ListsInDirectories]  # a run, and the format that describes it


@dataclass(frozen=True)
class Listing:
    root: Path
    runs: tuple[RunEntry, ...]  # sorted by task, then date, then name
    other_files: int = 0  # files that are not harness logs (not listed, counted)

    @property
    def remote(self) -> bool:
        from evaltui.core.read.remote.urls import url_of

        return url_of(self.root) is not None

    @property
    def named(self) -> str:
        """The directory as the reviewer typed it: a URL whole (`Path` folds its `//`)."""
        from evaltui.core.read.remote.urls import as_typed

        return as_typed(self.root)


def listing_formats() -> tuple[ListsInDirectories, ...]:
    """The formats whose runs a log directory holds, in `REGISTRY` order."""
    modules = (format_module(name) for name in available_formats())
    return tuple(
        cast(ListsInDirectories, module)
        for module in modules
        if module is not None and isinstance(module, ListsInDirectories)
    )


def is_log_directory(path: Path) -> bool:
    """A directory that is not itself a run (a HELM run directory is one, opened as BASE or
    CAND). A URL is a directory when it names a prefix holding objects."""
    from evaltui.core.read.remote.urls import url_of

    if (url := url_of(path)) is not None:
        from evaltui.core.read.remote.listing import is_remote_directory

        return is_remote_directory(url)
    return path.is_dir() and _recognised(path, listing_formats())[0] != "run"


def list_runs(root: Path, progress: Progress | None = None) -> Listing:
    """Every run under `root`, described from its header, sorted by task then date (a URL:
    `remote/listing.py`)."""
    from evaltui.core.read.remote.urls import url_of

    if (url := url_of(root)) is not None:
        from evaltui.core.read.remote.listing import list_remote_runs

        remote_runs, other_files = list_remote_runs(url, progress)
        return Listing(root=Path(url), runs=tuple(remote_runs), other_files=other_files)
    root = Path(root)
    if not root.is_dir():
        raise InputError(root, "is not a directory")
    found, other = _candidates(root)
    done = 0
    entries: list[RunEntry] = []
    with ThreadPoolExecutor(max_workers=WORKERS, thread_name_prefix="evaltui-list") as pool:
        for entry in pool.map(lambda c: _describe(root, *c), found):
            entries.append(entry)
            done += 1
            if progress is not None:
                progress(done, len(found))
    entries.sort(key=lambda e: (e.task, e.date, e.name))
    return Listing(root=root, runs=tuple(entries), other_files=other)


def default_pair(listing: Listing) -> tuple[RunEntry, RunEntry] | None:
    """The two most recent runs of one task (of the task run most recently), older first."""
    by_task: dict[str, list[RunEntry]] = {}
    for entry in listing.runs:
        if entry.status != "unreadable":
            by_task.setdefault(entry.task, []).append(entry)
    pairs = [runs[-2:] for runs in by_task.values() if len(runs) >= 2]
    if not pairs:
        return None
    latest = max(pairs, key=lambda two: (two[1].date, two[1].name))
    return latest[0], latest[1]


def select(listing: Listing, selector: str, flag: str) -> RunEntry:
    """The run `selector` names: its number in the listing, its path relative to the directory
    (or absolute), or a piece of that path that only one run's contains."""
    runs = listing.runs
    text = selector.strip()
    if text.isdigit() and 1 <= int(text) <= len(runs):
        return runs[int(text) - 1]
    for entry in runs:
        if text in (entry.name, str(entry.path)):
            return entry
    matches = [entry for entry in runs if text and text in entry.name]
    if len(matches) == 1:
        return matches[0]
    shown = "; ".join(f"{runs.index(e) + 1}: {e.name}" for e in (matches or runs)[:8])
    if matches:
        raise UsageError(
            f"{flag} {selector!r} matches {len(matches)} runs ({shown}); be more precise"
        )
    raise UsageError(
        f"{flag} {selector!r} names no run in {listing.named} (a number, a path or a unique part "
        f"of one; runs: {shown or 'none'})"
    )


def choose_pair(
    listing: Listing, baseline: str | None, candidate: str | None
) -> tuple[RunEntry, RunEntry]:
    """The pair the selectors name; what is not named comes from `default_pair`."""
    default = default_pair(listing)
    if (baseline is None or candidate is None) and default is None:
        if not listing.runs and listing.other_files and listing.remote:
            raise UsageError(
                f"{listing.named} holds no Inspect .eval log ({listing.other_files} other "
                "file(s)): a folder in a store is listed by its .eval logs only; give the two "
                "runs' URLs instead"
            )
        raise UsageError(
            f"{listing.named} holds {len(listing.runs)} run(s) but no task with two runs to "
            "compare; name them with --baseline RUN --candidate RUN"
        )
    base = select(listing, baseline, "--baseline") if baseline is not None else None
    cand = select(listing, candidate, "--candidate") if candidate is not None else None
    if base is None or cand is None:
        assert default is not None  # (refused above)
        base, cand = base or default[0], cand or default[1]
    for flag, entry in (("--baseline", base), ("--candidate", cand)):
        if entry.status == "unreadable":
            raise UsageError(f"{flag}: {entry.name} cannot be read: {entry.problem}")
    return base, cand


# ---------------------------------------------------------------------------------------------
# Finding the runs


def _candidates(root: Path) -> tuple[list[Found], int]:
    """Every run-looking file or directory with the format that claims it, and how many other
    files (a format's companion file, read beside a run, is neither)."""
    formats = listing_formats()
    found: list[Found] = []
    other = 0
    for directory, depth, dirs, files in _walk(root):
        if directory != root:
            kind, module = _recognised(directory, formats)
            if kind == "run" and module is not None:
                found.append((directory, module))
                dirs.clear()
                continue
        for name in sorted(files):
            kind, module = _recognised(directory / name, formats)
            if kind is None:
                other += 1
            elif kind == "run" and module is not None:
                found.append((directory / name, module))
        if depth >= MAX_DEPTH:
            dirs.clear()
    return found, other


def _recognised(
    path: Path, formats: tuple[ListsInDirectories, ...]
) -> tuple[Recognised | None, ListsInDirectories | None]:
    """What the formats make of `path`: a companion file of any format is never listed (an
    lm-eval results file is not taken for another format's run); else the first format, in
    `REGISTRY` order, that recognises it as a run."""
    kinds = [(module.recognise(path), module) for module in formats]
    if any(kind == "companion" for kind, _ in kinds):
        return "companion", None
    return next(((kind, module) for kind, module in kinds if kind == "run"), (None, None))


def _walk(root: Path) -> Iterator[tuple[Path, int, list[str], list[str]]]:
    base = len(root.parts)
    for directory, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        here = Path(directory)
        yield here, len(here.parts) - base, dirs, [f for f in files if not f.startswith(".")]


def _describe(root: Path, path: Path, module: ListsInDirectories) -> RunEntry:
    """The run as its format describes it from its header; unreadable, with the reason, when
    the header cannot be read."""
    name = str(path.relative_to(root))
    entry = RunEntry(path=path, name=name, format=_name(module), date=mtime(path))
    try:
        return module.describe_run(entry)
    except (InputError, OSError, ValueError, zipfile.BadZipFile, KeyError, RecursionError) as exc:
        return replace(entry, status="unreadable", problem=" ".join(str(exc).split())[:300])


def _name(module: ListsInDirectories) -> str:
    return str(getattr(module, "NAME", "?"))
