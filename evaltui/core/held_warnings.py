"""Warnings said while no one can read stderr, held until they can be shown.

The caches say a damaged entry in one warning line on the `evaltui.cache` logger
(`core/read/formats/entry_seal.say_damaged`); from `report`, Python's last-resort handler
prints it on stderr. While the review app runs, stderr is the app's (captured, never drawn),
and the CLI's early read, which reads a reopened pair's kept entries, can find one damaged
before the app exists. So the CLI holds the logger's warnings from before its early read starts
(`hold`); the app shows each, held or new, once it is mounted (`HeldWarnings.show_with`); and
what was never shown is printed on stderr when the holding ends (`stop_holding`): no warning is lost
to a screen nobody sees.
"""

from __future__ import annotations

import contextlib
import logging
import sys
import threading
from collections.abc import Callable

LOGGER = "evaltui.cache"  # (`entry_seal.LOG`'s name)


class HeldWarnings(logging.Handler):
    """The caches' warnings, held until `show_with` names where to show them."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self._guard = threading.Lock()
        self._held: list[str] = []
        self._show: Callable[[str], None] | None = None

    def emit(self, record: logging.LogRecord) -> None:
        text = record.getMessage()
        with self._guard:
            show = self._show
            if show is None:
                self._held.append(text)
                return
        show(text)

    def show_with(self, show: Callable[[str], None]) -> None:
        """From now on each warning goes to `show` (called from the thread that warns), those
        held first, in the order said."""
        with self._guard:
            self._show = show
            held, self._held = self._held, []
        for text in held:
            show(text)

    def stop_holding(self) -> None:
        """Stop holding: what was never shown is printed on stderr, and later warnings take
        the logger's usual way. (Not `release`: that is `logging.Handler`'s lock, which the
        logger calls after every `emit`.)"""
        logging.getLogger(LOGGER).removeHandler(self)
        with self._guard:
            self._show = None
            held, self._held = self._held, []
        for text in held:
            with contextlib.suppress(OSError, ValueError):  # (stderr gone or closed)
                sys.stderr.write(text + "\n")


def hold() -> HeldWarnings:
    """Hold the caches' warnings from now on (until `stop_holding`)."""
    handler = HeldWarnings()
    logging.getLogger(LOGGER).addHandler(handler)
    return handler


def holding() -> HeldWarnings | None:
    """The holder already installed (by the CLI), if any."""
    for handler in logging.getLogger(LOGGER).handlers:
        if isinstance(handler, HeldWarnings):
            return handler
    return None
