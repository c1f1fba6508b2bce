"""Reviewer work: tags and notes per item, kept in an append-only journal on disk.

A review is an hour of someone's judgement; it must survive a dropped SSH session or a killed
process. So every tag and note is one JSON line appended to the session journal and flushed to
disk (fsync) before the caller is told it is saved. The state is the replay of the journal.
The journal is keyed by the two input paths, so reopening the same pair resumes the session; the
inputs' sha256 are recorded so a changed file can be noticed instead of tags applied to new data.

Where journals live: $EVALTUI_STATE_DIR, else $XDG_STATE_HOME/evaltui, else
~/.local/state/evaltui; one folder per pair under `sessions/`.
"""

from __future__ import annotations

import atexit
import contextlib
import errno
import fcntl
import hashlib
import json
import os
import socket
import threading
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from evaltui.core.decide.notices import INPUTS_CHANGED, JOURNAL_DAMAGED, POLICY_CHANGED, Notice
from evaltui.core.errors import EvalTuiError, UsageError

JOURNAL_SCHEMA = "evaltui.journal/1"
DEFAULT_TAGS: tuple[str, ...] = (
    "confirmed regression",
    "acceptable",
    "grader error",
    "flaky",
    "needs investigation",
)
MAX_TAGS = 9  # one digit key per tag


def state_dir() -> Path:
    """The folder that holds every session journal (see the module docstring)."""
    if env := os.environ.get("EVALTUI_STATE_DIR"):
        return Path(env)
    base = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(base) / "evaltui"


class StateWriteError(EvalTuiError):
    """A journal, lock or record that could not be written (a full disk, a read-only or
    unwritable folder): one line naming the path and what the system said, never a traceback."""


_WHY = {
    errno.ENOSPC: "the disk is full",
    errno.EDQUOT: "the disk quota is used up",
    errno.EROFS: "the file system is read-only",
    errno.EACCES: "permission denied",
    errno.EPERM: "not permitted",
}


def os_error_text(exc: OSError) -> str:
    """What went wrong in plain words, with the system's own text: `the disk is full (No space
    left on device)`."""
    said = exc.strerror or str(exc) or type(exc).__name__
    why = _WHY.get(exc.errno or 0)
    return f"{why} ({said})" if why else said


def write_failure(what: str, path: str | Path, exc: OSError) -> StateWriteError:
    """The one-line error for a failed write of `what` (e.g. "the review journal") at `path`."""
    return StateWriteError(f"cannot write {what} {path}: {os_error_text(exc)}")


def session_key(baseline: str | Path, candidate: str | Path) -> str:
    """Stable id of a pair of input files: the same two paths always resume the same session."""
    joined = f"{Path(baseline).resolve()}\n{Path(candidate).resolve()}"
    return hashlib.sha256(joined.encode("utf-8")).hexdigest()[:16]


def parse_tags(text: str) -> tuple[str, ...]:
    """A comma-separated tag set from the command line, checked."""
    tags = tuple(t.strip() for t in text.split(",") if t.strip())
    if not tags:
        raise UsageError("--tags needs at least one tag, e.g. --tags 'confirmed,acceptable'")
    if len(tags) > MAX_TAGS:
        raise UsageError(f"--tags takes at most {MAX_TAGS} tags (one digit key each)")
    if len(set(tags)) != len(tags):
        raise UsageError(f"--tags has a repeated tag: {text!r}")
    return tags


@dataclass(frozen=True)
class ItemReview:
    """The current tag and note of one item, with when and by whom they were last changed."""

    item_id: str
    tag: str | None = None
    note: str = ""
    updated: str = ""
    reviewer: str = ""
    seen: tuple[Any, Any] | None = None  # (baseline, candidate) values when it was tagged

    @property
    def triaged(self) -> bool:
        return self.tag is not None


@dataclass(frozen=True)
class SessionInfo:
    """The first line of a journal: which files the tags were made on."""

    baseline_path: str
    candidate_path: str
    baseline_sha256: str
    candidate_sha256: str
    tags: tuple[str, ...]
    created: str


