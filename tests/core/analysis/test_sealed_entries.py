"""Cache entries are proven intact before their numbers are shown: one byte changed anywhere in
any file of a scan-cache or analysis-cache entry (also where the file still decodes, into other
numbers) makes the entry damaged: it is said, dropped, and the numbers computed afresh."""

from __future__ import annotations

import json
import logging
import struct

import numpy as np
import polars as pl
import pytest

from evaltui.core.analysis import analysis_cache
from evaltui.core.analysis.pipeline import compare, keep_analysis
from evaltui.core.compare.spec import CompareSpec
from evaltui.core.read.formats import LoadOptions, entry_seal, jsonl, load_run, scan_cache
from evaltui.core.read.formats.jsonl_scan import scan_jsonl
from evaltui.core.report.pair import report_dict

# Where in a file the byte is changed (1.0: its last byte). The first and a middle byte run by
# default; the others ride the same path and run in CI's slow stage (the suite's CPU budget).
POSITIONS = [
    0.0,
    pytest.param(0.3, marks=pytest.mark.slow),
    0.6,
    pytest.param(1.0, marks=pytest.mark.slow),
]


@pytest.fixture(autouse=True)
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv(scan_cache.ENV, str(tmp_path / "cache"))
    monkeypatch.delenv("EVALTUI_NO_CACHE", raising=False)
    monkeypatch.setattr(analysis_cache, "MIN_ITEMS", 0)  # (the test pairs are small)
    monkeypatch.setattr(scan_cache, "MIN_BYTES", 0)
    return tmp_path / "cache"


def graded_pair(folder):
    """300 items with a score (the deltas and id lists are Parquet columns of their own)."""
    folder.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(11)
    paths = []
    for name, shift in (("b.jsonl", 0.0), ("c.jsonl", 0.05)):
        rows = []
        for i in range(300):
            score = float(np.clip(rng.random() + shift, 0, 1))
            rows.append({"item_id": f"i{i}", "score": score, "passed": score > 0.5})
        path = folder / name
        path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
        paths.append(path)
    return CompareSpec.create(paths[0], paths[1], metric="score")


def flip(path, at: float) -> None:
    """One byte of `path` changed, at a fraction of its length."""
    data = bytearray(path.read_bytes())
    index = min(int(at * len(data)), len(data) - 1)
    data[index] ^= 0x5A
    path.write_bytes(bytes(data))


def flip_a_value(path, column: str, row: int) -> tuple[object, object]:
    """One byte of one value of `column` changed where it sits in the file's data page (its
    little-endian bytes, found once in the file): the file still decodes, to another value.
    Returns the value before and after."""
    before = pl.read_parquet(path)
    value = before[column][row]
    pattern = struct.pack("<d" if before[column].dtype == pl.Float64 else "<q", value)
    data = bytearray(path.read_bytes())
    at = data.find(pattern)
    assert at >= 0 and data.find(pattern, at + 1) < 0, "the value is not in the file once"
    data[at] ^= 0x01  # (the lowest byte: a number near the old one)
    path.write_bytes(bytes(data))
    after = pl.read_parquet(path)[column][row]  # (still decodes)
    assert after != value
    return value, after


def said_damaged(caplog, name: str) -> bool:
    return any(
        "was damaged" in r.getMessage() and name in r.getMessage()
        for r in caplog.records
        if r.name == entry_seal.LOG.name and r.levelno == logging.WARNING
    )


# ---- the analysis cache ----


def kept(folder):
    """A kept analysis of a pair written in `folder`, and its entry."""
    spec = graded_pair(folder)
    first = compare(spec, cached=True)
    keep_analysis(first)
    root = analysis_cache.cache_root()
    assert root is not None
    (entry,) = [
        entry
        for entry in root.iterdir()
        if json.loads((entry / analysis_cache.META).read_text())["paths"][0]
        == str(spec.baseline.resolve())
    ]
    return spec, first, entry


def reopened_afresh(spec, first, entry, caplog, name, whole: bool = True) -> None:
    """The reopen computed the analysis (no entry used), said why, and dropped the entry;
    `whole`: and the completed analysis reports as the first open's."""
    with caplog.at_level(logging.WARNING, logger=entry_seal.LOG.name):
        again = compare(spec, cached=True, complete=False)
    assert again.breakdowns_pending  # computed here, not rebuilt from the entry
    assert not entry.exists()
    assert said_damaged(caplog, name), caplog.text
    if whole:
        done = compare(spec, cached=True)
        assert json.dumps(report_dict(done), sort_keys=True) == json.dumps(
            report_dict(first), sort_keys=True
        )


