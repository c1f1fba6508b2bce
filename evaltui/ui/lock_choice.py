"""A review another live evaltui holds: open it read-only or take it over (the lock prompt).

A mixin of the app (`EvalTuiApp`). Opening the pair's review is done here for every open (the
first one too), so a refused lock, a read-only open and a take-over all end in the same
`PairLoaded`. A pair opened from the run-set matrix asks through the same `ask_about_lock`
(`run_set_mode.py`), its `q` back to the matrix. A holder nobody can be at (its process or
terminal gone) is taken over by core without asking (`core/record/lock.py`); its line is shown
when the pair is adopted.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from textual import work

from evaltui.core.errors import EvalTuiError
from evaltui.core.record.lock import LockHeld
from evaltui.core.record.lock_holder import ELSEWHERE, Holder
from evaltui.core.record.session import judge_review as judge
from evaltui.core.record.session import start_review
from evaltui.ui.base import ReviewApp
from evaltui.ui.loading import LOAD_STEPS, list_rows, load_failed, team_agreement, team_assignment
from evaltui.ui.messages import LockBusy, PairLoaded
from evaltui.ui.screens.lock_prompt import QUIT_LABEL, READ_ONLY, TAKE_OVER, LockPromptScreen
from evaltui.ui.state import Loaded

if TYPE_CHECKING:
    from evaltui.core.analysis.pair_result import Analysis


class LockChoice(ReviewApp):
    """Opens the pair's review, and asks when another evaltui holds it."""

    pending_keep: Analysis | None  # (`cached_open.py`'s: set there first)

    def _progress(self, what: str, step: float) -> None:
        raise NotImplementedError  # (the app's)

    def _open_review(
        self, analysis: Any, *, read_only: bool = False, end_holder: Holder | None = None
    ) -> Loaded:
        """The pair's review session (locked, unless `read_only`; taken from `end_holder` when
        the reviewer chose to), its list rows and its first decision (in a worker): the
        completed analysis's when it is already there (`Completion.ready`)."""
        cfg = self.config
        self._progress(LOAD_STEPS[3], 3)
        session = start_review(
            analysis,
            tags=None if read_only else cfg.tags,
            fresh=cfg.fresh and not read_only,
            read_only=read_only,
            state_root=cfg.state_root,
            reviewer=cfg.reviewer,
            end_holder=end_holder,
        )
        self._progress(LOAD_STEPS[4], 4)
        rows = list_rows(analysis, session)
        early = self.completion
        completed = early.ready() if early is not None and early.analysis is analysis else None
        if completed is not None:  # (done while the rows were built: shown with them)
            self.completion = None
            analysis = completed
            # kept for the next open once its first frame is drawn, as `complete_pair` keeps
            # one completed after the first screen (`cached_open.py`)
            self.pending_keep = completed
        gates, decision = judge(analysis, session)
        dealt = team_assignment(cfg.team, analysis)
        agreement = team_agreement(analysis, session)
        return Loaded(
            analysis, session, rows, gates, decision, agreement=agreement, assignment=dealt
        )

    def on_lock_busy(self, message: LockBusy) -> None:
        """Another live evaltui holds the pair's review: read-only, take over, or quit (the
        refusal printed as before)."""
        refused = message.refused

        def declined() -> None:
            self.load_error = str(refused)
            self.exit(2, return_code=2)

        self.ask_about_lock(
            refused,
            message.problem,
            lambda read_only, holder: self.open_review(
                message.analysis, read_only=read_only, end_holder=holder
            ),
            declined,
        )

    def ask_about_lock(
        self,
        refused: LockHeld,
        problem: str,
        reopen: Callable[[bool, Holder | None], object],
        declined: Callable[[], None],
        quit_label: str = QUIT_LABEL,
    ) -> None:
        """The lock prompt for a review `refused` to this app: `reopen(read_only, end_holder)`
        opens it as chosen (read-only, or taken over from its holder), `declined()` when the
        reviewer leaves it (a pair quits; the run-set matrix stays, `quit_label` says so)."""
        holder = refused.holder
        described = holder.describe() if holder is not None else "holder unknown"
        pid = holder.pid if holder is not None and refused.state != ELSEWHERE else None

        def chosen(choice: str | None) -> None:
            if choice == READ_ONLY:
                who = f"pid {holder.pid}" if holder is not None else "holder unknown"
                self.state.read_only_reason = (
                    f"read-only: another evaltui ({who}) holds this review"
                )
                reopen(True, None)
            elif choice == TAKE_OVER and holder is not None:
                reopen(False, holder)
            else:
                declined()

        self.push_screen(LockPromptScreen(described, pid, problem, quit_label), chosen)

    @work(thread=True, exclusive=True, group="load")
    def open_review(
        self, analysis: Any, *, read_only: bool = False, end_holder: Holder | None = None
    ) -> None:
        """The review opened as the reviewer chose at the lock prompt."""
        try:
            loaded = self._open_review(analysis, read_only=read_only, end_holder=end_holder)
        except LockHeld as refused:  # a third evaltui took it meanwhile: ask again
            self.post_message(LockBusy(analysis, refused, f"not taken over: {refused}"))
            return
        except Exception as exc:  # noqa: BLE001 - one line and an exit code, not a traceback
            if isinstance(exc, EvalTuiError) and end_holder is not None:
                self.post_message(
                    LockBusy(analysis, LockHeld(end_holder), f"not taken over: {exc}")
                )
                return
            failed = load_failed(exc)
            if failed is None:
                raise
            self.post_message(failed)
            return
        self.post_message(PairLoaded(loaded))