@dataclass
class ReviewSession:
    """An open review: the replayed state plus the journal file new actions are appended to."""

    path: Path
    info: SessionInfo
    items: dict[str, ItemReview] = field(default_factory=dict)
    notices: list[Notice] = field(default_factory=list)  # recovered damage, changed inputs
    read_only: bool = False
    policy_hashes: list[str] = field(default_factory=list)  # every policy this review has seen
    reviewer: str = ""  # who is at the keys: every tag and note is journalled with this name
    _lock: _LockKey | None = field(default=None, repr=False, compare=False)  # None: read-only

    @classmethod
    def open(
        cls,
        baseline: Path,
        candidate: Path,
        baseline_sha256: str,
        candidate_sha256: str,
        tags: tuple[str, ...] | None = None,
        root: Path | None = None,
        fresh: bool = False,
        read_only: bool = False,
    ) -> ReviewSession:
        """Resume the pair's journal, or start one. `fresh` sets the old one aside, never deletes.

        `tags` replaces the tag set (and is journaled); None keeps the session's, or the defaults.
        `read_only` (headless reports) reads the journal if there is one and never writes.
        """
        folder = (root or state_dir()) / "sessions" / session_key(baseline, candidate)
        path = folder / "journal.jsonl"
        if read_only:
            info = SessionInfo(
                str(Path(baseline).resolve()), str(Path(candidate).resolve()),
                baseline_sha256, candidate_sha256, tags or DEFAULT_TAGS, _now(),
            )  # fmt: skip
            session = cls(path=path, info=info, read_only=True)
            if path.exists() and path.stat().st_size:
                session._replay(baseline_sha256, candidate_sha256)
            return session
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise write_failure("the review folder", folder, exc) from None
        lock = _acquire_lock(folder)
        try:  # a session that cannot start gives the pair back at once (a full disk, say)
            if fresh and path.exists():
                now = time.time()  # microseconds too: two --fresh opens in a second kept one
                stamp = time.strftime("%Y%m%dT%H%M%S", time.localtime(now))
                aside = folder / f"journal.{stamp}.{int(now * 1e6) % 1_000_000:06d}.jsonl"
                try:
                    path.rename(aside)
                except OSError as exc:
                    raise StateWriteError(
                        f"cannot set the old journal {path} aside: {os_error_text(exc)}"
                    ) from None
            info = SessionInfo(
                baseline_path=str(Path(baseline).resolve()),
                candidate_path=str(Path(candidate).resolve()),
                baseline_sha256=baseline_sha256,
                candidate_sha256=candidate_sha256,
                tags=tags or DEFAULT_TAGS,
                created=_now(),
            )
            session = cls(path=path, info=info, _lock=lock)
            if not path.exists() or path.stat().st_size == 0:
                session._append({"kind": "session", "schema": JOURNAL_SCHEMA, **_info_dict(info)})
                return session
            session._replay(baseline_sha256, candidate_sha256)
            if tags is not None and tags != session.info.tags:
                session._append({"kind": "tags", "tags": list(tags)})
                session.info = replace(session.info, tags=tags)
            return session
        except BaseException:
            _release_lock(lock)
            raise

    # -- reading ---------------------------------------------------------------------------

    def _replay(self, baseline_sha256: str, candidate_sha256: str) -> None:
        try:
            raw = self.path.read_bytes()
        except OSError as exc:
            raise EvalTuiError(
                f"cannot read the review journal {self.path}: {os_error_text(exc)}"
            ) from None
        torn = not raw.endswith(b"\n") and bool(raw)  # the last write did not finish its line
        for entry in journal_entries(self.path, raw, self.notices):
            self._apply(entry)
        if torn and not self.read_only:
            self._write_journal(b"")  # finish the torn line: appends start on a line of their own
        then = (self.info.baseline_sha256, self.info.candidate_sha256)
        changed = inputs_changed_notice(then, (baseline_sha256, candidate_sha256))
        if changed is not None:
            self.notices.append(changed)

    def _apply(self, entry: dict[str, Any]) -> None:
        kind = entry.get("kind")
        if kind == "session":
            self.info = SessionInfo(
                baseline_path=str(entry.get("baseline_path", "")),
                candidate_path=str(entry.get("candidate_path", "")),
                baseline_sha256=str(entry.get("baseline_sha256", "")),
                candidate_sha256=str(entry.get("candidate_sha256", "")),
                tags=tuple(entry.get("tags", DEFAULT_TAGS)),
                created=str(entry.get("time", "")),
            )
        elif kind == "policy" and isinstance(entry.get("hash"), str):
            self.policy_hashes.append(entry["hash"])
        elif kind == "tags" and isinstance(entry.get("tags"), list):
            self.info = replace(self.info, tags=tuple(str(t) for t in entry["tags"]))
        elif kind in ("tag", "note"):
            item_id = str(entry.get("item_id", ""))
            current = self.items.get(item_id, ItemReview(item_id))
            if kind == "tag":
                seen = entry.get("seen")
                current = replace(
                    current,
                    tag=entry.get("tag"),
                    seen=tuple(seen) if isinstance(seen, list) and len(seen) == 2 else None,
                )
            else:
                current = replace(current, note=str(entry.get("note", "")))
            self.items[item_id] = replace(
                current, updated=str(entry.get("time", "")), reviewer=str(entry.get("by", ""))
            )

    # -- writing ---------------------------------------------------------------------------

    def set_tag(
        self, item_id: str, tag: str | None, by: str = "", seen: tuple[Any, Any] | None = None
    ) -> ItemReview:
        """Tag an item (None clears it). Returns only after the journal line is on disk.

        `seen` records the item's (baseline, candidate) values as the reviewer saw them, so a
        later change of the input files can name the tagged items whose outcome moved.
        """
        if tag is not None and tag not in self.info.tags:
            raise UsageError(f"unknown tag {tag!r}; expected one of {', '.join(self.info.tags)}")
        by = by or self.reviewer
        entry: dict[str, Any] = {"kind": "tag", "item_id": item_id, "tag": tag, "by": by}
        if seen is not None:
            entry["seen"] = list(seen)
        self._append(entry)
        self._apply(entry)
        return self.items[item_id]

    def set_note(self, item_id: str, note: str, by: str = "") -> ItemReview:
        """Replace an item's note. Returns only after the journal line is on disk."""
        entry = {"kind": "note", "item_id": item_id, "note": note, "by": by or self.reviewer}
        self._append(entry)
        self._apply(entry)
        return self.items[item_id]

    def use_policy(self, policy_hash: str, path: str = "") -> Notice | None:
        """Record the policy in force; return a warning when it differs from the first one."""
        first = self.policy_hashes[0] if self.policy_hashes else None
        if policy_hash not in self.policy_hashes and not self.read_only:
            self._append({"kind": "policy", "hash": policy_hash, "path": path})
            self.policy_hashes.append(policy_hash)
        if first is not None and first != policy_hash:
            return Notice(
                POLICY_CHANGED,
                f"the policy changed since this review started (hash {first[:12]} -> "
                f"{policy_hash[:12]}): gates now follow the new file",
            )
        return None

    def _append(self, entry: dict[str, Any]) -> None:
        if self.read_only:
            raise UsageError("this review session was opened read-only")
        entry.setdefault("time", _now())
        line = json.dumps(entry, ensure_ascii=False, separators=(",", ":")) + "\n"
        self._write_journal(line.encode("utf-8"))

    def _write_journal(self, data: bytes) -> None:
        """Append `data` on a line of its own and fsync it: all of it or none of it.

        A write that fails (a full disk, an I/O error, a failed fsync) cuts the journal back to
        its length before it, so no half line stays behind and the caller is not told "saved";
        should even that fail, the next append starts with a newline, so one torn line never
        swallows the next entry. Raises StateWriteError naming the journal.
        """
        try:
            fd = os.open(self.path, os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, 0o644)
        except OSError as exc:
            raise write_failure("the review journal", self.path, exc) from None
        try:
            size = os.fstat(fd).st_size
            if size and os.pread(fd, 1, size - 1) != b"\n":
                data = b"\n" + data  # a torn last line (a killed writer, a failed cut)
            try:
                view = memoryview(data)
                while view:
                    view = view[os.write(fd, view) :]
                os.fsync(fd)
            except OSError as exc:
                with contextlib.suppress(OSError):
                    os.ftruncate(fd, size)
                    os.fsync(fd)
                raise write_failure("the review journal", self.path, exc) from None
        except OSError as exc:  # fstat/pread: the journal cannot even be looked at
            raise write_failure("the review journal", self.path, exc) from None
        finally:
            os.close(fd)
        if self._lock is not None:
            _name_holder(self._lock)  # the disk took a write: name the holder if it could not

    # -- queries ---------------------------------------------------------------------------

    def review(self, item_id: str) -> ItemReview:
        return self.items.get(item_id, ItemReview(item_id))

    def triaged_count(self, item_ids: Iterable[str]) -> int:
        items = self.items
        return sum(1 for i in item_ids if i in items and items[i].tag is not None)

    def stale_items(self, current: dict[str, tuple[Any, Any]]) -> list[tuple[str, Any, Any]]:
        """Tagged items whose (baseline, candidate) values differ now from when they were tagged
        (or that are gone): (item_id, then, now). Only meaningful after an input changed."""
        out = []
        for item_id, review in self.items.items():
            if review.tag is None or review.seen is None:
                continue
            now = current.get(item_id)
            if now is None or tuple(now) != tuple(review.seen):
                out.append((item_id, review.seen, now))
        return out

    @property
    def inputs_changed(self) -> bool:
        return any(notice.kind == INPUTS_CHANGED for notice in self.notices)

    def close(self) -> None:
        """Give up the pair's lock (also released when the process ends). A second close does
        nothing, so it cannot give up the lock another open session of this process uses."""
        lock, self._lock = self._lock, None
        if lock is not None:
            _release_lock(lock)

    def set_tags(
        self,
        item_ids: Iterable[str],
        tag: str | None,
        by: str = "",
        seen: dict[str, tuple[Any, Any]] | None = None,
    ) -> list[ItemReview]:
        """Tag many items at once (a bulk tag; None clears them). Journalled like `set_tag`, one
        `tag` line per item (marked `"bulk"` with the count), all in one append and one fsync:
        returns only after every line is on disk, and a failed write leaves none of them.

        `seen` maps an item to its (baseline, candidate) values as the reviewer saw them.
        """
        if tag is not None and tag not in self.info.tags:
            raise UsageError(f"unknown tag {tag!r}; expected one of {', '.join(self.info.tags)}")
        ids = list(dict.fromkeys(item_ids))
        by = by or self.reviewer
        entries: list[dict[str, Any]] = []
        for item_id in ids:
            entry: dict[str, Any] = {
                "kind": "tag", "item_id": item_id, "tag": tag, "by": by, "bulk": len(ids),
            }  # fmt: skip
            if seen is not None and item_id in seen:
                entry["seen"] = list(seen[item_id])
            entries.append(entry)
        return self._append_tag_entries(entries)

    def restore_tags(self, previous: Iterable[ItemReview], by: str = "") -> list[ItemReview]:
        """Undo a tag or a bulk tag: put each item's tag (and the outcome seen when it was made)
        back as `previous` held it, taken just before the change. Journalled like `set_tags`
        (the journal only grows: an undo is new `tag` lines, marked `"undo": true`)."""
        by = by or self.reviewer
        entries: list[dict[str, Any]] = []
        for review in previous:
            entry: dict[str, Any] = {
                "kind": "tag", "item_id": review.item_id, "tag": review.tag, "by": by,
                "undo": True,
            }  # fmt: skip
            if review.seen is not None:
                entry["seen"] = list(review.seen)
            entries.append(entry)
        return self._append_tag_entries(entries)

    def _append_tag_entries(self, entries: list[dict[str, Any]]) -> list[ItemReview]:
        if not entries:
            return []
        if self.read_only:
            raise UsageError("this review session was opened read-only")
        now = _now()
        lines = []
        for entry in entries:
            entry.setdefault("time", now)
            lines.append(json.dumps(entry, ensure_ascii=False, separators=(",", ":")) + "\n")
        self._write_journal("".join(lines).encode("utf-8"))  # all of it or none, fsynced
        for entry in entries:
            self._apply(entry)
        return [self.items[entry["item_id"]] for entry in entries]


