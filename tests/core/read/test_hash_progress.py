"""The inputs' sha256, computed beside the read, say how far they are while they are waited for
(`hash_progress`): a remote log's hash reads the whole object, minutes after its statistics."""

from __future__ import annotations

import hashlib
import threading
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

import pytest

from evaltui.core.read import hash_progress, meter
from evaltui.core.read.hash_progress import (
    ByteReports,
    hash_beside,
    hashed_so_far,
    hashing_words,
    size_done,
    wait_hashed,
)
from evaltui.core.read.runs import RunSource

POOL = ThreadPoolExecutor(max_workers=2)


def test_a_hash_beside_the_read_counts_the_bytes_it_hashed(tmp_path: Path) -> None:
    data = bytes(range(256)) * 12_000  # 3 MB: three of the hash's 1 MB chunks
    path = tmp_path / "run.jsonl"
    path.write_bytes(data)
    unhashed, pending = RunSource.begin(path, "jsonl")
    assert unhashed.sha256 == ""
    assert pending.result().sha256 == hashlib.sha256(data).hexdigest()
    assert hashed_so_far([pending]) == (len(data), len(data))


def _halfway_job(halfway: threading.Event, go_on: threading.Event, fail: bool = False) -> str:
    meter.read(250)
    halfway.set()
    assert go_on.wait(10)
    meter.read(750)
    if fail:
        raise OSError("the disk went away")
    return "digest"


def test_waiting_says_how_far_the_hashes_are_until_they_are_done() -> None:
    halfway, go_on = threading.Event(), threading.Event()
    pending = hash_beside(POOL, lambda: _halfway_job(halfway, go_on), 1000)
    assert halfway.wait(10)
    said: list[tuple[int, int]] = []

    def report(done: int, total: int) -> None:
        said.append((done, total))
        go_on.set()  # the rest of the bytes once the first count is said

    wait_hashed([None, pending], report, interval=0.01)  # (None: an input hashed already)
    assert pending.done() and pending.result() == "digest"
    assert said[0] == (250, 1000)
    assert said == sorted(said) and all(total == 1000 for _, total in said)
    assert hashed_so_far([None, pending]) == (1000, 1000)


def test_nothing_is_said_when_the_hashes_are_done_already() -> None:
    done: Future[str] = Future()
    done.set_result("digest")
    said: list[tuple[int, int]] = []
    wait_hashed([done, None], lambda *counts: said.append(counts))
    assert said == []


def test_a_failed_hash_ends_the_wait_and_is_left_for_its_result() -> None:
    halfway, go_on = threading.Event(), threading.Event()
    go_on.set()
    pending = hash_beside(POOL, lambda: _halfway_job(halfway, go_on, fail=True), 1000)
    wait_hashed([pending], None, interval=0.01)
    with pytest.raises(OSError, match="the disk went away"):
        pending.result()


def test_the_words_say_the_bytes_in_megabytes_then_gigabytes() -> None:
    assert hashing_words(400_000_000, 1_900_000_000) == (
        "checking the inputs' sha256 (0.4 of 1.9 GB)"
    )
    assert size_done(2_500_000, 8_000_000) == "2.5 of 8.0 MB"
    assert size_done(9_000_000, 8_000_000) == "8.0 of 8.0 MB"  # (never past the total)
    assert size_done(400_000_000, 1_900_000_000, between="/") == "0.4/1.9 GB"  # (short lines)


def test_byte_reports_say_the_first_count_then_wait_their_interval_and_never_pass_the_total():
    said: list[tuple[int, int]] = []
    reports = ByteReports(lambda *counts: said.append(counts), 1000, interval=3600)
    reports(400)
    reports(700)  # (within the interval: not said)
    assert said == [(400, 1000)]
    every = ByteReports(lambda *counts: said.append(counts), 1000, interval=0)
    every(1200)
    assert said[-1] == (1000, 1000)
    quiet = ByteReports(lambda *counts: said.append(counts), 1000, delay=3600)
    quiet(500)  # (a quick hash says nothing)
    assert len(said) == 2


def test_the_first_count_is_said_on_a_machine_booted_less_than_an_interval_ago(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # `time.monotonic` counts from boot on Linux: a last report "at 0.0" held the first count
    # back for the machine's first `interval` seconds (the test above failed on a fresh CI box)
    monkeypatch.setattr(hash_progress.time, "monotonic", lambda: 5.0)  # up for 5 s
    said: list[tuple[int, int]] = []
    reports = ByteReports(lambda *counts: said.append(counts), 1000, interval=60)
    reports(400)
    reports(700)
    assert said == [(400, 1000)]
