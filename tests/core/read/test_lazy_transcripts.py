"""Opening a pair reads the statistics only: transcripts wait until an item is opened."""

from __future__ import annotations

import json

import polars as pl
import pytest

from evaltui.core.analysis.pipeline import compare_files
from evaltui.core.read.formats import LoadOptions, load_run
from evaltui.core.read.formats.csv import CsvTranscripts
from evaltui.core.read.formats.jsonl import JsonlTranscripts
from evaltui.core.read.formats.parquet import ParquetTranscripts
from evaltui.core.read.runs import sha256_of
from evaltui.core.report.pair import report_dict

READERS = (JsonlTranscripts, ParquetTranscripts, CsvTranscripts)


def records(n, flip):
    return [
        {
            "item_id": f"q{i}",
            "passed": (i % 3 != 0) != (flip and i % 5 == 0),
            "slice": f"s{i % 4}",
            "input": "question " + "x" * 2000,
            "output": "answer " + "y" * 2000,
            "messages": [{"role": "user", "content": "z" * 500}],
        }
        for i in range(n)
    ]


def write(tmp_path, fmt):
    paths = []
    for name, flip in (("b", False), ("c", True)):
        rows = records(300, flip)
        path = tmp_path / f"{name}.{fmt}"
        if fmt == "jsonl":
            path.write_text("".join(json.dumps(r) + "\n" for r in rows))
        elif fmt == "parquet":
            pl.DataFrame(rows).write_parquet(path)
        else:
            frame = pl.DataFrame(rows).with_columns(
                pl.col("messages").map_elements(lambda m: json.dumps(m.to_list()), pl.String)
            )
            frame.write_csv(path)
        paths.append(path)
    return paths


@pytest.mark.parametrize("fmt", ["jsonl", "parquet", "csv"])
def test_opening_a_pair_reads_no_transcript_until_an_item_is_opened(tmp_path, monkeypatch, fmt):
    calls = []
    for reader in READERS:
        for method in ("read", "read_field"):
            original = getattr(reader, method)

            def spy(self, *args, _original=original, _name=f"{reader.__name__}.{method}"):
                calls.append(_name)
                return _original(self, *args)

            monkeypatch.setattr(reader, method, spy)
    base, cand = write(tmp_path, fmt)
    analysis = compare_files(base, cand)
    report = report_dict(analysis)
    assert report["n_paired"] == 300
    for column in ("input", "output", "messages"):
        assert column not in analysis.paired.baseline.table.columns
    assert calls == []
    item = analysis.paired.items.row(0, named=True)
    transcript = analysis.paired.candidate.transcripts.read(item["candidate_row"])
    assert transcript.input.startswith("question") and transcript.messages
    assert len(calls) == 1


def test_parquet_quick_read_gives_the_flat_fields_now_and_marks_the_messages_pending(tmp_path):
    base, _ = write(tmp_path, "parquet")
    run = compare_files(base, base).paired.baseline
    quick, full = run.transcripts.read_quick(7), run.transcripts.read(7)
    assert not quick.complete and full.complete
    assert quick.messages == () and full.messages
    assert (quick.input, quick.output) == (full.input, full.output)
    assert quick.output.startswith("answer ")


def test_parquet_without_messages_has_no_quick_read(tmp_path):
    path = tmp_path / "flat.parquet"
    pl.DataFrame(records(40, False)).drop("messages").write_parquet(path)
    run = compare_files(path, path).paired.baseline
    assert run.transcripts.read_quick(3) is None
    assert run.transcripts.read(3).complete


@pytest.mark.parametrize("fmt", ["parquet", "csv"])
def test_the_sha256_computed_beside_the_read_is_always_in_the_result(tmp_path, fmt):
    base, cand = write(tmp_path, fmt)
    pending = load_run(base, None, LoadOptions(), wait_for_hash=False)
    assert pending.source.sha256 == "" and pending.pending_source is not None
    assert pending.resolved().source.sha256 == sha256_of(base)
    assert load_run(base, None, LoadOptions()).source.sha256 == sha256_of(base)
    paired = compare_files(base, cand, complete=False).paired
    assert paired.baseline.source.sha256 == sha256_of(base)
    assert paired.candidate.source.sha256 == sha256_of(cand)
    assert paired.baseline.pending_source is None and paired.candidate.pending_source is None
