"""The harness formats' `sniff`s, in a module that imports neither polars nor any reader.

`detect_format` asks every format in `REGISTRY` order whether it takes a file, harness formats
first. With each `sniff` in its reader's module, naming a plain JSONL or Parquet run imported
every harness reader (Inspect's zip and score modules, lm-eval's, promptfoo's, HELM's: 54
modules, about 0.06 s of CPU a process) only to hear "no" from each. Here they need the first
bytes, `json` and `jsontext`'s key walker; each reader's module re-exports its own as `sniff`,
so the format contract (`module.sniff(path, head)`) is unchanged, and `SNIFFS` lets
`detect_format` ask them without importing the readers.
"""

from __future__ import annotations

import itertools
import json
import re
import struct
import zipfile
from collections.abc import Callable
from pathlib import Path

from evaltui.core.read.formats.contract import HEAD_BYTES
from evaltui.core.read.formats.jsontext import UTF8_BOM, object_keys
from evaltui.core.read.formats.lm_eval_records import is_array

__all__ = [
    "FIRST_MEMBERS",
    "HEADER_JSON",
    "JOURNAL_START",
    "LEGACY_START",
    "PER_INSTANCE_FILE",
    "PREDICTIONS_FILE",
    "SNIFFS",
    "ZIP_MAGIC",
    "helm_kind",
]

# Inspect's .eval: a zip; what Inspect writes first in it.
ZIP_MAGIC = b"PK\x03\x04"
HEADER_JSON = "header.json"
JOURNAL_START = "_journal/start.json"
LEGACY_START = "start.json"  # the first .eval layout (late 2024)
FIRST_MEMBERS = (JOURNAL_START, HEADER_JSON, LEGACY_START)  # what Inspect writes first
KEYS_TO_SCAN = 8  # Inspect's JSON EvalLog serialises version, status, eval first
SPEC_START = re.compile(rb'\{\s*"spec"\s*:\s*\{')  # OpenAI evals' first line
EVENT_KEYS = ("run_id", "type")
PREDICTIONS_FILE = "display_predictions.json"  # HELM's two per-instance files
PER_INSTANCE_FILE = "per_instance_stats.json"


def inspect_eval(path: Path, head: bytes) -> bool:
    """A zip whose first member is Inspect's start record, or that holds Inspect's header."""
    if not head.startswith(ZIP_MAGIC):
        return False
    if _first_member_name(head) in FIRST_MEMBERS:
        return True  # decided from the head alone, so a truncated log is still recognised
    try:
        with zipfile.ZipFile(path) as archive:
            names = set(archive.namelist())
    except Exception:  # any unreadable zip is simply not recognised here
        return False
    return HEADER_JSON in names or JOURNAL_START in names


def _first_member_name(head: bytes) -> str | None:
    """The file name in the first local file header of a zip (offset 30, length at 26)."""
    if len(head) < 30:
        return None
    (name_length,) = struct.unpack("<H", head[26:28])
    name = head[30 : 30 + name_length]
    if len(name) < name_length:
        return None
    return name.decode("utf-8", errors="replace")


def inspect_json(path: Path, head: bytes) -> bool:
    """A JSON object whose first top-level keys include "version" and "eval"."""
    text = head.removeprefix(UTF8_BOM).lstrip()
    if not text.startswith(b"{"):
        return False
    top = (key for where, key in object_keys(text) if where == ())
    keys = list(itertools.islice(top, KEYS_TO_SCAN))
    return "version" in keys and "eval" in keys


def lm_eval(path: Path, head: bytes) -> bool:
    """First line: a JSON object with doc_id, doc and resps/filtered_resps; or (lm-eval 0.4.0
    to 0.4.2) a JSON array whose first object starts with doc_id and doc."""
    text = head.removeprefix(UTF8_BOM).lstrip()
    if is_array(text):
        keys = [key for where, key in object_keys(text) if where == (0,)]
        return keys[:2] == ["doc_id", "doc"]
    if not text.startswith(b"{"):
        return False
    first, newline, _ = text.partition(b"\n")
    complete = bool(newline) or len(head) < HEAD_BYTES
    if complete:
        try:
            record = json.loads(first)
        except ValueError:
            return False
        return (
            isinstance(record, dict)
            and "doc_id" in record
            and "doc" in record
            and ("resps" in record or "filtered_resps" in record)
        )
    # A first line longer than the head (a huge document): lm-eval writes doc_id, then doc.
    return re.match(rb'\{\s*"doc_id"\s*:\s*[^,]+,\s*"doc"\s*:', first) is not None


def promptfoo(path: Path, head: bytes) -> bool:
    """A JSON object with promptfoo's `evalId`, or whose `results` is a summary (has `version`
    or `results`), or a bare summary (`version`, `timestamp`, `results`); decided from the
    first keys, so a huge file is still recognised."""
    text = head.removeprefix(UTF8_BOM).lstrip()
    if not text.startswith(b"{"):
        return False
    top: list[str] = []
    nested: set[str] = set()  # the keys of the object under top-level "results"
    for where, key in object_keys(text):
        if where == ():
            top.append(key)
        elif where == ("results",):
            nested.add(key)
    if "evalId" in top:
        return True
    if {"version", "timestamp", "results"} <= set(top):
        return True
    return "results" in top and bool(nested & {"version", "results"})


def openai_evals(path: Path, head: bytes) -> bool:
    """First line: `{"spec": {...}}`, or an event with `run_id`, `type` and a sample/event id."""
    text = head.removeprefix(UTF8_BOM).lstrip()
    if not text.startswith(b"{"):
        return False
    first, newline, _ = text.partition(b"\n")
    if not (newline or len(head) < HEAD_BYTES):
        return SPEC_START.match(first) is not None  # a spec line longer than the head
    try:
        record = json.loads(first)
    except ValueError:
        return False
    if not isinstance(record, dict):
        return False
    if isinstance(record.get("spec"), dict):
        return True
    return all(k in record for k in EVENT_KEYS) and ("event_id" in record or "sample_id" in record)


def helm(path: Path, head: bytes) -> bool:
    """A JSON list whose first object has `instance_id` and `predicted_text` (display
    predictions) or `instance_id` and a `stats` list (per-instance stats)."""
    return helm_kind(head) is not None


def helm_kind(head: bytes) -> str | None:
    text = head.removeprefix(UTF8_BOM).lstrip()
    if not text.startswith(b"["):
        return None
    keys: set[str] = set()
    stats_list = False
    for where, key in object_keys(text):
        if where == (0,):
            keys.add(key)
        elif where[:2] == (0, "stats") and len(where) == 3 and isinstance(where[2], int):
            stats_list = True  # stats is a list of Stat objects, not a name -> value map
    if "instance_id" not in keys:
        return None
    if "predicted_text" in keys:
        return PREDICTIONS_FILE
    if "stats" in keys and stats_list and "request" not in keys:
        return PER_INSTANCE_FILE
    return None


SNIFFS: dict[str, Callable[[Path, bytes], bool]] = {
    "inspect_eval": inspect_eval,
    "inspect_json": inspect_json,
    "lm_eval": lm_eval,
    "promptfoo": promptfoo,
    "openai_evals": openai_evals,
    "helm": helm,
}
