"""Whole remote objects kept on disk, so a second open of the same log reads no network.

Where: `$EVALTUI_CACHE_DIR/remote`, else `$XDG_CACHE_HOME/evaltui/remote`, else
`~/.cache/evaltui/remote` (deleting that folder is the cleanup; `EVALTUI_CACHE_DIR=off` or
`--no-cache` turns the cache off). An entry is `<key>.data` (the bytes) and `<key>.json` (the
URL, the stamp it was downloaded at and its sha256); it is used only while the object's stamp
is the same (its ETag, else its size and modification time). The folder is kept under
`EVALTUI_REMOTE_CACHE_BYTES` (default 4 GiB): least recently used entries are removed first,
and an object bigger than the bound is never kept (it goes to a temporary file instead). A
download is written to a `.incoming-` staging file first; one left by a killed process is
removed once it has stood an hour unwritten, when the next download is kept (`sweep_staging`).
A temporary file (`evaltui-remote-<pid>-…` in the system's temporary folder) is removed when
its process exits; one a killed process left (an SSH session dropped under the app) is removed
when the next temporary download starts, once its process is gone and it has stood an hour
unwritten (`sweep_temporary`).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import tempfile
import time
from pathlib import Path

from evaltui.core.read.remote.blob import Stamp

DEFAULT_BOUND = 4 << 30
NO_CACHE_ENV = "EVALTUI_NO_CACHE"


def root() -> Path | None:
    """The cache folder, or None when caching is off."""
    if os.environ.get(NO_CACHE_ENV, "").strip() not in ("", "0"):
        return None
    configured = os.environ.get("EVALTUI_CACHE_DIR")
    if configured is not None:
        if configured.strip().lower() in ("", "off", "0", "no"):
            return None
        return Path(configured) / "remote"
    base = os.environ.get("XDG_CACHE_HOME")
    if not base:
        try:
            base = str(Path.home() / ".cache")
        except RuntimeError:
            return None
    return Path(base) / "evaltui" / "remote"


def bound() -> int:
    try:
        return int(os.environ.get("EVALTUI_REMOTE_CACHE_BYTES", DEFAULT_BOUND))
    except ValueError:
        return DEFAULT_BOUND


def _key(url: str) -> str:
    return hashlib.sha256(url.encode("utf-8")).hexdigest()[:32]


def lookup(url: str, stamp: Stamp) -> tuple[Path, str] | None:
    """The cached copy of `url` at `stamp` and its sha256, or None."""
    folder = root()
    if folder is None:
        return None
    meta_path, data_path = folder / f"{_key(url)}.json", folder / f"{_key(url)}.data"
    try:
        meta = json.loads(meta_path.read_text(encoding="utf-8"))
        if (
            meta.get("url") != url
            or meta.get("version") != stamp.version
            or meta.get("size") != stamp.size
            or data_path.stat().st_size != stamp.size
        ):
            return None
        os.utime(meta_path)  # recently used: pruned last
        return data_path, str(meta["sha256"])
    except (OSError, ValueError, KeyError, TypeError):
        return None


def staging(url: str, size: int) -> tuple[Path, bool]:
    """Where to download `url` to: a staging file in the cache (True) when it may be kept,
    else a temporary file (False) that the caller deletes."""
    folder = root()
    if folder is not None and size <= bound():
        try:
            folder.mkdir(parents=True, exist_ok=True)
            handle, name = tempfile.mkstemp(prefix=".incoming-", dir=folder)
            os.close(handle)
            return Path(name), True
        except OSError:
            pass
    sweep_temporary()
    handle, name = tempfile.mkstemp(prefix=f"{TEMPORARY_PREFIX}{os.getpid()}-")
    os.close(handle)
    return Path(name), False


TEMPORARY_PREFIX = "evaltui-remote-"  # then the downloading process's id, then mkstemp's letters


def keep(url: str, stamp: Stamp, staged: Path, sha256: str) -> Path:
    """Move a finished download into place and write its entry; prune to the bound."""
    folder = staged.parent
    data_path = folder / f"{_key(url)}.data"
    os.replace(staged, data_path)
    meta = {"url": url, "version": stamp.version, "size": stamp.size, "sha256": sha256}
    meta_path = folder / f"{_key(url)}.json"
    partial = folder / f".incoming-{_key(url)}.json"
    partial.write_text(json.dumps(meta), encoding="utf-8")
    os.replace(partial, meta_path)
    prune(folder, keep_key=_key(url))
    return data_path


def prune(folder: Path, keep_key: str | None = None) -> None:
    """Remove least recently used entries until the folder is under the bound, and the
    staging files of downloads that stopped (`sweep_staging`)."""
    sweep_staging(folder)
    entries = []
    with contextlib.suppress(OSError):
        for meta_path in folder.glob("*.json"):
            data_path = meta_path.with_suffix(".data")
            try:
                entries.append(
                    (meta_path.stat().st_mtime, data_path.stat().st_size, meta_path, data_path)
                )
            except OSError:
                continue
    total = sum(size for _, size, _, _ in entries)
    for _, size, meta_path, data_path in sorted(entries):
        if total <= bound():
            break
        if meta_path.stem == keep_key:
            continue
        with contextlib.suppress(OSError):
            meta_path.unlink()
            data_path.unlink()
            total -= size


STALE_STAGING = 3600.0  # seconds unwritten after which a staging file is a dead download's


def sweep_staging(folder: Path) -> None:
    """Remove the `.incoming-` staging files no download has written to for `STALE_STAGING`
    seconds. A download removes its own when it fails, but not when its process is killed
    or ends under it (a daemon thread's): nothing removed those, outside the bound, up to a
    whole object each. A live download writes a piece every few seconds (minutes at the
    slowest links), so an hour unwritten is a dead one's."""
    cutoff = time.time() - STALE_STAGING
    with contextlib.suppress(OSError):
        for staged in folder.glob(".incoming-*"):
            with contextlib.suppress(OSError):
                if staged.stat().st_mtime < cutoff:
                    staged.unlink()


def sweep_temporary(folder: Path | None = None) -> None:
    """Remove the temporary downloads (objects over the bound, or any with the cache off) that
    killed evaltui processes left in `folder` (the system's temporary folder). Each is removed
    at its process's exit, not when the process is killed, and may be a whole multi-gigabyte
    object. One is removed only when the process its name carries is gone (a live one may
    still read it: a JSON Lines run's items are read from it as they are opened) and it has
    stood `STALE_STAGING` unwritten (a second guard: a process in another PID namespace
    sharing the folder looks gone). Another user's files are not this user's to remove (the
    folder's sticky bit refuses it, silently here)."""
    folder = Path(tempfile.gettempdir()) if folder is None else folder
    cutoff = time.time() - STALE_STAGING
    with contextlib.suppress(OSError):
        for left in folder.glob(f"{TEMPORARY_PREFIX}*"):
            owner = _owner(left.name)
            if owner is None or owner == os.getpid() or _running(owner):
                continue
            with contextlib.suppress(OSError):
                if left.stat().st_mtime < cutoff:
                    left.unlink()


def _owner(name: str) -> int | None:
    """The process id a temporary download's name carries, or None (another name: left)."""
    number = name[len(TEMPORARY_PREFIX) :].partition("-")[0]
    if not number.isdecimal() or len(number) >= 10:
        return None
    return int(number) or None  # (0 would signal this process's group below)


def _running(pid: int) -> bool:
    """Whether a process `pid` exists (another user's counts: it cannot be signalled). Off
    POSIX, signal 0 is no probe (Windows sends a Ctrl-C): every process counts as running."""
    if os.name != "posix":
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # (PermissionError: another user's process)
        return True
    return True
