"""Both runs of a pair read at once, with the reading step's progress in bytes.

A load is mostly hashing and polars parsing, which release the GIL, so the candidate is read in a
thread beside the baseline; two large Inspect logs, whose parse holds the GIL, read the
candidate in a second process (`inspect_elsewhere.candidate_loader`). Kept apart from
`pipeline.py` (which calls it as `load_both`, the name tests and the early read patch there).
"""

from __future__ import annotations

import logging
import math
import threading
import time
from collections.abc import Sequence
from pathlib import Path

from evaltui.core.analysis.step_progress import Progress
from evaltui.core.held_warnings import LOGGER
from evaltui.core.read import meter
from evaltui.core.read.formats import LoadOptions, load_run
from evaltui.core.read.formats.inspect_elsewhere import candidate_loader
from evaltui.core.read.formats.inspect_eval_options import NAME as EVAL_FORMAT_NAME
from evaltui.core.read.hash_progress import hashing_words, size_done, wait_hashed
from evaltui.core.read.remote.urls import base_name, url_of
from evaltui.core.read.runs import Run, size_or_zero
from evaltui.core.stats import special

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
    counter = _ReadingProgress(progress, (baseline, candidate), input_format)
    if prefetch:  # the statistics' scipy import, beside the reading rather than after it
        special.prefetch()
    # two large Inspect logs: the candidate in a second process (their parse holds the GIL)
    load_candidate = candidate_loader(baseline, candidate, input_format)

    def read_candidate() -> None:
        try:
            with meter.metering(counter.add, counter.samples):
                box["run"] = load_candidate(candidate, input_format, cand_load, wait_for_hash=False)
        except BaseException as exc:  # noqa: BLE001 - handed to the caller's thread below
            box["error"] = exc

    worker = threading.Thread(target=read_candidate, name="evaltui-read-candidate", daemon=True)
    worker.start()
    try:
        with meter.metering(counter.add, counter.samples):
            base_run = load_run(baseline, input_format, base_load, wait_for_hash=False)
    except BaseException:
        counter.stop()  # (the candidate's thread reads on, unheard)
        _unheard(worker)
        raise
    worker.join()
    if "error" in box:
        raise box["error"]  # type: ignore[misc]
    return base_run, box["run"]  # type: ignore[return-value]


def wait_for_hashes(
    runs: Sequence[Run], progress: Progress | None, step: float, steps: int
) -> None:
    """Wait for the runs' sha256, computed beside their read, saying how far they are at
    `step` of `steps` ("checking the inputs' sha256 (0.4 of 1.9 GB)", the bar moving on
    within the step): a remote log's hash reads the whole object, minutes over a slow link
    after its statistics are done (`hash_progress`)."""
    report = None
    if progress is not None:
        said = progress

        def report(done: int, total: int) -> None:
            said(hashing_words(done, total), step + (done / total if total else 0.0), steps)

    wait_hashed([run.pending_source for run in runs], report)


def _unheard(worker: threading.Thread) -> None:
    """Nothing the candidate's thread warns after the baseline's refusal reaches the user: a
    damaged cache entry it finds would print a second line after the one-line error (the
    caches' logger, `held_warnings.LOGGER`, on Python's last-resort handler). Only that thread's
    records, and only while it runs (a later thread may get its ident)."""
    logging.getLogger(LOGGER).addFilter(
        lambda record: not (record.thread == worker.ident and worker.is_alive())
    )


