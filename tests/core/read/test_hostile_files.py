"""Hostile files get a clear error or a correct result, never a traceback or a hang."""

from __future__ import annotations

import json
import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from evaltui.core.errors import EvalTuiError
from evaltui.core.read.formats import REGISTRY, load_run
from evaltui.core.read.runs import Run
from tests.conftest import examples


def test_deeply_nested_json_line_is_an_error_not_a_crash(tmp_path):
    path = tmp_path / "deep.jsonl"
    deep = "[" * 100_000 + "]" * 100_000
    path.write_text('{"item_id": "a", "passed": true, "output": ' + deep + "}\n")
    try:
        run = load_run(path)
    except EvalTuiError as exc:
        assert "deep.jsonl" in str(exc)
    else:
        assert run.table.height == 1


@pytest.mark.slow
def test_a_50_mb_single_line_loads_without_reading_it_into_the_table(tmp_path):
    path = tmp_path / "long.jsonl"
    big = "x" * (50 * 1024 * 1024)
    with path.open("w") as handle:
        handle.write(json.dumps({"item_id": "a", "passed": True, "output": big}) + "\n")
        handle.write(json.dumps({"item_id": "b", "passed": False, "output": "short"}) + "\n")
    run = load_run(path)
    assert run.table["item_id"].to_list() == ["a", "b"]
    assert "output" not in run.table.columns
    assert len(run.transcripts.read(0).output) == len(big)


def test_invalid_utf8_is_an_error_naming_the_line(tmp_path):
    path = tmp_path / "bad.jsonl"
    path.write_bytes(b'{"item_id": "a", "passed": true}\n{"item_id": "\xff\xfe", "passed": true}\n')
    with pytest.raises(EvalTuiError, match="bad.jsonl"):
        load_run(path)


def test_a_fifo_is_refused_without_blocking(tmp_path):
    fifo = tmp_path / "pipe.jsonl"
    os.mkfifo(fifo)
    with pytest.raises(EvalTuiError, match="not a regular file"):
        load_run(fifo)


def test_a_directory_is_refused(tmp_path):
    with pytest.raises(EvalTuiError, match="is a directory"):
        load_run(tmp_path)


def _check(path) -> None:
    """The contract: every loader gives a valid run or our own error, never another exception."""
    for name in (None, *REGISTRY):
        try:
            run = load_run(path, name)
        except EvalTuiError:
            continue
        assert isinstance(run, Run)
        assert run.table.height > 0
        assert run.table["item_id"].null_count() == 0


FUZZ = settings(
    max_examples=examples(60),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)


@FUZZ
@given(data=st.binary(max_size=2000))
def test_arbitrary_bytes_give_a_run_or_a_load_error(tmp_path, data):
    path = tmp_path / "fuzz.bin"
    path.write_bytes(data)
    _check(path)


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=10), children, max_size=4)
    ),
    max_leaves=10,
)
RECORDS = st.lists(
    st.fixed_dictionaries(
        {},
        optional={
            "item_id": JSON_VALUES,
            "passed": JSON_VALUES,
            "score": JSON_VALUES,
            "epoch": JSON_VALUES,
            "status": JSON_VALUES,
            "slice": JSON_VALUES,
            "messages": JSON_VALUES,
            "output": JSON_VALUES,
        },
    )
    | JSON_VALUES,
    min_size=1,
    max_size=6,
)


@FUZZ
@given(records=RECORDS)
@pytest.mark.slow  # over a CPU-second: out of the default run's budget, in CI
def test_arbitrary_json_records_give_a_run_or_a_load_error(tmp_path, records):
    path = tmp_path / "fuzz.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    _check(path)
    json_path = tmp_path / "fuzz.json"
    json_path.write_text(json.dumps(records))
    _check(json_path)


HUGE = 10**400  # a JSON integer no float holds


@pytest.mark.parametrize(
    ("name", "text", "field"),
    [
        (
            "samples_t.jsonl",
            json.dumps({"doc_id": 0, "doc": {}, "resps": [], "acc": HUGE}) + "\n",
            "acc",
        ),
        (
            "display_predictions.json",
            json.dumps(
                [
                    {
                        "instance_id": "a",
                        "predicted_text": "x",
                        "train_trial_index": 10**30,
                        "stats": {"exact_match": 1},
                    }
                ]
            ),
            "train_trial_index",
        ),
        (
            "log.json",
            json.dumps(
                {
                    "version": 2,
                    "eval": {"task": "t"},
                    "samples": [{"id": 1, "epoch": 10**30, "scores": {"m": {"value": "C"}}}],
                }
            ),
            "epoch",
        ),
        (
            "results.json",
            json.dumps(
                {
                    "evalId": "e",
                    "results": {"results": [{"provider": "p", "success": True, "score": HUGE}]},
                }
            ),
            "score",
        ),
    ],
)
def test_an_integer_too_large_to_hold_is_a_load_error_naming_its_field(tmp_path, name, text, field):
    path = tmp_path / name
    path.write_text(text)
    with pytest.raises(EvalTuiError) as caught:
        load_run(path)
    assert f"field '{field}'" in str(caught.value) and name in str(caught.value)


def test_an_openai_evals_event_id_too_large_for_a_float_still_orders_the_events(tmp_path):
    path = tmp_path / "record.jsonl"
    events = [
        {"spec": {"run_id": "r", "eval_name": "e"}},
        {"run_id": "r", "event_id": HUGE, "sample_id": "s.1", "type": "match",
         "data": {"correct": True}},
        {"run_id": "r", "event_id": 1, "sample_id": "s.0", "type": "match",
         "data": {"correct": False}},
    ]  # fmt: skip
    path.write_text("".join(json.dumps(e) + "\n" for e in events))
    run = load_run(path)
    assert run.table["item_id"].to_list() == ["s.0", "s.1"]
