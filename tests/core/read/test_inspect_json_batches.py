"""An Inspect `.json` log's samples are read apart from the rest of the document, a batch at a
time (`json_document.array_apart`, `json_array.ArrayElements.of_split`): the run is the one the
whole parse gives, its refusals the same, and its bytes are counted as the batches are parsed."""

from __future__ import annotations

import json
import re
from pathlib import Path

import polars as pl
import pytest

from evaltui.core.errors import InputError
from evaltui.core.read import meter
from evaltui.core.read.formats import inspect_json, json_array, load_run
from evaltui.core.read.formats.json_document import array_apart
from evaltui.core.read.formats.jsontext import UTF8_BOM

DATA = Path(__file__).resolve().parent.parent.parent / "data" / "inspect_ai"
CANCELLED = DATA / "2025-05-12T20-28-13-04-00_popularity.json"  # 3 samples, as Inspect wrote it
SAMPLES = 30


def many_samples(tmp_path: Path, name: str = "many.json") -> Path:
    """The real log with its samples repeated under new ids (30), written as Inspect writes a
    `.json` log (indented by two)."""
    log = json.loads(CANCELLED.read_text(encoding="utf-8"))
    first = log["samples"]
    log["samples"] = [
        {**first[i % len(first)], "id": i + 1, "uuid": f"u{i}"} for i in range(SAMPLES)
    ]
    path = tmp_path / name
    path.write_text(json.dumps(log, indent=2), encoding="utf-8")
    return path


@pytest.fixture
def one_sample_a_batch(monkeypatch):
    monkeypatch.setattr(json_array, "BATCH_BYTES", 1)  # every sample a batch of its own


def whole_parse(monkeypatch) -> None:
    monkeypatch.setattr(inspect_json, "array_apart", lambda data, key: None)


def same_run(a, b) -> None:
    assert a.table.equals(b.table)
    assert a.metadata == b.metadata
    assert [a.transcripts.read(r) for r in range(a.table.height)] == [
        b.transcripts.read(r) for r in range(b.table.height)
    ]


def test_a_json_log_read_by_batches_is_the_run_the_whole_parse_gives(
    tmp_path, monkeypatch, one_sample_a_batch
):
    path = many_samples(tmp_path)
    batched = load_run(path).resolved()
    whole_parse(monkeypatch)
    whole = load_run(path).resolved()
    assert batched.table.height == SAMPLES
    same_run(batched, whole)
    assert batched.source == whole.source


def test_a_json_log_with_a_byte_order_mark_reads_by_batches_the_same(tmp_path):
    path = many_samples(tmp_path)
    marked = tmp_path / "marked.json"
    marked.write_bytes(UTF8_BOM + path.read_bytes())
    same_run(load_run(marked), load_run(path))


def test_the_bytes_are_counted_batch_by_batch_and_add_up_to_the_file(tmp_path, one_sample_a_batch):
    path = many_samples(tmp_path)
    counts: list[int] = []
    with meter.metering(counts.append):
        load_run(path).resolved()
    assert sum(counts) == path.stat().st_size
    assert len([c for c in counts if c > 0]) >= SAMPLES  # (the rest of the log, each sample)


def test_a_key_twice_in_a_late_batch_is_refused_naming_its_line_and_path(
    tmp_path, one_sample_a_batch
):
    text = many_samples(tmp_path).read_text(encoding="utf-8")
    samples_end = text.index('\n  "reductions"')
    values = [m.start() for m in re.finditer(r'"value"\s*:', text[:samples_end])]
    at = values[-2]  # a verdict in one of the last samples
    changed = text[:at] + '"value": "I", ' + text[at:]
    path = tmp_path / "twice.json"
    path.write_text(changed, encoding="utf-8")
    with pytest.raises(InputError) as caught:
        load_run(path)
    assert caught.value.line == changed.count("\n", 0, at) + 1
    named = re.match(r"samples\[(\d+)\]\..*\.value$", caught.value.field or "")
    assert named is not None and int(named.group(1)) == SAMPLES - 1  # (the last sample's)
    assert "appears twice" in caught.value.problem


def test_a_bad_value_in_a_late_batch_names_its_sample(tmp_path, one_sample_a_batch):
    log = json.loads(many_samples(tmp_path).read_text(encoding="utf-8"))
    log["samples"][25]["scores"]["match"]["value"] = "maybe"
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(log, indent=2), encoding="utf-8")
    with pytest.raises(InputError) as caught:
        load_run(path)
    assert caught.value.record == "samples[25]"


def test_samples_written_twice_at_the_top_level_are_refused(tmp_path):
    text = many_samples(tmp_path).read_text(encoding="utf-8")
    changed = text.replace('\n  "samples": [', '\n  "samples": [],\n  "samples": [', 1)
    path = tmp_path / "two.json"
    path.write_text(changed, encoding="utf-8")
    with pytest.raises(InputError) as caught:
        load_run(path)
    assert caught.value.field == "samples" and "appears twice" in caught.value.problem


def test_a_log_without_samples_or_with_null_samples_reads_as_before(tmp_path, monkeypatch):
    log = json.loads(CANCELLED.read_text(encoding="utf-8"))
    for samples in ("absent", None):
        edited = {k: v for k, v in log.items() if k != "samples"}
        if samples is None:
            edited["samples"] = None
        path = tmp_path / f"{samples}.json"
        path.write_text(json.dumps(edited), encoding="utf-8")
        with pytest.raises(InputError) as caught:
            load_run(path)
        assert "sample" in caught.value.problem  # (no samples: refused as the whole parse did)


@pytest.mark.parametrize(
    ("document", "apart"),
    [
        (b'{"a": 1, "s": [ {"x": 1} , 2 ], "b": [3]}', (b'{"a": 1, "s": [], "b": [3]}', 2)),
        (b'{"s": []}', (b'{"s": []}', 0)),
        (b'{"a": 1}', None),  # no such key
        (b'{"s": {"x": 1}}', None),  # not an array
        (b'[{"s": [1]}]', None),  # not an object
        (b'{"s": [1, }', None),  # broken
    ],
)
def test_an_array_is_taken_apart_from_its_document_exactly(document, apart):
    found = array_apart(document, "s")
    if apart is None:
        assert found is None
        return
    assert found is not None
    rest, elements = found
    assert (rest, len(elements)) == apart
    assert [json.loads(bytes(e)) for e in elements] == json.loads(document)["s"]
    assert all(bytes(e) in document for e in elements)  # (as written: the batches check them)


def test_the_table_is_the_same_whatever_the_batch_size(tmp_path, monkeypatch):
    path = many_samples(tmp_path)
    tables = []
    for size in (1, 3_000, 10**9):
        monkeypatch.setattr(json_array, "BATCH_BYTES", size)
        tables.append(load_run(path).table)
    assert all(t.equals(tables[0]) for t in tables)
    assert isinstance(tables[0], pl.DataFrame)
