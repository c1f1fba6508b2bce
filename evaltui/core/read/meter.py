"""Bytes read so far while loading: what the progress bar of a long open counts.

Opening a million-item JSONL pair reads gigabytes for several seconds; a bar stuck at "reading"
tells the reviewer nothing. The loaders report each block they read through `read`, which goes
to the callback the current thread set with `metering` (thread-local: the baseline and the
candidate are read in two threads, each with its own callback). Without one it does nothing.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager

_local = threading.local()


@contextmanager
def metering(callback: Callable[[int], None]) -> Iterator[None]:
    """Send the byte counts this thread's loaders report to `callback` while inside."""
    previous = getattr(_local, "callback", None)
    _local.callback = callback
    try:
        yield
    finally:
        _local.callback = previous


def read(n_bytes: int) -> None:
    """A loader read `n_bytes` more of its input."""
    callback = getattr(_local, "callback", None)
    if callback is not None:
        callback(n_bytes)
