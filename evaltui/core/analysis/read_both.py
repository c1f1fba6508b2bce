"""Both runs of a pair read at once, with the reading step's progress in bytes.

A load is mostly hashing and polars parsing, which release the GIL, so the candidate is read in a
thread beside the baseline; two large Inspect logs, whose parse holds the GIL, read the
candidate in a second process (`inspect_elsewhere.candidate_loader`). Kept apart from
`pipeline.py` (which calls it as `load_both`, the name tests and the early read patch there).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from pathlib import Path

from evaltui.core.held_warnings import LOGGER
from evaltui.core.read import meter
from evaltui.core.read.formats import LoadOptions, load_run
from evaltui.core.read.formats.inspect_elsewhere import candidate_loader
from evaltui.core.read.remote.urls import base_name, url_of
from evaltui.core.read.runs import Run, size_or_zero
from evaltui.core.stats import special

Progress = Callable[[str, float, int], None]  # what, step (fractional while reading), steps
# The comparison's steps (`pipeline.STEPS`), of which reading both runs is the first.
STEPS = ("reading the baseline and the candidate", "pairing items", "computing statistics")


def load_both(
    baseline: str | Path,
    candidate: str | Path,
    input_format: str | None,
    base_load: LoadOptions,
    cand_load: LoadOptions,
    progress: Progress | None = None,
    prefetch: bool = True,
) -> tuple[Run, Run]:
    """Read both runs at once: a load is mostly hashing and polars parsing, which release the
    GIL, so the second file's work fills the cores the first leaves idle (a 1M Parquet pair's
    two hashes run side by side instead of one after the other). Two large Inspect logs, whose
    parse is Python under the GIL, are read at once by reading the candidate in a second
    process (`inspect_elsewhere.candidate_loader`).

    The baseline's error wins when both files are bad, as it did when they were read in turn.
    The candidate is read in a daemon thread so an error in the baseline exits at once instead
    of waiting for a big candidate to finish. That thread goes on reading meanwhile, so its
    progress is stopped first: nothing it reports reaches `progress` after the refusal (a
    progress line drawn on stderr after the one-line error, or a daemon thread inside a write
    to stderr as the interpreter exits: CPython's fatal `_enter_buffered_busy`, exit 134).
    """
    box: dict[str, object] = {}
    counter = _ByteProgress(progress, (baseline, candidate))
    if prefetch:  # the statistics' scipy import, beside the reading rather than after it
        special.prefetch()
    # two large Inspect logs: the candidate in a second process (their parse holds the GIL)
    load_candidate = candidate_loader(baseline, candidate, input_format)

    def read_candidate() -> None:
        try:
            with meter.metering(counter.add):
                box["run"] = load_candidate(candidate, input_format, cand_load, wait_for_hash=False)
        except BaseException as exc:  # noqa: BLE001 - handed to the caller's thread below
            box["error"] = exc

    worker = threading.Thread(target=read_candidate, name="evaltui-read-candidate", daemon=True)
    worker.start()
    try:
        with meter.metering(counter.add):
            base_run = load_run(baseline, input_format, base_load, wait_for_hash=False)
    except BaseException:
        counter.stop()  # (the candidate's thread reads on, unheard)
        _unheard(worker)
        raise
    worker.join()
    if "error" in box:
        raise box["error"]  # type: ignore[misc]
    return base_run, box["run"]  # type: ignore[return-value]


def _unheard(worker: threading.Thread) -> None:
    """Nothing the candidate's thread warns after the baseline's refusal reaches the user: a
    damaged cache entry it finds would print a second line after the one-line error (the
    caches' logger, `held_warnings.LOGGER`, on Python's last-resort handler). Only that thread's
    records, and only while it runs (a later thread may get its ident)."""
    logging.getLogger(LOGGER).addFilter(
        lambda record: not (record.thread == worker.ident and worker.is_alive())
    )


class _ByteProgress:
    """Turns the loaders' byte counts into the reading step's progress ("1.2 of 4.8 GB"),
    at most ten times a second (the app's progress call waits for the UI thread).

    A remote `.eval` log is read by byte ranges (its directory, header and summaries: 18 MB of
    a 959 MB log), so its size is no total to count against: "0.0 of 1.9 GB" stood still for
    the whole read of a remote pair. Its bytes are said as read ("18 MB read by range"),
    against the total of the files read whole, if any; its size is not looked up for this.
    """

    INTERVAL = 0.1  # seconds between reports

    def __init__(self, progress: Progress | None, paths: tuple[str | Path, ...]) -> None:
        self._progress = progress
        whole = [p for p in paths if not _read_by_ranges(p)]
        self._by_ranges = len(whole) < len(paths)
        self._total = sum(size_or_zero(Path(p)) for p in whole)
        self._done = 0
        self._last = 0.0
        self._lock = threading.Lock()
        self._stopped = False

    def stop(self) -> None:
        """No report from now on; returns once a report in progress (in another thread) has
        returned, so none is made after this."""
        with self._lock:
            self._stopped = True

    def add(self, n_bytes: int) -> None:
        if self._progress is None or (self._total <= 0 and not self._by_ranges):
            return
        with self._lock:
            if self._stopped:
                return
            self._done += n_bytes
            now = time.monotonic()
            if now - self._last < self.INTERVAL:
                return
            self._last = now
            if self._by_ranges:
                fraction = min(self._done / self._total, 1.0) if self._total > 0 else 0.0
                what = f"{STEPS[0]} ({self._done / 1e6:.0f} MB read by range)"
            else:
                fraction = min(self._done / self._total, 1.0)
                what = f"{STEPS[0]} ({_gigabytes(self._done, self._total)})"
            self._progress(what, fraction, len(STEPS))


def _read_by_ranges(path: str | Path) -> bool:
    """Whether the loader reads `path` by byte ranges rather than whole: a remote `.eval`."""
    url = url_of(path)
    return url is not None and base_name(url).endswith(".eval")


def _gigabytes(done: int, total: int) -> str:
    unit, scale = ("GB", 1e9) if total >= 1e9 else ("MB", 1e6)
    return f"{min(done, total) / scale:.1f} of {total / scale:.1f} {unit}"
