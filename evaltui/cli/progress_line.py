"""One self-erasing progress line on stderr for the headless commands at a terminal.

`evaltui report` on a million-item JSONL pair works for ten seconds before it prints anything;
at a terminal a reviewer should see that it is reading, and how far it got. The line is only
drawn when stderr is a terminal (never into a pipe, a file or CI logs), only once the work has
taken longer than a moment, and it is erased before anything else is printed. Erased for good:
a reader still running in a daemon thread (the candidate, when the baseline was refused) draws
nothing after it, so the one-line error is the last thing on stderr, and no thread is inside a
write to stderr when the interpreter exits (CPython's fatal `_enter_buffered_busy`).
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TextIO

DELAY = 0.5  # seconds of silence before the first line: quick runs stay quiet
ERASE = "\r\x1b[K"


class ProgressLine:
    """A `compare_files` progress callback that redraws one line in place.

    A step said during the first moment is drawn once the moment has passed, if nothing came
    after it (`_pending`, drawn by a timer): a reader that meters nothing (a CSV pair's polars
    parse, 3 s at a million rows) said only "reading" at its start, which the delay swallowed,
    and the terminal stayed blank until the next step."""

    def __init__(self, stream: TextIO, delay: float = DELAY) -> None:
        self._stream = stream
        self._start = time.monotonic()
        self._delay = delay
        self._drawn = False
        self._closed = False
        self._lock = threading.Lock()  # (called from the readers' threads)
        self._pending: str | None = None  # said before the delay ran out, not drawn yet
        self._timer: threading.Timer | None = None

    def __call__(self, what: str, step: float, total: int) -> None:
        # (no total: a step whose progress is not counted, said without a percentage)
        percent = f" {int(100 * min(max(step / total, 0.0), 1.0))}%" if total else ""
        line = f"evaltui: {what}…{percent}"
        early = self._delay - (time.monotonic() - self._start)
        with self._lock:
            if self._closed:
                return
            if early > 0:
                self._pending = line
                if self._timer is None:
                    self._timer = threading.Timer(early, self._draw_pending)
                    self._timer.daemon = True
                    self._timer.start()
                return
            self._pending = None
            self._draw(line)

    def _draw(self, line: str) -> None:  # (the lock held)
        self._stream.write(f"{ERASE}{line}")
        self._stream.flush()
        self._drawn = True

    def _draw_pending(self) -> None:
        with self._lock:
            if not self._closed and self._pending is not None:
                self._draw(self._pending)
                self._pending = None

    def erase(self) -> None:
        """Erase the line for good: later calls draw nothing (see the module)."""
        with self._lock:
            self._closed = True
            if self._timer is not None:
                self._timer.cancel()
            if self._drawn:
                self._stream.write(ERASE)
                self._stream.flush()
                self._drawn = False


@contextmanager
def terminal_progress(
    stream: TextIO | None = None, delay: float = DELAY
) -> Iterator[ProgressLine | None]:
    """A ProgressLine when `stream` (stderr) is a terminal, else None; erased on the way out,
    error or not, so a one-line error starts at the left margin."""
    stream = stream if stream is not None else sys.stderr
    if not stream.isatty():
        yield None
        return
    line = ProgressLine(stream, delay)
    try:
        yield line
    finally:
        line.erase()
