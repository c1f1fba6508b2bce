"""A key written twice in an lm-eval samples file: the fast read (`lm_eval_scan`) and the
line-by-line reader take and refuse the same files in the same words; the load refuses a key
written twice where it reads a value, and the item's transcript refuses it anywhere
(`lm_eval_records`' docstring says why)."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any
from unittest import mock

import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from evaltui.core.errors import InputError
from evaltui.core.read.formats import lm_eval, load_run
from evaltui.core.read.formats.contract import LoadOptions
from tests.conftest import examples

DATA = Path(__file__).resolve().parent.parent.parent / "data" / "lm_eval"
TINY = DATA / "sshleifer__tiny-gpt2" / "samples_copa_2026-10-01T23-15-32.942677.jsonl"
NAME = TINY.name
LINES = 8

Pairs = list[tuple[str, Any]]  # a JSON object as its pairs: a key may be written twice


def _pairs(value: Any) -> Any:
    if isinstance(value, dict):
        return [(key, _pairs(item)) for key, item in value.items()]
    if isinstance(value, list):
        return [_pairs(item) for item in value]
    return value


def _text(value: Any) -> str:
    """JSON as lm-eval writes it (`json.dumps` separators), each object from its pairs."""
    if isinstance(value, list) and value and all(isinstance(p, tuple) for p in value):
        return "{" + ", ".join(f"{json.dumps(k)}: {_text(v)}" for k, v in value) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(_text(item) for item in value) + "]"
    return json.dumps(value, ensure_ascii=False)


def _records() -> list[Pairs]:
    template = json.loads(TINY.read_text().splitlines()[0])
    out = []
    for i in range(LINES):
        record = dict(template, doc_id=i, acc=float(i % 3 == 0))
        record["doc"] = dict(template["doc"], premise=f"Prémisse {i}.", label=i % 2)
        out.append(_pairs(record))
    return out


def _other(value: Any) -> Any:
    """A value of the same kind that differs (the second of two keys must mean something)."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, (int, float)):
        return 1 - value
    if isinstance(value, str):
        return value + "x"
    return value  # an object or a list: the same value written twice


# Where a key is written twice: its path from the line's top (a key of the line, of its
# document, of its first request); beside them, a line's hash removed (then the line-by-line
# reader computes it from the document or the prompt, so it reads them) and another filter.
ARG_0, ARG_1 = ("arguments", "gen_args_0", "arg_0"), ("arguments", "gen_args_1", "arg_1")
PREMISE = ("doc", "premise")
PLACES = [
    ("doc_id",),
    ("filter",),
    ("acc",),
    ("doc_hash",),
    ("prompt_hash",),
    ("metrics",),
    ("target",),
    ("resps",),
    ("doc",),
    ("arguments",),
    ("doc", "premise"),
    ("doc", "label"),
    ("arguments", "gen_args_0"),
    ARG_0,
    ARG_1,
]
# the first line often: the default metric is chosen from it, where every top-level key counts
ANY_LINE = st.one_of(st.just(0), st.integers(0, LINES - 1))
HASHES = st.sampled_from(["doc_hash", "prompt_hash"])
EDITS = st.one_of(
    st.tuples(st.just("twice"), ANY_LINE, st.sampled_from(PLACES), st.booleans()),
    st.tuples(st.just("drop"), ANY_LINE, HASHES, st.just(False)),
    st.tuples(st.just("filter"), st.integers(1, LINES - 1), st.just(("filter",)), st.just(False)),
)


def _object_at(record: Pairs, path: tuple[str, ...]) -> Pairs:
    for key in path:
        record = next(value for k, value in record if k == key)
    return record


def _edit(records: list[Pairs], how: str, line: int, place: Any, same: bool) -> None:
    record = records[line]
    if how == "drop":
        record[:] = [(k, v) for k, v in record if k != place]
    elif how == "filter":
        record[:] = [(k, "other" if k == "filter" else v) for k, v in record]
    else:
        pairs = _object_at(record, place[:-1])
        at = next(i for i, (k, _) in enumerate(pairs) if k == place[-1])
        value = pairs[at][1]
        pairs.insert(at, (place[-1], value if same else _other(value)))


def _outcome(path: Path, options: LoadOptions) -> tuple[Any, ...]:
    """The table, and each item's transcript or the words refusing it; or the refusal's words."""
    try:
        run = load_run(path, options=options)
    except InputError as exc:
        return (str(exc),)
    opened = []
    for row in range(run.table.height):
        try:
            opened.append(run.transcripts.read(row))
        except InputError as exc:
            opened.append(str(exc))
    return run.table, opened


def _same(fast: tuple[Any, ...], slow: tuple[Any, ...]) -> bool:
    if len(fast) != len(slow):
        return False
    if len(fast) == 1:
        return fast == slow
    return isinstance(fast[0], pl.DataFrame) and fast[0].equals(slow[0]) and fast[1] == slow[1]


