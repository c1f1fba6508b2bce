"""A pair reopened from the analysis cache, and what happens when its inputs turn out changed.

A reopen may show the analysis an earlier open kept (`core/analysis/analysis_cache.py`): it is
complete, so the decision is on the first screen, judged from the current tags, notes and policy.
Its inputs' sha256 were the scan cache's word, and the background re-hash (`confirm_inputs`)
checks them. When it finds a file changed, the kept analysis was not of these bytes: both
caches' entries for the file are dropped (`confirm` drops the scan's, the worker the analysis'),
the pair says DECIDING… at once (no decision of the old bytes stays up), the reviewer is told,
and the pair is opened again from the bytes on disk. The review of the old bytes is closed when
the new one (a new journal: its inputs' sha256 differ) is shown.

A pair computed in this open is kept for the next once both its analysis is complete and its
inputs' sha256 are confirmed, whichever comes last (never an analysis of a refuted input); a
reviewer quitting at that moment waits for the write, at most `KEEP_WAIT` seconds. The write
starts after the decision's frame is drawn, in a thread at the lowest CPU priority.

Why a write cut short at `KEEP_WAIT` is simply lost, and that is right: the entry is written
into a staging folder, sealed last (`core/read/formats/entry_seal.py`) and renamed into place,
so a process that exits mid-write leaves no entry (its staging folder is removed by a later
prune), never a half or unsealed one; the next open computes the analysis (a first open's
time) and keeps it then. A resumable write would need the analysis kept somewhere until the
next start, which is the write itself. The write takes 0.5-0.8 s of CPU at a million items
(docs/performance.md, eleventh round), so 3 s is missed only when the machine is starved for
that long, and a reviewer is never held longer than that to spare a later recomputation.
"""

from __future__ import annotations

import contextlib
import os
import threading
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from evaltui.ui.base import ReviewApp
from evaltui.ui.messages import AnalysisChanged

if TYPE_CHECKING:
    from evaltui.core.analysis.pair_result import Analysis
    from evaltui.core.record.journal import ReviewSession
    from evaltui.ui.state import Loaded

# seconds quitting waits for an analysis being kept (0.5-0.8 s of CPU at 1M items; then it is lost,
# safely: see the module's docstring)
KEEP_WAIT = 3.0
ANALYSIS, INPUTS = "analysis", "inputs"  # what keeping waits for


class CachedOpen(ReviewApp):
    """The app's side of a cached reopen (a mixin of `EvalTuiApp`)."""

    # The pair shown was rebuilt from the analysis cache, its inputs not yet confirmed.
    analysis_cached = False
    # The review of the bytes a refuted cached analysis showed, closed once the pair reopens.
    stale_session: ReviewSession | None = None

    def init_cached_open(self) -> None:
        """Per app (the app's `__init__`): what keeping the analysis waits for."""
        self._keep_lock = threading.Lock()
        self._keep_ready: set[str] = set()
        self._to_keep: Analysis | None = None
        self._kept = threading.Event()
        self._kept.set()  # (nothing being written)
        # The completed analysis of the pair as opened, until its frame is drawn.
        self.pending_keep: Analysis | None = None

    def keep_after_paint(self) -> None:
        """The completed analysis of the pair as opened is on screen (`on_breakdowns_ready`):
        offer it for keeping once that frame is drawn, so writing it never delays the
        decision line."""
        todo, self.pending_keep = self.pending_keep, None
        if todo is not None:
            self.call_after_refresh(self.keep_when_confirmed, ANALYSIS, todo)

    def keep_when_confirmed(self, part: str, analysis: Analysis | None = None) -> None:
        """`part` is done (ANALYSIS: the completed analysis of the pair as opened; INPUTS:
        both sha256 confirmed); with both, the analysis is written, in a thread of its own at
        the lowest CPU priority (it competes with nothing the reviewer waits for)."""
        with self._keep_lock:
            if analysis is not None:
                self._to_keep = analysis
            self._keep_ready.add(part)
            todo = self._to_keep if self._keep_ready >= {ANALYSIS, INPUTS} else None
            if todo is not None:
                self._to_keep = None
                self._kept.clear()
        if todo is not None:
            writer = threading.Thread(
                target=self._write, args=(todo,), name="evaltui-keep-analysis", daemon=True
            )
            writer.start()

    def _write(self, analysis: Analysis) -> None:
        from evaltui.core.analysis.pipeline import keep_analysis

        try:
            with contextlib.suppress(OSError, AttributeError):  # (Linux: this thread alone)
                os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), 19)
            keep_analysis(analysis)
        finally:
            self._kept.set()

    def finish_keeping(self, timeout: float = KEEP_WAIT) -> None:
        """Quitting: let an analysis being written finish (it is written aside and renamed,
        so cutting it short loses it, nothing else)."""
        self._kept.wait(timeout)

    def note_cached(self, analysis: Analysis) -> None:
        """Called by the loading worker with what `compare(complete=False, cached=True)`
        returned: complete at once only when it came from the analysis cache."""
        from evaltui.core.analysis.analysis_cache import is_complete

        self.analysis_cached = is_complete(analysis)
        with self._keep_lock:  # (a pair opened again waits for its own parts)
            self._keep_ready.clear()
            self._to_keep = None

    def forget_analyses(self, paths: tuple[str, str]) -> None:
        """Drop every kept analysis of these inputs (the re-hash found one changed)."""
        from evaltui.core.analysis.analysis_cache import forget

        for path in paths:
            try:
                forget(path)
            except OSError:  # (a URL, or gone: nothing kept to drop)
                continue

    def refute_cached(self, problem: str) -> bool:
        """The re-hash refuted an input of a pair shown from the analysis cache: say so, show
        DECIDING… instead of its decision, and open the pair again from the bytes on disk.
        False when the pair shown was computed in this open (nothing to recompute)."""
        loaded = self.state.loaded
        if not self.analysis_cached or loaded is None or self.state.closing:
            return False
        self.analysis_cached = False
        self.stale_session = loaded.session
        pending = replace(loaded.analysis, breakdowns_pending=True)  # (DECIDING…, no verdict)
        self.state.loaded = replace(loaded, analysis=pending)
        self.tell_screens(lambda: AnalysisChanged(self.state))
        self.notify(
            f"{problem}. The analysis kept from an earlier open is dropped: computing it again "
            "from the bytes on disk",
            title="Input changed",
            severity="error",
            timeout=60,
            markup=False,
        )
        self.load_pair()
        return True

    def reopened(self, loaded: Loaded) -> None:
        """The pair opened again after a refuted cached analysis: the old review is closed and
        the inputs' problem is settled (these numbers are from the bytes on disk)."""
        old = self.stale_session
        if old is None or old is loaded.session:
            return
        self.stale_session = None
        self.state.inputs_problem = None
        old.close()
        self.notify(
            "recomputed from the bytes on disk: the decision shown is of the inputs as they are",
            timeout=10,
            markup=False,
        )

    def load_pair(self) -> Any:
        """Open the pair (the app's worker)."""
        raise NotImplementedError
