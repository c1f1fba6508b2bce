"""Reading a journal's lines, and the notice for inputs that changed since the tags were made.

Kept apart from the session (`journal.py`) so the session stays one job; `verify` replays
journals with the same reader.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from evaltui.core.decide.notices import INPUTS_CHANGED, JOURNAL_DAMAGED, Notice


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
    """The notice for inputs whose (baseline, candidate) sha256 differ from the tags' own.

    An empty sha256 is one not known: a journal the app started while a large log's hash was
    deferred (its `inputs` line records it once computed), or a run still being hashed. Unknown
    is not "changed": comparing it would warn of a change on every such open."""
    changed = [
        name
        for name, old, new in zip(("baseline", "candidate"), then, now, strict=True)
        if old and new and old != new
    ]
    if not changed:
        return None
    return Notice(
        INPUTS_CHANGED,
        f"the {' and '.join(changed)} file changed since these tags were made "
        "(sha256 differs): check the tagged items before signing off",
    )


def hashes_learnt(then: tuple[str, str], entry: dict[str, Any]) -> tuple[str, str]:
    """The (baseline, candidate) sha256 after an `inputs` line: it fills the sides the session
    line left empty; a hash the session had is never replaced (the tags were made on it)."""
    given = (entry.get("baseline_sha256"), entry.get("candidate_sha256"))
    return (
        then[0] or (given[0] if isinstance(given[0], str) else ""),
        then[1] or (given[1] if isinstance(given[1], str) else ""),
    )
