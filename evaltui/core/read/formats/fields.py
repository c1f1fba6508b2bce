"""Per-field checks for the harness loaders: one place says how a wrong value is reported.

A harness log is JSON whose values a loader must not trust: a missing id, a verdict that is
"yes", a score that is NaN. Each is refused with an `InputError` naming the file, the line or
record, the field and what was expected, and quoting the value found, so the user can find it.
These helpers do the check and the message; a loader says only what its format requires
(`identifier(sample, "id", where, "the sample id as an integer or a non-empty string")`).

`Where` is the place the fields sit (file, line or record, and the keys leading to the object
that holds them); `dotted` spells a nested field the same way in messages and metadata.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from evaltui.core.errors import InputError
from evaltui.core.read.formats.jsontext import describe

QUOTE_CHARS = 60  # how much of a wrong value a message quotes, unless a format says otherwise
INT_MAX = 2**63 - 1  # the statistics table holds integers as Int64
_MISSING: Any = object()  # no default: the key must be there


def dotted(*parts: str | None) -> str:
    """A nested field's name, `stats.exact_match`; None parts (nothing chosen) are left out."""
    return ".".join(part for part in parts if part is not None)


def element(list_name: str, index: int) -> str:
    """How a record in a JSON list is named in messages: `samples[3]`."""
    return f"{list_name}[{index}]"


# a local path, or a remote log read where it lives (its blob, named by its URL)
LogPath = str | os.PathLike[str]


@dataclass(frozen=True)
class Where:
    """Where the fields being checked sit, for the message: the file, its line or record, and
    `prefix`, the keys to the object holding them ("data" makes `correct` `data.correct`)."""

    path: LogPath
    line: int | None = None
    record: str | None = None
    prefix: str = ""
    quote: int = QUOTE_CHARS

    def inside(self, key: str) -> Where:
        """The same place, one object deeper."""
        return replace(self, prefix=self.field(key) or "")

    def field(self, key: str | None) -> str | None:
        """The field's name in a message: `key` under the prefix (None: the place itself)."""
        if not self.prefix:
            return key
        return self.prefix if key is None else dotted(self.prefix, key)

    def error(self, key: str | None, problem: str) -> InputError:
        field = self.field(key)
        return InputError(self.path, problem, line=self.line, record=self.record, field=field)

    def expected(self, key: str | None, what: str, value: Any) -> InputError:
        """The error for a value that is not `what`: "expected <what>, got <value>"."""
        return self.error(key, f"expected {what}, got {self.quoted(value)}")

    def quoted(self, value: Any) -> str:
        return describe(value, self.quote)


