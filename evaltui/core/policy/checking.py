"""A TOML table checked against its declaration (`declaration.py`), and msgspec's answer put
in the declaration's words.

Kept apart from the declarations: they say what a policy may hold (and feed the JSON Schema and
the rules' hash), this says what was wrong with one. ``msgspec.convert`` is strict (no string
taken for a number, no boolean for a count); its message ("Expected `float` < 1.0 - at
`$.alpha`") becomes a :class:`KeyProblem` naming the key and what was expected, which the reader
places at the file's line.
"""

from __future__ import annotations

import math
import re
from numbers import Real
from typing import Any, Literal, get_args, get_origin, get_type_hints

import msgspec
from msgspec import Struct

from evaltui.core.policy.declaration import (
    TAG_TABLE_EXPECTED,
    ReviewTable,
    declared_field,
    declared_keys,
    struct_info,
)
from evaltui.core.policy.tags import MEANINGS

__all__ = ["KeyProblem", "convert"]


class KeyProblem(Exception):
    """What :func:`convert` found wrong, and with which key (the InputError's field)."""

    def __init__(self, key: str, problem: str) -> None:
        super().__init__(problem)
        self.key = key
        self.problem = problem


def convert(declaration: type[Struct], data: dict[str, Any], unknown: str, missing: str) -> Any:
    """Check ``data`` against ``declaration``: unknown keys first, then missing required ones,
    then each value's type (``msgspec.convert``, strict); return the Struct.

    ``unknown`` and ``missing`` word those two problems, formatted with ``key`` (the key at
    fault) and ``keys`` (the declared names, in order). A problem raises :class:`KeyProblem`;
    the caller places it in the file.
    """
    names = declared_keys(declaration)
    listed = ", ".join(names)
    for key in data:
        if key not in names:
            raise KeyProblem(key, unknown.format(key=key, keys=listed))
    info = struct_info(declaration)
    for field in info.fields:
        if field.required and field.encode_name not in data:
            raise KeyProblem(field.encode_name, missing.format(key=field.encode_name, keys=listed))
    try:
        return msgspec.convert(data, declaration, strict=True)
    except msgspec.ValidationError as exc:
        raise _key_problem(declaration, data, str(exc)) from None


_AT = re.compile(r"^(?P<message>.*?)(?: - at `\$(?P<path>[^`]*)`)?$", re.DOTALL)


def _key_problem(declaration: type[Struct], data: dict[str, Any], message: str) -> KeyProblem:
    """msgspec's answer ("Expected `float` < 1.0 - at `$.alpha`") in the declaration's words."""
    match = _AT.match(message)
    assert match is not None  # the pattern matches any text
    path = match.group("path") or ""
    key = re.split(r"[.\[]", path.lstrip("."), maxsplit=1)[0]
    value = data.get(key)
    if key == "tags":
        return KeyProblem(key, f"expected {_tags_expected(value, path)}, got {_shown(value)}")
    if key == "review" and isinstance(value, dict) and path.count(".") >= 2:
        inner = path.split(".")[2].split("[")[0]  # a key of the table: named in its words
        if inner in declared_keys(ReviewTable):
            problem = _key_problem(ReviewTable, value, message.replace("$.review.", "$."))
            return KeyProblem(key, f"review.{inner}: {problem.problem}")
    field = declared_field(declaration, key)
    expected = _expected(field.type, value)
    choices = _choices(get_type_hints(declaration, include_extras=True)[field.name])
    if choices:  # in declared order (msgspec.inspect sorts them)
        quoted = [repr(choice) for choice in choices]
        expected = " or ".join(quoted) if len(quoted) == 2 else "one of " + ", ".join(quoted)
    return KeyProblem(key, f"expected {expected}, got {_shown(value)}")


def _choices(annotation: Any) -> tuple[Any, ...]:
    """The values of the ``Literal`` inside an annotation, or () when it has none."""
    if get_origin(annotation) is Literal:
        return get_args(annotation)
    for inner in get_args(annotation):
        found = _choices(inner)
        if found:
            return found
    return ()


def _tags_expected(value: object, path: str) -> str:
    if not isinstance(value, dict):
        return TAG_TABLE_EXPECTED
    unknown = sorted(set(value) - set(MEANINGS))
    if unknown:
        return f"a table with the keys {', '.join(MEANINGS)} (not {', '.join(unknown)})"
    meaning = path.split(".")[2].split("[")[0] if path.count(".") >= 2 else MEANINGS[0]
    return f"tags.{meaning} as a list of tag names"


def _expected(type_info: Any, value: object) -> str:
    """What a key of this type expects, in words: its declared words, or its choices."""
    if isinstance(type_info, msgspec.inspect.UnionType):
        inner = [t for t in type_info.types if not isinstance(t, msgspec.inspect.NoneType)]
        return _expected(inner[0], value)
    if isinstance(type_info, msgspec.inspect.Metadata):
        extra = type_info.extra or {}
        if "a_number" in extra and _no_number(value):
            return str(extra["a_number"])
        if "expected" in extra:
            return str(extra["expected"])
        return _expected(type_info.type, value)
    return "a value of another type"


def _no_number(value: object) -> bool:
    if isinstance(value, bool) or not isinstance(value, Real):
        return True
    return isinstance(value, float) and math.isnan(value)


def _shown(value: object) -> str:
    """A value as an error quotes it: its repr, or just 'list'/'dict' for a whole structure."""
    return type(value).__name__ if isinstance(value, dict | list) else repr(value)
