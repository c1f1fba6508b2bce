"""A CSV whose quoting is malformed is refused naming the line, never read short.

A stray quote makes a reader take the following lines as the text of one cell: a lenient reader
returns fewer records than the file has and says nothing. evaltui checks the quoting the way
RFC 4180 defines it before reading, and that the reader split the file into the records its
line breaks outside quotes make.
"""

from __future__ import annotations

import csv
import io
import random
from pathlib import Path

import polars as pl
import pytest

from evaltui.cli.main import main
from evaltui.core.errors import EvalTuiError, InputError
from evaltui.core.read.formats import csv as csv_format
from evaltui.core.read.formats import jsonl_scan, load_run


def _rows(n: int = 120, text: str = 'he said "hi",\nthen left') -> list[list[str]]:
    rows = [["item_id", "passed", "output"]]
    rows += [[f"q{i}", "true" if i % 2 else "false", f"{text} {i}"] for i in range(n)]
    return rows


def _text(rows: list[list[str]], terminator: str = "\n", quoting: int = csv.QUOTE_MINIMAL) -> str:
    out = io.StringIO()
    csv.writer(out, lineterminator=terminator, quoting=quoting).writerows(rows)
    return out.getvalue()


def _write(tmp_path: Path, text: str, name: str = "run.csv") -> Path:
    path = tmp_path / name
    path.write_bytes(text.encode("utf-8"))
    return path


@pytest.mark.parametrize("terminator", ["\n", "\r\n"])
@pytest.mark.parametrize("quoting", [csv.QUOTE_MINIMAL, csv.QUOTE_ALL])
def test_well_quoted_cells_with_quotes_commas_and_line_breaks_load_every_record(
    tmp_path, terminator, quoting
):
    path = _write(tmp_path, _text(_rows(), terminator, quoting))
    run = load_run(path)
    assert run.table.height == 120
    assert run.transcripts.read(7).output == 'he said "hi",\nthen left 7'


def _one_line_records() -> list[str]:
    return ["item_id,passed,slice"] + [f"q{i},{'true' if i % 2 else 'false'},s" for i in range(120)]


def test_a_120_line_csv_with_one_stray_quote_is_refused_naming_its_line(tmp_path):
    lines = _one_line_records()
    lines[61] = 'q60,true,"s'  # opens a cell that swallows the rest of the file
    path = _write(tmp_path, "\n".join(lines) + "\n")
    with pytest.raises(InputError) as caught:
        load_run(path)
    assert caught.value.line == 62 and "never closes" in caught.value.problem


def test_two_stray_quotes_that_join_lines_into_a_label_are_refused(tmp_path):
    """Well-formed CSV (every reader reads 92 records), but a slice holding 29 lines is the
    sign of records lost."""
    lines = _one_line_records()
    lines[61] = 'q60,true,"s'
    lines[90] = 'q89,false,s"'
    path = _write(tmp_path, "\n".join(lines) + "\n")
    with pytest.raises(InputError) as caught:
        load_run(path)
    assert caught.value.record == "data row 61" and caught.value.field == "slice"
    assert "line break" in caught.value.problem


@pytest.mark.parametrize(
    ("line", "fault"),
    [
        ('q7,true,he said "hi" then', "a quote inside an unquoted cell"),
        ('q7,true,"he said "hi" then"', "goes on after its closing quote"),
        ('q7,true,"text" 7', "goes on after its closing quote"),
        ("q7,true,text\r7", "carriage return"),
    ],
    ids=["inside-unquoted", "unescaped-inside-quoted", "after-closing", "bare-cr"],
)
def test_each_kind_of_malformed_quoting_is_refused_naming_its_line(tmp_path, line, fault):
    lines = ["item_id,passed,output"] + [f'q{i},true,"text {i}"' for i in range(40)]
    lines[8] = line
    path = _write(tmp_path, "\n".join(lines) + "\n")
    with pytest.raises(InputError) as caught:
        load_run(path)
    assert caught.value.line == 9 and fault in caught.value.problem


