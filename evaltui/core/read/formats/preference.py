"""Preference files: one judge verdict per item and pair of systems, as JSON Lines or CSV.

A preference file is not a run (it holds no pass/fail or score per system), so it is not one of
the run formats the loader detects for `evaltui report`; `evaltui prefer` reads it with
:func:`read_preferences`. The layout (docs/preferences.md):

- ``item_id`` (string, or an integer, which becomes a string): the judged item;
- ``preference``: ``A`` (the first system's output is better), ``B`` (the second's) or
  ``tie``, case-insensitive, surrounding spaces ignored. In a file without system columns,
  ``baseline`` and ``candidate`` are accepted too, as ``A`` and ``B``;
- optionally ``system_a`` and ``system_b``: the names of the two systems judged on that line.
  Either every record names its systems or none does; without them the file compares two
  systems called ``A`` (the baseline) and ``B`` (the candidate).

Other fields (the judge's explanation, the prompt) are ignored. An item may be judged once per
pair of systems: a second judgment of the same item and pair (for example the same comparison
with the positions swapped) is refused, naming both lines, because averaging or choosing between
them is a decision the file's author must make. Inspect AI ships no pairwise or preference
scorer (checked in UKGovernmentBEIS/inspect_ai at 499e6152, 2026-08-22), so there is no Inspect
layout to read; export such judgments to this layout.

JSONL or CSV is told from the content: a first non-blank character ``{`` means JSON Lines.
Every problem is one :class:`InputError` naming the file, the line, the field and what was
expected; no record is ever skipped.
"""

from __future__ import annotations

import csv
import hashlib
import io
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from evaltui.core.errors import InputError
from evaltui.core.read.formats.jsontext import UTF8_BOM, parse_json_object_line
from evaltui.core.read.remote.urls import url_of
from evaltui.core.textsafe import one_line

Where = str | Path  # a local file, or a URL as typed

ITEM_ID = "item_id"
PREFERENCE = "preference"
SYSTEM_A = "system_a"
SYSTEM_B = "system_b"
UNNAMED = ("A", "B")
"""The two systems' names in a file without system columns: A the baseline, B the candidate."""

OUTCOMES = {"a": "a", "b": "b", "tie": "tie"}
"""Accepted ``preference`` values (after stripping and lower-casing) -> outcome."""
UNNAMED_OUTCOMES = {**OUTCOMES, "baseline": "a", "candidate": "b"}
"""Accepted values in a file without system columns, where A is the baseline by definition."""
FORMATS = ("jsonl", "csv")


@dataclass(frozen=True)
class Judgment:
    """One line of the file: on ``item_id`` the judge compared ``system_a`` with ``system_b``
    and said ``outcome``: ``"a"`` (system_a better), ``"b"`` or ``"tie"``."""

    item_id: str
    system_a: str
    system_b: str
    outcome: str
    line: int


@dataclass(frozen=True)
class PreferenceFile:
    """A preference file as read: where it came from and every judgment, in file order.
    ``systems`` are in the order they first appear; ``named_systems`` says whether the file
    had system columns."""

    path: Where  # (a URL as typed: `s3://...`, not a Path that folds its `//`)
    format: str
    size: int
    sha256: str
    judgments: tuple[Judgment, ...]
    systems: tuple[str, ...]
    named_systems: bool


def read_preferences(given: str | Path) -> PreferenceFile:
    """Read and check a preference file (JSON Lines or CSV, told from the content), local or at
    a URL (read whole through the remote cache, as a JSONL run is; named by its URL)."""
    url = url_of(given)
    path: Where = url if url is not None else Path(given)
    try:
        data = _remote_bytes(url) if url is not None else Path(path).read_bytes()
    except OSError as exc:
        raise InputError(path, f"cannot read the file: {exc.strerror or exc}") from None
    body = data.removeprefix(UTF8_BOM)
    kind = "jsonl" if body.lstrip()[:1] == b"{" else "csv"
    rows = _jsonl_rows(path, body) if kind == "jsonl" else _csv_rows(path, body)
    judgments, named = _judgments(path, rows)
    if not judgments:
        raise InputError(path, "no judgments: expected at least one record with a preference")
    systems: list[str] = []
    for j in judgments:
        for name in (j.system_a, j.system_b):
            if name not in systems:
                systems.append(name)
    return PreferenceFile(
        path=path,
        format=kind,
        size=len(data),
        sha256=hashlib.sha256(data).hexdigest(),
        judgments=judgments,
        systems=tuple(systems),
        named_systems=named,
    )


def _remote_bytes(url: str) -> bytes:
    """The object's bytes, from the ETag-checked cache or downloaded into it."""
    from evaltui.core.read.remote.blob import RemoteBlob
    from evaltui.core.read.remote.download import local_copy

    return local_copy(RemoteBlob(url))[0].read_bytes()


def _jsonl_rows(path: Where, body: bytes) -> list[tuple[int, dict[str, Any]]]:
    rows = []
    for number, raw in enumerate(io.BytesIO(body), start=1):
        if raw.strip():
            rows.append((number, parse_json_object_line(path, raw, number)))
    return rows


