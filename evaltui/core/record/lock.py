"""One writer per pair: the kernel's flock on the pair's `lock` file, held for a session's life.

A second instance refused here gets one line naming the holder (pid, host, since when, its
terminal) and how to end it, instead of interleaving its tags with the first's journal. A holder
nobody can be at (its process gone, or its terminal gone: `lock_holder.py`) is taken over, with
one line saying so; a live one can be taken over on request (`take_over`: told to end, waited
for). The journal (`journal.py`) takes the lock when a session opens and gives it up when the
session closes; nothing else in the lock is the journal's business.
"""

from __future__ import annotations

import atexit
import contextlib
import errno
import fcntl
import json
import os
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from evaltui.core.errors import UsageError
from evaltui.core.record.lock_holder import (
    ALIVE,
    GONE,
    TERMINAL_GONE,
    Holder,
    end_process,
    holder_state,
    kill_process,
    parse_holder,
    pid_alive,
    this_process,
)
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
    took_over: str = ""  # the line saying whose lock this was, when it was taken over


_HELD: dict[LockKey, _HeldLock] = {}
_HELD_GUARD = threading.Lock()  # the app opens sessions from worker threads

TERM_WAIT = 5.0  # seconds a holder told to end (SIGTERM) has to give the lock back
KILL_WAIT = 2.0  # then, after SIGKILL: the kernel drops the flock as the process dies
POLL = 0.02  # seconds between two tries of the lock while waiting


class LockHeld(UsageError):
    """The pair is another live process's: who holds it (None: its text is unreadable), its
    state (`lock_holder`: alive, elsewhere) and the one-line refusal with how to end it."""

    def __init__(self, holder: Holder | None, state: str = ALIVE) -> None:
        if holder is None:
            text = "another evaltui (holder unknown) is reviewing this pair; close it first"
        else:
            text = (
                f"another evaltui ({holder.describe()}) is reviewing this pair; "
                f"{holder.how_to_end()}"
            )
        super().__init__(text)
        self.holder = holder
        self.state = state


def acquire_lock(folder: Path, take_over_stale: bool = True) -> LockKey:
    """One writer per pair: a second instance gets a clear message instead of interleaving
    its tags with the first's. Returns the key `release_lock` takes; either holds the lock on
    return or raises UsageError (`LockHeld` when a live process holds it).

    The lock is the kernel's: `flock` on the pair's `lock` file, held open for the session's
    lifetime. The kernel drops it when the holder dies however it dies (SIGKILL, a zombie not
    yet reaped), and two instances started together cannot both get it, which a pid file
    checked for liveness could not promise. The pid/host/time/terminal text in the file names
    the holder; it decides nothing by itself: an empty or garbled file blocks nothing, and a
    holder is only ever ended while it still holds the flock (so no two writers, ever).
    `take_over_stale`: a holder alive on this host whose terminal is gone (nobody at its keys)
    is told to end and the lock taken when it lets go (`took_over_from` says so).
    The file is never unlinked: a process that had opened it before the unlink would lock the
    old inode while the next one created and locked a new one, two holders at once.

    flock belongs to the open file description, so a second open of the same pair in this
    process must reuse the first's descriptor (a fresh one would refuse this process itself).
    """
    path = folder / LOCK_NAME
    fd = _open_lock(path)
    try:
        key = _key_of(fd)
        with _HELD_GUARD:
            held = _HELD.get(key)
            if held is not None:
                held.users += 1
                return key
            if _try_flock(fd, path):
                _adopt(key, fd, _left_behind(fd))
                fd = -1  # the registry owns it now
                return key
        holder = _holder(fd)
        state = holder_state(holder) if holder is not None else ALIVE
        if take_over_stale and holder is not None and state == TERMINAL_GONE:
            _end_holder(fd, path, key, holder, "whose terminal is gone")
            fd = -1
            return key
        raise LockHeld(holder, state)
    finally:
        if fd >= 0:
            os.close(fd)


def take_over(folder: Path, holder: Holder) -> LockKey:
    """Take the pair from `holder`, a live process the user chose to end (the app's prompt,
    like vim's swap prompt or `tmux attach -d`): it is told to end (SIGTERM; it ends as q does,
    its drafts already on disk), waited for, killed after `TERM_WAIT` if it has not let go, and
    the lock is taken when the kernel gives it. Only that holder is ever signalled: if another
    process takes the pair meanwhile, that one is refused (`LockHeld`), never ended."""
    path = folder / LOCK_NAME
    fd = _open_lock(path)
    try:
        key = _key_of(fd)
        with _HELD_GUARD:
            if key in _HELD:
                _HELD[key].users += 1
                return key
            if _try_flock(fd, path):  # it let go meanwhile
                _adopt(key, fd, _left_behind(fd))
                fd = -1
                return key
        _end_holder(fd, path, key, holder, "which was told to end")
        fd = -1
        return key
    finally:
        if fd >= 0:
            os.close(fd)


