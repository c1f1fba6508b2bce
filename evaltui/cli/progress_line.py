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

import io
import os
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TextIO

from rich.cells import cell_len, set_cell_size

from evaltui.core.words import still_for

DELAY = 0.5  # seconds of silence before the first line: quick runs stay quiet
TICK = 1.0  # seconds between the redraws that say how long a line has stood (`still_for`)
ERASE = "\r\x1b[K"
Line = tuple[str, str]  # what is being done, and what follows it (the ellipsis, a percentage)


def terminal_columns(stream: TextIO) -> int | None:
    """The width of the terminal `stream` writes to, None when it has none to tell."""
    try:
        return os.get_terminal_size(stream.fileno()).columns
    except (AttributeError, OSError, ValueError, io.UnsupportedOperation):
        return None


def fitted(what: str, tail: str, columns: int | None) -> str:
    """`what` then `tail` within `columns - 1` cells, `what` cut short when they are more (its
    tail, the ellipsis and the numbers, kept whole): a line that wraps is erased by `ERASE`
    only on its last row, so every redraw (once a second, `tick`) left a row behind at an
    80-column terminal (a URL being read, the costs' line with its seconds, the read's
    "(127,500 of 400,000 samples)"). The words are cut before a count in parentheses at the
    end, which is kept whole while the words keep half the room (a longer aside, "(paired
    bootstrap over 200,000 items)", is cut itself rather than the words that say what runs)."""
    if columns is None or cell_len(what) + cell_len(tail) < columns:
        return what + tail
    room = columns - 1 - cell_len(tail)
    words, opens, count = what.rpartition(" (")
    if opens and count.endswith(")"):
        count = opens + count
        kept = room - cell_len(count) - 1  # (a cell for the cut's ellipsis)
        if kept >= room // 2:
            return set_cell_size(words, kept) + "…" + count + tail
    if room < 1:  # (a terminal narrower than the numbers)
        return set_cell_size(what + tail, max(columns - 1, 0))
    return set_cell_size(what, room) + tail


class ProgressLine:
    """A `compare_files` progress callback that redraws one line in place.

    A step said during the first moment is drawn once the moment has passed, if nothing came
    after it (`_pending`, drawn by a timer): a reader that meters nothing (a CSV pair's polars
    parse, 3 s at a million rows) said only "reading" at its start, which the delay swallowed,
    and the terminal stayed blank until the next step.

    A line that stands unchanged for `STILL_SECONDS` says how long it has ("… · 6 s"), redrawn
    every `TICK` by a timer (`tick`): a step without a count (the costs' bootstraps, 8 s on a
    200,000-item pair) or a count that waits on one long call looked the same as a hung
    command."""

    def __init__(
        self,
        stream: TextIO,
        delay: float = DELAY,
        *,
        tick: float = TICK,
        clock: Callable[[], float] = time.monotonic,
        columns: Callable[[], int | None] | None = None,
    ) -> None:
        self._stream = stream
        self._columns = columns or (lambda: terminal_columns(stream))
        self._clock = clock
        self._start = clock()
        self._delay = delay
        self._drawn = False
        self._closed = False
        self._lock = threading.Lock()  # (called from the readers' threads)
        self._pending: Line | None = None  # said before the delay ran out, not drawn yet
        self._timer: threading.Timer | None = None
        self._shown: Line | None = None  # the line on screen, without its seconds
        self._shown_since = 0.0  # when that line was first drawn
        self._tick = tick
        self._ticker: threading.Timer | None = None  # the next `tick`, once a line is drawn

    def __call__(self, what: str, step: float, total: int) -> None:
        # (no total: a step whose progress is not counted, said without a percentage)
        percent = f" {int(100 * min(max(step / total, 0.0), 1.0))}%" if total else ""
        line = (f"evaltui: {what}", f"…{percent}")
        early = self._delay - (self._clock() - self._start)
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

    def _draw(self, line: Line) -> None:  # (the lock held)
        now = self._clock()
        if line != self._shown:
            self._shown, self._shown_since = line, now
        what, tail = line
        tail += still_for(now - self._shown_since)
        self._stream.write(ERASE + fitted(what, tail, self._columns()))
        self._stream.flush()
        self._drawn = True
        self._tick_later()

    def _tick_later(self) -> None:  # (the lock held)
        if self._ticker is None and self._tick > 0:
            self._ticker = threading.Timer(self._tick, self._next_tick)
            self._ticker.daemon = True
            self._ticker.start()

    def tick(self) -> None:
        """Redraw the line on screen saying how long it has stood, once that is
        `STILL_SECONDS` or more (see the class); nothing once erased."""
        with self._lock:
            if self._closed or self._shown is None:
                return
            if still_for(self._clock() - self._shown_since):
                self._draw(self._shown)
            else:
                self._tick_later()

    def _next_tick(self) -> None:
        with self._lock:
            self._ticker = None  # (the next is started by the draw)
        self.tick()

    def _draw_pending(self) -> None:
        with self._lock:
            if not self._closed and self._pending is not None:
                self._draw(self._pending)
                self._pending = None

    def erase(self) -> None:
        """Erase the line for good: later calls draw nothing (see the module)."""
        with self._lock:
            self._closed = True
            for timer in (self._timer, self._ticker):
                if timer is not None:
                    timer.cancel()
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
