"""How the decision shown follows the work behind it (a mixin of the app): a tag's
re-evaluation of the gates, the analysis that decides arriving after the first screen, and its
progress meanwhile. Each result is adopted only for the pair it was computed on
(`ReviewState.replace_loaded`): a pair re-analysed meanwhile judges the one shown again.
"""

from __future__ import annotations

from typing import Any

from textual import work
from textual.worker import get_current_worker

from evaltui.core.errors import EvalTuiError
from evaltui.core.record.session import judge_review as judge
from evaltui.ui.actions import ReviewActions
from evaltui.ui.cached_open import CachedOpen
from evaltui.ui.loading import team_agreement
from evaltui.ui.messages import (
    AnalysisChanged,
    BreakdownsReady,
    DecidingProgress,
    GatesUpdated,
    WorkerProblem,
)
from evaltui.ui.state import Loaded


class DecidingUpdates(ReviewActions, CachedOpen):
    """The decision's updates from the app's workers (see the module's docstring)."""

    @work(thread=True, exclusive=True, group="gates")
    def refresh_decision(self, loaded: Loaded) -> None:
        """Re-evaluate the gates and the decision off the UI thread (0.7 s at a million items);
        a newer tag cancels an older evaluation, so a burst of tags costs one."""
        try:
            gates, decision = judge(loaded.analysis, loaded.session)
            agreement = team_agreement(loaded.analysis, loaded.session)
        except EvalTuiError as exc:
            self.post_message(WorkerProblem(str(exc)))
            return
        if not get_current_worker().is_cancelled:  # a newer tag's evaluation supersedes this
            self.post_message(GatesUpdated(loaded, gates, decision, agreement))

    def on_gates_updated(self, message: GatesUpdated) -> None:
        changes = {
            "gates": message.gates,
            "decision": message.decision,
            "agreement": message.agreement,
        }
        if self._replace_loaded(message.basis, **changes):
            return
        current, basis = self.state.loaded, message.basis
        if (
            current is not None
            and not self.state.closing
            and current.session is basis.session
            and current.analysis is not basis.analysis
        ):
            # The tag was judged on an analysis since completed (or switched to another
            # metric): the decision shown must still count it, so judge the one shown now.
            self.refresh_decision(current)

    @work(thread=True, exclusive=True, group="complete")
    def complete_pair(self, loaded: Loaded) -> None:
        """The analysis that decides (clusters, metric family, slices), after the first
        screen is up; until it arrives every surface says the pair is still deciding, with
        the part being computed (`DecidingProgress`)."""
        from evaltui.core.analysis.pipeline import complete_analysis

        def progress(what: str, step: int, steps: int) -> None:
            self.post_message(DecidingProgress(loaded, what, step, steps))

        early = self.completion
        try:
            if early is not None and early.analysis is loaded.analysis:  # started at load
                analysis = early.wait(progress)
                self.completion = None  # (taken: the headline analysis it held may go)
            else:  # (another metric, a pair of the run set)
                analysis = complete_analysis(loaded.analysis, progress)
            gates, decision = judge(analysis, loaded.session)
        except EvalTuiError as exc:
            self.post_message(WorkerProblem(str(exc)))
            return
        if early is not None and early.analysis is loaded.analysis:  # the pair as opened
            self.pending_keep = analysis  # kept for the next open once drawn (`cached_open.py`)
        self.post_message(BreakdownsReady(loaded, analysis, gates, decision))

    def on_deciding_progress(self, message: DecidingProgress) -> None:
        current = self.state.loaded
        if current is not None and current.analysis is message.basis.analysis:
            self.state.deciding_progress = (message.what, message.step, message.steps)
            self.tell_screens(lambda: AnalysisChanged(self.state))

    def on_breakdowns_ready(self, message: BreakdownsReady) -> None:
        self.state.deciding_progress = None
        retagged = self.state.loaded is not message.basis  # (a tag's decision came meanwhile)
        adopted = self._replace_loaded(
            message.basis,
            same_analysis=True,  # a tag's re-evaluation meanwhile must not drop it
            analysis=message.analysis,
            gates=message.gates,
            decision=message.decision,
        )
        current = self.state.loaded
        if adopted and retagged and current is not None:
            self.refresh_decision(current)  # (tags made meanwhile: judged with them again)
        if adopted:
            self.open_on_blocking_metric()  # (another scorer blocks: its list first)
        self.keep_after_paint()

    def _replace_loaded(
        self, basis: Loaded, *, same_analysis: bool = False, **changes: Any
    ) -> bool:
        """Adopt a worker's result for the pair `basis` showed, unless the pair was re-analysed
        meanwhile (see `ReviewState.replace_loaded`); then every screen redraws."""
        if self.state.replace_loaded(basis, same_analysis=same_analysis, **changes):
            self.tell_screens(lambda: AnalysisChanged(self.state))
            return True
        return False
