"""Both runs' read, started as soon as the command line names them, before the app exists.

Opening a pair in the app imports Textual and every screen (about half a second at start-up)
before its loading worker can begin to read. The read is mostly polars parsing and hashing,
which release the GIL, so the CLI starts it here, in a thread, the moment the arguments are
parsed (`start_reading`), and the worker's `compare` takes its result (`EarlyRead.take`)
instead of reading again: the imports and the read overlap. This module imports what the read
needs and no more (not the analysis modules `pipeline` imports, ~50 of evaltui's own beyond
polars and numpy): the CLI starts the read, then imports the rest while it runs.

Nothing changes for the reviewer: the progress the read reports is held until the worker
listens and then passed on (the last report first), and an error the read raises is raised
again in the worker, where it becomes the same one line and exit code as before.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING

from evaltui.core.analysis.handoff import Handoff
from evaltui.core.analysis.kept_hint import probably_kept
from evaltui.core.analysis.read_both import load_both
from evaltui.core.analysis.step_progress import Progress
from evaltui.core.compare.spec import CompareSpec

if TYPE_CHECKING:
    from evaltui.core.analysis.pair_result import Analysis
    from evaltui.core.policy import Policy
    from evaltui.core.read.runs import Run

# `read_spec` of the spec, given the progress: both runs.
Read = Callable[[Progress], "tuple[Run, Run]"]


class EarlyRead(Handoff["tuple[Run, Run]"]):
    """`read` (`read_spec`) of a spec's two runs, in a daemon thread (quitting
    never waits for it), taken once by the `compare` of that same spec. With `rebuild`, the
    thread then rebuilds the analysis kept for them (`take_rebuilt`)."""

    def __init__(
        self, spec: CompareSpec, read: Read, *, defer_hash_check: bool, rebuild: bool = False
    ) -> None:
        self.spec = spec
        self.defer_hash_check = defer_hash_check
        self._taken = False
        # The analysis this read rebuilt from the analysis cache, with the runs as the read
        # returned them, until `take_rebuilt` (once).
        self._rebuilt: tuple[Run, Run, Analysis] | None = None
        self._rebuilt_lock = threading.Lock()
        work = partial(self._read_and_rebuild, read) if rebuild else read
        super().__init__(work, "evaltui-early-read")

    def serves(self, spec: CompareSpec, defer_hash_check: bool) -> bool:
        """Whether this read is the one `compare(spec)` would make (and is not yet taken): the
        same spec object (a pair picked in a log directory is another) and hash choice."""
        return not self._taken and spec is self.spec and defer_hash_check == self.defer_hash_check

    def take(self, progress: Progress | None) -> tuple[Run, Run]:
        """Both runs (or the read's error, raised here), once: the runs belong to the analysis
        from then on, not to this read."""
        self._taken = True
        try:
            return super().take(progress)
        finally:
            self._result = self._error = None

    def _read_and_rebuild(self, read: Read, progress: Progress) -> tuple[Run, Run]:
        """The early read of a pair whose analysis is likely kept: read (no scipy prefetch),
        then rebuild the kept analysis in the same thread, while the app still imports
        (0.1-0.15 s at a million items, off the first screen's path); `compare` takes it with
        the runs (`take_rebuilt`)."""
        base_run, cand_run = read(progress)
        try:
            # (the result classes and statistics, imported once the read is under way: the app
            # imports them meanwhile on the main thread, and an import under way is waited for)
            from evaltui.core.analysis.analysis_cache import rebuild

            found = rebuild(self.spec, base_run, cand_run, None)
        except Exception:  # noqa: BLE001 - `compare` tries again and says what is wrong
            found = None
        if found is not None:
            with self._rebuilt_lock:
                self._rebuilt = (base_run, cand_run, found)
            # What the rebuild made (the analysis, its id lists: 0.2-0.7 million ids at 1M
            # items) lives as long as the pair is open; made under the read's collector pause,
            # it would be walked by the collections until `adopt` parks it: park it now
            # (20 ms of CPU less before a scored reopen's first screen).
            gc.freeze()
        return base_run, cand_run

    def take_rebuilt(
        self, spec: CompareSpec, baseline: Run, candidate: Run, policy: Policy | None
    ) -> Analysis | None:
        """The analysis this read rebuilt of exactly these runs (the objects it returned) for
        this spec, without a policy; once (a `compare` that did not take this read drops it)."""
        with self._rebuilt_lock:
            rebuilt, self._rebuilt = self._rebuilt, None
        if rebuilt is None or spec is not self.spec or policy is not None:
            return None
        base_run, cand_run, found = rebuilt
        return found if base_run is baseline and cand_run is candidate else None


def start_reading(spec: CompareSpec) -> EarlyRead:
    """Start reading the spec's two runs as the app's `compare` will (`defer_hash_check`: the
    app re-hashes inputs the scan cache vouched for after its first screen), for the CLI to
    start before it imports the app (`early_read.py`). A pair whose analysis is likely kept
    (the app opens with `cached=True`) needs no statistic before its first screen: no scipy
    beside that read."""
    kept = spec.design == "paired" and probably_kept(spec.baseline, spec.candidate)
    if kept and spec.policy is None:  # (a policy is read by `compare`)
        read = partial(read_spec, spec, True, prefetch=False)
        return EarlyRead(spec, read, defer_hash_check=True, rebuild=True)
    return EarlyRead(spec, partial(read_spec, spec, True), defer_hash_check=True)


def read_spec(
    spec: CompareSpec, defer_hash_check: bool, progress: Progress | None, prefetch: bool = True
) -> tuple[Run, Run]:
    """The spec's two runs, read at once (`load_both`): the one place a spec becomes its
    read's arguments, so the CLI's early read and `compare` read alike (`EarlyRead.serves`
    matches them on the spec and `defer_hash_check` alone)."""
    return load_both(
        spec.baseline,
        spec.candidate,
        spec.input_format,
        spec.load_options("baseline", defer_hash_check=defer_hash_check),
        spec.load_options("candidate", defer_hash_check=defer_hash_check),
        progress,
        prefetch=prefetch,
    )