@settings(
    max_examples=examples(60),
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(
    edits=st.lists(EDITS, min_size=1, max_size=3),
    metric=st.sampled_from([None, "acc"]),
    chosen=st.sampled_from([None, "other"]),  # --filter: the line-by-line reader then chooses
)  # the metric from that filter's first line, not the file's
def test_the_fast_and_the_line_by_line_reader_take_and_refuse_the_same_files(edits, metric, chosen):
    records = _records()
    for edit in edits:
        _edit(records, *edit)
    options = LoadOptions.of(metric=metric, filter=chosen)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / NAME
        path.write_text("\n".join(_text(r) for r in records) + "\n", encoding="utf-8")
        fast = _outcome(path, options)
        with mock.patch.object(lm_eval, "_fast_load", lambda *args: None):
            slow = _outcome(path, options)
    assert _same(fast, slow), (fast, slow)


def _file(tmp_path: Path, *edits: tuple[str, int, Any, bool], array: bool = False) -> Path:
    records = _records()
    for edit in edits:
        _edit(records, *edit)
    if array:  # lm-eval 0.4.0-0.4.2: one JSON array, indented
        path = tmp_path / "pretrained__tiny_copa.jsonl"
        path.write_text("[\n" + ",\n".join(_text(r) for r in records) + "\n]\n")
    else:
        path = tmp_path / NAME
        path.write_text("\n".join(_text(r) for r in records) + "\n", encoding="utf-8")
    return path


@pytest.mark.parametrize(
    "edits, field, chosen",
    [
        ([("twice", 3, ("acc",), False)], "acc", None),
        ([("twice", 3, PREMISE, False), ("drop", 3, "doc_hash", False)], "doc.premise", None),
        ([("twice", 3, ("doc",), True), ("drop", 3, "doc_hash", False)], "doc", None),
        ([("twice", 3, ARG_0, True), ("drop", 3, "prompt_hash", False)], ".".join(ARG_0), None),
        ([("filter", 3, ("filter",), False), ("twice", 3, ("filter",), True)], "filter", None),
        ([("twice", 0, ("metrics",), True)], "metrics", None),
        ([("twice", 0, ("target",), False)], "target", None),
        ([("twice", 2, ("target",), False), ("filter", 2, ("filter",), False)], "target", "other"),
    ],
    ids=["the-metric", "the-hashed-document", "the-hashed-document-key", "the-hashed-prompt",
         "another-filters-filter", "metrics-where-the-metric-is-chosen", "any-key-there",
         "any-key-where-the-filter-named-chooses-it"],
)  # fmt: skip
def test_a_key_written_twice_where_the_load_reads_it_is_refused_at_load(
    tmp_path, edits, field, chosen
):
    path = _file(tmp_path, *edits)
    line = edits[0][1] + 1
    options = LoadOptions.of(filter=chosen)
    for fast in (lm_eval._fast_load, lambda *args: None):  # each reader
        with (
            mock.patch.object(lm_eval, "_fast_load", fast),
            pytest.raises(InputError, match="appears twice in one object") as raised,
        ):
            load_run(path, options=options)
        assert f".jsonl:{line}: field '{field}':" in str(raised.value)


@pytest.mark.parametrize(
    "edit",
    [("twice", 3, ("doc", "premise"), False), ("twice", 3, ARG_1, True),
     ("twice", 3, ("target",), False), ("twice", 3, ("resps",), True)],
    ids=["the-document", "a-request", "the-target", "the-responses"],
)  # fmt: skip
@pytest.mark.parametrize("array", [False, True], ids=["jsonl", "json-array"])
def test_a_key_written_twice_where_the_load_reads_no_value_is_refused_when_the_item_opens(
    tmp_path, edit, array
):
    (tmp_path / "sound").mkdir()
    sound = load_run(_file(tmp_path / "sound", array=array))
    run = load_run(_file(tmp_path, edit, array=array))
    assert run.table.equals(sound.table)  # the same statistics, hashes and rows
    with pytest.raises(InputError, match=r"appears twice in one object") as raised:
        run.transcripts.read(3)
    assert f"field '{'.'.join(edit[2])}'" in str(raised.value)
    assert run.transcripts.read(2) == sound.transcripts.read(2)


def test_the_json_array_layout_refuses_its_metric_written_twice_naming_the_record(tmp_path):
    path = _file(tmp_path, ("twice", 3, ("acc",), False), array=True)
    with pytest.raises(
        InputError, match=r"record \[3\].*field 'acc': the key \"acc\" appears twice"
    ):
        load_run(path)


def test_with_a_filter_named_both_readers_choose_the_metric_from_that_filters_first_line(
    tmp_path,
):
    # the first line (another filter) offers only exact_match; the named filter's lines offer
    # acc first: the line-by-line reader chooses from the latter, and so must the fast read
    records = _records()
    records[0][:] = [("exact_match", 1.0) if k == "acc" else (k, v) for k, v in records[0]]
    for record in records[1:]:
        record[:] = [(k, "other" if k == "filter" else v) for k, v in record]
        record.append(("exact_match", 0.0))
    path = tmp_path / NAME
    path.write_text("\n".join(_text(r) for r in records) + "\n", encoding="utf-8")
    options = LoadOptions.of(filter="other")
    fast = load_run(path, options=options)
    with mock.patch.object(lm_eval, "_fast_load", lambda *args: None):
        slow = load_run(path, options=options)
    assert slow.metadata["metric"] == fast.metadata["metric"] == "acc"
    assert fast.table.equals(slow.table)
