"""The JSONL scan gives the same columns, sha256 and line index as reading the file plainly,
whole or block by block, whatever the block boundaries cut through."""

from __future__ import annotations

import hashlib
import json

import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evaltui.core.read.formats.jsonl_scan import scan_jsonl
from tests.conftest import examples

SCHEMA = {"item_id": pl.String, "passed": pl.Boolean}

records = st.lists(
    st.one_of(
        st.builds(
            lambda i, ok, pad: {"item_id": f"q{i}", "passed": ok, "output": "x" * pad},
            st.integers(0, 10**6),
            st.booleans(),
            st.integers(0, 300),
        ),
        st.sampled_from(["", "   ", "\t"]),  # blank lines: skipped, but they count as lines
    ),
    max_size=40,
)


def reference(data: bytes):
    """What the scan must find, computed the plain way."""
    starts, numbers, offset = [], [], 0
    for number, line in enumerate(data.split(b"\n"), start=1):
        if line.strip():
            starts.append(offset)
            numbers.append(number)
        offset += len(line) + 1
    return starts, numbers


@pytest.mark.parametrize("mode", ["whole", "blocks"])
@given(rows=records, block=st.sampled_from([64, 257, 4096]), final_newline=st.booleans())
@settings(max_examples=examples(60), deadline=None)
def test_the_scan_matches_a_plain_reading_of_the_file(
    tmp_path_factory, mode, rows, block, final_newline
):
    path = tmp_path_factory.mktemp("scan") / "run.jsonl"
    lines = [json.dumps(r) if isinstance(r, dict) else r for r in rows]
    data = ("\n".join(lines) + ("\n" if final_newline and lines else "")).encode()
    path.write_bytes(data)
    if not any(isinstance(r, dict) for r in rows):
        return  # polars refuses a file without records; the loader reports that itself
    limit = 10**9 if mode == "whole" else 0
    scan = scan_jsonl(path, SCHEMA, block=block, whole_file_max=limit)
    starts, numbers = reference(data)
    assert scan.sha256 == hashlib.sha256(data).hexdigest()
    assert scan.lines.starts.tolist() == starts
    assert scan.lines.line_numbers.tolist() == numbers
    assert scan.frame["item_id"].to_list() == [r["item_id"] for r in rows if isinstance(r, dict)]
    assert scan.frame["passed"].to_list() == [r["passed"] for r in rows if isinstance(r, dict)]


def test_a_line_longer_than_the_block_is_read_whole(tmp_path):
    path = tmp_path / "run.jsonl"
    rows = [
        {"item_id": "a", "passed": True, "output": "y" * 10_000},
        {"item_id": "b", "passed": False},
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    scan = scan_jsonl(path, SCHEMA, block=64, whole_file_max=0)
    assert scan.frame["item_id"].to_list() == ["a", "b"]
    assert scan.lines.starts.tolist() == [0, len(json.dumps(rows[0])) + 1]


@settings(max_examples=examples(60), deadline=None)
@given(
    lengths=st.lists(st.integers(0, 1_200), max_size=60),
    tail=st.binary(max_size=5).filter(lambda b: b"\n" not in b),
    cut=st.integers(0, 10**6),
)
def test_line_starts_are_the_offsets_after_every_newline_short_or_long_lines(lengths, tail, cut):
    # short lines take the vectorised compare after a sample, long ones the memchr walk:
    # both must give every offset after a newline, and nothing past `end`
    from evaltui.core.read.formats.jsonl_scan import _line_starts

    data = bytearray(b"".join(b"x" * n + b"\n" for n in lengths) + tail)
    end = min(cut, len(data))
    want, pos = [0], data.find(b"\n", 0, end)
    while pos != -1:
        want.append(pos + 1)
        pos = data.find(b"\n", pos + 1, end)
    assert _line_starts(data, end).tolist() == want
