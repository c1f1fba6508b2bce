"""What the app's workers and the app tell the screens, as Textual messages.

Workers run in threads and never touch widgets: they post one of these (posting is
thread-safe) and the app or a screen handles it on the UI thread. The app keeps the one review
state (`ui/state.py`) and replaces its `Loaded` whole when a worker brings a newer analysis or
gates; then it tells every screen on the stack (`AnalysisChanged`, `ReviewChanged`...), each
message carrying the state, and each screen that cares redraws from it. Progress-like
messages replace a queued one of their kind (`can_replace`), so a burst of progress costs one
redraw, not one per chunk.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual.message import Message

from evaltui.ui.state import Independent, Loaded, ReviewState

if TYPE_CHECKING:
    from evaltui.core.analysis.pair_result import Analysis
    from evaltui.core.analysis.run_set import RunSetAnalysis

__all__ = ["Independent", "Loaded"]  # (the state's, named here as the workers' results)


# -- from workers -------------------------------------------------------------------------


class LoadProgress(Message):
    """The loading worker reached `step` of `total` (fractional while reading bytes)."""

    def __init__(self, what: str, step: float, total: int) -> None:
        super().__init__()
        self.what, self.step, self.total = what, step, total

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, LoadProgress)


class PairLoaded(Message):
    """The first analysis, the review session and the list rows are ready."""

    def __init__(self, loaded: Loaded) -> None:
        super().__init__()
        self.loaded = loaded


class IndependentLoaded(Message):
    """The runs turned out to be (or were asked to be compared as) two samples of different
    items: the independent comparison and its decision are ready to show."""

    def __init__(self, independent: Independent) -> None:
        super().__init__()
        self.independent = independent


class RunSetLoaded(Message):
    """Three or more runs were read and every pair compared (`evaltui BASE CAND CAND2 ...`),
    and the set decided with the tags in each baseline pair's journal: the matrix can show."""

    def __init__(self, run_set: RunSetAnalysis, decision: Any, note: str = "") -> None:
        super().__init__()
        self.run_set, self.decision = run_set, decision
        self.note = note  # what the app chose for the reviewer ("showing safe_advice: ...")


class RunSetDecided(Message):
    """The set decided anew (after a pair's review closed, with the tags just made); the app
    keeps it and tells the screens (`RunSetChanged`)."""

    def __init__(self, decision: Any) -> None:
        super().__init__()
        self.decision = decision


class RunSetPairLoaded(Message):
    """The review of pair `pair` (baseline index, candidate index) of the run set is open:
    its analysis as the run set made it (family-adjusted), its session and its list rows."""

    def __init__(self, pair: tuple[int, int], loaded: Loaded) -> None:
        super().__init__()
        self.pair, self.loaded = pair, loaded


class RunSetPairFailed(Message):
    """Opening a pair of the run set failed (an unreadable journal...; a lock another evaltui
    holds is `RunSetPairBusy`, the lock prompt instead); the matrix stays and says why."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.text = text


class RunSetPairBusy(Message):
    """A pair of the run set opened from the matrix is held by another live evaltui
    (`LockHeld`): the app asks, as for a pair, whether to open it read-only or take it over;
    `problem` says why a take-over just failed."""

    def __init__(self, pair: tuple[int, int], refused: Any, problem: str = "") -> None:
        super().__init__()
        self.pair, self.refused, self.problem = pair, refused, problem


class RunSetSignoffReady(Message):
    """What an approval would override in each baseline pair (x on the matrix), read from the
    journals: the set's sign-off dialog can open."""

    def __init__(self, overrides: dict[tuple[int, int], Any]) -> None:
        super().__init__()
        self.overrides = overrides  # (baseline, candidate) -> workflow.Override


class LockBusy(Message):
    """The pair's review is held by another live evaltui (`LockHeld`): the app asks whether to
    open it read-only or take it over (`LockPromptScreen`); `problem` says why a take-over
    just failed."""

    def __init__(self, analysis: Any, refused: Any, problem: str = "") -> None:
        super().__init__()
        self.analysis, self.refused, self.problem = analysis, refused, problem


class LoadFailed(Message):
    """Opening the pair failed; the app ends with `code` and prints `text` on one line."""

    def __init__(self, text: str, code: int = 2) -> None:
        super().__init__()
        self.text, self.code = text, code


class BreakdownsReady(Message):
    """Clusters, the metric family and the slices, computed for the pair `basis` showed,
    with the gates and the decision they imply."""

    def __init__(
        self, basis: Loaded, analysis: Analysis, gates: tuple[Any, ...], decision: Any
    ) -> None:
        super().__init__()
        self.basis, self.analysis, self.gates, self.decision = basis, analysis, gates, decision


