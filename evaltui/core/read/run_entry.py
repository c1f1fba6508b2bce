"""One run of a log directory as the listing shows it (`RunEntry`), and the small readers the
formats share to describe a run from its header (`ListsInDirectories.describe_run`).

The entry lives apart from the lister (`logdir.py`) because each format fills it in: the lister
asks the formats, and the formats must not import the lister.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

MAX_HEADER_BYTES = 64 << 20  # a header (or a file beside a run) larger than this is not read
JSON_HEAD_BYTES = 1 << 20  # how much of a single-JSON log a listing reads


@dataclass(frozen=True)
class RunEntry:
    """One run of the directory, as the listing shows it. Every text comes from the logs."""

    path: Path  # what `load_run` opens: a file, or a run directory (HELM)
    name: str  # the path relative to the listed directory
    format: str
    task: str = "?"
    model: str = "?"
    date: str = ""  # ISO 8601 where the log says, else the file's modification time
    items: int | None = None
    scorer: str = ""
    status: str = ""
    problem: str = ""  # why the entry could not be described (status "unreadable")


def mtime(path: Path) -> str:
    """The file's modification time in UTC (ISO 8601), the date of a log that names none."""
    try:
        stamp = path.stat().st_mtime
    except OSError:
        return ""
    return datetime.fromtimestamp(stamp, UTC).strftime("%Y-%m-%dT%H:%M:%S")


def iso_utc(value: Any) -> str:
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


def text_or(value: Any, default: str) -> str:
    """A header's value as the listing's text; `default` when it is missing or not a scalar."""
    return str(value) if isinstance(value, str | int | float) and value != "" else default


def value_after(text: str, key: str) -> Any:
    """The JSON value of the first `"key":` in `text`, or None when it is cut off (a listing
    reads the head of a large JSON log, not all of it)."""
    match = re.search(rf'"{re.escape(key)}"\s*:\s*', text)
    if match is None:
        return None
    try:
        value, _ = json.JSONDecoder().raw_decode(text, match.end())
    except ValueError:
        return None
    return value


def count_lines(path: Path) -> int:
    """Lines of a JSONL file (its items, when nothing beside it says)."""
    count = 0
    with path.open("rb") as handle:
        while chunk := handle.read(1 << 20):
            count += chunk.count(b"\n")
    return count


def small_json(path: Path) -> Any:
    """A JSON file read beside a run (lm-eval's results, HELM's run spec), or None when it is
    missing or too large for a listing."""
    if not path.is_file() or path.stat().st_size >= MAX_HEADER_BYTES:
        return None
    return json.loads(path.read_bytes())
