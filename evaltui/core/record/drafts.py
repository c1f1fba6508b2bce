"""What the reviewer was typing and where they were, kept beside the journal.

A dropped SSH connection or a killed process used to lose the note being typed (nothing is
journalled before Ctrl+S) and the place in the list (the review reopened on the first item).
So the text of an open note editor or sign-off rationale is written to `draft.json` in the
review's folder as it changes, and the item under the cursor to `place.json`; the app offers
the draft back and returns to the item when the review reopens. Both are a convenience, never
the record: written whole to a temporary file and renamed (a reader sees the old or the new
one, never half), without fsync (a process killed mid-typing loses nothing the kernel has);
a file that cannot be read or written costs the draft, never the review.
"""

from __future__ import annotations

import contextlib
import json
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

DRAFT = "draft.json"
PLACE = "place.json"
KINDS = ("note", "rationale")


@dataclass(frozen=True)
class Draft:
    """Unsaved text: a note on `item_id`, or a sign-off rationale (`item_id` empty)."""

    kind: str
    item_id: str
    text: str
    saved_at: str


@dataclass(frozen=True)
class Place:
    """The list shown and the item under the cursor when the review was last used; whether
    that item's screen was open (a crash in the middle of reading an item reopens it) and how
    far its transcript pane was scrolled (lines)."""

    list_name: str
    item_id: str
    item_open: bool = False
    scroll: int = 0


def _write(path: Path, data: dict[str, Any]) -> None:
    with contextlib.suppress(OSError):
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.{os.getpid()}")
        tmp.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
        os.replace(tmp, path)


def _read(path: Path) -> dict[str, Any] | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def save_draft(folder: Path, kind: str, item_id: str, text: str) -> None:
    """Keep `text` as the draft (one per review: the field being typed in)."""
    stamp = time.strftime("%Y-%m-%dT%H:%M:%S%z")
    _write(folder / DRAFT, {"kind": kind, "item_id": item_id, "text": text, "saved_at": stamp})


def load_draft(folder: Path) -> Draft | None:
    """The kept draft, if any (a malformed file is none)."""
    data = _read(folder / DRAFT)
    if data is None:
        return None
    kind, item_id, text = data.get("kind"), data.get("item_id"), data.get("text")
    if kind not in KINDS or not isinstance(item_id, str) or not isinstance(text, str):
        return None
    return Draft(kind, item_id, text, str(data.get("saved_at", "")))


def clear_draft(folder: Path) -> None:
    """The text was saved, or discarded on purpose: nothing to offer back."""
    with contextlib.suppress(OSError):
        (folder / DRAFT).unlink(missing_ok=True)


def save_place(
    folder: Path, list_name: str, item_id: str, item_open: bool = False, scroll: int = 0
) -> None:
    data: dict[str, Any] = {"list": list_name, "item_id": item_id}
    if item_open:
        data.update(item_open=True, scroll=max(0, int(scroll)))
    _write(folder / PLACE, data)


def load_place(folder: Path) -> Place | None:
    """The kept place (a malformed file is none; a malformed item flag or scroll is the list)."""
    data = _read(folder / PLACE)
    if data is None or not isinstance(data.get("list"), str):
        return None
    item_id = data.get("item_id")
    if not isinstance(item_id, str):
        return None
    scroll = data.get("scroll", 0)
    is_open = data.get("item_open") is True and isinstance(scroll, int) and scroll >= 0
    return Place(data["list"], item_id, is_open, scroll if is_open else 0)
