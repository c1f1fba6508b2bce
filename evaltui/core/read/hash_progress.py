"""The inputs' sha256 computed beside the work, and how far each has got.

A run's sha256 is computed in a helper thread while its file is parsed (`RunSource.begin`, a
remote run's `remote_source`). For a remote Inspect log that means reading the whole object
(959 MB for a 200,000-sample log whose statistics needed 18 MB of it): minutes over a slow
link after the statistics are done, with `report`'s progress line standing on "400,000 of
400,000 samples" and nothing to say it was still downloading. So each such hash counts the
bytes it reads (the loaders' own `meter.read` calls, heard through `meter.metering` in its
thread), and whoever waits for it says how far it is (`wait_hashed`: the headless commands
before they print, "checking the inputs' sha256 (0.4 of 1.9 GB)").
"""

from __future__ import annotations

import math
import threading
import time
import weakref
from collections.abc import Callable, Iterable
from concurrent.futures import Executor, Future, wait
from typing import TypeVar

from evaltui.core.read import meter

T = TypeVar("T")

INTERVAL = 0.25  # seconds between reports while waiting (the reading step's pace)


class HashCount:
    """Bytes of one input hashed so far, against its size. Written by its hashing thread
    only; read by a waiting one (a count a moment old is fine for a progress line)."""

    __slots__ = ("done", "total", "__weakref__")

    def __init__(self, total: int) -> None:
        self.done = 0
        self.total = total

    def add(self, n_bytes: int) -> None:
        self.done += n_bytes


_COUNTS: weakref.WeakKeyDictionary[Future, HashCount] = weakref.WeakKeyDictionary()


def hash_beside(executor: Executor, job: Callable[[], T], size: int) -> Future[T]:
    """`job` (a hash reading `size` bytes) run by `executor`, its bytes counted for
    `hashed_so_far`."""
    count = HashCount(size)

    def counted() -> T:
        with meter.metering(count.add):
            return job()

    future = executor.submit(counted)
    _COUNTS[future] = count
    return future


def hashed_so_far(futures: Iterable[Future | None]) -> tuple[int, int]:
    """(bytes hashed, bytes to hash) over the counted hashes among `futures` (None: an input
    hashed already), a finished one counted whole."""
    done = total = 0
    for future in futures:
        count = None if future is None else _COUNTS.get(future)
        if future is None or count is None:
            continue
        total += count.total
        done += count.total if future.done() else min(count.done, count.total)
    return done, total


def wait_hashed(
    futures: Iterable[Future | None],
    report: Callable[[int, int], None] | None,
    interval: float = INTERVAL,
) -> None:
    """Return once every one of `futures` is done, calling `report(done, total)` (bytes, as
    `hashed_so_far`) every `interval` seconds while any is not; errors are left in the
    futures, for their `result()`."""
    every = [f for f in futures if f is not None]
    pending = [f for f in every if not f.done()]
    while pending:
        if report is not None:
            report(*hashed_so_far(every))
        pending = list(wait(pending, timeout=interval).not_done)


class ByteReports:
    """A `meter.metering` callback counting the bytes a hash reads against `total` and saying
    them as `say(done, total)` every `interval` seconds at most, not before `delay` has passed
    (a quick hash says nothing): verify's hashes (`verify/hashing.py`) and the app's after its
    first screen (`ui/input_hashing.py`)."""

    def __init__(
        self,
        say: Callable[[int, int], object],
        total: int,
        delay: float = 0.0,
        interval: float = INTERVAL,
    ) -> None:
        self._say = say
        self._total = total
        self._done = 0
        self._start = time.monotonic()
        # never said yet: -inf, not 0.0 (`time.monotonic` counts from boot on Linux, so a
        # machine up for less than `interval` would hold the first count back)
        self._last = -math.inf
        self._delay, self._interval = delay, interval
        self._lock = threading.Lock()

    def __call__(self, n_bytes: int) -> None:
        with self._lock:  # (verify's hashes report from a thread each)
            self._done += n_bytes
            now = time.monotonic()
            if now - self._start < self._delay or now - self._last < self._interval:
                return
            self._last = now
            done = min(self._done, self._total)
        self._say(done, self._total)


def size_done(done: int, total: int, between: str = " of ") -> str:
    """How far a count of bytes is: "0.4 of 1.9 GB" (or MB, below a gigabyte);
    `between="/"`, "0.4/1.9 GB", where a line is short."""
    unit, scale = ("GB", 1e9) if total >= 1e9 else ("MB", 1e6)
    return f"{min(done, total) / scale:.1f}{between}{total / scale:.1f} {unit}"


def hashing_words(done: int, total: int) -> str:
    """What a wait for the inputs' sha256 says (the step's words and how far)."""
    return f"checking the inputs' sha256 ({size_done(done, total)})"
