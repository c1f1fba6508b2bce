"""The analysis that decides, started as soon as the headline analysis exists.

The app's first screen comes before the cluster bootstrap and the metric family
(`pipeline.compare(complete=False)`); they decide the pair. Started only once the first screen
was up, they waited for the review session, the list rows and the first drawing (about a second
at a million items) before they began. So the loading worker starts them here, in a thread of
their own, the moment the headline analysis exists, and the app's `complete_pair` takes the
result: the same `complete_analysis` the headless report runs in `compare(complete=True)`, once.

When it is done before the first screen is (`ready`), the loading worker takes it and the
first screen shows the decision. Until it is taken every surface says DECIDING…
(`core/decide/deciding.py`): nothing here shows anything, it only computes earlier.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from evaltui.core.analysis import pipeline
from evaltui.core.analysis.pair_result import Analysis
from evaltui.core.read.collector import collector_paused

Progress = Callable[[str, int, int], None]  # the part now computed, its step, the steps


class Completion:
    """`complete_analysis(analysis)` in a daemon thread (quitting never waits for it)."""

    def __init__(self, analysis: Analysis) -> None:
        self.analysis = analysis  # the headline analysis it completes
        self._done = threading.Event()
        self._lock = threading.Lock()
        self._latest: tuple[str, int, int] | None = None
        self._listener: Progress | None = None
        self._result: Analysis | None = None
        self._error: BaseException | None = None
        thread = threading.Thread(target=self._run, name="evaltui-complete", daemon=True)
        thread.start()

    def _run(self) -> None:
        try:
            # (a million list rows are built beside it: no collector walks meanwhile)
            with collector_paused():
                self._result = pipeline.complete_analysis(self.analysis, self._progress)
        except BaseException as exc:  # noqa: BLE001 - raised again in the thread that waits
            self._error = exc
        finally:
            self._done.set()

    def _progress(self, what: str, step: int, steps: int) -> None:
        with self._lock:
            self._latest = (what, step, steps)
            listener = self._listener
        if listener is not None:
            listener(what, step, steps)

    def ready(self) -> Analysis | None:
        """The completed analysis if it is already there (and raised nothing), else None.

        With pass/fail only, and often with a score column, it finishes while the loading
        worker still builds the list rows: the worker then judges it and the first screen
        shows the decision at once, without a DECIDING… frame and a second trip through the
        UI thread (`complete_pair`) to replace it."""
        if self._done.is_set() and self._error is None:
            return self._result
        return None

    def wait(self, progress: Progress) -> Analysis:
        """The completed analysis (or its error, raised here); `progress` hears the part now
        computed, then each next part, as `complete_analysis`'s own callback would."""
        with self._lock:
            self._listener = progress
            latest = self._latest
        if latest is not None and not self._done.is_set():
            progress(*latest)
        self._done.wait()
        if self._error is not None:
            raise self._error
        assert self._result is not None  # (set whenever no error was)
        return self._result
