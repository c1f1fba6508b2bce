"""A field of the wrong type is refused in one line naming the file, line, field and value.

polars reads any JSON value into a text column (`1.5` becomes the id "1.5", `[1]` the slice
"[1]"), and polars reads a lone surrogate escape as a NUL that is not in the file; Python keeps
the surrogate, which no file or terminal can hold. An id is a non-empty string or an integer
that fits in 64 bits; a slice, cluster or status is a string (or null).
"""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest

from evaltui.cli.main import main
from evaltui.core.errors import InputError
from evaltui.core.read.formats import load_run

DATA = Path(__file__).resolve().parent.parent.parent / "data"


def _jsonl(tmp_path: Path, first: str, name: str = "run.jsonl", extra: str = "") -> Path:
    """A 40-record run whose first line is `first` (raw JSON text)."""
    lines = [first] + [
        json.dumps({"item_id": f"q{i}", "passed": i % 2 == 0}) + extra for i in range(1, 40)
    ]
    path = tmp_path / name
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        ("1.5", "1.5"),
        ("true", "true"),
        ("[1]", "[1]"),
        ('{"a": 1}', '{"a": 1}'),
        (str(2**70), str(2**70)),
        ("1e3", "1000.0"),
        ('"x\\ud800"', "lone surrogate"),
        ('"x\\u0000"', "NUL"),
    ],
    ids=["float", "bool", "list", "object", "2**70", "exponent", "lone-surrogate", "nul"],
)
def test_a_jsonl_id_of_the_wrong_type_is_refused_naming_line_field_and_value(
    tmp_path, value, shown
):
    path = _jsonl(tmp_path, f'{{"item_id": {value}, "passed": true}}')
    with pytest.raises(InputError) as caught:
        load_run(path)
    assert (caught.value.line, caught.value.field) == (1, "item_id")
    assert shown in caught.value.problem


def test_an_integer_id_that_fits_in_64_bits_and_an_escaped_emoji_id_are_accepted(tmp_path):
    path = _jsonl(tmp_path, '{"item_id": -9223372036854775808, "passed": true}')
    assert load_run(path).table["item_id"][0] == "-9223372036854775808"
    path = _jsonl(tmp_path, '{"item_id": "q\\ud83d\\ude00", "passed": true}', "emoji.jsonl")
    assert load_run(path).table["item_id"][0] == "q😀"


@pytest.mark.parametrize("field", ["slice", "cluster", "status"])
@pytest.mark.parametrize("value", ["3", "1.5", '["a"]', '{"a": 1}', "true"])
def test_a_label_that_is_not_a_string_is_refused(tmp_path, field, value):
    path = _jsonl(tmp_path, f'{{"item_id": "q0", "passed": true, "{field}": {value}}}')
    with pytest.raises(InputError) as caught:
        load_run(path)
    assert (caught.value.line, caught.value.field) == (1, field)
    assert "expected a string or null" in caught.value.problem
    assert json.dumps(json.loads(value)) in caught.value.problem


def test_a_label_found_wrong_far_down_the_file_names_its_own_line(tmp_path):
    path = _jsonl(tmp_path, '{"item_id": "q0", "passed": true, "slice": "a"}')
    lines = path.read_text(encoding="utf-8").splitlines()
    lines[30] = '{"item_id": "q30", "passed": true, "slice": 7}'
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(InputError) as caught:
        load_run(path)
    assert (caught.value.line, caught.value.field) == (31, "slice")


def test_an_epoch_beyond_64_bits_is_refused_naming_its_line(tmp_path):
    path = _jsonl(tmp_path, '{"item_id": "q0", "passed": true, "epoch": 9223372036854775808}')
    with pytest.raises(InputError) as caught:
        load_run(path)
    assert (caught.value.line, caught.value.field) == (1, "epoch")


@pytest.mark.parametrize("constant", ["NaN", "Infinity", "-Infinity"])
def test_nan_or_infinity_in_a_jsonl_line_names_the_line_and_key(tmp_path, constant):
    path = _jsonl(tmp_path, '{"item_id": "q0", "passed": true}', extra="")
    lines = path.read_text(encoding="utf-8").splitlines()
    lines[4] = f'{{"item_id": "q4", "passed": true, "score": {constant}}}'
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(InputError) as caught:
        load_run(path)
    assert (caught.value.line, caught.value.field) == (5, "score")
    assert constant in caught.value.problem


