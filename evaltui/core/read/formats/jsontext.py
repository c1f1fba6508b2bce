"""Small helpers every JSON-based format shares: parsing a line with an error that names it,
and turning arbitrary JSON values into short, literal text for metadata and messages.

Every JSON text an input or a record is read from goes through `loads`, which refuses an object
that holds the same key twice. JSON itself leaves the meaning of `{"passed": true, "passed":
false}` open and readers disagree (Python's json and jq keep the last value, polars the first),
so a file that another tool reads as a fail could be read here as a pass; I-JSON (RFC 7493,
section 2.3) forbids duplicate names, and so do we, naming the line and the key.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any, BinaryIO

from evaltui.core.errors import InputError

UTF8_BOM = b"\xef\xbb\xbf"


class DuplicateKey(ValueError):
    """An object holds the same key twice (raised from inside the decoder by `loads`)."""

    def __init__(self, key: str) -> None:
        quoted = json.dumps(key, ensure_ascii=False)
        super().__init__(f"the key {quoted} appears twice in one object")
        self.key = key


def _unique_pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """The decoder's object hook: a dict, unless two pairs share a key."""
    obj = dict(pairs)
    if len(obj) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise DuplicateKey(key)
            seen.add(key)
    return obj


_DECODER = json.JSONDecoder(object_pairs_hook=_unique_pairs)


def loads(data: bytes | bytearray | str) -> Any:
    """`json.loads` that refuses duplicate keys (`DuplicateKey`, a ValueError). Bytes must be
    UTF-8 (UnicodeDecodeError otherwise), as RFC 8259 requires of JSON exchanged between
    systems. NaN and Infinity are read as Python does (lm-eval writes them; the loaders that
    take numbers check they are finite).

    Fast path first (`fast_loads`): msgspec decodes in C and a byte comparison proves nothing
    was lost; only a text that fails it (a duplicate key, NaN, an escape written otherwise than
    msgspec writes it, bad UTF-8, broken JSON) pays the checking decoder, which gives the same
    value or the same error as before."""
    fast = fast_loads(data)
    if fast is not _NO_FAST:
        return fast
    text = data if isinstance(data, str) else bytes(data).decode("utf-8")
    return _DECODER.decode(text)


_NO_FAST = object()  # `fast_loads` could not prove the fast decoding exact


def is_exact(value: Any) -> bool:
    """Whether a `fast_loads` result is the value (not its "cannot tell" marker)."""
    return value is not _NO_FAST


def fast_loads(data: bytes | bytearray | str) -> Any:
    """The JSON value by msgspec's C decoder, or `_NO_FAST` when that value cannot be shown to
    be exactly what `_DECODER` reads. Per-object Python (the duplicate-key hook) made decoding
    the summaries of a 200,000-sample Inspect log most of opening it.

    Why nothing is lost: msgspec keeps the last of two equal keys, silently, so its value alone
    proves nothing. But re-encoding that value (`msgspec.json.encode`, compact, no duplicate
    key possible) and comparing it byte for byte with the original text stripped of whitespace
    (`msgspec.json.format(indent=-1)`, which keeps every token, duplicates included, as
    written) does: equal bytes are the same token sequence, so the original holds exactly the
    keys, strings and numbers of a duplicate-free value, and any JSON reader (ours included)
    reads that value from it. A dropped key, a number or escape written another way (`1E5`,
    `-0`, `\u00e9`), NaN (msgspec refuses it) or invalid text all end here as `_NO_FAST`; the
    caller decodes again with the checking decoder, so refusals keep their words."""
    import msgspec  # light, and a run-time dependency already (the declared shapes)

    raw = data.encode("utf-8") if isinstance(data, str) else data
    try:
        value = msgspec.json.decode(raw)
        encoded = msgspec.json.encode(value)
        # compact already (Inspect's own writer): no stripped copy needed
        same = encoded == raw or msgspec.json.format(raw, indent=-1) == encoded
    except (msgspec.MsgspecError, UnicodeEncodeError, TypeError, ValueError, RecursionError):
        return _NO_FAST
    return value if same else _NO_FAST