def test_a_kept_analysis_is_sealed_file_by_file(tmp_path):
    _spec, _first, entry = kept(tmp_path)
    sealed = json.loads((entry / entry_seal.SEAL).read_text())["files"]
    assert set(sealed) == {p.name for p in entry.iterdir()} - {entry_seal.SEAL}
    assert analysis_cache.ITEMS in sealed and analysis_cache.META in sealed


@pytest.mark.parametrize("at", POSITIONS)
def test_one_byte_changed_in_any_file_of_a_kept_analysis_is_computed_afresh(tmp_path, caplog, at):
    names = sorted(
        p.name for p in kept(tmp_path / "first")[2].iterdir() if p.name != entry_seal.SEAL
    )
    assert len(names) >= 4  # the JSON, the paired items, and the columns aside
    for name in names:
        spec, first, entry = kept(tmp_path / name)
        flip(entry / name, at)
        reopened_afresh(spec, first, entry, caplog, name, whole=False)
        caplog.clear()


@pytest.mark.parametrize(
    "column", ["baseline_score", pytest.param("candidate_score", marks=pytest.mark.slow)]
)
def test_a_changed_value_in_a_data_page_of_the_paired_items_is_not_shown(tmp_path, caplog, column):
    spec, first, entry = kept(tmp_path)
    flip_a_value(entry / analysis_cache.ITEMS, column, 150)
    reopened_afresh(spec, first, entry, caplog, analysis_cache.ITEMS)


def test_a_changed_delta_in_a_data_page_of_its_column_is_not_shown(tmp_path, caplog):
    spec, first, entry = kept(tmp_path)
    meta = json.loads((entry / analysis_cache.META).read_text())
    column = f"column-{meta['analysis']['deltas']['column']}.parquet"
    flip_a_value(entry / column, "a", 150)
    reopened_afresh(spec, first, entry, caplog, column)


def test_a_number_edited_by_hand_in_the_kept_json_is_not_shown(tmp_path, caplog):
    spec, first, entry = kept(tmp_path)
    meta = entry / analysis_cache.META
    text = meta.read_text()
    mean = first.graded.mean_delta
    assert repr(mean) in text  # (everywhere it is kept: a consistent edit)
    meta.write_text(text.replace(repr(mean), repr(mean / 2)), encoding="utf-8")
    assert json.loads(meta.read_text())  # (still JSON, its class would take the value)
    reopened_afresh(spec, first, entry, caplog, analysis_cache.META)


def test_an_entry_without_its_seal_is_computed_afresh(tmp_path, caplog):
    spec, first, entry = kept(tmp_path)
    (entry / entry_seal.SEAL).unlink()
    reopened_afresh(spec, first, entry, caplog, "no seal")


# ---- the scan cache ----


def scanned(folder):
    """A scan-cache entry of a run written in `folder`."""
    path = graded_pair(folder).baseline
    first = load_run(path, None, LoadOptions())
    root = scan_cache.cache_root()
    assert root is not None
    (entry,) = [
        entry
        for entry in root.iterdir()
        if (entry / scan_cache.META).is_file()
        and json.loads((entry / scan_cache.META).read_text())["path"] == str(path.resolve())
    ]
    return path, first, entry


def parsed_afresh(path, first, entry, caplog, monkeypatch, name) -> None:
    """The next read parsed the file (the entry not used), said why, and kept a new entry."""
    parsed = []
    monkeypatch.setattr(jsonl, "scan_jsonl", lambda *a, **k: parsed.append(1) or scan_jsonl(*a))
    for defer in (True, False):  # (the app's unchecked lookup too: the seal is checked)
        caplog.clear()
        with caplog.at_level(logging.WARNING, logger=entry_seal.LOG.name):
            again = load_run(path, None, LoadOptions(defer_hash_check=defer))
        assert parsed == [1], "the damaged entry was used"
        assert said_damaged(caplog, name), caplog.text
        assert again.table.equals(first.table)
        assert again.transcripts.read(150).output == first.transcripts.read(150).output
        parsed.clear()
        flip_again = entry / name
        if defer:  # (the parse kept a new, intact entry: damage it the same way again)
            assert (entry / entry_seal.SEAL).is_file()
            flip(flip_again, 0.6)


