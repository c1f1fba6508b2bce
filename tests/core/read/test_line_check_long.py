"""The long-line form of the strict line check flags every line the walking form flags.

`LineCheck.flagged_long` (counted key tokens plus the typed patterns) replaces `flagged`
(`key.*key` in one regex) on files of long lines; a miss there would let polars' reading of a
duplicated, escaped or mistyped key through unchecked. These generate lines of every shape the
module docstring names and compare the two expressions' suspects line by line.
"""

from __future__ import annotations

import json

import numpy as np
import polars as pl
from hypothesis import given, settings
from hypothesis import strategies as st

from evaltui.core.read.formats.jsonl_scan import LONG_LINE, _line_check, suspect_lines
from tests.conftest import examples

KEYS = ["item_id", "passed", "score", "slice", "scöre", "ключ", "a.b*c", "x-y", "🙂k"]
TEXTS = ["slice", "ключ", "x-y"]
IDS = ["item_id", "🙂k"]
BLANKS = st.sampled_from(["", " ", "\t", "\r", "  \t"])


def _escaped(key: str) -> str:
    """The key with one character written as a JSON escape (\\uXXXX, or \\/ for a slash)."""
    return "".join(
        f"\\u{ord(c):04x}" if i == 0 and ord(c) < 0x10000 else c for i, c in enumerate(key)
    )


@st.composite
def _keys(draw: st.DrawFn) -> str:
    key = draw(st.sampled_from(KEYS + ["output", "metrics", "id"]))
    shape = draw(st.sampled_from(["plain", "plain", "escaped", "upper", "unicode-escaped"]))
    if shape == "escaped":
        return _escaped(key)
    if shape == "upper":
        return "".join(f"\\u{ord(c):04X}" for c in key[:1]) + key[1:]
    if shape == "unicode-escaped":
        return json.dumps(key)[1:-1]  # ensure_ascii: non-ASCII keys escaped throughout
    return key


_SCALARS = st.one_of(
    st.sampled_from(
        [
            "true",
            "false",
            "null",
            "0",
            "-1",
            "1.5",
            "1e3",
            "12345678901234567890",
            "-9223372036854775808",
            "[1]",
            "{}",
            '""',
            "nul",
            "-",
            "+1",
            ".5",
        ]
    ),
    st.integers().map(str),
    st.floats(allow_nan=False).map(json.dumps),
    st.text().map(lambda t: json.dumps(t, ensure_ascii=False)),
    st.text().map(json.dumps),
)


@st.composite
def _values(draw: st.DrawFn, depth: int = 0) -> str:
    kind = draw(st.sampled_from(["scalar", "scalar", "quoted-key", "object", "array"]))
    if kind == "quoted-key":  # a statistics key inside a string value, as text quotes it
        key = draw(st.sampled_from(KEYS))
        return json.dumps(
            f'say "{key}": {draw(_SCALARS)} \\ "{key}"', ensure_ascii=draw(st.booleans())
        )
    if kind == "object" and depth < 2:
        return draw(_objects(depth + 1))
    if kind == "array" and depth < 2:
        return "[" + ",".join(draw(st.lists(_values(depth + 1), max_size=3))) + "]"
    return draw(_SCALARS)


@st.composite
def _objects(draw: st.DrawFn, depth: int = 0) -> str:
    members = draw(st.lists(st.tuples(_keys(), BLANKS, BLANKS, _values(depth)), max_size=6))
    body = ",".join(f'"{k}"{a}:{b}{v}' for k, a, b, v in members)
    return "{" + body + "}"


def _suspects(expr: pl.Expr, lines: list[str]) -> set[int]:
    frame = pl.DataFrame({"line": lines}).with_row_index("n")
    return set(frame.filter(expr).get_column("n").to_list())


_LINES = st.lists(
    st.one_of(_objects(), st.text(), _objects().map(lambda o: o + " " + o)), min_size=1, max_size=30
)


def _long_check_covers_the_walking_check(lines: list[str], size: int) -> None:
    lines = [line.replace("\n", " ") for line in lines]
    schema = {key: pl.String() for key in KEYS[:size]}
    check = _line_check(schema, [k for k in TEXTS if k in schema], [k for k in IDS if k in schema])
    assert check.flagged is not None and check.flagged_long is not None
    assert _suspects(check.flagged, lines) <= _suspects(check.flagged_long, lines)


# The default run draws 30 sets of lines (about half a second), CI's thorough stage 300
# (`tests.conftest.examples`).
@settings(max_examples=examples(300), deadline=None)
@given(lines=_LINES, size=st.integers(2, len(KEYS)))
def test_the_long_line_check_flags_every_line_the_walking_check_flags(lines, size):
    _long_check_covers_the_walking_check(lines, size)


def test_a_key_holding_a_colon_or_blank_keeps_the_walking_check_for_long_lines():
    check = _line_check({"a:b": pl.String(), "c d": pl.String()}, (), ())
    assert check.flagged_long is None
    assert check.expression(10 * LONG_LINE) is check.flagged


def test_long_lines_with_a_key_twice_escaped_or_mistyped_are_suspects():
    pad = "x" * LONG_LINE
    lines = [
        {"item_id": "a", "passed": True, "output": pad},
        '{"item_id": "b", "passed": true, "output": "PAD", "passed" : false}'.replace("PAD", pad),
        '{"item_id": "c", "p\\u0061ssed": true, "output": "PAD"}'.replace("PAD", pad),
        '{"item_id": 1.5, "passed": true, "output": "PAD"}'.replace("PAD", pad),
        {"item_id": "e", "passed": True, "output": f'{pad} "passed": false'},
        '{"item_id": "f", "slice": 3, "passed": true, "output": "PAD"}'.replace("PAD", pad),
    ]
    text = "\n".join(line if isinstance(line, str) else json.dumps(line) for line in lines)
    schema = {"item_id": pl.String(), "passed": pl.Boolean(), "slice": pl.String()}
    found = suspect_lines(text.encode(), schema, texts=["slice"], ids=["item_id"])
    assert found.tolist() == [2, 3, 4, 6]
    assert found.dtype == np.int64
