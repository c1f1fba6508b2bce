"""Reading preference files (evaltui.core.read.formats.preference): what is accepted, and a one-line
error naming the file, the line, the field and what was expected for everything else."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from evaltui.core.errors import InputError
from evaltui.core.read.formats.preference import Judgment, read_preferences


def _jsonl(tmp_path: Path, records: list[object], name: str = "p.jsonl") -> Path:
    path = tmp_path / name
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def _csv(tmp_path: Path, text: str, name: str = "p.csv") -> Path:
    path = tmp_path / name
    path.write_bytes(text.encode("utf-8"))
    return path


def test_two_system_jsonl_accepts_a_b_tie_and_baseline_candidate_in_any_case(tmp_path):
    path = _jsonl(
        tmp_path,
        [
            {"item_id": "q1", "preference": "A", "why": "ignored"},
            {"item_id": "q2", "preference": " b "},
            {"item_id": 3, "preference": "Tie"},
            {"item_id": "q4", "preference": "BASELINE"},
            {"item_id": "q5", "preference": "candidate"},
        ],
    )
    source = read_preferences(path)
    assert [j.outcome for j in source.judgments] == ["a", "b", "tie", "a", "b"]
    assert [j.item_id for j in source.judgments] == ["q1", "q2", "3", "q4", "q5"]
    assert source.systems == ("A", "B")
    assert source.named_systems is False
    assert source.format == "jsonl"
    assert source.sha256 == hashlib.sha256(path.read_bytes()).hexdigest()
    assert source.size == path.stat().st_size
    assert source.judgments[0] == Judgment("q1", "A", "B", "a", 1)


def test_csv_with_system_columns_keeps_the_order_systems_appear_in_and_the_line_numbers(tmp_path):
    path = _csv(
        tmp_path,
        "\ufeffitem_id,system_a,system_b,preference,explanation\n"
        'q1,v1,v2,B,"long\nexplanation"\n'
        "\n"
        "q1,v3,v1,a,short\n"
        "q2,v2,v1,TIE,\n",
    )
    source = read_preferences(path)
    assert source.format == "csv"
    assert source.named_systems is True
    assert source.systems == ("v1", "v2", "v3")
    assert source.judgments == (
        Judgment("q1", "v1", "v2", "b", 2),
        Judgment("q1", "v3", "v1", "a", 5),
        Judgment("q2", "v2", "v1", "tie", 6),
    )


def test_the_same_item_may_be_judged_once_per_pair(tmp_path):
    path = _jsonl(
        tmp_path,
        [
            {"item_id": "q1", "system_a": "x", "system_b": "y", "preference": "A"},
            {"item_id": "q1", "system_a": "x", "system_b": "z", "preference": "A"},
            {"item_id": "q1", "system_a": "z", "system_b": "y", "preference": "A"},
        ],
    )
    assert len(read_preferences(path).judgments) == 3


def _error(path: Path) -> str:
    with pytest.raises(InputError) as info:
        read_preferences(path)
    message = str(info.value)
    assert "\n" not in message
    assert message.startswith(str(path))
    return message


@pytest.mark.parametrize(
    ("record", "expected"),
    [
        (
            {"item_id": "q2", "preference": "x"},
            ":2: field 'preference': expected A, B or tie, or baseline/candidate "
            "(case-insensitive), got 'x'",
        ),
        ({"item_id": "q2", "preference": None}, ":2: field 'preference': expected A, B or tie"),
        ({"item_id": "q2", "preference": 1}, "field 'preference': expected A, B or tie"),
        (
            {"item_id": "q2"},
            ":2: field 'preference': expected A, B or tie, or baseline/candidate "
            "(case-insensitive), got nothing (the field is missing)",
        ),
        ({"preference": "A"}, ":2: field 'item_id': missing"),
        ({"item_id": True, "preference": "A"}, "field 'item_id': expected a string or an integer"),
        ({"item_id": 1.5, "preference": "A"}, "field 'item_id': expected a string or an integer"),
        ({"item_id": " ", "preference": "A"}, "field 'item_id': expected a non-empty item id"),
        (
            {"item_id": "q2", "system_a": "x", "system_b": "y", "preference": "A"},
            ":2: field 'system_a': this record names its systems but the first one does not",
        ),
    ],
)
def test_a_bad_record_is_one_line_naming_the_file_line_field_and_expectation(
    tmp_path, record, expected
):
    path = _jsonl(tmp_path, [{"item_id": "q1", "preference": "A"}, record])
    assert expected in _error(path)


@pytest.mark.parametrize(
    ("record", "expected"),
    [
        (
            {"item_id": "q2", "system_a": "x", "preference": "A"},
            ":2: field 'system_b': expected the name of the system judged",
        ),
        (
            {"item_id": "q2", "system_a": "x", "system_b": "", "preference": "A"},
            ":2: field 'system_b': expected the name of the system judged",
        ),
        (
            {"item_id": "q2", "system_a": "x", "system_b": "x", "preference": "A"},
            ":2: field 'system_b': system_a and system_b are the same system",
        ),
        (
            {"item_id": "q2", "system_a": "x", "system_b": "y", "preference": "baseline"},
            ":2: field 'preference': expected A, B or tie (case-insensitive), got 'baseline'",
        ),
        (
            {"item_id": "q1", "system_a": "y", "system_b": "x", "preference": "B"},
            ":2: field 'item_id': item 'q1' is judged twice for the pair 'y' / 'x' (first on "
            "line 1)",
        ),
        ({"item_id": "q2", "preference": "A"}, "this record does not name its systems"),
    ],
)
def test_a_bad_record_of_a_named_file_is_one_line_too(tmp_path, record, expected):
    path = _jsonl(
        tmp_path, [{"item_id": "q1", "system_a": "x", "system_b": "y", "preference": "A"}, record]
    )
    assert expected in _error(path)


def test_a_line_that_is_not_json_or_not_an_object_names_the_line(tmp_path):
    path = tmp_path / "p.jsonl"
    path.write_text('{"item_id": "q1", "preference": "A"}\n{"item_id": \n', encoding="utf-8")
    assert ":2: the line is not valid JSON" in _error(path)
    path.write_text('{"item_id": "q1", "preference": "A"}\n["q2", "A"]\n', encoding="utf-8")
    assert ":2: expected a JSON object per line, got list" in _error(path)
    path.write_text('{"item_id": "q1", "preference": "A", "preference": "B"}\n', encoding="utf-8")
    assert "appears twice in one object" in _error(path)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("item_id,preference\nq1,A\nq2,B,extra\n", ":3: expected 2 cells as in the header, got 3"),
        ("item_id,preference\nq1\n", ":2: expected 2 cells as in the header, got 1"),
        ("item_id,winner\nq1,A\n", ":1: the header has no 'preference' column"),
        ("id,preference\nq1,A\n", ":1: the header has no 'item_id' column"),
        ("item_id,system_a,preference\nq1,x,A\n", ":1: the header has no 'system_b' column"),
        ("item_id,preference,preference\nq1,A,B\n", ":1: field 'preference': the header names"),
        ("item_id,preference\nq1,\n", ":2: field 'preference': expected A, B or tie"),
        ("item_id,preference\n,A\n", ":2: field 'item_id': expected a non-empty item id"),
        ("", "the file is empty"),
        ("item_id,preference\n", "no judgments"),
        ('item_id,preference\n"q1,A\n', "not valid CSV"),
    ],
)
def test_a_bad_csv_is_one_line_naming_the_line(tmp_path, text, expected):
    assert expected in _error(_csv(tmp_path, text))


def test_a_file_that_is_not_utf8_or_missing_is_named(tmp_path):
    path = tmp_path / "p.csv"
    path.write_bytes(b"item_id,preference\nq\xff1,A\n")
    assert ":2: the file is not UTF-8" in _error(path)
    gone = tmp_path / "gone.jsonl"
    with pytest.raises(InputError, match="cannot read the file"):
        read_preferences(gone)
