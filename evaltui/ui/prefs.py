"""The reviewer's screen choices that outlive a session (the header folded or not).

Kept in `ui.json` beside the session journals (the state folder); a preference only, so a
file that cannot be read or written costs the choice, never the review.
"""

from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path
from typing import Any

from evaltui.core.record.journal import state_dir

NAME = "ui.json"


def _path(root: Path | None) -> Path:
    return (root or state_dir()) / NAME


def load(root: Path | None) -> dict[str, Any]:
    try:
        data = json.loads(_path(root).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def save(root: Path | None, **changes: Any) -> None:
    """Merge `changes` into the file (written whole to a temporary file, then renamed)."""
    path = _path(root)
    data = {**load(root), **changes}
    with contextlib.suppress(OSError):
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{NAME}.{os.getpid()}")
        tmp.write_text(json.dumps(data, indent=2, sort_keys=True) + "\n", encoding="utf-8")
        os.replace(tmp, path)
