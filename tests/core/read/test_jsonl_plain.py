"""The plain-file proof stands in for the strict line check only where it is sound.

`jsonl_plain.PlainCount.vouches` lets `scan_jsonl` skip the regular expressions over every
line of a file with no backslash, one colon per statistics key and line, and text columns read
from strings. A wrong proof would let polars' reading of a duplicated, escaped or mistyped key
through unchecked, so these compare the scan's suspects with the line check's own
(`LineCheck.file`, whose completeness `test_jsonl_scan` and `test_line_check_long` pin) on
generated files, with the proof forced on every file, and pin polars' rendering of non-string
values that the proof relies on.
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from evaltui.core.read.formats import jsonl_plain, jsonl_scan
from evaltui.core.read.formats.jsonl_scan import LineCheck, _line_check, scan_jsonl
from tests.conftest import examples

SCHEMA = {"item_id": pl.String(), "passed": pl.Boolean(), "score": pl.Float64()}
IDS = ["item_id"]
TEXTS = ["slice"]

# A JSON value that is not a string, read by polars into a text column.
NOT_STRINGS = ["1.5", "-3", "0", "1e5", "1E+2", "-0.0", "12345678901234567890123", "true",
               "false", "[1]", "[]", '["a"]', '{"a": 1}', "{}"]  # fmt: skip


@pytest.mark.parametrize("value", NOT_STRINGS)
def test_polars_renders_every_non_string_value_in_a_text_column_as_the_proof_expects(value):
    read = pl.read_ndjson(io.BytesIO(f'{{"k": {value}}}'.encode()), schema={"k": pl.String()})
    assert read["k"].str.contains(jsonl_plain._NOT_FROM_A_STRING).item()


def _line(i: int, mutation: str) -> str:
    base = {"item_id": f"i{i}", "passed": i % 2 == 0, "score": 0.5}
    plain = json.dumps(base, separators=(",", ":"))
    if mutation == "twice":
        return plain[:-1] + ',"passed":false}'
    if mutation == "twice-spaced":
        return plain[:-1] + ', "score" : 0.25}'
    if mutation == "escaped":
        return plain.replace('"passed"', '"p\\u0061ssed"')
    if mutation.startswith("id="):
        return plain.replace(f'"i{i}"', mutation[3:])
    if mutation == "extra":
        return plain[:-1] + ',"x":1}'
    if mutation == "nested":
        return plain[:-1] + ',"m":{"passed":false}}'
    if mutation == "missing":
        return json.dumps({"item_id": f"i{i}", "score": 0.5}, separators=(",", ":"))
    if mutation == "null":
        return plain.replace('"score":0.5', '"score":null')
    if mutation == "colon-in-text":
        return plain.replace(f'"i{i}"', f'"i:{i}"')
    if mutation == "key-as-value":
        return plain[:-1] + ',"note":"passed"}'
    return plain


SHAPES = ["twice", "twice-spaced", "escaped", "extra", "nested", "missing", "null",
          "colon-in-text", "key-as-value"]  # fmt: skip
MUTATIONS = ["none"] * 8 + SHAPES + [f"id={v}" for v in NOT_STRINGS]


@pytest.fixture
def forced_proof(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every file goes through the proof, not only those whose first 64 KiB look plain."""
    monkeypatch.setattr(jsonl_scan, "looks_plain", lambda sample, keys, typed: True)


def _suspects_of_both(path: Path) -> tuple[set[int], set[int]]:
    check = _line_check(SCHEMA, TEXTS, IDS)
    expected = check.file(path)
    assert expected is not None
    scan = scan_jsonl(path, SCHEMA, texts=TEXTS, ids=IDS)
    return set(scan.suspects.tolist()), set(expected.tolist())


# The default run draws 40 files (about two seconds), CI's thorough stage 200.
@settings(
    max_examples=examples(200),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(mutations=st.lists(st.sampled_from(MUTATIONS), min_size=1, max_size=12))
def test_the_scan_flags_every_line_the_line_check_flags_when_the_proof_is_tried(
    mutations, tmp_path, forced_proof
):
    path = tmp_path / "run.jsonl"
    path.write_text("\n".join(_line(i, m) for i, m in enumerate(mutations)) + "\n")
    found, expected = _suspects_of_both(path)
    assert expected <= found


@pytest.mark.parametrize("mutation", SHAPES + [f"id={v}" for v in NOT_STRINGS])
def test_one_odd_line_among_plain_ones_is_a_suspect_whenever_the_line_check_flags_it(
    mutation, tmp_path, forced_proof
):
    path = tmp_path / "run.jsonl"
    lines = [_line(i, "none") for i in range(20)]
    lines[7] = _line(7, mutation)
    path.write_text("\n".join(lines) + "\n")
    found, expected = _suspects_of_both(path)
    assert expected <= found


def test_a_missing_key_does_not_hide_a_key_written_twice(tmp_path, forced_proof):
    # the colons add up to one per key and line; the missing key's null gives it away
    path = tmp_path / "run.jsonl"
    path.write_text(_line(0, "twice") + "\n" + _line(1, "missing") + "\n")
    found, expected = _suspects_of_both(path)
    assert expected == {1} and 1 in found


def test_a_plain_file_is_vouched_for_without_the_line_check(tmp_path, monkeypatch):
    path = tmp_path / "run.jsonl"
    path.write_text("".join(_line(i, "none") + "\n" for i in range(5000)))

    def refuse(self: LineCheck, path: Path) -> None:
        raise AssertionError("the line check ran on a file the proof vouches for")

    monkeypatch.setattr(LineCheck, "file", refuse)
    scan = scan_jsonl(path, SCHEMA, texts=TEXTS, ids=IDS)
    assert scan.suspects.size == 0 and scan.frame.height == 5000


def test_a_key_twice_past_the_sampled_head_is_found_by_the_line_check_after_the_proof(tmp_path):
    # the first 64 KiB look plain, so the check is not run beside the parse; the proof fails
    lines = [_line(i, "none") for i in range(5000)] + [_line(5000, "twice")]
    path = tmp_path / "run.jsonl"
    path.write_text("\n".join(lines) + "\n")
    assert jsonl_plain.looks_plain(path.read_bytes()[: 1 << 16], len(SCHEMA))
    scan = scan_jsonl(path, SCHEMA, texts=TEXTS, ids=IDS)
    assert scan.suspects.tolist() == [5001]


def test_an_integer_id_is_left_to_the_line_check(tmp_path):
    path = tmp_path / "run.jsonl"
    path.write_text('{"item_id":7,"passed":true,"score":1}\n')
    frame = pl.read_ndjson(path, schema=SCHEMA)
    count = jsonl_plain.PlainCount()
    data = path.read_bytes()
    count.add(data, len(data))
    assert count.colons == 3 and not count.vouches(frame, IDS)
    assert count.vouches(frame, [])


def test_a_head_with_an_integer_id_has_its_lines_checked_beside_the_parse():
    # the proof cannot vouch for an id read from a number, so the check is not left for after
    head = b'{"item_id": "a", "passed": true}\n{"item_id" : 7, "passed": false}\n'
    assert jsonl_plain.looks_plain(head.replace(b" : 7", b': "7"'), 2, IDS)
    assert not jsonl_plain.looks_plain(head, 2, IDS)
    assert jsonl_plain.looks_plain(head, 2, ())
