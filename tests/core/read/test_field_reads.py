"""A record a reader refuses costs the previews and the search its own text only: the rest of
its chunk is read, the refusals are counted once per record, and a chunk whose every record is
refused is the file's trouble, raised as before (`core/read/field_reads.py`)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evaltui.core.errors import EvalTuiError, InputError
from evaltui.core.read.field_reads import Refusals, Said, read_field_each
from evaltui.core.read.formats import load_run
from evaltui.core.read.runs import Transcript

TINY = (
    Path(__file__).resolve().parents[2]
    / "data"
    / "lm_eval"
    / "sshleifer__tiny-gpt2"
    / "samples_copa_2026-10-01T23-15-32.942677.jsonl"
)


class Reader:
    """Texts "text 0"...; a chunk holding a refused row raises, as the real readers do."""

    def __init__(self, refused: set[int]) -> None:
        self.refused = refused
        self.asked: list[list[int]] = []

    def read(self, row: int) -> Transcript:
        return Transcript()

    def read_field(self, rows, name: str) -> list[str | None]:
        self.asked.append(list(rows))
        bad = [row for row in rows if row in self.refused]
        if bad:
            raise EvalTuiError(f"record {bad[0]}: a key written twice")
        return [f"{name} {row}" for row in rows]


def test_a_refused_record_costs_its_own_text_and_the_rest_of_the_chunk_is_read():
    reader, refusals = Reader({3}), Refusals()
    texts = read_field_each(reader, range(6), "input", refusals)
    assert texts == ["input 0", "input 1", "input 2", None, "input 4", "input 5"]
    assert refusals.count == 1 and str(refusals.first) == "record 3: a key written twice"


def test_a_chunk_read_whole_when_nothing_in_it_is_refused():
    reader = Reader(set())
    assert read_field_each(reader, [4, 5], "target", Refusals()) == ["target 4", "target 5"]
    assert reader.asked == [[4, 5]]  # one pass, no record-by-record read


def test_a_chunk_whose_every_record_is_refused_is_the_files_trouble_and_raises():
    refusals = Refusals()
    with pytest.raises(EvalTuiError, match="record 0"):
        read_field_each(Reader({0, 1, 2}), [0, 1, 2], "input", refusals)
    assert refusals.count == 0


def test_a_refused_chunk_of_one_record_is_counted_not_raised():
    refusals = Refusals()
    assert read_field_each(Reader({7}), [7], "input", refusals) == [None]
    assert refusals.count == 1


def test_a_record_refused_for_two_fields_is_counted_once_and_told_in_one_line():
    reader, refusals = Reader({1, 2}), Refusals()
    for name in ("output", "target"):
        read_field_each(reader, [0, 1, 2, 3], name, refusals)
    assert refusals.count == 2
    told = refusals.told("search over outputs")
    assert told is not None and "\n" not in told
    assert told.startswith("search over outputs: 2 records could not be read")
    assert "record 1: a key written twice" in told
    assert Refusals().told("previews") is None


def test_a_record_two_fills_could_not_read_is_said_once_by_the_first_and_each_goes_on():
    reader, said = Reader({3, 7}), Said()
    previews, search = Refusals(said=said), Refusals(said=said)
    assert read_field_each(reader, [2, 3, 4], "input", previews)[2] == "input 4"
    assert read_field_each(reader, [2, 3, 4], "output", search)[2] == "output 4"
    assert previews.told("previews") is not None
    assert search.told("search over outputs") is None  # record 3: said by the previews
    assert read_field_each(reader, [6, 7], "output", search) == ["output 6", None]
    told = search.told("search over outputs")  # record 7 is new: said, alone
    assert told is not None and told.startswith("search over outputs: 1 record could not")
    assert "record 7: a key written twice" in told
    assert Refusals(said=Said()).told("x") is None


def test_an_lm_eval_line_with_a_key_written_twice_where_the_load_reads_none(tmp_path):
    """The real reader: the line loads (the load reads no `target`), its input is refused
    with the chunk, and every other line's input is still read."""
    lines = TINY.read_text(encoding="utf-8").splitlines()
    bad = json.loads(lines[2])
    assert "target" in bad
    lines[2] = json.dumps(bad, ensure_ascii=False)[:-1] + ', "target": "again"}'
    assert lines[2].count('"target"') == 2
    path = tmp_path / TINY.parent.name / TINY.name
    path.parent.mkdir()
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    run = load_run(path)
    rows = list(range(run.table.height))
    with pytest.raises(InputError):
        run.transcripts.read_field(rows, "input")
    refusals = Refusals()
    texts = read_field_each(run.transcripts, rows, "input", refusals)
    assert refusals.count == 1 and '"target" appears twice' in str(refusals.first)
    assert [at for at, text in enumerate(texts) if text is None] == [2]
    assert all(texts[at] for at in rows if at != 2)