@pytest.mark.parametrize("at", POSITIONS)
def test_one_byte_changed_in_any_file_of_a_scan_entry_is_parsed_afresh(
    tmp_path, caplog, monkeypatch, at
):
    names = sorted(
        p.name for p in scanned(tmp_path / "first")[2].iterdir() if p.name != entry_seal.SEAL
    )
    assert names == sorted(
        [scan_cache.META, scan_cache.FRAME, scan_cache.STARTS, "line_numbers.npy"]
    )
    for name in names:
        path, first, entry = scanned(tmp_path / name)
        flip(entry / name, at)
        with monkeypatch.context() as patched:
            parsed_afresh(path, first, entry, caplog, patched, name)


def test_a_changed_score_in_a_data_page_of_a_scan_entry_is_not_read(tmp_path, caplog, monkeypatch):
    path, first, entry = scanned(tmp_path)
    flip_a_value(entry / scan_cache.FRAME, "score", 150)
    schema = {
        name: dtype for name, dtype in pl.read_parquet(entry / scan_cache.FRAME).schema.items()
    }
    with caplog.at_level(logging.WARNING, logger=entry_seal.LOG.name):
        assert scan_cache.lookup(path, schema, check_hash=True) is None
    assert said_damaged(caplog, scan_cache.FRAME)
    assert not entry.exists()


def test_a_line_index_truncated_and_padded_to_its_size_is_not_read(tmp_path, caplog, monkeypatch):
    path, first, entry = scanned(tmp_path)
    starts = entry / scan_cache.STARTS
    data = starts.read_bytes()
    starts.write_bytes(data[: len(data) - 80] + bytes(80))  # (np.load reads it: ten zeros)
    assert np.load(starts)[-1] == 0
    parsed_afresh(path, first, entry, caplog, monkeypatch, scan_cache.STARTS)


def test_the_warning_line_shows_a_path_literally():
    records = []
    handler = logging.Handler()
    handler.emit = records.append  # type: ignore[method-assign]
    entry_seal.LOG.addHandler(handler)
    try:
        entry_seal.say_damaged("the entry for /tmp/a\x1b[31mb", "x", "parsed afresh")
    finally:
        entry_seal.LOG.removeHandler(handler)
    (record,) = records
    assert "\x1b" not in record.getMessage() and "\\x1b[31mb" in record.getMessage()


@pytest.mark.slow  # a subprocess (1.5 CPU-s) over the path the in-process tests take
def test_report_says_a_damaged_scan_entry_in_one_line_and_reports_the_bytes(tmp_path):
    """The command line: one warning line on stderr (no traceback), the report of the bytes."""
    import os
    import subprocess
    import sys

    spec = graded_pair(tmp_path / "pair")
    run = (
        "import sys; from evaltui.core.read.formats import scan_cache; scan_cache.MIN_BYTES = 0; "
        "from evaltui.cli.main import main; sys.exit(main(sys.argv[1:]))"
    )
    argv = [sys.executable, "-c", run, "report", str(spec.baseline), str(spec.candidate)]
    argv += ["--metric", "score", "--format", "json"]
    env = {**os.environ, scan_cache.ENV: str(tmp_path / "cli-cache")}

    def report():
        done = subprocess.run(argv, env=env, capture_output=True, text=True, check=False)
        assert done.returncode == 0, done.stderr
        data = json.loads(done.stdout)
        data.pop("generated_at", None)
        return data, done.stderr

    first, quiet = report()
    assert quiet == ""
    (entry,) = [
        meta.parent
        for meta in (tmp_path / "cli-cache").glob(f"*/{scan_cache.META}")
        if json.loads(meta.read_text())["path"] == str(spec.baseline.resolve())
    ]
    flip_a_value(entry / scan_cache.FRAME, "score", 150)
    again, said = report()
    assert again == first
    (line,) = said.splitlines()
    assert line.startswith("evaltui: warning: the scan cache's entry for ")
    assert "frame.parquet" in line and line.endswith("parsed afresh")
