"""verify's hashes of its inputs: side by side, said as one count of bytes, in order."""

from __future__ import annotations

import threading

import pytest

from evaltui.core.read import meter
from evaltui.core.verify import hashing


def test_the_inputs_are_hashed_side_by_side_and_given_in_order(tmp_path, monkeypatch):
    """Each hash waits for the other to have started: one after the other, the first would
    wait alone (a broken barrier). Their bytes are said as one count over both."""
    both_started = threading.Barrier(2, timeout=5)

    def hashed(path):
        both_started.wait()
        meter.read(path.stat().st_size)
        return f"sha-of-{path.name}"

    monkeypatch.setattr(hashing, "sha256_of", hashed)
    monkeypatch.setattr(hashing.ByteReports, "__init__", _every_report)
    first, second = tmp_path / "a.eval", tmp_path / "b.eval"
    first.write_bytes(b"a" * 3000)
    second.write_bytes(b"b" * 5000)
    said = []
    digests = hashing.sha256s_said([first, second], lambda *a: said.append(a))
    assert list(digests) == ["sha-of-a.eval", "sha-of-b.eval"]
    assert said[-1][1:] == (1.0, 1)  # all 8,000 bytes counted, over both threads
    assert said[-1][0].startswith("checking the inputs' sha256 (")


def _every_report(self, say, total, delay=0.0, interval=0.0):
    """`ByteReports` saying every report (no interval between two)."""
    _real_init(self, say, total, delay, 0.0)


_real_init = hashing.ByteReports.__init__


def test_a_failed_hash_is_raised_where_its_digest_is_asked_for(tmp_path):
    missing = tmp_path / "gone.eval"
    digests = hashing.sha256s_said([missing], None)
    with pytest.raises(OSError):
        next(digests)


def test_no_more_inputs_are_hashed_at_once_than_the_read_side_reads(tmp_path, monkeypatch):
    """A run set names up to 12 files: a thread each, all at once, only competed for the same
    disk, cores and link. At most `READERS` hash at a time; every digest still comes, in order.
    Each hash holds until every thread is hashing, waiting its turn or done: then exactly
    `READERS` are hashing at first (all of them, without the bound)."""
    from evaltui.core.analysis.run_set import READERS

    changed = threading.Condition()
    hashing_now, waiting, done, most = [0], [0], [0], [0]
    real = threading.BoundedSemaphore

    class Counted(real):  # the turns the hashes wait for, counted
        def acquire(self, *args, **kwargs):
            with changed:
                waiting[0] += 1
                changed.notify_all()
            try:
                return super().acquire(*args, **kwargs)
            finally:
                with changed:
                    waiting[0] -= 1

        __enter__ = acquire  # (`Semaphore.__enter__` is its own `acquire`, not an override's)

    paths = [tmp_path / f"{k}.eval" for k in range(READERS + 3)]

    def everyone() -> bool:  # every thread hashing, waiting its turn, or done
        return hashing_now[0] + waiting[0] + done[0] == len(paths)

    def hashed(path):
        with changed:
            hashing_now[0] += 1
            most[0] = max(most[0], hashing_now[0])
            changed.notify_all()
            assert changed.wait_for(everyone, 5)
            hashing_now[0] -= 1
            done[0] += 1
        return f"sha-of-{path.name}"

    monkeypatch.setattr(threading, "BoundedSemaphore", Counted)
    monkeypatch.setattr(hashing, "sha256_of", hashed)
    for path in paths:
        path.write_bytes(b"x")
    assert list(hashing.sha256s_said(paths, None)) == [f"sha-of-{p.name}" for p in paths]
    assert most[0] == READERS
