"""Small helpers every JSON-based format shares: parsing a line with an error that names it,
and turning arbitrary JSON values into short, literal text for metadata and messages."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any, BinaryIO

from evaltui.core.errors import InputError

UTF8_BOM = b"\xef\xbb\xbf"


def parse_json_line(path: Path, raw: bytes, number: int) -> Any:
    """One line's JSON value; a bad line is an InputError naming the file and line."""
    if number == 1:
        raw = raw.removeprefix(UTF8_BOM)
    try:
        return json.loads(raw)
    except UnicodeDecodeError as exc:
        raise InputError(path, f"the line is not UTF-8: {exc}", line=number) from None
    except json.JSONDecodeError as exc:
        raise InputError(
            path,
            f"the line is not valid JSON: {exc.msg} (column {exc.colno}); a truncated line?",
            line=number,
        ) from None
    except (ValueError, RecursionError) as exc:
        raise InputError(path, f"the line is not valid JSON: {exc}", line=number) from None


def read_json_file(path: Path) -> Any:
    """A whole JSON document; an unreadable or broken file is one InputError naming it."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise InputError(path, f"cannot read the file: {exc.strerror or exc}") from None
    try:
        return json.loads(data.removeprefix(UTF8_BOM))
    except UnicodeDecodeError as exc:
        raise InputError(path, f"not UTF-8 JSON: {exc}") from None
    except json.JSONDecodeError as exc:
        raise InputError(
            path, f"not valid JSON: {exc.msg} (column {exc.colno})", line=exc.lineno
        ) from None
    except (ValueError, RecursionError) as exc:
        raise InputError(path, f"not valid JSON: {exc}") from None


def parse_json_object_line(path: Path, raw: bytes, number: int) -> dict[str, Any]:
    """Like `parse_json_line`, for formats whose every line must be an object."""
    record = parse_json_line(path, raw, number)
    if not isinstance(record, dict):
        raise InputError(
            path, f"expected a JSON object per line, got {type(record).__name__}", line=number
        )
    return record


def numbered_lines(handle: BinaryIO) -> Iterator[tuple[int, int, bytes]]:
    """(1-based line number, byte offset, raw line) of every non-blank line of a binary file:
    the offset finds the line again for drill-down, the number names it in errors."""
    offset = 0
    for number, raw in enumerate(handle, start=1):
        start = offset
        offset += len(raw)
        if raw.strip():
            yield number, start, raw


def as_text(value: Any) -> str:
    """A string as it is; anything else as compact JSON."""
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, default=str)


def shorten(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


def describe(value: Any, limit: int = 60, ascii_only: bool = False) -> str:
    """A value quoted as JSON for an error message ("pass", 1, [1, 2]), cut to `limit`."""
    return shorten(json.dumps(value, ensure_ascii=ascii_only, default=str), limit)


# A JSON string (escapes included) or a structural character: enough to walk the keys of a
# document's first bytes without parsing (or even seeing the end of) its values.
_KEY_TOKEN = re.compile(rb'"(?:[^"\\]|\\.)*"|[{}\[\]:,]')


def object_keys(text: bytes) -> Iterator[tuple[tuple[str | int, ...], str]]:
    """Each object key in a JSON text's prefix, with where its object sits: the keys and list
    positions leading to it from the outermost value (`()` for the outermost object's keys,
    `(0,)` for the keys of a top-level list's first element, `("results",)` for the object
    under "results"). Format sniffers read a huge file's first kilobytes with it; it stops
    where the outermost value closes or the text ends."""
    stack: list[list] = []  # one frame per open container: [is_object, current key or index]
    previous = b""
    for match in _KEY_TOKEN.finditer(text):
        token = match.group()
        if token in (b"{", b"["):
            stack.append([token == b"{", None if token == b"{" else 0])
        elif token in (b"}", b"]"):
            if stack:
                stack.pop()
            if not stack:
                return
        elif token == b",":
            if stack and not stack[-1][0]:
                stack[-1][1] += 1
        elif token == b":" and stack and stack[-1][0] and previous[:1] == b'"':
            key = previous[1:-1].decode("utf-8", errors="replace")
            yield tuple(frame[1] for frame in stack[:-1]), key
            stack[-1][1] = key
        previous = token
