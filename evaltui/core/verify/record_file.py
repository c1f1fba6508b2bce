"""Reading a sign-off record's file: a JSON object of a schema evaltui writes, or a one-line
InputError; a key written twice is read but marked, so that `verify` refuses the record."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from evaltui.core.errors import InputError
from evaltui.core.read.formats.jsontext import DuplicateKey, loads, locate_duplicate
from evaltui.core.record.signoff import READABLE_SCHEMAS

__all__ = ["RUN_SET_RECORD", "RecordText", "read_record"]

RUN_SET_RECORD = "evaltui.signoff-runset/1"  # record.run_set_signoff.RUN_SET_SIGNOFF_SCHEMA


class RecordText(dict):
    """A record as read from its file, and what is wrong with its form (`problem`; None when
    nothing is): `verify_record` refuses such a record before looking at anything it says."""

    problem: str | None = None


def read_record(path: str | Path) -> dict[str, Any]:
    """The record in `path`. A file that is not a JSON object is an InputError (unreadable);
    one that holds a key twice is read, but marked: `{"decision": "approve", "decision":
    "block"}` is an approval to one reader and a block to another, so it cannot be verified."""
    path = Path(path)
    if not path.is_file():
        raise InputError(path, "no such file; expected a sign-off record (JSON)")
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise InputError(path, f"cannot read the record: {exc.strerror or exc}") from None
    problem = None
    try:
        record = loads(data)
    except DuplicateKey as exc:
        where = locate_duplicate(data)
        place = f" at {where[0]} (line {where[1]})" if where is not None else ""
        problem = (
            f"the record holds the key {json.dumps(exc.key)} twice{place}: JSON readers "
            "disagree on which one counts, so what it says cannot be verified"
        )
        record = json.loads(data)
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise InputError(path, f"is not a JSON sign-off record: {exc}") from None
    readable = (*READABLE_SCHEMAS, RUN_SET_RECORD)
    if not isinstance(record, dict) or record.get("schema") not in readable:
        expected = " or ".join(readable)
        raise InputError(path, f"is not a sign-off record (schema {expected} expected)")
    text = RecordText(record)
    text.problem = problem
    return text
