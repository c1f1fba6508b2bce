"""The CLI's early sums of a reopen's cache entries (`early_sums.py`): taken by the seal check
only for the very file they were computed from, so a damaged entry is refused as before,
whether it was damaged before the sums or after them."""

from __future__ import annotations

import logging

import pytest

from evaltui.core.analysis import analysis_cache, kept_hint
from evaltui.core.analysis.pipeline import compare, keep_analysis
from evaltui.core.read.formats import LoadOptions, early_sums, entry_seal, load_run, scan_cache
from evaltui.core.read.remote.cache import NO_CACHE_ENV
from tests.core.analysis.test_sealed_entries import flip, graded_pair, said_damaged


@pytest.fixture(autouse=True)
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv(scan_cache.ENV, str(tmp_path / "cache"))
    monkeypatch.delenv(NO_CACHE_ENV, raising=False)
    monkeypatch.setattr(analysis_cache, "MIN_ITEMS", 0)  # (the test pairs are small)
    monkeypatch.setattr(scan_cache, "MIN_BYTES", 0)
    yield tmp_path / "cache"
    early_sums.stop()


def reopenable(folder):
    """A pair opened once: both scan entries and the analysis entry kept."""
    spec = graded_pair(folder)
    keep_analysis(compare(spec, cached=True))
    return spec


def started(spec) -> early_sums.EarlySums:
    early = early_sums.start(spec.baseline, spec.candidate)
    assert early is not None
    early.wait()
    return early


def no_crc_in_checks(monkeypatch) -> list:
    """`crc_of` made to fail: a check that computes a CRC itself says so."""
    computed: list = []
    monkeypatch.setattr(entry_seal, "crc_of", lambda path: computed.append(path.name) or 1 / 0)
    return computed


def test_the_early_sums_cover_each_inputs_scan_entry_and_the_analysis_entry(tmp_path):
    spec = reopenable(tmp_path / "runs")
    root = scan_cache.cache_root()
    assert root is not None
    early = started(spec)
    summed = {p.parent.name: set() for p in map(early_sums.Path, early._files)}
    for name in early._files:
        path = early_sums.Path(name)
        summed[path.parent.name].add(path.name)
    scans = [e.name for e in root.iterdir() if (e / scan_cache.META).is_file()]
    (analysis,) = [e.name for e in (root / kept_hint.FOLDER).iterdir()]
    assert set(summed) == {*scans, analysis}
    assert all(
        names == {"frame.parquet", "starts.npy", "line_numbers.npy"}
        for e, names in summed.items()
        if e in scans
    )
    assert "items.parquet" in summed[analysis] and not any(
        n.endswith(".json") for names in summed.values() for n in names
    )


def test_a_reopen_takes_the_early_sums_and_computes_no_crc_of_its_own(tmp_path, monkeypatch):
    spec = reopenable(tmp_path / "runs")
    started(spec)
    computed = no_crc_in_checks(monkeypatch)
    base = load_run(spec.baseline, None, LoadOptions(defer_hash_check=True))
    cand = load_run(spec.candidate, None, LoadOptions(defer_hash_check=True))
    from evaltui.core.analysis.analysis_cache import rebuild

    assert rebuild(spec, base, cand, None) is not None
    assert computed == []


def test_a_file_damaged_after_the_early_sums_is_summed_again_and_refused(
    tmp_path, caplog, monkeypatch
):
    spec = reopenable(tmp_path / "runs")
    early = started(spec)
    frame = next(
        early_sums.Path(n) for n in early._files if n.endswith(scan_cache.FRAME)
    )  # (the first input's scan entry)
    assert early.sums(frame) is not None
    flip(frame, 0.6)  # (same size: only the file's times say it was written)
    assert early.sums(frame) is None
    with caplog.at_level(logging.WARNING, logger=entry_seal.LOG.name):
        for path in (spec.baseline, spec.candidate):
            load_run(path, None, LoadOptions(defer_hash_check=True))
    assert said_damaged(caplog, scan_cache.FRAME), caplog.text


def test_an_entry_damaged_before_the_early_sums_is_refused_by_the_seal(tmp_path, caplog):
    spec = reopenable(tmp_path / "runs")
    root = analysis_cache.cache_root()
    assert root is not None
    (entry,) = list(root.iterdir())
    flip(entry / analysis_cache.ITEMS, 0.3)
    started(spec)
    base = load_run(spec.baseline, None, LoadOptions(defer_hash_check=True))
    cand = load_run(spec.candidate, None, LoadOptions(defer_hash_check=True))
    from evaltui.core.analysis.analysis_cache import rebuild

    with caplog.at_level(logging.WARNING, logger=entry_seal.LOG.name):
        assert rebuild(spec, base, cand, None) is None
    assert said_damaged(caplog, analysis_cache.ITEMS), caplog.text


def test_nothing_is_summed_early_without_a_cache_or_an_entry_or_a_local_file(tmp_path, monkeypatch):
    spec = graded_pair(tmp_path / "runs")  # (never opened: no entry)
    assert early_sums.start(spec.baseline, spec.candidate) is None
    assert early_sums.start("https://example.com/a.jsonl", tmp_path / "gone.jsonl") is None
    monkeypatch.setenv(scan_cache.ENV, "off")
    assert early_sums.start(spec.baseline, spec.candidate) is None
    assert early_sums.sums(spec.baseline) is None


def test_the_early_sums_look_where_the_caches_keep_their_entries():
    assert early_sums.SCAN_ENV == scan_cache.ENV
    assert early_sums.NO_CACHE_ENV == NO_CACHE_ENV
    assert early_sums.ANALYSES == kept_hint.FOLDER
    assert early_sums.ANALYSIS_META == kept_hint.META
    assert early_sums.SCAN_META == scan_cache.META
    assert early_sums.SEAL == entry_seal.SEAL


@pytest.mark.filterwarnings("ignore::pytest.PytestUnhandledThreadExceptionWarning")
def test_a_sums_thread_that_ends_early_leaves_no_check_waiting(tmp_path, monkeypatch):
    files = [tmp_path / "a.parquet", tmp_path / "b.parquet"]
    for path in files:
        path.write_bytes(b"abc")

    def ended(path):
        raise SystemExit  # (ends the thread, as nothing a file does should)

    monkeypatch.setattr(early_sums, "_sums_of", ended)
    early = early_sums.EarlySums(files)
    early.wait()
    assert [early.sums(path) for path in files] == [None, None]  # (computed by the check)
