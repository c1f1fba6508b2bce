"""The two runs' read started before the app exists (`early_read.py`): `compare` takes it for
its own spec (read once, the same analysis), passes its progress on, raises its error as its
own read would, and reads for itself for any other spec."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

import evaltui.core.analysis.early_read as early_read
import evaltui.core.analysis.pipeline as pipeline
from evaltui.core.analysis.early_read import EarlyRead
from evaltui.core.compare.spec import CompareSpec
from evaltui.core.errors import EvalTuiError
from tests.conftest import SAMPLE_RUNS

SAMPLE = (SAMPLE_RUNS / "baseline.jsonl", SAMPLE_RUNS / "candidate.jsonl")


class CountedReads:
    """`early_read.load_both`, counted (every read, early or not, calls it through that module)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.calls = 0
        real = early_read.load_both

        def counted(*args, **kwargs):
            self.calls += 1
            return real(*args, **kwargs)

        monkeypatch.setattr(early_read, "load_both", counted)


def numbers(analysis) -> tuple:
    return (analysis.headline, analysis.regressions, analysis.improvements, analysis.binary)


def test_compare_takes_the_started_read_of_its_spec_once_with_the_same_analysis(monkeypatch):
    reads = CountedReads(monkeypatch)
    spec = CompareSpec.create(*SAMPLE)
    reading = pipeline.start_reading(spec)
    early = pipeline.compare(spec, defer_hash_check=True, reading=reading, complete=False)
    assert reads.calls == 1
    assert numbers(early) == numbers(pipeline.compare(spec, defer_hash_check=True, complete=False))
    assert reads.calls == 2  # (the second compare had no read started: its own)
    assert not reading.serves(spec, True)  # taken once


def test_a_read_started_for_another_spec_or_hash_choice_is_not_taken(monkeypatch):
    reads = CountedReads(monkeypatch)
    spec = CompareSpec.create(*SAMPLE)
    reading = pipeline.start_reading(spec)
    other = CompareSpec.create(*SAMPLE)  # (a pair picked later: another spec)
    pipeline.compare(other, defer_hash_check=True, reading=reading)
    pipeline.compare(spec, defer_hash_check=False, reading=reading)  # (headless: hashes)
    assert reads.calls == 3 and reading.serves(spec, True)


def test_the_reads_progress_reaches_the_listener_last_report_first(monkeypatch):
    """The read reports while nobody listens: the listener hears the last report when it
    takes the read (held until then), then every later one, in the reader's words."""
    started, go_on = threading.Event(), threading.Event()
    real = early_read.load_both

    def slow(baseline, candidate, input_format, base_load, cand_load, progress=None, **how):
        assert progress is not None
        progress("reading the baseline and the candidate (0.1 of 0.2 MB)", 0.5, 3)
        started.set()
        go_on.wait(30)  # (bounded: a failing test never hangs)
        progress("reading the baseline and the candidate (0.2 of 0.2 MB)", 1.0, 3)
        return real(baseline, candidate, input_format, base_load, cand_load)

    monkeypatch.setattr(early_read, "load_both", slow)
    spec = CompareSpec.create(*SAMPLE)
    reading = EarlyRead(
        spec, lambda progress: pipeline.read_spec(spec, True, progress), defer_hash_check=True
    )
    assert started.wait(30)
    heard: list[tuple[str, float, int]] = []

    def listen(what: str, step: float, steps: int) -> None:
        heard.append((what, step, steps))
        if len(heard) == 1:
            go_on.set()

    pipeline.compare(spec, defer_hash_check=True, reading=reading, progress=listen)
    fractions = [step for what, step, _ in heard if what.startswith("reading")]
    assert fractions[:3] == [0, 0.5, 1.0]  # the step's start, the held report, the next


def test_the_reads_error_is_raised_by_compare_as_its_own_read_raises_it(tmp_path: Path):
    bad = tmp_path / "candidate.jsonl"
    bad.write_text('{"item_id": "a", "passed": true}\n{"item_id": "b", "passed": \n')
    spec = CompareSpec.create(SAMPLE[0], bad)
    with pytest.raises(EvalTuiError) as own:
        pipeline.compare(spec, defer_hash_check=True)
    reading = pipeline.start_reading(spec)
    with pytest.raises(EvalTuiError) as early:
        pipeline.compare(spec, defer_hash_check=True, reading=reading)
    assert str(early.value) == str(own.value) and "candidate.jsonl" in str(own.value)