def test_the_cli_says_it_in_one_line_with_exit_2(tmp_path, capsys):
    base = _jsonl(tmp_path, '{"item_id": 1.5, "passed": true}', "base.jsonl")
    cand = _jsonl(tmp_path, '{"item_id": "q0", "passed": true}', "cand.jsonl")
    assert main(["report", str(base), str(cand)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "base.jsonl:1: field 'item_id'" in err and "1.5" in err


# ---------------------------------------------------------------------------------------------
# Parquet columns


def _parquet(tmp_path: Path, **columns: pl.Series) -> Path:
    n = 40
    frame = pl.DataFrame(
        {"item_id": [f"q{i}" for i in range(n)], "passed": [i % 2 == 0 for i in range(n)]}
    ).with_columns(**{name: series for name, series in columns.items()})
    path = tmp_path / "run.parquet"
    frame.write_parquet(path)
    return path


@pytest.mark.parametrize(
    ("field", "series", "type_name"),
    [
        ("slice", pl.Series([["a"]] * 40), "List"),
        ("cluster", pl.Series(list(range(40))), "Int64"),
        ("status", pl.Series([1.5] * 40), "Float64"),
    ],
)
def test_a_parquet_label_column_that_is_not_text_is_refused_naming_the_column(
    tmp_path, field, series, type_name
):
    path = _parquet(tmp_path, **{field: series})
    with pytest.raises(InputError) as caught:
        load_run(path)
    assert caught.value.field == field and type_name in caught.value.problem


def test_a_parquet_epoch_beyond_64_bits_is_refused(tmp_path):
    path = _parquet(tmp_path, epoch=pl.Series([1] * 39 + [2**63], dtype=pl.UInt64))
    with pytest.raises(InputError) as caught:
        load_run(path)
    assert caught.value.field == "epoch" and caught.value.record == "row 39"


def test_a_parquet_id_holding_a_nul_is_refused(tmp_path):
    path = _parquet(tmp_path, item_id=pl.Series([f"q{i}" for i in range(39)] + ["q\x00"]))
    with pytest.raises(InputError) as caught:
        load_run(path)
    assert caught.value.field == "item_id" and "NUL" in caught.value.problem


# ---------------------------------------------------------------------------------------------
# Harness logs read in Python


def _inspect_log(tmp_path: Path, sample_id) -> Path:
    source = DATA / "inspect_ai" / "2025-05-12T20-28-13-04-00_popularity.json"
    log = json.loads(source.read_text(encoding="utf-8"))
    log["samples"][1]["id"] = sample_id
    path = tmp_path / source.name
    path.write_text(json.dumps(log, indent=2), encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("sample_id", "shown"),
    [(1.5, "1.5"), (2**70, "64 bits"), ("x\ud800", "lone surrogate"), ([1], "[1]")],
    ids=["float", "2**70", "lone-surrogate", "list"],
)
def test_an_inspect_sample_id_of_the_wrong_type_is_refused(tmp_path, sample_id, shown):
    with pytest.raises(InputError) as caught:
        load_run(_inspect_log(tmp_path, sample_id))
    assert caught.value.field.endswith("id") and shown in caught.value.problem


def test_an_lm_eval_doc_id_that_is_a_float_is_refused_naming_its_line(tmp_path):
    source = next((DATA / "lm_eval" / "sshleifer__tiny-gpt2").glob("samples_*.jsonl"))
    lines = source.read_text(encoding="utf-8").splitlines()
    record = json.loads(lines[2])
    record["doc_id"] = 2.5
    lines[2] = json.dumps(record)
    path = tmp_path / source.name
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(InputError) as caught:
        load_run(path)
    assert (caught.value.line, caught.value.field) == (3, "doc_id")
    assert "2.5" in caught.value.problem


# ---------------------------------------------------------------------------------------------
# A UTF-8 byte order mark


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("run.jsonl", '{"item_id": "q1", "passed": true}\n{"item_id": "q2", "passed": false}\n'),
        ("run.csv", "item_id,passed,output\nq1,true,a\nq2,false,b\n"),
    ],
)
def test_a_utf8_bom_is_not_part_of_the_first_column_or_key(tmp_path, name, text):
    path = tmp_path / name
    path.write_bytes(b"\xef\xbb\xbf" + text.encode("utf-8"))
    run = load_run(path)
    assert run.source.format == name.split(".")[1]
    assert run.table["item_id"].to_list() == ["q1", "q2"]
    assert run.table["passed"].to_list() == [True, False]
    run.transcripts.read(0)  # the first record reads too


def test_a_bom_jsonl_read_block_by_block_keeps_its_first_record(tmp_path):
    from evaltui.core.read.formats.jsonl_scan import scan_jsonl

    path = tmp_path / "run.jsonl"
    lines = "".join(json.dumps({"item_id": f"q{i}", "passed": True}) + "\n" for i in range(300))
    path.write_bytes(b"\xef\xbb\xbf" + lines.encode("utf-8"))
    scan = scan_jsonl(
        path, {"item_id": pl.String(), "passed": pl.Boolean()}, block=1024, whole_file_max=0
    )
    assert scan.frame["item_id"][0] == "q0" and scan.frame.height == 300
