"""A remote log directory (`evaltui s3://bucket/logs/`): listed from each log's header alone.

One recursive listing of the prefix gives every object with its size and ETag (no HEAD per
log); each `.eval` log is then described from its central directory and `header.json`, read by
byte range (a log under `rangefile.WHOLE_BELOW` in one request), many logs in parallel. Only
`.eval` logs (Inspect's default format) are listed from a remote directory; other files are
counted, as a local listing counts the files that are not harness logs.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path
from typing import Any

from evaltui.core.errors import InputError
from evaltui.core.read.remote.blob import TRAFFIC, RemoteBlob, stamp_of
from evaltui.core.read.remote.failures import RemoteError
from evaltui.core.read.remote.retry import with_retries
from evaltui.core.read.remote.stores import filesystem
from evaltui.core.read.remote.urls import scheme_of
from evaltui.core.read.run_entry import RunEntry, iso_utc

WORKERS = 16
MAX_DEPTH = 4


def is_remote_directory(url: str) -> bool:
    """A URL naming a folder (a prefix holding objects) rather than one object."""
    if scheme_of(url) in ("http", "https"):
        return False  # an HTTP server lists nothing we can trust
    fs, path = filesystem(url)

    def info() -> dict[str, Any]:
        found = dict(fs.info(path))
        TRAFFIC.add(0)
        return found

    try:
        return with_retries(url, info).get("type") == "directory"
    except RemoteError as exc:
        if exc.kind == "missing":
            return False
        raise


def list_remote_runs(url: str, progress: Any = None) -> tuple[list[RunEntry], int]:
    """The runs of a remote log directory, sorted, and how many other files it holds (what
    `logdir.list_runs` makes its `Listing` of)."""
    fs, path = filesystem(url)
    root = url.rstrip("/")

    def find() -> dict[str, dict[str, Any]]:
        found = fs.find(path, detail=True)  # one flat listing (a page per 1000 keys)
        TRAFFIC.add(0)
        return dict(found)

    objects = with_retries(url, find)
    prefix = path.rstrip("/") + "/"
    logs: list[tuple[str, dict[str, Any]]] = []
    other = 0
    for key, info in sorted(objects.items()):
        name = key[len(prefix) :] if key.startswith(prefix) else key
        parts = name.split("/")
        if len(parts) > MAX_DEPTH + 1 or any(part.startswith(".") for part in parts):
            continue
        if name.endswith(".eval") and info.get("type") != "directory":
            logs.append((name, info))
        elif info.get("type") != "directory":
            other += 1
    entries: list[RunEntry] = []
    with ThreadPoolExecutor(max_workers=WORKERS, thread_name_prefix="evaltui-list") as pool:
        for done, entry in enumerate(pool.map(lambda log: _describe(root, *log), logs), start=1):
            entries.append(entry)
            if progress is not None:
                progress(done, len(logs))
    entries.sort(key=lambda e: (e.task, e.date, e.name))
    return entries, other


def _describe(root: str, name: str, info: dict[str, Any]) -> RunEntry:
    from evaltui.core.read.formats import inspect_eval

    url = f"{root}/{name}"
    stamp = stamp_of(info)
    entry = RunEntry(path=Path(url), name=name, format=inspect_eval.NAME,
                     date=iso_utc(stamp.modified) if stamp.modified else "")  # fmt: skip
    try:
        return inspect_eval.describe_log(entry, RemoteBlob(url, stamp))
    except (InputError, OSError, ValueError, KeyError, RecursionError) as exc:
        return replace(entry, status="unreadable", problem=" ".join(str(exc).split())[:300])
    except Exception as exc:  # noqa: BLE001 - zipfile.BadZipFile and the like: listed, not fatal
        return replace(entry, status="unreadable", problem=" ".join(str(exc).split())[:300])
