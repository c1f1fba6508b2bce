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
"""

from __future__ import annotations

import json
import os
import re
import zipfile
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from evaltui.core.errors import InputError, UsageError
from evaltui.core.read.formats import helm, lm_eval
from evaltui.core.read.formats.contract import HEAD_BYTES
from evaltui.core.read.formats.inspect_eval import SAMPLE_MEMBER
from evaltui.core.read.formats.jsontext import UTF8_BOM, object_at
from evaltui.core.read.formats.zip_members import read_member

MAX_DEPTH = 4  # benchmark_output/runs/<suite>/<run> is the deepest layout listed
MAX_HEADER_BYTES = 64 << 20  # an Inspect header.json larger than this is not read for a listing
JSON_HEAD_BYTES = 1 << 20  # how much of an Inspect .json log the listing reads
WORKERS = 4
Progress = Callable[[int, int], None]  # runs described so far, runs found


@dataclass(frozen=True)
class RunEntry:
    """One run of the directory, as the listing shows it. Every text comes from the logs."""

    path: Path  # what `load_run` opens: a file, or a HELM run directory
    name: str  # the path relative to the listed directory
    format: str
    task: str = "?"
    model: str = "?"
    date: str = ""  # ISO 8601 where the log says, else the file's modification time
    items: int | None = None
    scorer: str = ""
    status: str = ""
    problem: str = ""  # why the entry could not be described (status "unreadable")


@dataclass(frozen=True)
class Listing:
    root: Path
    runs: tuple[RunEntry, ...]  # sorted by task, then date, then name
    other_files: int = 0  # files that are not harness logs (not listed, counted)


def is_log_directory(path: Path) -> bool:
    """A directory that is not itself a HELM run (that is one run, opened as BASE or CAND)."""
    return path.is_dir() and not helm.is_run_directory(path)


def list_runs(root: Path, progress: Progress | None = None) -> Listing:
    """Every run under `root`, described from its header, sorted by task then date."""
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
        f"{flag} {selector!r} names no run in {listing.root} (a number, a path or a unique part "
        f"of one; runs: {shown or 'none'})"
    )


def choose_pair(
    listing: Listing, baseline: str | None, candidate: str | None
) -> tuple[RunEntry, RunEntry]:
    """The pair the selectors name; what is not named comes from `default_pair`."""
    default = default_pair(listing)
    if baseline is None or candidate is None:
        if default is None:
            raise UsageError(
                f"{listing.root} holds {len(listing.runs)} run(s) but no task with two runs to "
                "compare; name them with --baseline RUN --candidate RUN"
            )
        default_base, default_cand = default
    base = select(listing, baseline, "--baseline") if baseline is not None else default_base
    cand = select(listing, candidate, "--candidate") if candidate is not None else default_cand
    for flag, entry in (("--baseline", base), ("--candidate", cand)):
        if entry.status == "unreadable":
            raise UsageError(f"{flag}: {entry.name} cannot be read: {entry.problem}")
    return base, cand


# ---------------------------------------------------------------------------------------------
# Finding the runs


def _candidates(root: Path) -> tuple[list[tuple[Path, str]], int]:
    """(path, kind) of every run-looking file or directory, and how many other files."""
    found: list[tuple[Path, str]] = []
    other = 0
    for directory, depth, dirs, files in _walk(root):
        if helm.is_run_directory(directory) and directory != root:
            found.append((directory, "helm"))
            dirs.clear()
            continue
        for name in sorted(files):
            path = directory / name
            kind = _kind_by_name(path)
            if kind is None:
                other += 1
            elif kind != "skip":
                found.append((path, kind))
        if depth >= MAX_DEPTH:
            dirs.clear()
    return found, other


def _walk(root: Path) -> Iterator[tuple[Path, int, list[str], list[str]]]:
    base = len(root.parts)
    for directory, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        here = Path(directory)
        yield here, len(here.parts) - base, dirs, [f for f in files if not f.startswith(".")]


def _kind_by_name(path: Path) -> str | None:
    name = path.name
    if name.endswith(".eval"):
        return "inspect_eval"
    if name.startswith("results") and name.endswith(".json"):
        return "skip"  # lm-eval's aggregate, read beside its samples
    if name.endswith(".jsonl") and (lm_eval.SAMPLES_NAME.match(name) or _sniffs(path, lm_eval)):
        return "lm_eval"
    if name.endswith(".json") and _is_inspect_json(path):
        return "inspect_json"
    return None


def _sniffs(path: Path, module: Any) -> bool:
    try:
        with path.open("rb") as handle:
            return bool(module.sniff(path, handle.read(HEAD_BYTES)))
    except OSError:
        return False


def _is_inspect_json(path: Path) -> bool:
    from evaltui.core.read.formats import inspect_json

    return _sniffs(path, inspect_json)


# ---------------------------------------------------------------------------------------------
# Describing one run from its header


def _describe(root: Path, path: Path, kind: str) -> RunEntry:
    name = str(path.relative_to(root))
    entry = RunEntry(path=path, name=name, format=kind, date=_mtime(path))
    try:
        if kind == "inspect_eval":
            return _inspect_eval(entry)
        if kind == "inspect_json":
            return _inspect_json(entry)
        if kind == "lm_eval":
            return _lm_eval(entry)
        return _helm(entry)
    except (InputError, OSError, ValueError, zipfile.BadZipFile, KeyError, RecursionError) as exc:
        return replace(entry, status="unreadable", problem=" ".join(str(exc).split())[:300])


def _inspect_eval(entry: RunEntry) -> RunEntry:
    with zipfile.ZipFile(entry.path) as archive:
        infos = {info.filename: info for info in archive.infolist()}
        ids = {m["id"] for name in infos if (m := SAMPLE_MEMBER.match(name))}
        member = next((n for n in ("header.json", "_journal/start.json") if n in infos), None)
        if member is None:
            raise ValueError("neither header.json nor _journal/start.json: not an Inspect log")
        data = read_member(archive, infos[member], entry.path, MAX_HEADER_BYTES)
    header = json.loads(data)
    status = header.get("status") if member == "header.json" else "started"
    return _from_header(entry, header, len(ids) or None, status)


def _inspect_json(entry: RunEntry) -> RunEntry:
    with entry.path.open("rb") as handle:
        head = handle.read(JSON_HEAD_BYTES).removeprefix(UTF8_BOM).decode("utf-8", "replace")
    header: dict[str, Any] = {}
    for key in ("status", "eval", "results"):
        value = _value_after(head, key)
        if value is not None:
            header[key] = value
    results = header.get("results")
    total = results.get("total_samples") if isinstance(results, dict) else None
    return _from_header(entry, header, total if isinstance(total, int) else None, None)


def _value_after(text: str, key: str) -> Any:
    """The JSON value of the first `"key":` in `text`, or None when it is cut off."""
    match = re.search(rf'"{re.escape(key)}"\s*:\s*', text)
    if match is None:
        return None
    try:
        value, _ = json.JSONDecoder().raw_decode(text, match.end())
    except ValueError:
        return None
    return value


def _from_header(
    entry: RunEntry, header: dict[str, Any], items: int | None, status: Any
) -> RunEntry:
    spec, results = object_at(header, "eval"), object_at(header, "results")
    scorers = [
        s.get("name") for s in results.get("scores") or () if isinstance(s, dict) and s.get("name")
    ]
    if not scorers and isinstance(spec.get("scorers"), list):
        scorers = [s.get("name") for s in spec["scorers"] if isinstance(s, dict) and s.get("name")]
    if items is None and isinstance(results.get("total_samples"), int):
        items = results["total_samples"]
    return replace(
        entry,
        task=_text(spec.get("task"), entry.task),
        model=_text(spec.get("model"), entry.model),
        date=_iso_utc(spec.get("created")) or entry.date,
        items=items,
        scorer=", ".join(map(str, scorers)),
        status=_text(status if status is not None else header.get("status"), "unknown"),
    )


def _lm_eval(entry: RunEntry) -> RunEntry:
    path = entry.path
    with path.open("rb") as handle:
        head = handle.read(HEAD_BYTES)
    named = lm_eval.SAMPLES_NAME.match(path.name)
    if named:
        task, date = named["task"], named["date"]
        model = path.parent.name.replace("__", "/")
    else:  # lm-eval 0.4.0-0.4.2: <re.sub("/|=", "__", model_args)>_<task>.jsonl
        model, _, task = path.stem.rpartition("_")
        date = ""
    results_path = path.parent / f"results_{date}.json"
    scorer, items = "", None
    first, _, _ = head.partition(b"\n")
    try:
        record = json.loads(first.removeprefix(UTF8_BOM))
        if isinstance(record, dict) and isinstance(record.get("metrics"), list):
            scorer = ", ".join(map(str, record["metrics"]))
    except ValueError:
        pass  # an indented JSON array (lm-eval 0.4.0-0.4.2), or a first line past the head
    if results_path.is_file() and results_path.stat().st_size < MAX_HEADER_BYTES:
        results = json.loads(results_path.read_bytes())
        if isinstance(results, dict):
            if isinstance(results.get("model_name"), str) and results["model_name"]:
                model = results["model_name"]
            samples = results.get("n-samples")
            if isinstance(samples, dict) and isinstance(samples.get(task), dict):
                effective = samples[task].get("effective")
                items = effective if isinstance(effective, int) else None
    if items is None and not lm_eval.is_array(head):
        items = _count_lines(path)
    return replace(
        entry,
        task=task,
        model=model,
        date=_lm_eval_date(date) or entry.date,
        items=items,
        scorer=scorer,
        status="complete",
    )


def _lm_eval_date(date_id: str) -> str:
    """lm-eval's date id (2026-10-01T23-15-32.942677) as ISO 8601 (2026-10-01T23:15:32)."""
    match = re.match(r"^(\d{4}-\d{2}-\d{2})T(\d{2})-(\d{2})-(\d{2})", date_id)
    return f"{match[1]}T{match[2]}:{match[3]}:{match[4]}" if match else ""


