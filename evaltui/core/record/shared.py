"""A shared review folder: a team reviews one pair, each reviewer writing only their own journal.

`--review-dir DIR` (or $EVALTUI_REVIEW_DIR) puts a pair's review in DIR/<pair-key>/journals/,
one append-only file per reviewer (<reviewer>.jsonl, the same lines as a single reviewer's
journal, each tag and note with its reviewer and time). Nobody locks anybody out: each file has
one writer (its reviewer's lock is kept in the local state folder, never in the shared one, so
a shared folder in git holds only journals), and a git merge of two reviewers' work touches two
different files, so it cannot conflict.

The pair key is made from the two inputs' sha256 (the files' content), not their paths: the
team's copies of the runs live in different places on different machines. A remote input whose
sha256 is not known yet when the review opens is keyed by its URL instead. A changed input
therefore starts a new shared review (the old one stays in its folder).

The merged view reads every reviewer's journal. Two reviewers' tags on one item never overwrite
each other: the item keeps every reviewer's review, and counts as triaged only when the tagged
reviews agree. Reviews that disagree make the item "disputed", and a disputed item counts as
untriaged (its merged tag is None) until they agree or the dispute is settled: by an
adjudicator's journalled adjudication, or by the policy's rule (`adjudication.py`).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from evaltui.core.errors import EvalTuiError, UsageError
from evaltui.core.record.adjudication import (
    ADJUDICATION,
    ADJUDICATOR_RULE,
    adjudication_of,
    settle,
)
from evaltui.core.record.review_item import Adjudication, ItemReview

REVIEW_DIR_VARIABLE = "EVALTUI_REVIEW_DIR"
JOURNALS = "journals"
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def review_dir_from_env() -> Path | None:
    """$EVALTUI_REVIEW_DIR, or None (the single-reviewer state folder). A URL is refused: the
    journals are appended to and locked as reviewers work, which an object store cannot do,
    and `Path` made `az://b/r` a local folder `az:/b/r` that the reviewer took for the bucket."""
    from evaltui.core.read.remote.urls import url_of

    value = os.environ.get(REVIEW_DIR_VARIABLE, "").strip()
    if value and (url := url_of(value)) is not None:
        raise UsageError(
            f"--review-dir {url}: a shared review folder must be a folder every reviewer "
            "mounts (journals are appended to and locked as you work; an object store cannot "
            "hold them): give a shared file system's path"
        )
    return Path(value) if value else None


def shared_pair_key(baseline_sha256: str, candidate_sha256: str) -> str | None:
    """The pair's folder name in a shared review folder: the same on every reviewer's machine
    for the same two files (see the module docstring); None when a sha256 is not known yet
    (the caller keys the pair by its paths or URLs then)."""
    if not (baseline_sha256 and candidate_sha256):
        return None
    joined = f"sha256:{baseline_sha256}\n{candidate_sha256}"
    return hashlib.sha256(joined.encode("utf-8")).hexdigest()[:16]


def reviewer_file(reviewer: str) -> str:
    """The reviewer's journal file name: their name with anything but letters, digits, dot,
    dash and underscore made `_` (a name must make a file name on every system)."""
    stem = _UNSAFE.sub("_", reviewer.strip()).strip("._")
    if not stem:
        raise UsageError(
            "a shared review folder needs a reviewer name that makes a file name "
            f"(got {reviewer!r}): give --reviewer NAME or set EVALTUI_REVIEWER"
        )
    return f"{stem[:100]}.jsonl"


def local_lock_folder(state_root: Path, journal: Path) -> Path:
    """Where the lock on one reviewer's shared journal is kept: in the local state folder,
    keyed by the journal's absolute path, so the shared folder holds nothing but journals."""
    key = hashlib.sha256(str(journal.resolve()).encode("utf-8")).hexdigest()[:16]
    return state_root / "team-locks" / key


@dataclass
class _Reader:
    """One reviewer's journal, read incrementally: `offset` is how far complete lines go."""

    path: Path
    offset: int = 0
    inode: int = -1  # the file read: a new one (set aside and started again) is read anew
    items: dict[str, ItemReview] = field(default_factory=dict)
    adjudications: dict[str, Adjudication] = field(default_factory=dict)  # the last per item