def took_over_from(key: LockKey) -> str:
    """The line saying whose lock this process took over ("" when it was free)."""
    with _HELD_GUARD:
        held = _HELD.get(key)
        return held.took_over if held is not None else ""


def _key_of(fd: int) -> LockKey:
    """The lock file's identity (device, inode): what the registry of held pairs is keyed by."""
    stat = os.fstat(fd)
    return (stat.st_dev, stat.st_ino)


def _open_lock(path: Path) -> int:
    try:
        return os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
    except OSError as exc:
        raise UsageError(f"cannot open the review lock {path}: {os_error_text(exc)}") from None


def _try_flock(fd: int, path: Path) -> bool:
    """Take the flock without waiting: True when this descriptor holds it now."""
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    except OSError as exc:  # e.g. ENOLCK: a network file system without lock support
        raise UsageError(
            f"cannot lock the review session {path}: {exc.strerror}; put the state "
            "folder on a local disk (EVALTUI_STATE_DIR)"
        ) from None
    return True


def _adopt(key: LockKey, fd: int, took_over: str) -> None:
    """Register the flock just taken on `fd` and name this process in its text (the caller
    holds `_HELD_GUARD`)."""
    _HELD[key] = _HeldLock(fd=fd, users=1, named=_write_holder(fd), took_over=took_over)


def _left_behind(fd: int) -> str:
    """The flock was free: a holder text naming another process means it died holding the
    pair (a release clears the text), so the line says whose review this is taking over."""
    try:
        holder = parse_holder(os.pread(fd, 4096, 0))
    except OSError:
        return ""
    if holder is None or holder.pid == os.getpid():
        return ""
    return f"took over the review from pid {holder.pid}, whose process is gone"


def _end_holder(fd: int, path: Path, key: LockKey, holder: Holder, why: str) -> None:
    """Tell `holder` to end, wait until the flock is this descriptor's, kill it if it has not
    let go in `TERM_WAIT`; raises UsageError when it cannot be ended, `LockHeld` when another
    process took the pair first. Returns holding the flock, registered under `key` with the
    line "took over the review from pid N, `why`"."""
    state = holder_state(holder)
    if state not in (ALIVE, TERMINAL_GONE):
        if state != GONE:  # elsewhere: a pid on another host is not this machine's to end
            raise LockHeld(holder, state)
    else:
        try:
            end_process(holder.pid)
        except ProcessLookupError:
            pass  # it ended just now
        except PermissionError:
            raise UsageError(
                f"cannot end pid {holder.pid} (another user's process, {holder.describe()}); "
                "ask them to close it, or open the review read-only"
            ) from None
    for wait, then_kill in ((TERM_WAIT, True), (KILL_WAIT, False)):
        deadline = time.monotonic() + wait
        while time.monotonic() < deadline:
            with _HELD_GUARD:
                if _try_flock(fd, path):
                    _adopt(key, fd, f"took over the review from pid {holder.pid}, {why}")
                    return
            now = _holder(fd, tries=1)
            if now is not None and (now.pid, now.start) != (holder.pid, holder.start):
                raise LockHeld(now, holder_state(now))  # a third process got there first
            time.sleep(POLL)
        if then_kill and pid_alive(holder.pid):
            kill_process(holder.pid)
    if state == GONE:  # its pid is gone, yet the lock is held: by a process it left behind
        raise UsageError(
            f"the review's lock is held, but not by pid {holder.pid}, which is gone; find the "
            f"process holding {path} (`fuser {path}`), or open the review read-only"
        )
    raise UsageError(
        f"pid {holder.pid} did not give the review back even after SIGKILL; "
        "open the review read-only, or look for the process with `ps`"
    )


def _write_holder(fd: int) -> bool:
    """Name this process in the lock file, for the refusal another instance prints; False
    when the text could not be written.

    The flock is the lock; a failed write (a full disk) only costs the other side the holder's
    name ("holder unknown"), and the journal's own write reports the disk. The text is written
    over the old one, then the file is cut to its length (a file a killed holder left holds
    its blocks, so this works even on a full disk); a failed write leaves the file empty,
    which blocks nothing, never a half-written or a former holder's name.
    """
    data = json.dumps(this_process()).encode("utf-8")
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


def _holder(fd: int, tries: int = 5) -> Holder | None:
    """Who holds the lock, from its text; None when the text is missing or not ours. A
    holder that has just taken the lock may not have written its text yet, so an empty read
    is retried briefly (this is the refusal path: a few ms cost nothing)."""
    for attempt in range(tries):
        if attempt:
            time.sleep(0.01)
        try:
            raw = os.pread(fd, 4096, 0)
        except OSError:
            break
        if raw.strip():
            return parse_holder(raw)
    return None


def read_holder(folder: Path) -> Holder | None:
    """The holder named in a pair's lock text (None: free, or unreadable). Informational:
    only the flock says whether it is held."""
    try:
        return parse_holder((folder / LOCK_NAME).read_bytes())
    except OSError:
        return None


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
