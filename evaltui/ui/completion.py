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

from collections.abc import Callable

from evaltui.core.analysis import pipeline
from evaltui.core.analysis.handoff import Handoff
from evaltui.core.analysis.pair_result import Analysis

Progress = Callable[[str, int, int], None]  # the part now computed, its step, the steps


class Completion(Handoff[Analysis]):
    """`complete_analysis(analysis)` in a daemon thread (quitting never waits for it)."""

    def __init__(self, analysis: Analysis) -> None:
        self.analysis = analysis  # the headline analysis it completes
        # (a million list rows are built beside it: the handoff pauses the collector)
        super().__init__(
            lambda progress: pipeline.complete_analysis(analysis, progress), "evaltui-complete"
        )

    def ready(self) -> Analysis | None:
        """The completed analysis if it is already there (and raised nothing), else None.

        With pass/fail only, and often with a score column, it finishes while the loading
        worker still builds the list rows: the worker then judges it and the first screen
        shows the decision at once, without a DECIDING… frame and a second trip through the
        UI thread (`complete_pair`) to replace it."""
        return super().ready()

    def wait(self, progress: Progress) -> Analysis:
        """The completed analysis (or its error, raised here); `progress` hears the part now
        computed, then each next part, as `complete_analysis`'s own callback would."""
        return self.take(progress)
