"""Python's cyclic garbage collector paused while a load builds its objects.

Opening a 200,000-sample Inspect log makes millions of small objects (the decoded summaries,
one fact per sample, the table's columns) and keeps nearly all of them. Each allocation burst
triggers a collection that walks every object still alive, so the collector's passes grow with
the log: they were a third of the open (13.9 s -> 8.7 s for one log with it paused). JSON values
hold no reference cycles and are freed by reference counting as before; the few cycles made
while paused are collected at the first collection after it.

Loads run in threads (the two runs of a pair at once), so the pause is counted: the collector is
enabled again when the last load leaves, and only if it was enabled when the first came in.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager

_lock = threading.Lock()
_state = {"depth": 0, "was_enabled": False}


@contextmanager
def collector_paused() -> Iterator[Callable[[], None]]:
    """Inside: no automatic cyclic collection (counted over threads, see the module). It
    yields a callable that ends this pause before the block does (the CLI's start-up pause
    ends as the app starts running; the block's end then does nothing more)."""
    with _lock:
        if _state["depth"] == 0:
            _state["was_enabled"] = gc.isenabled()
            gc.disable()
        _state["depth"] += 1
    ended = False

    def end() -> None:
        nonlocal ended
        with _lock:
            if ended:
                return
            ended = True
            _state["depth"] -= 1
            if _state["depth"] == 0 and _state["was_enabled"]:
                gc.enable()

    try:
        yield end
    finally:
        end()
