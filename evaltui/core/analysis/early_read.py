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

from collections.abc import Callable
from typing import TYPE_CHECKING

from evaltui.core.analysis.handoff import Handoff
from evaltui.core.compare.spec import CompareSpec

if TYPE_CHECKING:
    from evaltui.core.read.runs import Run

Progress = Callable[[str, float, int], None]  # as `pipeline.Progress`
# `pipeline.read_spec` of the spec, given the progress: both runs.
Read = Callable[[Progress], "tuple[Run, Run]"]


class EarlyRead(Handoff["tuple[Run, Run]"]):
    """`read` (`pipeline.read_spec`) of a spec's two runs, in a daemon thread (quitting
    never waits for it), taken once by the `compare` of that same spec."""

    def __init__(self, spec: CompareSpec, read: Read, *, defer_hash_check: bool) -> None:
        self.spec = spec
        self.defer_hash_check = defer_hash_check
        self._taken = False
        super().__init__(read, "evaltui-early-read")

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