def journal_entries(path: Path, raw: bytes, notices: list[Notice]) -> Iterator[dict[str, Any]]:
    """The journal's readable lines as dicts, in order; each damaged line (or an unfinished
    last write) becomes a notice in `notices` instead. The one reader of journal lines: the
    session's replay and `verify`'s replay up to a record's time share it."""
    lines = raw.split(b"\n")
    torn = lines[-1] != b""  # the last write did not finish its newline
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            entry = json.loads(line)
        except (json.JSONDecodeError, UnicodeDecodeError):
            last = number == len(lines) and torn
            what = "an unfinished last write (kept on disk, ignored)" if last else "damaged"
            notices.append(Notice(JOURNAL_DAMAGED, f"journal {path}: line {number} is {what}"))
            continue
        if isinstance(entry, dict):
            yield entry


def inputs_changed_notice(then: tuple[str, str], now: tuple[str, str]) -> Notice | None:
    """The notice for inputs whose (baseline, candidate) sha256 differ from the tags' own."""
    changed = [
        name
        for name, old, new in zip(("baseline", "candidate"), then, now, strict=True)
        if old != new
    ]
    if not changed:
        return None
    return Notice(
        INPUTS_CHANGED,
        f"the {' and '.join(changed)} file changed since these tags were made "
        "(sha256 differs): check the tagged items before signing off",
    )