def duplicate_problem(exc: DuplicateKey) -> str:
    """The message for a duplicate key: what it is and why it is refused."""
    return (
        f"{exc}; JSON readers disagree on which value counts (Python and jq take the last, "
        "polars the first), so evaltui reads neither (I-JSON, RFC 7493): remove one"
    )


def repeated_keys(text: bytes) -> Iterator[tuple[tuple[str | int, ...], int]]:
    """Each key a JSON text writes a second (or later) time in one object: its path from the
    outermost value (the key last) and its byte offset, in text order. Only on error paths: it
    walks the text with the sniffers' walker and decodes each key's escapes."""
    seen: set[tuple[tuple[str | int, ...], str]] = set()
    for where, _, start, end in _walk_keys(text):
        try:
            name = json.loads(b'"' + text[start:end] + b'"')
        except ValueError:
            name = text[start:end].decode("utf-8", errors="replace")
        if (where, name) in seen:
            yield (*where, name), start
        seen.add((where, name))


def locate_duplicate(text: bytes) -> tuple[str, int] | None:
    """Where the first duplicate key of a JSON text sits: (the dotted path to it, e.g.
    `samples[3].scores.passed`, and its 1-based line), or None."""
    for path, start in repeated_keys(text):
        return _dotted_path(path), text.count(b"\n", 0, start) + 1
    return None


def _dotted_path(parts: tuple[str | int, ...]) -> str:
    out = ""
    for part in parts:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else part)
    return out


def parse_json_line(path: str | Path, raw: bytes, number: int) -> Any:
    """One line's JSON value; a bad line is an InputError naming the file and line."""
    if number == 1:
        raw = raw.removeprefix(UTF8_BOM)
    try:
        return loads(raw)
    except DuplicateKey as exc:
        found = locate_duplicate(bytes(raw))
        field = found[0] if found is not None else exc.key
        raise InputError(path, duplicate_problem(exc), line=number, field=field) from None
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
    return load_document(path, data)


def load_document(path: Path, data: bytes, *, record: str | None = None) -> Any:
    """A whole JSON document already read (a file, or an archive member named by `record`);
    a broken one, or one with a duplicate key, is one InputError naming the place."""
    try:
        return loads(data.removeprefix(UTF8_BOM))
    except DuplicateKey as exc:
        found = locate_duplicate(data.removeprefix(UTF8_BOM))
        field, line = found if found is not None else (exc.key, None)
        raise InputError(
            path, duplicate_problem(exc), line=line, record=record, field=field
        ) from None
    except UnicodeDecodeError as exc:
        raise InputError(path, f"not UTF-8 JSON: {exc}", record=record) from None
    except json.JSONDecodeError as exc:
        raise InputError(
            path,
            f"not valid JSON: {exc.msg} (column {exc.colno})",
            line=exc.lineno,
            record=record,
        ) from None
    except (ValueError, RecursionError) as exc:
        raise InputError(path, f"not valid JSON: {exc}", record=record) from None


_CONSTANT = re.compile(rb'(?:"((?:[^"\\]|\\.)*)"\s*:\s*)?(-?Infinity|NaN)\b')


def nonstandard_constant(raw: bytes) -> tuple[str, str] | None:
    """(field, problem) when a line that Python reads holds NaN or Infinity, which JSON does not
    have (polars refuses the line, saying only "TapeError"); the field is the key before it,
    when there is one. A value inside a string does not count."""
    if b"NaN" not in raw and b"Infinity" not in raw:
        return None
    found: list[str] = []

    def refuse(name: str) -> float:
        found.append(name)
        return math.nan

    try:
        json.loads(raw, parse_constant=refuse)
    except (ValueError, RecursionError):
        return None
    if not found:
        return None
    key = next(
        (m.group(1).decode("utf-8", "replace") for m in _CONSTANT.finditer(raw) if m.group(1)),
        "",
    )
    return key, (
        f"holds {found[0]}, which is not JSON (polars, jq and most readers refuse it); "
        "write null for a missing value"
    )


def parse_json_object_line(path: str | Path, raw: bytes, number: int) -> dict[str, Any]:
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


