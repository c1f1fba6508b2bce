"""Loading the evaltui run format (JSONL, CSV, Parquet): strict values, errors that say where."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest

from evaltui.core.errors import InputError
from evaltui.core.read.formats import detect_format, load_run


def write_lines(path: Path, lines: list[str]) -> Path:
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_jsonl_loads_canonical_columns_and_turns_int_ids_into_strings(tmp_path):
    path = write_lines(
        tmp_path / "run.jsonl",
        [
            '{"item_id": 1, "passed": true, "slice": "a", "input": "hi"}',
            '{"item_id": "two", "passed": false, "status": "ok"}',
        ],
    )
    run = load_run(path)
    assert run.source.format == "jsonl"
    assert run.table["item_id"].to_list() == ["1", "two"]
    assert run.table["passed"].to_list() == [True, False]
    assert run.table["epoch"].to_list() == [1, 1]
    assert run.table["status"].to_list() == ["ok", "ok"]
    assert run.table.schema["passed"] == pl.Boolean
    assert "input" not in run.table.columns  # text stays on disk until asked for
    assert len(run.source.sha256) == 64


@pytest.mark.parametrize(
    ("value", "shown"), [('"pass"', '"pass"'), ("1", "1"), ('"true"', '"true"'), ("0.0", "0.0")]
)
def test_jsonl_verdict_that_is_not_a_boolean_names_file_line_field_and_value(
    tmp_path, value, shown
):
    path = write_lines(
        tmp_path / "run.jsonl",
        [
            '{"item_id": "a", "passed": true}',
            '{"item_id": "b", "passed": false}',
            f'{{"item_id": "c", "passed": {value}}}',
        ],
    )
    with pytest.raises(InputError) as err:
        load_run(path)
    message = str(err.value)
    assert message.startswith(f"{path}:3: field 'passed'")
    assert shown in message and "true or false" in message
    assert "\n" not in message


def test_jsonl_null_verdict_is_an_error_unless_the_record_errored(tmp_path):
    bad = write_lines(
        tmp_path / "bad.jsonl",
        ['{"item_id": "a", "passed": true}', '{"item_id": "b", "passed": null}'],
    )
    with pytest.raises(InputError, match=r"bad.jsonl:2: field 'passed': missing"):
        load_run(bad)
    ok = write_lines(
        tmp_path / "ok.jsonl",
        [
            '{"item_id": "a", "passed": true}',
            '{"item_id": "b", "passed": null, "status": "timeout"}',
        ],
    )
    assert load_run(ok).table["status"].to_list() == ["ok", "timeout"]


def test_jsonl_missing_passed_key_is_reported_on_its_line(tmp_path):
    path = write_lines(
        tmp_path / "run.jsonl", ['{"item_id": "a", "passed": true}', '{"item_id": "b"}']
    )
    with pytest.raises(InputError, match=r"run.jsonl:2: field 'passed': missing"):
        load_run(path)


def test_jsonl_line_numbers_count_blank_lines(tmp_path):
    path = tmp_path / "run.jsonl"
    path.write_text('{"item_id": "a", "passed": true}\n\n   \n{"item_id": "b", "passed": "yes"}\n')
    with pytest.raises(InputError, match=r"run.jsonl:4: field 'passed'"):
        load_run(path)


def test_empty_file_is_an_error_naming_the_file(tmp_path):
    path = tmp_path / "empty.jsonl"
    path.write_text("")
    with pytest.raises(InputError, match=r"empty.jsonl: the file is empty"):
        load_run(path)


def test_truncated_json_line_names_the_line(tmp_path):
    path = tmp_path / "cut.jsonl"
    path.write_text('{"item_id": "a", "passed": true}\n{"item_id": "b", "pass')
    with pytest.raises(InputError) as err:
        load_run(path)
    assert str(err.value).startswith(f"{path}:2: the line is not valid JSON")


def test_record_that_is_not_an_object_names_the_line(tmp_path):
    path = write_lines(tmp_path / "run.jsonl", ['{"item_id": "a", "passed": true}', "[1, 2]"])
    with pytest.raises(InputError, match=r"run.jsonl:2: expected a JSON object"):
        load_run(path)


def test_missing_item_id_column_is_named(tmp_path):
    path = write_lines(tmp_path / "run.jsonl", ['{"id": "a", "passed": true}'])
    with pytest.raises(InputError, match=r"field 'item_id': no 'item_id' column"):
        load_run(path)


def test_unknown_status_value_is_refused(tmp_path):
    path = write_lines(
        tmp_path / "run.jsonl", ['{"item_id": "a", "passed": true, "status": "crashed"}']
    )
    with pytest.raises(InputError, match=r"run.jsonl:1: field 'status'.*'crashed'"):
        load_run(path)


def test_csv_with_no_id_column_is_an_error(tmp_path):
    path = tmp_path / "run.csv"
    path.write_text("id,passed\na,true\n")
    with pytest.raises(InputError) as err:
        load_run(path, "csv")
    assert str(err.value).startswith(f"{path}: field 'item_id': no 'item_id' column")


def test_csv_verdict_other_than_true_false_names_the_data_row(tmp_path):
    path = tmp_path / "run.csv"
    path.write_text("item_id,passed\na,true\nb,FALSE\nc,1\n")
    with pytest.raises(InputError, match=r"run.csv \(record data row 3\): field 'passed'.*'1'"):
        load_run(path)


def test_csv_loads_and_reads_text_columns_lazily(tmp_path):
    path = tmp_path / "run.csv"
    messages = json.dumps([{"role": "user", "content": "hi, there"}])
    pl.DataFrame(
        {
            "item_id": ["a", "b"],
            "passed": ["true", "false"],
            "output": ["x", "y"],
            "messages": [messages, None],
        }
    ).write_csv(path)
    run = load_run(path)
    assert run.source.format == "csv"
    assert run.table["passed"].to_list() == [True, False]
    transcript = run.transcripts.read(0)
    assert transcript.output == "x"
    assert transcript.messages[0].content == "hi, there"


def test_parquet_round_trip_with_messages(tmp_path):
    path = tmp_path / "run.parquet"
    pl.DataFrame(
        {
            "item_id": ["a", "b"],
            "passed": [True, False],
            "score:judge": [4.0, 2.0],
            "input": ["q1", "q2"],
            "messages": [[{"role": "user", "content": "q1"}], [{"role": "user", "content": "q2"}]],
        }
    ).write_parquet(path)
    run = load_run(path)
    assert detect_format(path) == "parquet"
    assert run.score_columns == ["score:judge"]
    assert run.transcripts.read(1).messages[0].content == "q2"
    assert run.transcripts.read_field([1, 0], "input") == ["q2", "q1"]


def test_parquet_integer_verdicts_are_refused(tmp_path):
    path = tmp_path / "run.parquet"
    pl.DataFrame({"item_id": ["a", "b"], "passed": [1, 0]}).write_parquet(path)
    with pytest.raises(InputError, match=r"field 'passed': expected true or false, got 1"):
        load_run(path)


def test_jsonl_transcript_is_read_from_its_line_on_demand(tmp_path):
    path = write_lines(
        tmp_path / "run.jsonl",
        [
            json.dumps({"item_id": "a", "passed": True, "output": "first"}),
            json.dumps(
                {
                    "item_id": "b",
                    "passed": False,
                    "input": "q",
                    "output": "second",
                    "target": "t",
                    "explanation": "why",
                    "messages": [{"role": "user", "content": [{"type": "text", "text": "q"}]}],
                    "model": "m1",
                }
            ),
        ],
    )
    run = load_run(path)
    t = run.transcripts.read(1)
    assert (t.input, t.output, t.target, t.explanation) == ("q", "second", "t", "why")
    assert t.messages[0].role == "user" and t.messages[0].content == "q"
    assert t.metadata == {"model": "m1"}


def test_format_is_detected_from_content_not_name(tmp_path):
    path = write_lines(tmp_path / "run.txt", ['{"item_id": "a", "passed": true}'])
    assert detect_format(path) == "jsonl"
    csv_path = tmp_path / "run.dat"
    csv_path.write_text("item_id,passed\na,true\n")
    assert detect_format(csv_path) == "csv"


def test_directory_and_missing_paths_are_clear_errors(tmp_path):
    with pytest.raises(InputError, match="is a directory"):
        load_run(tmp_path)
    with pytest.raises(InputError, match="no such file"):
        load_run(tmp_path / "nope.jsonl")
