"""Work started in a daemon thread and handed to whoever takes it later, with its progress.

The app starts slow work before the thread that needs it is ready for it: the CLI starts the
runs' read while Textual imports (`early_read.py`), and the loading worker starts the analysis
that decides while it builds the list rows (`ui/completion.py`). Both need the same handoff:
the work's progress kept until someone listens (the last report replayed, then each later one
passed on), its result or its error given to the taker (the error raised in the taker's thread,
where it becomes the same one line as before), and a daemon thread, so quitting never waits.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any, Generic, TypeVar

from evaltui.core.read.collector import collector_paused

T = TypeVar("T")
Progress = Callable[..., None]  # what, step, steps: as the work's own progress callback


class Handoff(Generic[T]):
    """`work(progress)` in a daemon thread named `name`, the collector paused while it runs
    (it builds many objects beside a thread building many more)."""

    def __init__(self, work: Callable[[Progress], T], name: str) -> None:
        self._work = work
        self._done = threading.Event()
        self._lock = threading.Lock()
        self._latest: tuple[Any, ...] | None = None
        self._listener: Progress | None = None
        self._result: T | None = None
        self._error: BaseException | None = None
        threading.Thread(target=self._run, name=name, daemon=True).start()

    def _run(self) -> None:
        try:
            with collector_paused():
                self._result = self._work(self._progress)
        except BaseException as exc:  # noqa: BLE001 - raised again in the thread that takes it
            self._error = exc
        finally:
            self._done.set()

    def _progress(self, *report: Any) -> None:
        with self._lock:
            self._latest = report
            listener = self._listener
        if listener is not None:
            listener(*report)

    def ready(self) -> T | None:
        """The result if it is already there (and the work raised nothing), else None."""
        if self._done.is_set() and self._error is None:
            return self._result
        return None

    def take(self, progress: Progress | None) -> T:
        """The result (or the work's error, raised here); `progress` hears the last report and
        every later one, as the work's own callback would."""
        with self._lock:
            self._listener = progress
            latest = self._latest
        if progress is not None and latest is not None and not self._done.is_set():
            progress(*latest)
        self._done.wait()
        if self._error is not None:
            raise self._error
        assert self._result is not None  # (set whenever no error was)
        return self._result
