"""A sign-off record's form, checked against its declaration before anything it says is read.

The record is declared once, as msgspec Structs (``core/record/shape.py``), and the published
JSON Schema is generated from the same declaration; verify converts the parsed record with
``msgspec.convert`` against it, so a key that is missing or of the wrong type is named on one
line ("the record's form: triage.regressions must be int, got str") instead of failing later
with a traceback. An ``evaltui.signoff/1`` record (written before the decision, the reviewer's
decision and the spec were recorded) is checked against :class:`EarlierSignOffRecord`: the keys
verify reads of it. Keys a record written by an earlier version may lack are declared optional,
and unknown keys are ignored, so such records still read.
"""

from __future__ import annotations

import json
import re
from typing import Any, Literal

import msgspec
from msgspec import Struct

from evaltui.core.record.shape import RunSetSignOffRecord, SignOffRecord
from evaltui.core.record.signoff import SIGNOFF_SCHEMA
from evaltui.core.textsafe import one_line

__all__ = ["EarlierSignOffRecord", "form_problem", "run_set_form_problem"]


class _InputFile(Struct):
    sha256: str


class _Inputs(Struct):
    baseline: _InputFile
    candidate: _InputFile


class _Triage(Struct):
    regressions: int
    triaged: int
    untriaged: list[Any]
    by_tag: dict[str, Any]
    tags: list[Any]


class _Item(Struct):
    item_id: str
    direction: Literal["regression", "improvement"]
    tag: str | None


class EarlierSignOffRecord(Struct, kw_only=True):
    """An ``evaltui.signoff/1`` record: the keys verify reads of it (its statistics are
    recomputed, not its decision)."""

    schema: str
    tool: dict[str, Any]
    created: str
    reviewer: str
    rationale: str
    override: dict[str, Any] | None
    inputs: _Inputs
    pairing: dict[str, Any]
    policy: dict[str, Any]
    policy_hash: str
    results: dict[str, Any]
    triage: _Triage
    items: list[_Item]
    gates: list[Any]
    review_notices: list[Any]
    session_journal: str
    content_hash: str


def form_problem(record: dict[str, Any]) -> str | None:
    """What is missing or of the wrong type in the record, or None: verify reads these keys,
    and a record without them is malformed, not a reason to fail with a traceback."""
    current = record.get("schema") == SIGNOFF_SCHEMA
    declaration = SignOffRecord if current else EarlierSignOffRecord
    try:
        msgspec.convert(dict(record), declaration, strict=True)
    except msgspec.ValidationError as exc:
        return "the record's form: " + _in_words(str(exc), record, declaration)
    seen: set[str] = set()
    for item in record["items"]:
        if item["item_id"] in seen:
            return f"the record lists item {_shown(item['item_id'])} twice"
        seen.add(item["item_id"])
    return None


def run_set_form_problem(record: dict[str, Any]) -> str | None:
    """What is missing or of the wrong type in a run-set record (its pairs' records included),
    or None."""
    try:
        msgspec.convert(dict(record), RunSetSignOffRecord, strict=True)
    except msgspec.ValidationError as exc:
        return "the record's form: " + _in_words(str(exc), record, RunSetSignOffRecord)
    return None


_AT = re.compile(r"^(?P<message>.*?)(?: - at `\$(?P<path>[^`]*)`)?$", re.DOTALL)


def _in_words(message: str, record: dict[str, Any], declaration: type[Struct]) -> str:
    """msgspec's "Expected `int`, got `str` - at `$.triage.regressions`" as "triage.regressions
    must be int, got str"."""
    match = _AT.match(message)
    assert match is not None  # the pattern matches any text
    path = (match.group("path") or "").lstrip(".")
    problem = match.group("message").replace("`", "")
    missing = re.match(r"Object missing required field (\S+)", problem)
    if missing:
        return f"{path or 'it'} has no {missing.group(1)}"
    if problem.startswith("Expected "):
        problem = problem[len("Expected ") :]
        if ", got " not in problem:
            problem += f", got {_value_at(record, path)}"
        return f"{path or 'it'} must be {problem}"
    choices = _choices_at(msgspec.inspect.type_info(declaration), path)
    if choices:
        quoted = ", ".join(repr(choice) for choice in choices)
        return f"{path or 'it'} must be one of {quoted}, got {_value_at(record, path)}"
    return f"{path or 'it'}: {problem}, got {_value_at(record, path)}"


def _choices_at(info: Any, path: str) -> tuple[Any, ...]:
    """The values a Literal at ``path`` of a declaration allows, or () when it is no Literal."""
    inspect = msgspec.inspect
    for name, index in [*re.findall(r"([^.\[\]]+)|\[(\d+)\]", path), ("", "")]:
        while isinstance(info, inspect.Metadata | inspect.UnionType):
            if isinstance(info, inspect.Metadata):
                info = info.type
            else:
                info = next((t for t in info.types if not isinstance(t, inspect.NoneType)), None)
        if not name and not index:
            break
        if index and isinstance(info, inspect.ListType):
            info = info.item_type
        elif name and isinstance(info, inspect.StructType):
            info = next((f.type for f in info.fields if f.encode_name == name), None)
        else:
            return ()
    return tuple(info.values) if isinstance(info, inspect.LiteralType) else ()


def _value_at(record: Any, path: str) -> str:
    """The value at a msgspec path (``items[0].direction``), as the reason quotes it."""
    value = record
    for name, index in re.findall(r"([^.\[\]]+)|\[(\d+)\]", path):
        try:
            value = value[int(index)] if index else value[name]
        except (KeyError, IndexError, TypeError):
            return "nothing"
    return _shown(json.dumps(value))


def _shown(value: Any, width: int = 160) -> str:
    return one_line(str(value), width)