def _count_lines(path: Path) -> int:
    count = 0
    with path.open("rb") as handle:
        while chunk := handle.read(1 << 20):
            count += chunk.count(b"\n")
    return count


def _helm(entry: RunEntry) -> RunEntry:
    directory = entry.path
    task, model = directory.name, "?"
    spec_path = directory / helm.RUN_SPEC_FILE
    if spec_path.is_file() and spec_path.stat().st_size < MAX_HEADER_BYTES:
        spec = json.loads(spec_path.read_bytes())
        if isinstance(spec, dict):
            scenario = spec.get("scenario_spec")
            if isinstance(scenario, dict) and isinstance(scenario.get("class_name"), str):
                task = scenario["class_name"].rsplit(".", 1)[-1]
                args = scenario.get("args")
                if isinstance(args, dict) and args:
                    task += ":" + ",".join(f"{k}={v}" for k, v in sorted(args.items()))
            adapter = spec.get("adapter_spec")
            if isinstance(adapter, dict) and isinstance(adapter.get("model"), str):
                model = adapter["model"]
    stats, _ = helm.run_files(directory)
    items = stats.read_bytes().count(b'"instance_id"') or None
    return replace(
        entry,
        format="helm",
        task=task,
        model=model,
        date=_mtime(stats),
        items=items,
        scorer=stats.name,
        status="complete",
    )


def _mtime(path: Path) -> str:
    try:
        stamp = path.stat().st_mtime
    except OSError:
        return ""
    return datetime.fromtimestamp(stamp, UTC).strftime("%Y-%m-%dT%H:%M:%S")


def _iso_utc(value: Any) -> str:
    """An ISO 8601 time with an offset (Inspect's `created`) in UTC, so runs sort by time."""
    if not isinstance(value, str) or not value:
        return ""
    try:
        parsed = datetime.fromisoformat(value)
    except ValueError:
        return value
    if parsed.tzinfo is not None:
        parsed = parsed.astimezone(UTC)
    return parsed.strftime("%Y-%m-%dT%H:%M:%S")


def _text(value: Any, default: str) -> str:
    return str(value) if isinstance(value, str | int | float) and value != "" else default