def _csv_rows(path: Where, body: bytes) -> list[tuple[int, dict[str, Any]]]:
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = body.count(b"\n", 0, exc.start) + 1
        raise InputError(path, f"the file is not UTF-8 (byte {exc.start})", line=line) from None
    reader = csv.reader(io.StringIO(text, newline=""), strict=True)
    rows: list[tuple[int, dict[str, Any]]] = []
    header: list[str] | None = None
    start = 1
    try:
        for cells in reader:
            line, start = start, reader.line_num + 1
            if not cells or all(not c.strip() for c in cells):
                continue
            if header is None:
                header = [c.strip() for c in cells]
                _check_header(path, header, line)
                continue
            if len(cells) != len(header):
                raise InputError(
                    path,
                    f"expected {len(header)} cells as in the header, got {len(cells)}",
                    line=line,
                )
            rows.append((line, dict(zip(header, cells, strict=True))))
    except csv.Error as exc:
        raise InputError(path, f"not valid CSV: {exc}", line=reader.line_num) from None
    if header is None:
        raise InputError(path, "the file is empty: expected a header with item_id and preference")
    return rows


def _check_header(path: Where, header: list[str], line: int) -> None:
    seen: set[str] = set()
    for name in header:
        if name in seen:
            raise InputError(
                path,
                "the header names this column twice: rename or remove one",
                line=line,
                field=name,
            )
        seen.add(name)
    for name in (ITEM_ID, PREFERENCE):
        if name not in seen:
            raise InputError(
                path,
                f"the header has no {name!r} column (columns: "
                f"{one_line(', '.join(header), 200)}); a preference file needs item_id and "
                "preference, and system_a/system_b for more than two systems",
                line=line,
            )
    if (SYSTEM_A in seen) != (SYSTEM_B in seen):
        missing = SYSTEM_B if SYSTEM_A in seen else SYSTEM_A
        raise InputError(
            path,
            f"the header has no {missing!r} column: give both system columns or neither",
            line=line,
        )


def _quoted(value: Any) -> str:
    return one_line(repr(value), 80)


def _judgments(
    path: Where, rows: list[tuple[int, dict[str, Any]]]
) -> tuple[tuple[Judgment, ...], bool]:
    """Every record checked and turned into a judgment; and whether the records name systems."""
    named: bool | None = None
    out: list[Judgment] = []
    first_line: dict[tuple[str, frozenset[str]], int] = {}
    for line, record in rows:
        has = SYSTEM_A in record or SYSTEM_B in record
        if named is None:
            named = has
        elif has != named:
            raise InputError(
                path,
                "this record "
                + ("names its systems" if has else "does not name its systems")
                + f" but the first one {'does not' if has else 'does'}: every record names "
                "system_a and system_b, or none does",
                line=line,
                field=SYSTEM_A,
            )
        item = _item_id(path, line, record)
        if named:
            first, second = (_system(path, line, record, f) for f in (SYSTEM_A, SYSTEM_B))
            if first == second:
                raise InputError(
                    path,
                    f"system_a and system_b are the same system ({_quoted(first)}): a judgment "
                    "compares two different systems",
                    line=line,
                    field=SYSTEM_B,
                )
        else:
            first, second = UNNAMED
        outcome = _outcome(path, line, record, UNNAMED_OUTCOMES if not named else OUTCOMES)
        key = (item, frozenset((first, second)))
        if key in first_line:
            raise InputError(
                path,
                f"item {_quoted(item)} is judged twice for the pair {_quoted(first)} / "
                f"{_quoted(second)} (first on line {first_line[key]}); each item is judged once "
                "per pair: combine repeated or position-swapped judgments before reading",
                line=line,
                field=ITEM_ID,
            )
        first_line[key] = line
        out.append(Judgment(item, first, second, outcome, line))
    return tuple(out), bool(named)


def _item_id(path: Where, line: int, record: dict[str, Any]) -> str:
    if ITEM_ID not in record:
        raise InputError(path, "missing: every record needs an item_id", line=line, field=ITEM_ID)
    value = record[ITEM_ID]
    if isinstance(value, bool) or not isinstance(value, str | int):
        raise InputError(
            path,
            f"expected a string or an integer, got {_quoted(value)}",
            line=line,
            field=ITEM_ID,
        )
    text = str(value)
    if not text.strip():
        raise InputError(path, "expected a non-empty item id", line=line, field=ITEM_ID)
    return text


def _system(path: Where, line: int, record: dict[str, Any], field: str) -> str:
    value = record.get(field)
    if not isinstance(value, str) or not value.strip():
        raise InputError(
            path,
            f"expected the name of the system judged (a non-empty string), got {_quoted(value)}",
            line=line,
            field=field,
        )
    return value.strip()


def _outcome(path: Where, line: int, record: dict[str, Any], accepted: dict[str, str]) -> str:
    value = record.get(PREFERENCE)
    if isinstance(value, str) and value.strip().lower() in accepted:
        return accepted[value.strip().lower()]
    words = "A, B or tie" + (", or baseline/candidate" if "baseline" in accepted else "")
    got = "nothing (the field is missing)" if PREFERENCE not in record else _quoted(value)
    raise InputError(
        path,
        f"expected {words} (case-insensitive), got {got}",
        line=line,
        field=PREFERENCE,
    )