class DecidingProgress(Message):
    """The analysis that decides (for the pair `basis` showed) started its next part."""

    def __init__(self, basis: Loaded, what: str, step: int, steps: int) -> None:
        super().__init__()
        self.basis, self.what, self.step, self.steps = basis, what, step, steps


class GatesUpdated(Message):
    """The gates and the decision re-evaluated after a tag, for the pair `basis` showed."""

    def __init__(
        self, basis: Loaded, gates: tuple[Any, ...], decision: Any, agreement: str | None = None
    ) -> None:
        super().__init__()
        self.basis, self.gates, self.decision = basis, gates, decision
        self.agreement = agreement  # a shared review's agreement line, with the new tags


class InputsChanged(Message):
    """An input's bytes no longer match the sha256 the screen's numbers came from."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.text = text


class InputsConfirmed(Message):
    """Both inputs' sha256 recomputed from their bytes (a deferred or the scan cache's hash):
    the review journals them if it started without them."""

    def __init__(self, basis: Any, baseline_sha256: str, candidate_sha256: str) -> None:
        super().__init__()
        self.basis = basis  # the Loaded whose inputs these are
        self.hashes = (baseline_sha256, candidate_sha256)


class InputsHashing(Message):
    """The sha256 of `basis`'s inputs, computed after the first screen, have read `done` of
    `total` bytes (`input_hashing.py`): the sign-off waits for them."""

    def __init__(self, basis: Any, done: int, total: int) -> None:
        super().__init__()
        self.basis, self.done, self.total = basis, done, total

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, InputsHashing)


class WorkerProblem(Message):
    """A background step failed in a way the reviewer should read (the review stays open)."""

    def __init__(self, text: str, severity: str = "error") -> None:
        super().__init__()
        self.text, self.severity = text, severity


class PreviewsGrew(Message):
    """More input previews arrived; the list redraws once per burst of them."""

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, PreviewsGrew)


class TranscriptsRead(Message):
    """Both sides of `item_id` were read (a quick view first, for slow nested columns).

    `shown`, when given, is set once the screen has taken the text, so a worker can hold its
    slow reads back until the quick view is on screen. `alignment`: the two trajectories'
    alignment, computed by the worker (None: no messages, or a quick view without them)."""

    def __init__(
        self,
        item_id: str,
        baseline: Any,
        candidate: Any,
        shown: threading.Event | None = None,
        alignment: Any = None,
    ) -> None:
        super().__init__()
        self.item_id, self.baseline, self.candidate = item_id, baseline, candidate
        self.shown, self.alignment = shown, alignment


class Aligning(Message):
    """The worker read both sides of `item_id` and is aligning their turns (`counts`: the
    two runs' message counts), for the screen to say so rather than "loading"."""

    def __init__(self, item_id: str, counts: tuple[int, int]) -> None:
        super().__init__()
        self.item_id, self.counts = item_id, counts


class SignoffWritten(Message):
    """The sign-off record's files were written."""

    def __init__(self, paths: tuple[Path, ...]) -> None:
        super().__init__()
        self.paths = paths


class SignoffFailed(Message):
    """The sign-off record was not written; `text` says why, `focus` the field to fix."""

    def __init__(self, text: str, focus: str | None = None) -> None:
        super().__init__()
        self.text, self.focus = text, focus


class TerminalGone(Message):
    """The terminal check found the terminal gone (a pty closed without SIGHUP)."""


# -- from the app to its screens ------------------------------------------------------------


class AnalysisChanged(Message):
    """The state's `Loaded` was replaced (first load, breakdowns, gates): redraw from it."""

    def __init__(self, state: ReviewState, first: bool = False) -> None:
        super().__init__()
        self.state, self.first = state, first


class ReviewChanged(Message):
    """The reviewer tagged or annotated `item_id` (already written to the journal)."""

    def __init__(self, state: ReviewState, item_id: str) -> None:
        super().__init__()
        self.state, self.item_id = state, item_id


class ReviewsChanged(Message):
    """Many items were tagged at once (a bulk tag or an undo; already in the journal)."""

    def __init__(self, state: ReviewState, item_ids: tuple[str, ...]) -> None:
        super().__init__()
        self.state, self.item_ids = state, item_ids


class RunSetChanged(Message):
    """The state's decision of the run set was replaced: the matrix redraws its words."""

    def __init__(self, state: ReviewState) -> None:
        super().__init__()
        self.state = state
