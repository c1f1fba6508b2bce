"""The lm-eval fast read (`lm_eval_scan`): msgspec's five keys give what polars' parse gave, and
a file msgspec reads more leniently than polars and Python never takes the fast path."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import polars as pl
import pytest

from evaltui.core.errors import InputError
from evaltui.core.read.formats import lm_eval, load_run
from evaltui.core.read.formats.jsonl_scan import LineCheck, scan_jsonl
from evaltui.core.read.formats.lm_eval_scan import scan_samples

DATA = Path(__file__).resolve().parent.parent.parent / "data" / "lm_eval"
TINY = DATA / "sshleifer__tiny-gpt2" / "samples_copa_2026-10-01T23-15-32.942677.jsonl"
SCHEMA = {
    "doc_id": pl.String(),
    "filter": pl.String(),
    "acc": pl.Float64(),
    "doc_hash": pl.String(),
    "prompt_hash": pl.String(),
}


def lines(n: int = 60) -> list[str]:
    """n lm-eval lines (the real copa line as the template), ids 0..n-1, some non-ASCII."""
    template = json.loads(TINY.read_text().splitlines()[0])
    out = []
    for i in range(n):
        record = dict(template, doc_id=i, acc=float(i % 3 == 0))
        record["doc"] = dict(template["doc"], premise=f"Prémisse n° {i}.")
        out.append(json.dumps(record, ensure_ascii=False))
    return out


def polars_scan(path: Path):
    return scan_jsonl(path, SCHEMA, texts=["filter", "doc_hash", "prompt_hash"], ids=["doc_id"])


@pytest.mark.parametrize(
    "text",
    [
        "\n".join(lines()) + "\n",
        "\n".join(lines()),  # no newline after the last line
        "\r\n".join(lines()) + "\r\n",
        "\ufeff" + "\n".join(lines()) + "\n",  # a byte order mark
        "\n".join(line.replace('"doc_id": 7,', '"doc_id": "seven",') for line in lines()) + "\n",
        # lines that do not start with `{` and end with `}`: read as one JSON array
        "\n".join(" " + line for line in lines()) + "\n",
        "\n".join(line + " \t" for line in lines()) + "\n",
    ],
    ids=["lf", "no-final-newline", "crlf", "bom", "a-text-id", "lead-blank", "trail-blank"],
)
@pytest.mark.parametrize(
    "block", [1 << 6, 1 << 10, 1 << 20], ids=["a-line-fills-the-block", "many-blocks", "one-block"]
)
def test_the_msgspec_pass_gives_polars_columns_sha256_and_line_starts(tmp_path, text, block):
    path = tmp_path / "samples_copa_2026-10-01T23-15-32.942677.jsonl"
    path.write_bytes(text.encode("utf-8"))
    fast, reference = scan_samples(path, "acc", block=block), polars_scan(path)
    assert fast is not None
    assert fast.frame.equals(reference.frame)
    assert fast.frame.schema == reference.frame.schema
    assert fast.sha256 == reference.sha256
    assert fast.lines.starts.tolist() == reference.lines.starts.tolist()
    assert fast.lines.line_numbers.tolist() == reference.lines.line_numbers.tolist()


# Edits that replace one piece of line 30: (what is there, what it becomes).
LINE_EDITS = {
    "not-utf8-in-a-skipped-text": ("Prémisse".encode(), b"Pr\xe9misse"),
    "the-metric-written-twice": (b'"acc": 1.0', b'"acc": 0.0, "acc": 1.0'),
    "the-metric-twice-once-escaped": (b'"acc": 1.0', b'"acc": 0.0, "\\u0061cc": 1.0'),
    "an-id-beyond-64-bits": (b'"doc_id": 30,', b'"doc_id": 123456789012345678901234567890,'),
    "a-boolean-metric": (b'"acc": 1.0', b'"acc": true'),
    "a-float-id": (b'"doc_id": 30,', b'"doc_id": 30.0,'),
    "a-boolean-id": (b'"doc_id": 30,', b'"doc_id": true,'),
    "a-number-as-filter": (b'"filter": "none"', b'"filter": 1'),
}


def edited(how: str) -> bytes:
    """The 60 lines with one of them made into what msgspec alone would read leniently."""
    rows = [line.encode("utf-8") for line in lines()]
    line = rows[30]
    if how in LINE_EDITS:
        there, instead = LINE_EDITS[how]
        rows[30] = line.replace(there, instead)
    elif how == "two-records-on-one-line":
        rows[30] = line + b", " + line.replace(b'"doc_id": 30,', b'"doc_id": 999,')
        del rows[31]
    elif how == "two-records-on-one-line-balanced":  # no comma, and as many values as lines:
        # the line after a `}` starts with `,`, not `{`, so the lines are read as one array
        rows[30] = line + b" " + line.replace(b'"doc_id": 30,', b'"doc_id": 999,')
        rows[40] = rows[40].replace(b'}, "target"', b'}\n, "target"')
    elif how == "one-record-over-two-lines":
        rows[30] = line.replace(b'"filter":', b'\n"filter":')
        del rows[31]  # (as many values as lines)
    elif how == "a-blank-line":
        rows.insert(30, b"")
    elif how == "a-list-as-doc-hash":
        rows[30] = line.replace(b'"doc_hash": "', b'"doc_hash": ["').replace(
            b'", "prompt_hash"', b'"], "prompt_hash"', 1
        )
    else:
        raise AssertionError(how)
    assert rows[30] != line, f"{how}: the edit changed nothing"
    return b"\n".join(rows) + b"\n"


CASES = [
    "not-utf8-in-a-skipped-text",
    "two-records-on-one-line",
    "two-records-on-one-line-balanced",
    "one-record-over-two-lines",
    "the-metric-written-twice",
    "the-metric-twice-once-escaped",
    "an-id-beyond-64-bits",
    "a-blank-line",
    "a-boolean-metric",
    "a-float-id",
    "a-boolean-id",
    "a-number-as-filter",
    "a-list-as-doc-hash",
]


@pytest.mark.parametrize("how", CASES)
def test_a_line_only_msgspec_would_read_leniently_is_left_to_the_line_by_line_reader(
    tmp_path, how, monkeypatch
):
    path = tmp_path / "samples_copa_2026-10-01T23-15-32.942677.jsonl"
    path.write_bytes(edited(how))
    assert scan_samples(path, "acc", block=1 << 10) is None
    assert scan_samples(path, "acc") is None

    def outcome():
        try:
            return load_run(path).table
        except InputError as exc:
            return str(exc)

    fast = outcome()
    monkeypatch.setattr(lm_eval, "_fast_load", lambda *args: None)
    slow = outcome()
    if isinstance(slow, str):
        assert fast == slow  # the same refusal, in the same words
    else:
        assert isinstance(fast, pl.DataFrame) and fast.equals(slow)


def test_the_refusals_of_those_lines_name_the_line_and_what_is_wrong(tmp_path):
    path = tmp_path / "samples_copa_2026-10-01T23-15-32.942677.jsonl"
    for how, words in [
        ("not-utf8-in-a-skipped-text", "not UTF-8"),
        ("two-records-on-one-line", "not valid JSON"),
        ("the-metric-written-twice", 'the key "acc" appears twice'),
        ("the-metric-twice-once-escaped", 'the key "acc" appears twice'),
        ("an-id-beyond-64-bits", "beyond 64 bits"),
    ]:
        path.write_bytes(edited(how))
        with pytest.raises(InputError, match=words) as raised:
            load_run(path)
        assert ".jsonl:31:" in str(raised.value)


@pytest.mark.parametrize("at", [0, 1, 58, 59], ids=["first", "second", "next-to-last", "last"])
def test_a_key_written_twice_anywhere_in_a_file_of_many_blocks_is_flagged(tmp_path, at):
    # the line check reads the whole file beside the block-by-block read: a line in the first
    # block, the last or between is flagged alike
    rows = [line.encode("utf-8") for line in lines()]
    rows[at] = rows[at].replace(b'"acc": ', b'"acc": 0.0, "acc": ')
    path = tmp_path / "samples_copa_2026-10-01T23-15-32.942677.jsonl"
    path.write_bytes(b"\n".join(rows) + b"\n")
    assert scan_samples(path, "acc", block=1 << 10) is None
    assert scan_samples(path, "acc", block=1 << 6) is None  # (a line fills the block)
    assert scan_samples(path, "acc") is None  # (one block)


# Every case but a key written twice, which is the line check's alone.
CHECKED_BY_THE_MSGSPEC_PASS = [c for c in CASES if not c.startswith("the-metric-")]


@pytest.mark.parametrize("how", CHECKED_BY_THE_MSGSPEC_PASS)
def test_the_msgspec_pass_refuses_those_lines_without_the_line_check(tmp_path, how, monkeypatch):
    # polars' line check flags most of these too; each guard of the msgspec pass must hold on
    # its own (only a key written twice is the check's alone)
    monkeypatch.setattr(LineCheck, "file", lambda self, path: np.zeros(0, np.int64))
    path = tmp_path / "samples_copa_2026-10-01T23-15-32.942677.jsonl"
    path.write_bytes(edited("a-boolean-metric").replace(b'"acc": true', b'"acc": 1.0'))
    assert scan_samples(path, "acc") is not None  # (the check's stand-in passes a sound file)
    path.write_bytes(edited(how))
    assert scan_samples(path, "acc", block=1 << 10) is None
    assert scan_samples(path, "acc") is None


def test_a_19_digit_id_within_64_bits_reads_as_the_line_by_line_reader_reads_it(
    tmp_path, monkeypatch
):
    path = tmp_path / "samples_copa_2026-10-01T23-15-32.942677.jsonl"
    rows = lines()
    rows[30] = rows[30].replace('"doc_id": 30,', '"doc_id": -9223372036854775808,')
    path.write_text("\n".join(rows) + "\n")
    assert scan_samples(path, "acc") is not None
    fast = load_run(path).table
    monkeypatch.setattr(lm_eval, "_fast_load", lambda *args: None)
    assert fast.equals(load_run(path).table)
    assert fast["item_id"][30] == "-9223372036854775808"


@pytest.mark.parametrize(
    "edit",
    [
        ('"prompt_hash"', '"prompt_hsh"'),  # one line's key damaged
        ('"doc_hash"', '"doc_hsh"'),
    ],
    ids=["prompt_hash", "doc_hash"],
)
def test_a_line_without_its_hashes_reads_as_the_line_by_line_reader_reads_it(
    tmp_path, edit, monkeypatch
):
    """The line-by-line reader computes a missing hash from the line's prompt or document;
    the fast read leaves such a file to it, so the hashes compared across runs are the same
    whichever reader took the file."""
    text = lines()
    text[5] = text[5].replace(*edit)
    path = tmp_path / "samples_copa_2026-10-01T23-15-32.942677.jsonl"
    path.write_text("\n".join(text) + "\n", encoding="utf-8")
    fast = load_run(path).table
    monkeypatch.setattr(lm_eval, "_fast_load", lambda *args: None)
    slow = load_run(path).table
    assert fast.equals(slow)
