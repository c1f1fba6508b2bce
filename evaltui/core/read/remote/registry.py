"""The blob each remote URL was last loaded through, so its sha256 and its items are read at the
ETag its statistics were read at (kept apart from `sources.py`, which imports the run types,
so that `runs.py` can reach it without an import cycle)."""

from __future__ import annotations

import threading

from evaltui.core.read.remote.blob import RemoteBlob

_lock = threading.Lock()
_seen: dict[str, RemoteBlob] = {}


def blob_for(url: str) -> RemoteBlob:
    """A fresh blob for `url` (a new look at the object), remembered as the one last read."""
    blob = RemoteBlob(url)
    remember(blob)
    return blob


def remember(blob: RemoteBlob) -> None:
    with _lock:
        _seen[blob.url] = blob


def seen(url: str) -> RemoteBlob:
    """The blob `url` was last loaded through (its ETag pinned), else a fresh one."""
    with _lock:
        blob = _seen.get(url)
    return blob if blob is not None else blob_for(url)
