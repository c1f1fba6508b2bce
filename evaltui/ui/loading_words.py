"""The loading screen's line, and how long it has stood unchanged.

A pair's load says its steps ("Opening the runs: reading the baseline and the candidate (0.4
of 1.1 GB)…"); a step without a count (a CSV pair's polars parse, 3 s at a million rows)
left the line and its bar unchanged, which looks like a hung program over SSH. Unchanged for
two seconds, the line says how long ("… · 6 s", `words.still_for`, as the headless commands'
progress line does); the screen redraws it every `TICK` while it loads.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from evaltui.core.words import still_for

TICK = 1.0  # seconds between the loading line's redraws
OPENING = "Opening the runs…"  # the line before the load has said anything


class LoadingWords:
    """The loading line: the last step said, and since when."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._words = OPENING
        self._since = clock()

    def said(self, what: str) -> str:
        """The line once the load says it is at `what` (the seconds kept when it says the
        same again)."""
        words = f"Opening the runs: {what}…"
        if words != self._words:
            self._words, self._since = words, self._clock()
        return self.line()

    def line(self) -> str:
        """The line now: the words, and how long they have stood once that is long."""
        return self._words + still_for(self._clock() - self._since)
