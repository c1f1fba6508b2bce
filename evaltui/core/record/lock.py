"""One writer per pair: the kernel's flock on the pair's `lock` file, held for a session's life.

A second instance refused here gets one line naming the holder instead of interleaving its tags
with the first's journal. The journal (`journal.py`) takes the lock when a session opens and
gives it up when the session closes; nothing else in the lock is the journal's business.
"""

from __future__ import annotations

import atexit
import contextlib
import errno
import fcntl
import json
import os
import socket
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from evaltui.core.errors import UsageError
from evaltui.core.record.os_errors import os_error_text

LOCK_NAME = "lock"

# A lock file's identity, (st_dev, st_ino): the same pair reached through another spelling of
# the state folder (a symlink, a relative root) is still the same lock.
LockKey = tuple[int, int]


@dataclass
class _HeldLock:
    """This process's flock on one pair: the open file it belongs to, and how many of this
    process's sessions use it (the last `close` gives it up)."""

    fd: int
    users: int
    named: bool = True  # False: the holder text could not be written yet (a full disk)


_HELD: dict[LockKey, _HeldLock] = {}
_HELD_GUARD = threading.Lock()  # the app opens sessions from worker threads


def acquire_lock(folder: Path) -> LockKey:
    """One writer per pair: a second instance gets a clear message instead of interleaving
    its tags with the first's. Returns the key `release_lock` takes; either holds the lock on
    return or raises UsageError.

    The lock is the kernel's: `flock` on the pair's `lock` file, held open for the session's
    lifetime. The kernel drops it when the holder dies however it dies (SIGKILL, a zombie not
    yet reaped), and two instances started together cannot both get it, which a pid file
    checked for liveness could not promise. The pid/host/time text in the file only names the
    holder in the refusal; nothing is decided by it, so an empty or garbled file blocks nothing.
    The file is never unlinked: a process that had opened it before the unlink would lock the
    old inode while the next one created and locked a new one, two holders at once.

    flock belongs to the open file description, so a second open of the same pair in this
    process must reuse the first's descriptor (a fresh one would refuse this process itself).
    """
    path = folder / LOCK_NAME
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
    except OSError as exc:
        raise UsageError(f"cannot open the review lock {path}: {os_error_text(exc)}") from None
    try:
        stat = os.fstat(fd)
        key = (stat.st_dev, stat.st_ino)
        with _HELD_GUARD:
            held = _HELD.get(key)
            if held is not None:
                held.users += 1
                return key
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                raise UsageError(
                    f"another evaltui ({_holder(fd)}) is reviewing this pair; close it first"
                ) from None
            except OSError as exc:  # e.g. ENOLCK: a network file system without lock support
                raise UsageError(
                    f"cannot lock the review session {path}: {exc.strerror}; put the state "
                    "folder on a local disk (EVALTUI_STATE_DIR)"
                ) from None
            _HELD[key] = _HeldLock(fd=fd, users=1, named=_write_holder(fd))
            fd = -1  # the registry owns it now
            return key
    finally:
        if fd >= 0:
            os.close(fd)


def _write_holder(fd: int) -> bool:
    """Name this process in the lock file, for the refusal another instance prints; False
    when the text could not be written.

    The flock is the lock; a failed write (a full disk) only costs the other side the holder's
    name ("holder unknown"), and the journal's own write reports the disk. The text is written
    over the old one, then the file is cut to its length (a file a killed holder left holds
    its blocks, so this works even on a full disk); a failed write leaves the file empty,
    which blocks nothing, never a half-written or a former holder's name.
    """
    text = json.dumps({"pid": os.getpid(), "host": socket.gethostname(), "time": _stamp()})
    data = text.encode("utf-8")
    try:
        if os.pwrite(fd, data, 0) != len(data):
            raise OSError(errno.ENOSPC, "short write")
        os.ftruncate(fd, len(data))
        os.fsync(fd)
    except OSError:
        with contextlib.suppress(OSError):
            os.ftruncate(fd, 0)  # never a torn or another holder's name
        return False
    return True


def name_holder(key: LockKey) -> None:
    """Write the holder text that could not be written when the lock was taken (the disk was
    full then and has taken a journal write since)."""
    with _HELD_GUARD:
        held = _HELD.get(key)
        if held is None or held.named:
            return
        held.named = _write_holder(held.fd)


def _holder(fd: int) -> str:
    """Who holds the lock, from its text; "holder unknown" when the text is missing or not
    ours. A holder that has just taken the lock may not have written its text yet, so an empty
    read is retried briefly (this is the refusal path: a few ms cost nothing)."""
    for attempt in range(5):
        if attempt:
            time.sleep(0.01)
        try:
            raw = os.pread(fd, 4096, 0)
        except OSError:
            break
        if raw.strip():
            return _describe_holder(raw) or "holder unknown"
    return "holder unknown"


def _describe_holder(raw: bytes) -> str | None:
    """`pid N on HOST, since TIME` from the lock text, or None when it is not that text. The
    fields must be printable so the refusal stays one line whatever the file holds."""
    try:
        holder = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        return None
    if not isinstance(holder, dict):
        return None
    pid, host, since = holder.get("pid"), holder.get("host"), holder.get("time")
    if type(pid) is not int or not isinstance(host, str) or not _printable(host):
        return None
    text = f"pid {pid} on {host}"
    if isinstance(since, str) and _printable(since):
        text += f", since {since}"
    return text


def _printable(text: str) -> bool:
    return 0 < len(text) <= 255 and text.isprintable()


def release_lock(key: LockKey) -> None:
    """One session of this process is done with the pair; the last one gives the lock up:
    clear the holder text (while still holding, so it never clears another holder's), unlock,
    close. Unknown keys are ignored, so a second close or the atexit pass is harmless."""
    with _HELD_GUARD:
        held = _HELD.get(key)
        if held is None:
            return
        held.users -= 1
        if held.users > 0:
            return
        del _HELD[key]
    with contextlib.suppress(OSError):  # the text is informational; the unlock is what matters
        os.ftruncate(held.fd, 0)
    try:
        fcntl.flock(held.fd, fcntl.LOCK_UN)
    finally:
        os.close(held.fd)


def release_all_locks() -> None:
    """At exit: give up every pair this process still holds (the kernel would anyway; this also
    clears the holder text)."""
    with _HELD_GUARD:
        keys = list(_HELD)
    for key in keys:
        with _HELD_GUARD:
            held = _HELD.get(key)
            if held is not None:
                held.users = 1
        release_lock(key)


def _forget_locks_in_child() -> None:
    """A forked child shares the parent's open lock files. Unlocking them (a copied session's
    close, its atexit) would take the pair from the parent while it still writes; keeping them
    would keep the pair locked after the parent ends. So the child closes its copies, which
    leaves the parent's flock alone (the parent's descriptor stays open), and holds nothing."""
    global _HELD_GUARD
    for held in _HELD.values():
        with contextlib.suppress(OSError):
            os.close(held.fd)
    _HELD.clear()
    _HELD_GUARD = threading.Lock()  # another thread may have held it at the fork


atexit.register(release_all_locks)
os.register_at_fork(after_in_child=_forget_locks_in_child)


def _stamp() -> str:
    """When the holder took the lock, as the journal writes its times."""
    return time.strftime("%Y-%m-%dT%H:%M:%S%z")