def test_an_unclosed_quote_names_the_line_where_it_opened(tmp_path):
    text = _text(_rows(20, "two\nlines"))  # well-quoted cells spanning lines first
    text += 'q20,true,"never closed\n' + "".join(f"q{i},true,plain\n" for i in range(21, 40))
    path = _write(tmp_path, text)
    expected = text[: text.index('"never')].count("\n") + 1
    with pytest.raises(InputError) as caught:
        load_run(path)
    assert caught.value.line == expected and "never closes" in caught.value.problem


def test_a_reader_that_returns_fewer_records_than_the_line_breaks_make_is_refused(
    tmp_path, monkeypatch
):
    """The second guard: whatever the reader, the count must be the file's."""
    path = _write(tmp_path, _text(_rows()))
    real = pl.read_csv
    monkeypatch.setattr(csv_format.pl, "read_csv", lambda *a, **k: real(*a, **k).head(60))
    with pytest.raises(InputError, match="polars read 60 records where .* make 120"):
        load_run(path)


def test_quoting_is_followed_across_the_blocks_the_check_reads(tmp_path, monkeypatch):
    monkeypatch.setattr(jsonl_scan, "BLOCK", 64)
    text = _text(_rows(60, "a cell\nthat spans\nthree lines and has a long tail" * 3))
    path = _write(tmp_path, text)
    assert csv_format.check_quoting(path) == 60
    broken = text.replace("q50,false,", 'q50,false,x"', 1)
    path = _write(tmp_path, broken, "broken.csv")
    with pytest.raises(InputError) as caught:
        csv_format.check_quoting(path)
    assert caught.value.line == broken[: broken.index('x"')].count("\n") + 1


def test_the_cli_refuses_it_with_one_line_and_exit_2(tmp_path, capsys):
    good = _write(tmp_path, _text(_rows()), "base.csv")
    bad = _write(tmp_path, _text(_rows()).replace('"he said', 'he "said', 1), "cand.csv")
    assert main(["report", str(good), str(bad)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "cand.csv:2:" in err


def test_no_single_quote_inserted_or_removed_anywhere_loads_a_different_count():
    """A small fuzz of the kind bench/fuzz_inputs.py runs at scale: one quote added, removed or
    replacing a byte; the file either loads with every record or is refused."""
    rng = random.Random(19)
    words = ["a", "b c", "x,y", 'he said "hi"', "line1\nline2", "", "z\r\nw"]
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "f.csv"
        for _ in range(300):
            n = rng.randint(30, 60)
            rows = [["item_id", "passed", "output"]]
            rows += [[f"q{i}", rng.choice(["true", "false"]), rng.choice(words)] for i in range(n)]
            text = _text(rows, rng.choice(["\n", "\r\n"]))
            at = rng.randrange(len(text))
            quotes = [i for i, ch in enumerate(text) if ch == '"']
            edit = rng.choice(["insert", "replace", "remove"] if quotes else ["insert", "replace"])
            if edit == "insert":
                text = text[:at] + '"' + text[at:]
            elif edit == "replace":
                text = text[:at] + '"' + text[at + 1 :]
            else:
                q = rng.choice(quotes)
                text = text[:q] + text[q + 1 :]
            path.write_bytes(text.encode("utf-8"))
            try:
                run = load_run(path)
            except EvalTuiError:
                continue
            assert run.table.height == n, (edit, at, text[max(0, at - 20) : at + 20])


def test_a_record_with_fewer_cells_than_the_header_is_refused_not_padded(tmp_path):
    """polars fills a short record's missing cells with nulls: a file cut inside a record, or
    a line split in two, would lose its tail quietly."""
    text = _text(_rows(40, "plain text"))
    lines = text.splitlines()
    lines[12] = lines[12].rsplit(",", 1)[0]  # the output cell gone
    path = _write(tmp_path, "\n".join(lines) + "\n")
    with pytest.raises(InputError) as caught:
        load_run(path)
    assert caught.value.line == 13 and "cells where the header has 3" in caught.value.problem


def test_a_file_cut_inside_its_last_record_is_refused_and_a_complete_one_without_a_newline_loads(
    tmp_path,
):
    text = _text(_rows(40, "plain text"))
    cut = text[: text.rindex(",")]  # inside the last record, before its last cell
    with pytest.raises(InputError, match="cut short"):
        load_run(_write(tmp_path, cut, "cut.csv"))
    assert load_run(_write(tmp_path, text.rstrip("\n"), "whole.csv")).table.height == 40