class _ReadingProgress:
    """Turns the loaders' counts into the reading step's progress ("1.2 of 4.8 GB"), at most
    four times a second (see `INTERVAL`).

    An Inspect `.eval` log is read by its parts (its directory, header and summaries: 18 MB
    of a 959 MB log), never whole, so its size is no total to count against: "0.0 of 1.9 GB"
    (remote) or a bar at 0 % (local) stood still for the whole read of a large pair. Its
    samples are counted instead ("120,000 of 400,000 samples", the bar by them), a log read
    by a second process's too (`inspect_elsewhere` passes its counts on), and a remote one's
    bytes are said as read ("18 MB read by range"), against the total of the files read
    whole, if any; its size is not looked up for this. A log's samples are known once it
    has found them, which the candidate's second process does half a second after the
    baseline's read began: until every `.eval` log has, the words say the samples read so
    far and the bar takes each log not yet sized for as large as those that are (a pair is
    two runs of the same items). The bar never goes back.
    """

    # seconds between reports: each one the app draws while a load has the cyclic collector
    # paused (`collector.py`) leaves its frame's cyclic garbage until the load ends: ten a
    # second cost a 1 GB .eval pair's open 60 MB of the app's peak (648 against 585 MB,
    # median of 4), four a second nothing measurable (589 MB)
    INTERVAL = 0.25

    def __init__(
        self,
        progress: Progress | None,
        paths: tuple[str | Path, ...],
        input_format: str | None = None,
    ) -> None:
        self._progress = progress
        if input_format not in (None, EVAL_FORMAT_NAME):  # (an `.eval` name read as another format
            paths_by_parts: list[str | Path] = []  # is read whole, its bytes counted)
        else:
            paths_by_parts = [p for p in paths if _read_by_parts(p)]
        whole = [p for p in paths if p not in paths_by_parts]
        self._by_ranges = any(map(_read_by_ranges, paths_by_parts))
        self._total = sum(size_or_zero(Path(p)) for p in whole)
        self._done = 0
        self._samples_done = 0
        self._samples_total = 0
        self._logs = len(paths_by_parts)  # the logs whose samples are counted
        self._sized = 0  # of those, the ones that said how many they hold
        self._fraction = 0.0  # the last said: never less
        self._last = -math.inf  # never said (monotonic time counts from boot: not 0.0)
        self._lock = threading.Lock()
        self._stopped = False

    def stop(self) -> None:
        """No report from now on; returns once a report in progress (in another thread) has
        returned, so none is made after this."""
        with self._lock:
            self._stopped = True

    def add(self, n_bytes: int) -> None:
        """A loader read `n_bytes` more (`meter.read`)."""
        self._count(n_bytes, 0, 0)

    def samples(self, done: int, total: int) -> None:
        """A loader summarised `done` more samples and found `total` more (`meter.samples_read`)."""
        self._count(0, done, total)

    def _count(self, n_bytes: int, done: int, total: int) -> None:
        if self._progress is None:
            return
        with self._lock:
            if self._stopped:
                return
            self._done += n_bytes
            self._samples_done += done
            self._samples_total += total
            self._sized += (total > 0) - (total < 0)  # (less: a second process's taken back)
            now = time.monotonic()
            if now - self._last < self.INTERVAL and not (done > 0 and self._all_summarised()):
                return  # (the last samples always said: the line ends on "N of N samples")
            said, fraction = self._said()
            if said is None:
                return
            self._last = now
            self._fraction = max(self._fraction, fraction)
            self._progress(f"{STEPS[0]} ({said})", self._fraction, len(STEPS))

    def _all_summarised(self) -> bool:
        """Whether every `.eval` log has found its samples and all of them are summarised."""
        total = self._samples_total
        return total > 0 and self._sized >= self._logs and self._samples_done >= total

    def _said(self) -> tuple[str | None, float]:
        """The words in brackets and the fraction done, or None when nothing is counted."""
        words = []
        sized = self._samples_total > 0 and self._sized > 0
        if sized:
            done = max(0, min(self._samples_done, self._samples_total))
            every = self._sized >= self._logs
            words.append(f"{done:,} of {self._samples_total:,} samples" if every
                         else f"{done:,} samples read")  # fmt: skip
        if self._by_ranges:
            words.append(f"{self._done / 1e6:.0f} MB read by range")
        elif self._total > 0:
            words.append(size_done(self._done, self._total))
        if not words:
            return None, 0.0
        if sized:  # a log not sized yet taken for as large as those that are
            fraction = done / self._samples_total * min(self._sized / max(self._logs, 1), 1.0)
        else:
            fraction = min(self._done / self._total, 1.0) if self._total > 0 else 0.0
        return "; ".join(words), fraction


def _read_by_parts(path: str | Path) -> bool:
    """Whether the loader reads `path` by its parts rather than whole: an Inspect `.eval`
    log, local or remote (its directory and summaries; its samples counted instead)."""
    return base_name(url_of(path) or str(path)).endswith(".eval")


def _read_by_ranges(path: str | Path) -> bool:
    """Whether the loader reads `path` by byte ranges rather than whole: a remote `.eval`."""
    url = url_of(path)
    return url is not None and base_name(url).endswith(".eval")