def object_at(value: Mapping[str, Any], key: str) -> dict[str, Any]:
    """The JSON object under `key`, or an empty one when it is missing or not an object: what
    a transcript or a run's description shows from whatever the file holds there."""
    found = value.get(key)
    return found if isinstance(found, dict) else {}


def shorten(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


def describe(value: Any, limit: int = 60, ascii_only: bool = False) -> str:
    """A value quoted as JSON for an error message ("pass", 1, [1, 2]), cut to `limit`."""
    return shorten(json.dumps(value, ensure_ascii=ascii_only, default=str), limit)


# The walker's two scans. Both are single left-to-right passes that never back up (possessive
# quantifiers, no alternatives to retry), so each costs the bytes it spans: the walk over a head
# is linear in its length whatever the head holds. Outside strings only the structure and the
# opening quote matter; numbers, literals and whitespace are skipped.
_NEXT_TOKEN = re.compile(rb'[{}\[\]:,"]')
# A string's body after its opening quote, escapes included: it stops at the closing quote, or
# at the end of the text (or a lone backslash just before it) when the text ends in the string.
_STRING_BODY = re.compile(rb'[^"\\]*+(?:\\.[^"\\]*+)*+', re.DOTALL)

_QUOTE, _COLON, _COMMA = ord('"'), ord(":"), ord(",")
_OPENERS, _CLOSERS = frozenset(b"{["), frozenset(b"}]")


def object_keys(
    text: bytes, *, examined: Callable[[int], None] | None = None
) -> Iterator[tuple[tuple[str | int, ...], str]]:
    """Each object key in a JSON text's prefix, with where its object sits: the keys and list
    positions leading to it from the outermost value (`()` for the outermost object's keys,
    `(0,)` for the keys of a top-level list's first element, `("results",)` for the object
    under "results"). Format sniffers read a huge file's first kilobytes with it; it stops
    where the outermost value closes or the text ends, including inside a string, a key, an
    escape or a number, so a head cut anywhere yields a prefix of the whole document's keys.

    It reads each byte once: a head that ends inside a long string costs what an ordinary head
    does (the regex it replaced retried every quote of such a string to the end of the head).
    `examined`, if given, is called with the number of bytes each step looked at, so a test can
    hold the walk to that bound by counting work rather than timing it."""
    for where, name, _, _ in _walk_keys(text, examined=examined):
        yield where, name


def _walk_keys(
    text: bytes, *, examined: Callable[[int], None] | None = None
) -> Iterator[tuple[tuple[str | int, ...], str, int, int]]:
    """`object_keys`, with where each key's body starts and ends in `text` (escapes undecoded)."""
    stack: list[list] = []  # one frame per open container: [is_object, current key or index]
    key: tuple[int, int] | None = None  # the last token's body, if it was a string
    end = len(text)
    pos = 0
    while True:
        match = _NEXT_TOKEN.search(text, pos)
        if match is None:  # the text ends outside a string (perhaps inside a number)
            if examined is not None:
                examined(end - pos)
            return
        at = match.start()
        byte = text[at]
        if byte == _QUOTE:
            body = _STRING_BODY.match(text, at + 1)
            assert body is not None  # every part of the pattern may match nothing
            body_end = body.end()
            if examined is not None:
                examined(min(body_end + 1, end) - pos)
            if body_end >= end or text[body_end] != _QUOTE:
                return  # the text ends inside this string, key or escape
            key = (at + 1, body_end)
            pos = body_end + 1
            continue
        if examined is not None:
            examined(at + 1 - pos)
        pos = at + 1
        if byte in _OPENERS:
            is_object = byte == ord("{")
            stack.append([is_object, None if is_object else 0])
        elif byte in _CLOSERS:
            if stack:
                stack.pop()
            if not stack:
                return
        elif byte == _COMMA:
            if stack and not stack[-1][0]:
                stack[-1][1] += 1
        elif byte == _COLON and key is not None and stack and stack[-1][0]:
            name = text[key[0] : key[1]].decode("utf-8", errors="replace")
            yield tuple(frame[1] for frame in stack[:-1]), name, key[0], key[1]
            stack[-1][1] = name
        key = None
