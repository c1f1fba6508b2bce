"""Bytes read so far while loading: what the progress bar of a long open counts.

Opening a million-item JSONL pair reads gigabytes for several seconds; a bar stuck at "reading"
tells the reviewer nothing. The loaders report each block they read through `read`, which goes
to the callback the current thread set with `metering` (thread-local: the baseline and the
candidate are read in two threads, each with its own callback). Without one it does nothing.
A reader that knows its samples says those too (`samples_read`), and a log read by a second
process says its counts through that process's answer (`inspect_elsewhere`).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager

_local = threading.local()


@contextmanager
def metering(
    callback: Callable[[int], None], samples: Callable[[int, int], None] | None = None
) -> Iterator[None]:
    """Send the byte counts this thread's loaders report to `callback` while inside, and the
    samples they summarise to `samples` (done, total)."""
    previous = (getattr(_local, "callback", None), getattr(_local, "samples", None))
    _local.callback, _local.samples = callback, samples
    try:
        yield
    finally:
        _local.callback, _local.samples = previous


@contextmanager
def unmetered() -> Iterator[None]:
    """Nothing this thread's loaders report is heard while inside (a remote file's local copy
    parsed after its download, which was the read's progress: counted once, not twice)."""
    with metering(_nothing, None):
        yield


def _nothing(n_bytes: int) -> None:
    pass


def read(n_bytes: int) -> None:
    """A loader read `n_bytes` more of its input."""
    callback = getattr(_local, "callback", None)
    if callback is not None:
        callback(n_bytes)


def samples_read(done: int, total: int = 0) -> None:
    """A loader summarised `done` more samples of a log, and found `total` more to read (said
    once it knows them, before the first is counted). A large Inspect log is read by its
    parts, not as a whole (its directory and summaries: 100 MB of a 1 GB log), so its bytes
    are no measure of how far it is: its samples are."""
    callback = getattr(_local, "samples", None)
    if callback is not None:
        callback(done, total)