def is_finite(value: Any) -> bool:
    """A real number (not a boolean) that is finite; an integer too large for a float is not."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):  # noqa: UP038 - hot:
        return False  # a tuple, not a union built on every call (200,000 samples a log)
    try:
        return math.isfinite(value)
    except OverflowError:
        return False


_LONE_SURROGATE = re.compile("[\ud800-\udfff]")
INT_MIN = -(2**63)


def text_problem(value: str) -> str | None:
    """Why a string cannot be an id or a label (slice, cluster, status), or None. A NUL is never
    part of a name (and polars reads a lone surrogate escape as one); a lone surrogate
    (`"\\ud800"`: half of a UTF-16 pair, which Python's json keeps and polars, files and
    terminals cannot hold) is not a character at all."""
    if "\x00" in value:
        return "holds a NUL character (U+0000)"
    found = _LONE_SURROGATE.search(value)
    if found is not None:
        return (
            f"holds a lone surrogate \\u{ord(found.group()):04x} (half of a UTF-16 pair, not a "
            "character)"
        )
    return None


def id_problem(value: Any, what: str = "a string or integer id") -> str | None:
    """Why a JSON value cannot be an item's id ("expected <what>, got ..."), or None. An id is
    a non-empty string or an integer that fits in 64 bits: never a boolean, a float, a list or
    an object, and a longer integer must be written as a string, since JSON readers that turn
    it into a float (JavaScript, jq) read another id."""
    # (the value is quoted only once it is known to be at fault: 200,000 ids, one json.dumps
    # each, were a seventh of opening a 200,000-sample Inspect log)
    if isinstance(value, bool) or not isinstance(value, (int, str)) or value == "":  # noqa: UP038
        return f"expected {what}, got {describe(value, QUOTE_CHARS, ascii_only=True)}"
    if isinstance(value, int):
        if INT_MIN <= value <= INT_MAX:
            return None
        shown = describe(value, QUOTE_CHARS, ascii_only=True)
        return f"expected {what}, got {shown}, an integer beyond 64 bits (write it as a string)"
    problem = text_problem(value)
    if problem is None:
        return None
    return f"expected {what}, got {describe(value, QUOTE_CHARS, ascii_only=True)}, which {problem}"


def identifier(record: Mapping[str, Any], key: str, where: Where, what: str) -> str:
    """An item's id: an integer that fits in 64 bits or a non-empty string of characters
    (never a boolean, a float, or a string with a NUL or a lone surrogate), as a string."""
    value = record.get(key)
    problem = id_problem(value, what)
    if problem is not None:
        raise where.error(key, problem)
    return str(value)


def require_str(
    record: Mapping[str, Any],
    key: str,
    where: Where,
    what: str = "a string",
    *,
    default: Any = _MISSING,
    nonempty: bool = False,
) -> str:
    """A string field (`default` when the key is absent, if one is given)."""
    value = record.get(key) if default is _MISSING else record.get(key, default)
    if not isinstance(value, str) or (nonempty and not value):
        raise where.expected(key, what, value)
    return value


def optional_str(
    record: Mapping[str, Any], key: str, where: Where, what: str = "a string"
) -> str | None:
    """A string field that may be absent or null."""
    value = record.get(key)
    if value is not None and not isinstance(value, str):
        raise where.expected(key, what, value)
    return value


def require_bool(
    record: Mapping[str, Any], key: str, where: Where, what: str = "true or false"
) -> bool:
    """A verdict: true or false, and nothing else (not 1, not "pass", not null)."""
    value = record.get(key)
    if not isinstance(value, bool):
        raise where.expected(key, what, value)
    return value


def require_int(
    record: Mapping[str, Any],
    key: str,
    where: Where,
    what: str,
    *,
    minimum: int,
    default: Any = _MISSING,
) -> int:
    """An integer field >= `minimum` (never a boolean) that the table can hold; `default` when
    the key is absent."""
    value = record.get(key) if default is _MISSING else record.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int) or not minimum <= value <= INT_MAX:
        raise where.expected(key, what, value)
    return value


def optional_number(
    record: Mapping[str, Any], key: str, where: Where, what: str = "a finite number"
) -> int | float | None:
    """A finite number that may be absent or null."""
    value = record.get(key)
    if value is not None and not is_finite(value):
        raise where.expected(key, what, value)
    return value


def require_dict(
    record: Mapping[str, Any], key: str, where: Where, what: str = "a JSON object"
) -> dict[str, Any]:
    """A nested object."""
    value = record.get(key)
    if not isinstance(value, dict):
        raise where.expected(key, what, value)
    return value


def optional_dict(
    record: Mapping[str, Any], key: str, where: Where, what: str = "a JSON object"
) -> dict[str, Any] | None:
    """A nested object that may be absent or null."""
    value = record.get(key)
    if value is not None and not isinstance(value, dict):
        raise where.expected(key, what, value)
    return value


def metric_value(value: Any, key: str, where: Where, metric: str) -> bool | int | float:
    """A per-record metric value, read from the field `key`: true/false or a finite number
    (0/1 for a verdict). Takes the value, not the record: loaders look the metric up first to
    say which metrics a record has when it lacks the chosen one."""
    if not isinstance(value, bool) and not is_finite(value):
        raise where.error(
            key,
            f"cannot read the value {where.quoted(value)} of metric '{metric}'; expected a "
            "finite number (0/1 for a verdict)",
        )
    return value