@dataclass
class TeamJournals:
    """Every other reviewer's journal in a shared pair folder, read as they grow."""

    folder: Path
    own: str  # the own journal's file name (read by the session itself)
    readers: dict[str, _Reader] = field(default_factory=dict)
    damaged: list[str] = field(default_factory=list)  # lines that could not be read, in words

    def take_notices(self) -> list[Any]:
        """The damaged lines found since the last call, as journal-damage notices."""
        from evaltui.core.decide.notices import JOURNAL_DAMAGED, Notice

        found, self.damaged = self.damaged, []
        return [Notice(JOURNAL_DAMAGED, text) for text in found]

    def refresh(self, keep: Callable[[dict[str, Any]], bool] | None = None) -> set[str]:
        """Read what the other reviewers appended since the last look: the item ids whose
        reviews changed. A line still being written (no newline yet) waits for the next look.
        `keep` (verify: lines written up to a record's time) leaves the other lines out."""
        changed: set[str] = set()
        try:
            names = sorted(p.name for p in self.folder.glob("*.jsonl"))
        except OSError as exc:
            raise EvalTuiError(f"cannot list the shared review {self.folder}: {exc}") from None
        for gone in set(self.readers) - set(names):  # a journal removed: its reviews go too
            reader = self.readers.pop(gone)
            changed.update(reader.items)
            changed.update(reader.adjudications)
        for name in names:
            if name == self.own:
                continue
            reader = self.readers.setdefault(name, _Reader(self.folder / name))
            try:
                with open(reader.path, "rb") as handle:
                    stat = os.fstat(handle.fileno())
                    if stat.st_ino != reader.inode or stat.st_size < reader.offset:
                        # Another file now (that reviewer's --fresh set theirs aside): anew.
                        changed.update(reader.items)
                        changed.update(reader.adjudications)
                        reader.items.clear()
                        reader.adjudications.clear()
                        reader.inode, reader.offset = stat.st_ino, 0
                    handle.seek(reader.offset)
                    data = handle.read()
            except OSError as exc:
                raise EvalTuiError(f"cannot read the journal {reader.path}: {exc}") from None
            end = data.rfind(b"\n") + 1
            at = reader.offset
            reader.offset += end
            for line in data[:end].split(b"\n"):
                entry, at = _entry(line), at + len(line) + 1
                if entry is _DAMAGED:
                    self.damaged.append(
                        f"journal {reader.path}: the line ending at byte {at} is damaged "
                        "(kept on disk, ignored)"
                    )
                    continue
                if entry is None or entry.get("kind") not in ("tag", "note", ADJUDICATION):
                    continue
                if keep is not None and not keep(entry):
                    continue
                item_id = str(entry.get("item_id", ""))
                if entry.get("kind") == ADJUDICATION:
                    found = adjudication_of(entry, name[: -len(".jsonl")])
                    if found is None:
                        self.damaged.append(
                            f"journal {reader.path}: the adjudication ending at byte {at} "
                            "names no item, tag or reason (kept on disk, ignored)"
                        )
                        continue
                    reader.adjudications[item_id] = found
                    changed.add(item_id)
                    continue
                current = reader.items.get(item_id, ItemReview(item_id))
                reader.items[item_id] = apply_review(current, entry, name[: -len(".jsonl")])
                changed.add(item_id)
        return changed

    def reviews_of(self, item_id: str) -> list[ItemReview]:
        """The other reviewers' reviews of `item_id`, in file-name order."""
        return [r.items[item_id] for r in self.readers.values() if item_id in r.items]

    def adjudications_of(self, item_id: str) -> list[Adjudication]:
        """The other reviewers' adjudications of `item_id` (each journal's last), in file-name
        order."""
        return [
            r.adjudications[item_id] for r in self.readers.values() if item_id in r.adjudications
        ]


def apply_review(current: ItemReview, entry: dict[str, Any], fallback_by: str = "") -> ItemReview:
    """One `tag` or `note` journal line applied to an item's review (the one rule the session
    and the team reader share)."""
    if entry.get("kind") == "tag":
        seen = entry.get("seen")
        current = replace(
            current,
            tag=entry.get("tag"),
            seen=tuple(seen) if isinstance(seen, list) and len(seen) == 2 else None,
        )
    else:
        current = replace(current, note=str(entry.get("note", "")))
    return replace(
        current, updated=str(entry.get("time", "")), reviewer=str(entry.get("by") or fallback_by)
    )


def merge_reviews(
    item_id: str,
    reviews: list[ItemReview],
    adjudication: Adjudication | None = None,
    rule: str = ADJUDICATOR_RULE,
    confirmed: tuple[str, ...] = (),
) -> ItemReview:
    """The item as the team's review has it: every review kept (`reviews`); the tag is the
    reviews' tag when every tagged review agrees, else None and `disputed` (it counts as
    untriaged) until `adjudication` or the dispute `rule` settles it (`adjudication.settle`);
    the notes of each reviewer who wrote one, named when more than one did."""
    tagged = [r for r in reviews if r.tag is not None]
    tags = {r.tag for r in tagged}
    disputed = len(tags) > 1
    noted = [r for r in reviews if r.note]
    if len(noted) == 1:
        note = noted[0].note
    else:
        note = "\n".join(f"{r.reviewer or '?'}: {r.note}" for r in noted)
    latest = max(reviews, key=lambda r: r.updated, default=None)
    merged = ItemReview(
        item_id,
        tag=None if disputed or not tagged else tagged[0].tag,
        note=note,
        updated=latest.updated if latest is not None else "",
        reviewer=", ".join(r.reviewer for r in (tagged or reviews) if r.reviewer),
        seen=tagged[0].seen if tagged and not disputed else None,
        reviews=tuple(reviews),
        disputed=disputed,
    )
    return settle(merged, adjudication, rule, confirmed)


_DAMAGED: dict[str, Any] = {}  # the marker of a line that is not JSON


def _entry(line: bytes) -> dict[str, Any] | None:
    if not line.strip():
        return None
    try:
        entry = json.loads(line)
    except (json.JSONDecodeError, UnicodeDecodeError):
        return _DAMAGED
    return entry if isinstance(entry, dict) else None
