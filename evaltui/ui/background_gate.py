"""The background readers step aside while an item opens.

After the decision line, the app keeps reading in worker threads: the list's input previews
(`loading.fill_previews`), the search index's outputs and targets (`search.fill`), the inputs'
re-hash. Their Python loops hold the GIL in 5 ms turns, so an Enter that lands meanwhile waited
for the UI thread's turns between theirs: the item screen took 180-460 ms at a million items
where it takes about 90 ms alone. The item screen holds this gate from the key until its
transcripts are drawn; the readers pass through it between chunks and wait while it is held.
Nothing is skipped: a reader that waited goes on where it stopped.

A hold that is never released (a read that failed in a way the screen did not hear of, a key
the app dropped) stops the readers once, for `limit` seconds: then every hold taken so far is
void (its release does nothing) and the readers go on, so the previews and search always finish.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

HOLD_LIMIT = 1.0  # seconds a reader waits at one pass at most, whatever holds the gate


class BackgroundGate:
    """Held while something the reviewer waits for runs on the UI thread (an item opening);
    background readers call `pass_through` between chunks. Thread-safe.

    `holds` and `waits` count what happened (tests assert on them, never on time)."""

    def __init__(self, limit: float | None = HOLD_LIMIT) -> None:
        self.limit = limit  # None: wait for the release, however long (tests)
        self._changed = threading.Condition()
        self._holders = 0
        self._generation = 0  # bumped when a wait ran out: the holds taken before are void
        self._waiting = 0
        self.holds = 0  # holds taken since the app started
        self.waits = 0  # passes that found the gate held and waited

    @property
    def held(self) -> bool:
        with self._changed:
            return self._holders > 0

    def hold(self) -> Callable[[], None]:
        """Hold the gate; the function returned releases this hold (once: calling it again
        does nothing, so a screen may release on every way out)."""
        with self._changed:
            self._holders += 1
            self.holds += 1
            generation = self._generation
        released = threading.Event()

        def release() -> None:
            if released.is_set():
                return
            released.set()
            with self._changed:
                if generation == self._generation:  # (else voided by a wait that ran out)
                    self._holders -= 1
                    self._changed.notify_all()

        return release

    def pass_through(self) -> None:
        """Return at once when nothing holds the gate; else wait for its release (or `limit`)."""
        with self._changed:
            if not self._holders:
                return
            self.waits += 1
            self._waiting += 1
            self._changed.notify_all()
            try:
                if not self._changed.wait_for(lambda: not self._holders, timeout=self.limit):
                    self._generation += 1  # held too long: a hold leaked; void them all
                    self._holders = 0
                    self._changed.notify_all()
            finally:
                self._waiting -= 1
                self._changed.notify_all()

    def wait_for_waiters(self, count: int = 1, timeout: float | None = None) -> bool:
        """Block until `count` readers wait at the gate (a test's barrier; `timeout` only
        bounds a broken test's hang). False if they did not come."""
        with self._changed:
            return self._changed.wait_for(lambda: self._waiting >= count, timeout=timeout)
