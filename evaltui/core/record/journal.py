"""Reviewer work: tags and notes per item, kept in an append-only journal on disk.

A review is an hour of someone's judgement; it must survive a dropped SSH session or a killed
process. So every tag and note is one JSON line appended to the session journal and flushed to
disk (fsync) before the caller is told it is saved. The state is the replay of the journal.
The journal is keyed by the two input paths, so reopening the same pair resumes the session; the
inputs' sha256 are recorded so a changed file can be noticed instead of tags applied to new data.

Where journals live: $EVALTUI_STATE_DIR, else $XDG_STATE_HOME/evaltui, else
~/.local/state/evaltui; one folder per pair under `sessions/`. A shared review folder
(`--review-dir`, $EVALTUI_REVIEW_DIR) holds one journal per reviewer instead, read merged
(`shared.py`).

One writer per pair: a session that writes holds the pair's lock (`lock.py`) while it is open.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import time
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from evaltui.core.decide.notices import INPUTS_CHANGED, JOURNAL_DAMAGED, POLICY_CHANGED, Notice
from evaltui.core.errors import EvalTuiError, UsageError
from evaltui.core.record.adjudication import (
    ADJUDICATION,
    ADJUDICATOR_RULE,
    adjudication_of,
)
from evaltui.core.record.journal_lines import (
    hashes_learnt,
    inputs_changed_notice,
    journal_entries,
)
from evaltui.core.record.lock import LOCK_NAME as LOCK_NAME  # re-exported: tests/ui import it here
from evaltui.core.record.lock import (
    LockKey,
    acquire_lock,
    name_holder,
    release_lock,
    take_over,
    took_over_from,
)
from evaltui.core.record.lock_holder import Holder
from evaltui.core.record.os_errors import StateWriteError, os_error_text, write_failure
from evaltui.core.record.review_item import Adjudication
from evaltui.core.record.review_item import ItemReview as ItemReview  # (re-exported)
from evaltui.core.record.shared import (
    JOURNALS,
    TeamJournals,
    apply_review,
    local_lock_folder,
    reviewer_file,
    shared_pair_key,
)
from evaltui.core.record.team_session import TeamSide

JOURNAL_SCHEMA = "evaltui.journal/1"
INPUTS = "inputs"  # the sha256 the session line left empty (`record_inputs`); old readers skip it
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


def session_key(baseline: str | Path, candidate: str | Path) -> str:
    """Stable id of a pair of input files: the same two paths always resume the same session."""
    from evaltui.core.read.remote.urls import url_of

    joined = "\n".join(url_of(p) or str(Path(p).resolve()) for p in (baseline, candidate))
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
class SessionInfo:
    """The first line of a journal: which files the tags were made on."""

    baseline_path: str
    candidate_path: str
    baseline_sha256: str
    candidate_sha256: str
    tags: tuple[str, ...]
    created: str


@dataclass
class ReviewSession(TeamSide):
    """An open review: the replayed state plus the journal file new actions are appended to.
    A shared review folder's side (the other reviewers, the merged view, adjudication) is
    `TeamSide`'s (`team_session.py`)."""

    path: Path
    info: SessionInfo
    items: dict[str, ItemReview] = field(default_factory=dict)
    notices: list[Notice] = field(default_factory=list)  # recovered damage, changed inputs
    read_only: bool = False
    policy_hashes: list[str] = field(default_factory=list)  # every policy this review has seen
    reviewer: str = ""  # who is at the keys: every tag and note is journalled with this name
    took_over: str = ""  # "took over the review from pid N, whose terminal is gone" (or "")
    # A shared review folder: the other reviewers' journals, this reviewer's own reviews
    # (`items` is then the merged view), and the local folder of the lock and the drafts.
    team: TeamJournals | None = field(default=None, repr=False, compare=False)
    own: dict[str, ItemReview] = field(default_factory=dict, repr=False)
    # This reviewer's adjudications (the last per item), and how disputes are settled: the
    # policy's rule and its confirmed tags (`adjudication.py`; `settle_disputes_by` sets them).
    own_adjudications: dict[str, Adjudication] = field(default_factory=dict, repr=False)
    dispute_rule: str = ADJUDICATOR_RULE
    confirmed_tags: tuple[str, ...] = ()
    local: Path | None = None
    # Items the other reviewers changed, read by any look (a tag here looks too), until the
    # screen takes them (`take_team_changes`): a look inside a tag must not hide them.
    team_changes: set[str] = field(default_factory=set, repr=False, compare=False)
    _lock: LockKey | None = field(default=None, repr=False, compare=False)  # None: read-only

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
        end_holder: Holder | None = None,
        review_dir: Path | None = None,
        reviewer: str = "",
    ) -> ReviewSession:
        """Resume the pair's journal, or start one. `fresh` sets the old one aside, never deletes.

        `tags` replaces the tag set (and is journaled); None keeps the session's, or the defaults.
        `read_only` (headless reports, or a review another evaltui holds) reads the journal if
        there is one and never writes. `end_holder`: the live process holding the pair, which
        the user chose to end (`lock.take_over`); a refused open raises `lock.LockHeld`.
        `review_dir`: a shared review folder, where `reviewer` writes their own journal and
        every reviewer's is read (`shared.py`).
        """
        if review_dir is not None:
            key = shared_pair_key(baseline_sha256, candidate_sha256) or session_key(
                baseline, candidate
            )
            folder = review_dir / key / JOURNALS
            if read_only and not reviewer.strip():
                path = folder / ".nobody.jsonl"  # (never written: every journal is another's)
            else:
                path = folder / reviewer_file(reviewer)
            lock_folder = local_lock_folder(root or state_dir(), path)
        else:
            folder = (root or state_dir()) / "sessions" / session_key(baseline, candidate)
            path = folder / "journal.jsonl"
            lock_folder = folder
        if read_only:
            info = SessionInfo(
                str(Path(baseline).resolve()), str(Path(candidate).resolve()),
                baseline_sha256, candidate_sha256, tags or DEFAULT_TAGS, _now(),
            )  # fmt: skip
            session = cls(path=path, info=info, read_only=True, reviewer=reviewer)
            session._join_team(review_dir, lock_folder)
            if path.exists() and path.stat().st_size:
                session._replay(baseline_sha256, candidate_sha256)
            session.refresh_team()
            return session
        for made in {folder, lock_folder}:
            try:
                made.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise write_failure("the review folder", made, exc) from None
        lock = take_over(lock_folder, end_holder) if end_holder else acquire_lock(lock_folder)
        try:  # a session that cannot start gives the pair back at once (a full disk, say)
            if fresh and path.exists():
                now = time.time()  # microseconds too: two --fresh opens in a second kept one
                stamp = time.strftime("%Y%m%dT%H%M%S", time.localtime(now))
                micro = f"{int(now * 1e6) % 1_000_000:06d}"
                aside = path.with_name(f"{path.stem}.{stamp}.{micro}.jsonl")
                if review_dir is not None:  # never *.jsonl there: it would read as a reviewer
                    aside = aside.with_name(aside.name + ".aside")
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
            session = cls(
                path=path, info=info, took_over=took_over_from(lock), reviewer=reviewer, _lock=lock
            )
            session._join_team(review_dir, lock_folder)
            if not path.exists() or path.stat().st_size == 0:
                session._append({"kind": "session", "schema": JOURNAL_SCHEMA, **_info_dict(info)})
                session.refresh_team()
                return session
            session._replay(baseline_sha256, candidate_sha256)
            session.refresh_team()
            if tags is not None and tags != session.info.tags:
                session._append({"kind": "tags", "tags": list(tags)})
                session.info = replace(session.info, tags=tags)
            return session
        except BaseException:
            release_lock(lock)
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
        self.record_inputs(baseline_sha256, candidate_sha256)

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
        elif kind == INPUTS:  # the sha256 a session started without (`record_inputs`)
            then = (self.info.baseline_sha256, self.info.candidate_sha256)
            known = hashes_learnt(then, entry)
            self.info = replace(self.info, baseline_sha256=known[0], candidate_sha256=known[1])
        elif kind == "policy" and isinstance(entry.get("hash"), str):
            self.policy_hashes.append(entry["hash"])
        elif kind == "tags" and isinstance(entry.get("tags"), list):
            self.info = replace(self.info, tags=tuple(str(t) for t in entry["tags"]))
        elif kind == ADJUDICATION and self.team is not None:
            item_id = str(entry.get("item_id", ""))
            found = adjudication_of(entry, self.reviewer)
            if found is None:
                self.notices.append(
                    Notice(
                        JOURNAL_DAMAGED,
                        f"journal {self.path}: an adjudication of {item_id!r} names no item, "
                        "tag or reason (kept on disk, ignored)",
                    )
                )
                return
            self.own_adjudications[item_id] = found
            self._merge(item_id)
        elif kind in ("tag", "note"):
            item_id = str(entry.get("item_id", ""))
            mine = self.own if self.team is not None else self.items
            mine[item_id] = apply_review(mine.get(item_id, ItemReview(item_id)), entry)
            if self.team is not None:
                self._merge(item_id)

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
        self.refresh_team()
        return self.items[item_id]

    def set_note(self, item_id: str, note: str, by: str = "") -> ItemReview:
        """Replace an item's note. Returns only after the journal line is on disk."""
        entry = {"kind": "note", "item_id": item_id, "note": note, "by": by or self.reviewer}
        self._append(entry)
        self._apply(entry)
        self.refresh_team()
        return self.items[item_id]

    def record_inputs(self, baseline_sha256: str, candidate_sha256: str) -> Notice | None:
        """The inputs' sha256, computed after the session started without them (the app
        defers a large log's hash past the first screen): journalled as an `inputs` line for
        each side the session did not know, so the next open can tell a changed file; a side
        it knew and that differs is the changed-input notice, added and returned."""
        then = (self.info.baseline_sha256, self.info.candidate_sha256)
        now = (baseline_sha256, candidate_sha256)
        changed = inputs_changed_notice(then, now)
        if changed is not None and not self.inputs_changed:
            self.notices.append(changed)
        missing = any(not old and new for old, new in zip(then, now, strict=True))
        if missing and not self.read_only:
            entry = {"kind": INPUTS, "baseline_sha256": now[0], "candidate_sha256": now[1]}
            self._append(entry)
            self._apply(entry)
        return changed

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
            name_holder(self._lock)  # the disk took a write: name the holder if it could not

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
            release_lock(lock)

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
        self.refresh_team()
        return [self.items[entry["item_id"]] for entry in entries]


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