def test_the_early_read_of_a_kept_pair_rebuilds_its_analysis_for_compare_to_take(
    tmp_path, monkeypatch
):
    from evaltui.core.analysis import analysis_cache
    from evaltui.core.read.formats import scan_cache
    from evaltui.core.report.pair import report_dict

    monkeypatch.setenv(scan_cache.ENV, str(tmp_path / "cache"))
    monkeypatch.delenv("EVALTUI_NO_CACHE", raising=False)
    monkeypatch.setattr(analysis_cache, "MIN_ITEMS", 0)
    spec = CompareSpec.create(*SAMPLE)
    first = pipeline.compare(spec, cached=True)
    pipeline.keep_analysis(first)
    loads: list[str] = []
    real = analysis_cache.load

    def counted(*args, **kwargs):
        loads.append(threading.current_thread().name)
        return real(*args, **kwargs)

    monkeypatch.setattr(analysis_cache, "load", counted)
    again_spec = CompareSpec.create(*SAMPLE)
    reading = pipeline.start_reading(again_spec)
    again = pipeline.compare(
        again_spec, defer_hash_check=True, reading=reading, complete=False, cached=True
    )
    assert loads == ["evaltui-early-read"]  # rebuilt once, in the read's thread
    assert not again.breakdowns_pending
    assert report_dict(again) == report_dict(first)
    assert analysis_cache.kept_positions(again) is not None
    # a read taken by another spec's compare: what it rebuilt is not used, the entry is read
    third_spec = CompareSpec.create(*SAMPLE)
    reading = pipeline.start_reading(third_spec)
    reading._done.wait()  # (the read and its rebuild finished)
    other = CompareSpec.create(*SAMPLE)
    pipeline.compare(other, defer_hash_check=True, reading=reading, cached=True)
    assert loads[1:] == ["evaltui-early-read", threading.current_thread().name]
    assert reading._rebuilt is None  # (nothing left behind: dropped by the compare)


def test_what_the_early_read_rebuilt_is_parked_out_of_the_collectors_walks(tmp_path, monkeypatch):
    import gc

    from evaltui.core.analysis import analysis_cache
    from evaltui.core.read.formats import scan_cache

    monkeypatch.setenv(scan_cache.ENV, str(tmp_path / "cache"))
    monkeypatch.delenv("EVALTUI_NO_CACHE", raising=False)
    monkeypatch.setattr(analysis_cache, "MIN_ITEMS", 0)
    pipeline.keep_analysis(pipeline.compare(CompareSpec.create(*SAMPLE), cached=True))
    gc.unfreeze()
    try:
        reading = pipeline.start_reading(CompareSpec.create(*SAMPLE))
        reading._done.wait()  # (the read and its rebuild finished)
        assert reading._rebuilt is not None
        assert gc.get_freeze_count() > 0
    finally:
        gc.unfreeze()


def test_the_early_read_starts_and_reads_without_the_pipelines_analysis_modules(tmp_path):
    """The CLI starts the read before it imports the rest (`early_read.py`): starting it and
    reading both runs imports neither the pipeline nor the result classes and statistics."""
    import os
    import subprocess
    import sys

    code = (
        "import sys\n"
        "from evaltui.core.analysis.early_read import start_reading\n"
        "from evaltui.core.compare.spec import CompareSpec\n"
        "reading = start_reading(CompareSpec.create(sys.argv[1], sys.argv[2]))\n"
        "reading._done.wait(60)\n"
        "heavy = ('evaltui.core.analysis.pipeline', 'evaltui.core.analysis.pair_result',\n"
        "         'evaltui.core.analysis.analysis_cache', 'evaltui.core.stats.graded')\n"
        "print(reading._result is not None, [m for m in heavy if m in sys.modules])\n"
    )
    env = {**os.environ, "EVALTUI_CACHE_DIR": str(tmp_path / "cache")}
    done = subprocess.run(
        [sys.executable, "-c", code, *map(str, SAMPLE)],
        capture_output=True, text=True, check=True, env=env,
    )  # fmt: skip
    assert done.stdout.strip() == "True []"
