"""The full header's cost line (Inspect agent runs), computed in a worker.

The paired cost comparison bootstraps every cost figure over the items (2,000 resamples per
figure): on a big pair that is seconds the UI thread must not spend. Until the worker is done
the header says the line is being computed (`header_pane.COST_COMPUTING`), never a partial
line; the result is kept per pair (`header_pane.run_cost_line`), so it is computed once.

A mixin of `MainScreen`.
"""

from __future__ import annotations

from collections.abc import Callable

from textual import work
from textual.message import Message
from textual.screen import Screen

from evaltui.core.analysis.pair_result import Analysis
from evaltui.core.decide.deciding import waiting_for
from evaltui.core.errors import EvalTuiError
from evaltui.ui.messages import WorkerProblem
from evaltui.ui.state import ReviewState
from evaltui.ui.widgets.header_pane import compute_run_cost_line, keep_run_cost_line, run_cost_line


class CostComputed(Message):
    """The cost worker kept the pair's line: the header can show it."""


class MainCost(Screen):
    """Starting the cost worker and redrawing the header when it is done."""

    state: ReviewState
    refresh_header: Callable[[], None]
    _cost_started_for: object = None  # the paired runs a cost worker was started for

    def start_cost(self) -> None:
        """Start the cost worker if the pair has costs and its line is neither known nor
        being computed (the header calls this on every redraw: it costs a look at columns),
        once the pair is decided: its paired bootstrap (0.7 s of CPU on a 200,000-sample
        pair) shared the two cores and the GIL with the first screen's paint and the analysis
        that decides, and put the decision 0.05 s later (median of 6, in a terminal). The line
        says it is being computed meanwhile, as before; the redraw that shows the decision
        starts it."""
        loaded = self.state.loaded
        if loaded is None or self._cost_started_for is loaded.analysis.paired:
            return
        if waiting_for(loaded.analysis):
            return
        if run_cost_line(loaded.analysis) is not None:
            return
        self._cost_started_for = loaded.analysis.paired
        self.compute_cost(loaded.analysis)

    @work(thread=True, exclusive=True, group="cost")
    def compute_cost(self, analysis: Analysis) -> None:
        try:
            compute_run_cost_line(analysis)
        except (EvalTuiError, ValueError, ArithmeticError) as exc:
            keep_run_cost_line(analysis, "cost: not computed (see the warning)")
            self.app.post_message(WorkerProblem(f"cost comparison: {exc}", severity="warning"))
        self.post_message(CostComputed())

    def on_cost_computed(self, message: CostComputed) -> None:
        self.refresh_header()
