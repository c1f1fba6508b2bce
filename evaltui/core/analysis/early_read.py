"""Both runs' read, started as soon as the command line names them, before the app exists.

Opening a pair in the app imports Textual and every screen (about half a second at start-up)
before its loading worker can begin to read. The read is mostly polars parsing and hashing,
which release the GIL, so the CLI starts it here, in a thread, the moment the arguments are
parsed (`pipeline.start_reading`), and the worker's `compare` takes its result (`EarlyRead.take`)
instead of reading again: the imports and the read overlap.

Nothing changes for the reviewer: the progress the read reports is held until the worker
listens and then passed on (the last report first), and an error the read raises is raised
again in the worker, where it becomes the same one line and exit code as before.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from evaltui.core.compare.spec import CompareSpec
from evaltui.core.read.collector import collector_paused
from evaltui.core.read.formats import LoadOptions

if TYPE_CHECKING:
    from evaltui.core.read.runs import Run

Progress = Callable[[str, float, int], None]  # as `pipeline.Progress`
# `pipeline.load_both`: the two paths, their format, their load options, the progress.
LoadBoth = Callable[
    [str | Path, str | Path, str | None, LoadOptions, LoadOptions, Progress | None],
    "tuple[Run, Run]",
]


class EarlyRead:
    """`load_both` (`pipeline.load_both`) of a spec's two runs, in a daemon thread (quitting
    never waits for it), taken once by the `compare` of that same spec."""

    def __init__(self, spec: CompareSpec, load_both: LoadBoth, *, defer_hash_check: bool) -> None:
        self.spec = spec
        self._load_both = load_both
        self.defer_hash_check = defer_hash_check
        self._done = threading.Event()
        self._lock = threading.Lock()
        self._latest: tuple[str, float, int] | None = None
        self._listener: Progress | None = None
        self._runs: tuple[Run, Run] | None = None
        self._error: BaseException | None = None
        self._taken = False
        thread = threading.Thread(target=self._run, name="evaltui-early-read", daemon=True)
        thread.start()

    def _run(self) -> None:
        spec, defer = self.spec, self.defer_hash_check
        try:
            with collector_paused():  # (as in the app's loading worker, which read them before)
                self._runs = self._load_both(
                    spec.baseline,
                    spec.candidate,
                    spec.input_format,
                    spec.load_options("baseline", defer_hash_check=defer),
                    spec.load_options("candidate", defer_hash_check=defer),
                    self._progress,
                )
        except BaseException as exc:  # noqa: BLE001 - raised again in the thread that takes it
            self._error = exc
        finally:
            self._done.set()

    def _progress(self, what: str, step: float, steps: int) -> None:
        with self._lock:
            self._latest = (what, step, steps)
            listener = self._listener
        if listener is not None:
            listener(what, step, steps)

    def serves(self, spec: CompareSpec, defer_hash_check: bool) -> bool:
        """Whether this read is the one `compare(spec)` would make (and is not yet taken): the
        same spec object (a pair picked in a log directory is another) and hash choice."""
        return not self._taken and spec is self.spec and defer_hash_check == self.defer_hash_check

    def take(self, progress: Progress | None) -> tuple[Run, Run]:
        """Both runs (or the read's error, raised here), once; `progress` hears the last
        report and every later one, as `load_both`'s own callback would."""
        self._taken = True
        with self._lock:
            self._listener = progress
            latest = self._latest
        if progress is not None and latest is not None and not self._done.is_set():
            progress(*latest)
        self._done.wait()
        error, runs = self._error, self._runs
        self._error = self._runs = None  # (taken: the runs belong to the analysis now)
        if error is not None:
            raise error
        assert runs is not None  # (set whenever no error was)
        return runs