LOCK_NAME = "lock"

# A lock file's identity, (st_dev, st_ino): the same pair reached through another spelling of
# the state folder (a symlink, a relative root) is still the same lock.
_LockKey = tuple[int, int]


@dataclass
class _HeldLock:
    """This process's flock on one pair: the open file it belongs to, and how many of this
    process's sessions use it (the last `close` gives it up)."""

    fd: int
    users: int
    named: bool = True  # False: the holder text could not be written yet (a full disk)


_HELD: dict[_LockKey, _HeldLock] = {}
_HELD_GUARD = threading.Lock()  # the app opens sessions from worker threads


def _acquire_lock(folder: Path) -> _LockKey:
    """One writer per pair: a second instance gets a clear message instead of interleaving
    its tags with the first's. Returns the key `_release_lock` takes; either holds the lock on
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
    text = json.dumps({"pid": os.getpid(), "host": socket.gethostname(), "time": _now()})
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


def _name_holder(key: _LockKey) -> None:
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


def _release_lock(key: _LockKey) -> None:
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


def _release_all_locks() -> None:
    """At exit: give up every pair this process still holds (the kernel would anyway; this also
    clears the holder text)."""
    with _HELD_GUARD:
        keys = list(_HELD)
    for key in keys:
        with _HELD_GUARD:
            held = _HELD.get(key)
            if held is not None:
                held.users = 1
        _release_lock(key)


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


atexit.register(_release_all_locks)
os.register_at_fork(after_in_child=_forget_locks_in_child)


def _now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S%z")


def _info_dict(info: SessionInfo) -> dict[str, Any]:
    return {
        "baseline_path": info.baseline_path,
        "candidate_path": info.candidate_path,
        "baseline_sha256": info.baseline_sha256,
        "candidate_sha256": info.candidate_sha256,
        "tags": list(info.tags),
    }
