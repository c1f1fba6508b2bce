"""Three or more runs: the matrix of every pair first, each pair reviewed from it.

A mixin of the app (`EvalTuiApp`): reading and deciding the set, opening a pair's review from
the matrix and going back, and the whole set's sign-off.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual import work
from textual.worker import get_current_worker

from evaltui.core.designs import RUN_SET
from evaltui.core.errors import EvalTuiError
from evaltui.core.record.lock import LockHeld
from evaltui.core.record.lock_holder import Holder
from evaltui.core.record.session import judge_review as judge
from evaltui.core.record.session import start_review
from evaltui.ui.base import ReviewApp
from evaltui.ui.loading import list_rows, load_failed, team_agreement, team_assignment
from evaltui.ui.messages import (
    LoadProgress,
    RunSetChanged,
    RunSetDecided,
    RunSetLoaded,
    RunSetPairBusy,
    RunSetPairFailed,
    RunSetPairLoaded,
    RunSetSignoffReady,
    WorkerProblem,
)
from evaltui.ui.modes import matrix_screen
from evaltui.ui.screens.main import MainScreen
from evaltui.ui.state import Loaded

if TYPE_CHECKING:
    from evaltui.core.analysis.run_set import RunSetAnalysis
    from evaltui.core.decide.run_set import RunSetDecision


class RunSetMode(ReviewApp):
    """The app's run-set mode (see the module's docstring)."""

    @work(thread=True, exclusive=True, group="load")
    def load_run_set(self) -> None:
        """Read every run once, compare every pair and decide the set, off the UI thread,
        reporting each step on the loading screen as `load_pair` does. When a scorer other
        than the compared one blocks, the set is shown on it (as a pair is opened on the
        scorer that blocks), unless the reviewer named one (--metric)."""
        from evaltui.core.analysis.run_set import on_metric
        from evaltui.core.decide.run_set import scorer_that_blocks

        spec = self.config.run_set
        assert spec is not None
        steps = spec.k + 3  # compare_runs' k reads, the pairs and the omnibus test; deciding

        def progress(what: str, step: float, total: int) -> None:
            if self.main_screen is not None:
                self.main_screen.post_message(LoadProgress(what, step, steps))

        try:
            run_set = RUN_SET.analyse(spec, progress)
            progress("deciding the set with each pair's tags", steps - 1, steps)
            decision = self._decide_run_set(run_set)
            blocks = scorer_that_blocks(run_set, decision)
            note = ""
            if blocks is not None and spec.base.analysis.metric is None:  # (no --metric given)
                run_set = on_metric(run_set, blocks.metric)
                decision = self._decide_run_set(run_set)
                note = f"showing {blocks.name}: the scorer that blocks (--metric NAME: another)"
        except Exception as exc:  # noqa: BLE001 - one line and an exit code, not a traceback
            failed = load_failed(exc)
            if failed is None:  # EVALTUI_DEBUG=1: the traceback
                raise
            self.post_message(failed)
            return
        self.post_message(RunSetLoaded(run_set, decision, note))

    def _decide_run_set(self, run_set: RunSetAnalysis) -> RunSetDecision:
        """The set's decision, by its design, with the tags in each baseline pair's journal as
        it is now (read only: the lock stays free), in this app's state folder."""
        return RUN_SET.decide(run_set, state_root=self.config.state_root).decision

    def on_run_set_loaded(self, message: RunSetLoaded) -> None:
        self.state.run_set, self.state.run_set_decision = message.run_set, message.decision
        self.open_mode(RUN_SET)
        if message.note:
            self.notify(message.note, timeout=6, markup=False)

    def open_run_set_pair(self, row: int, col: int) -> None:
        """Review the pair of runs `row` and `col` (the lower index as the baseline, whichever
        cell was chosen): its analysis is the run set's, adjusted over the family of pairs,
        so it is never recomputed from the files (that would lose the adjustment)."""
        if self.state.run_set is None or self.state.closing or self.state.opening_pair is not None:
            return
        self.state.matrix_cursor = (row, col)
        pair = (min(row, col), max(row, col))
        self.state.opening_pair = pair
        self._open_pair_review(pair)

    @work(thread=True, exclusive=True, group="load")
    def _open_pair_review(
        self, pair: tuple[int, int], read_only: bool = False, end_holder: Holder | None = None
    ) -> None:
        """The pair's review session (locked, unless `read_only`; taken from `end_holder` when
        the reviewer chose to at the lock prompt), its rows and its first decision."""
        assert self.state.run_set is not None
        cfg = self.config
        analysis = self.state.run_set.pair(*pair).analysis
        try:
            session = start_review(
                analysis,
                tags=None if read_only else cfg.tags,
                # never a second time
                fresh=cfg.fresh and pair not in self.state.reviewed_pairs and not read_only,
                read_only=read_only,
                state_root=cfg.state_root,
                reviewer=cfg.reviewer,
                end_holder=end_holder,
            )
            try:
                rows = list_rows(analysis, session)
                gates, decision = judge(analysis, session)
                dealt = team_assignment(cfg.team, analysis)
                agreement = team_agreement(analysis, session)
            except BaseException:
                session.close()
                raise
        except LockHeld as refused:  # another live evaltui holds it (a third, after a take-over)
            problem = f"not taken over: {refused}" if end_holder is not None else ""
            self.post_message(RunSetPairBusy(pair, refused, problem))
            return
        except Exception as exc:  # noqa: BLE001 - said on the matrix, which stays open
            if isinstance(exc, EvalTuiError) and end_holder is not None:  # it did not let go
                self.post_message(
                    RunSetPairBusy(pair, LockHeld(end_holder), f"not taken over: {exc}")
                )
                return
            failed = load_failed(exc)
            bug = failed is None or failed.code == 3
            self.post_message(RunSetPairFailed("" if failed is None or bug else failed.text))
            if bug:
                raise  # reported as a bug (`report_unexpected`); the matrix stays
            return
        loaded = Loaded(
            analysis, session, rows, gates, decision, agreement=agreement, assignment=dealt
        )
        self.post_message(RunSetPairLoaded(pair, loaded))

    def on_run_set_pair_busy(self, message: RunSetPairBusy) -> None:
        """Another live evaltui holds the pair chosen on the matrix: the pair's lock prompt
        (read-only, take over), its `q` back to the matrix with the pair left unopened."""
        pair = message.pair

        def declined() -> None:
            self.state.opening_pair = None
            self.tell_screens(lambda: RunSetChanged(self.state))  # (not "opening…" any more)
            self.notify(
                str(message.refused),
                title="The pair did not open",
                severity="warning",
                timeout=10,
                markup=False,
            )

        if self.state.closing or self.state.opening_pair != pair:  # (quitting meanwhile)
            return
        self.ask_about_lock(
            message.refused,
            message.problem,
            lambda read_only, holder: self._open_pair_review(
                pair, read_only=read_only, end_holder=holder
            ),
            declined,
            quit_label="back to the matrix, leaving the other evaltui as it is",
        )

    def on_run_set_pair_failed(self, message: RunSetPairFailed) -> None:
        self.state.opening_pair = None
        self.tell_screens(lambda: RunSetChanged(self.state))  # (not "opening…" any more)
        if message.text:
            self.notify(
                message.text,
                title="The pair did not open",
                severity="error",
                timeout=20,
                markup=False,
            )

    def on_run_set_pair_loaded(self, message: RunSetPairLoaded) -> None:
        """The pair's review replaces the matrix: a new main screen (no list, filter or search
        of another pair carries over), then the usual first screen of a pair."""
        self.state.opening_pair = None
        if self.state.closing or self.state.loaded is not None:  # (quitting; a pair is open)
            message.loaded.session.close()
            return
        self.state.open_pair = message.pair
        if not message.loaded.session.read_only:  # (the last pair's read-only reason, gone)
            self.state.read_only_reason = ""
        self.state.reviewed_pairs.add(message.pair)
        self.state.triage.steps.clear()  # an undo never reaches into another pair's journal
        while len(self.screen_stack) > 2 and self.screen is not self.main_screen:
            self.pop_screen()  # the matrix, and a help screen opened while the pair loaded
        self.main_screen = MainScreen(self.state)
        self.switch_screen(self.main_screen)
        self.adopt(message.loaded)

    def action_matrix(self) -> None:
        """Back to the matrix from a pair's review (m, or Esc on its list with nothing to
        clear): the pair's session is closed (it holds the lock on the pair's journal) and the
        set is decided anew with the tags just made."""
        if self.state.run_set is None or self.state.closing or self.state.opening_pair is not None:
            return
        if any(_is_matrix(screen) for screen in self.screen_stack):
            return  # (already there, under a dialog)
        while len(self.screen_stack) > 2 and self.screen is not self.main_screen:
            self.pop_screen()
        if self.state.loaded is not None:  # (None: the matrix itself was closed by an error)
            self.state.loaded.session.close()
            self.state.loaded = None
        self.state.open_pair = None
        self.state.run_set_deciding = True  # (until `RunSetDecided`: the old line is stale)
        self.push_screen(matrix_screen(self.state))
        self.redecide_run_set(self.state.run_set)

    @work(thread=True, exclusive=True, group="decide-set")
    def redecide_run_set(self, run_set: RunSetAnalysis) -> None:
        try:
            decision = self._decide_run_set(run_set)
        except EvalTuiError as exc:
            self.post_message(WorkerProblem(str(exc)))
            self.post_message(RunSetDecided(None))  # (no new decision: the last one stays)
            return
        if not get_current_worker().is_cancelled:
            self.post_message(RunSetDecided(decision))

    def on_run_set_decided(self, message: RunSetDecided) -> None:
        if message.decision is not None:
            self.state.run_set_decision = message.decision
        self.state.run_set_deciding = False
        self.tell_screens(lambda: RunSetChanged(self.state))

    def sign_off_run_set(self) -> None:
        """x on the matrix: the whole set's sign-off dialog, once each baseline pair's journal
        says what an approval would override (read off the UI thread, as the set is decided)."""
        if (
            self.state.run_set is None
            or self.state.closing
            or self.state.loaded is not None  # (a pair's review is open: its x names the way here)
            or self.state.opening_pair is not None  # (its session is being opened, with its lock)
        ):
            return
        self._read_run_set_overrides(self.state.run_set)

    @work(thread=True, exclusive=True, group="signoff-set")
    def _read_run_set_overrides(self, run_set: RunSetAnalysis) -> None:
        from evaltui.ui.screens.signoff import read_overrides

        try:
            overrides = read_overrides(run_set, self.config.state_root)
        except EvalTuiError as exc:
            self.post_message(WorkerProblem(str(exc)))
            return
        self.post_message(RunSetSignoffReady(overrides))

    def on_run_set_signoff_ready(self, message: RunSetSignoffReady) -> None:
        if not self.state.closing and _is_matrix(self.screen):  # (not moved on)
            from evaltui.ui.screens.signoff import RunSetSignoffScreen

            self.push_screen(RunSetSignoffScreen(self.state, message.overrides))


def _is_matrix(screen: object) -> bool:
    """Whether `screen` is the matrix (its module imported only once a run set opens one:
    `modes.matrix_screen`; before that, no screen is)."""
    import sys

    matrix = sys.modules.get("evaltui.ui.screens.matrix")
    return matrix is not None and isinstance(screen, matrix.MatrixScreen)
