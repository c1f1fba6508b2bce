"""The review app: one factory for the CLI and the tests, a worker that loads, and the actions.

The app holds no statistics. It asks core for the analysis (in a thread, with progress), shows
it, and sends reviewer actions (tags, notes, sign-off) to core, which writes them to disk before
the screen says "saved".
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import os
import signal
import sys
import threading
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import polars as pl
from textual import work
from textual.app import App, SystemCommand
from textual.binding import Binding
from textual.message import Message
from textual.screen import Screen
from textual.worker import get_current_worker

from evaltui.core.analysis.pair import Analysis, item_values
from evaltui.core.analysis.pipeline import STEPS as COMPARE_STEPS
from evaltui.core.compare.pairing import BASE_ROW, CAND_ROW
from evaltui.core.compare.spec import CompareSpec
from evaltui.core.errors import EvalTuiError
from evaltui.core.read.formats.scan_cache import confirm as confirm_source
from evaltui.core.read.runs import ITEM_ID, SLICE
from evaltui.core.record.journal import ReviewSession, os_error_text
from evaltui.core.record.session import judge_review as judge
from evaltui.core.record.session import start_review, untriaged_regressions
from evaltui.core.textsafe import inert, one_line
from evaltui.ui.listmodel import ListRow, ListView
from evaltui.ui.messages import (
    AnalysisChanged,
    BreakdownsReady,
    GatesUpdated,
    Independent,
    IndependentLoaded,
    InputsChanged,
    Loaded,
    LoadFailed,
    LoadProgress,
    PairLoaded,
    PreviewsGrew,
    ReviewChanged,
    RunSetChanged,
    RunSetDecided,
    RunSetLoaded,
    RunSetPairFailed,
    RunSetPairLoaded,
    RunSetSignoffReady,
    TerminalGone,
    WorkerProblem,
)
from evaltui.ui.triage import Triage

if TYPE_CHECKING:
    from evaltui.core.analysis.run_set import RunSetAnalysis, RunSetSpec
    from evaltui.core.decide.run_set import RunSetDecision
    from evaltui.ui.screens.main import MainScreen

PREVIEW_CHARS = 2000  # input text kept per listed item for preview and search
HANGUP_CODE = 128 + signal.SIGHUP  # the exit status when the terminal went away
TERMINAL_CHECK = 0.25  # seconds between checks that the terminal is still there
HANGUP_GRACE = 0.5  # seconds the normal shutdown may take before the process just ends
MAX_RECOVERED_ERRORS = 20  # unexpected errors one session survives; more, and the app ends
# What opening a pair reports: compare's three steps, then the review session and the previews.
LOAD_STEPS = (*COMPARE_STEPS, "opening the review session", "reading item previews")
# Textual's theme of the terminal's own 16 colours: used where the terminal has no more (Rich
# reads that from TERM/COLORTERM: TERM=xterm, linux, screen…), instead of Textual squeezing its
# truecolor theme into 16, where the cursor, the warnings and the errors all became bright red.
ANSI_THEME = "ansi-dark"
SIXTEEN_COLOURS = ("standard", "windows")  # Rich's names of 16-colour terminals
# The app's actions on an item pair's review; none applies to an independent comparison.
PAIR_ACTIONS = frozenset(
    {"export", "note", "gates", "slices", "next_metric", "matrix", "clear_tag", "undo", "tag"}
)


def no_color_requested() -> bool:
    """NO_COLOR as Textual reads it: set, whatever its value (https://no-color.org)."""
    return "NO_COLOR" in os.environ


def theme_for(color_system: str | None) -> str | None:
    """The theme a terminal with this many colours needs; None: Textual's default."""
    return ANSI_THEME if color_system in SIXTEEN_COLOURS else None


@dataclass(frozen=True)
class AppConfig:
    """Everything the app needs to open a pair: the comparison spec and the review's own
    choices. The CLI builds it from the command line; tests use `for_pair`."""

    spec: CompareSpec
    tags: tuple[str, ...] | None = None
    fresh: bool = False
    state_root: Path | None = None  # where session journals live (None: the default place)
    log_directory: Path | None = None  # `evaltui DIR`: the picker chooses the pair first
    reviewer: str | None = None  # None: workflow.reviewer_identity finds who is at the keys
    # `evaltui BASE CAND CAND2 ...`: the matrix of every pair first, each pair reviewed from it
    run_set: RunSetSpec | None = None

    @classmethod
    def for_pair(
        cls,
        baseline: str | Path,
        candidate: str | Path,
        *,
        tags: tuple[str, ...] | None = None,
        fresh: bool = False,
        state_root: Path | None = None,
        reviewer: str | None = None,
        **choices: Any,
    ) -> AppConfig:
        """A config for two files and the comparison choices `CompareSpec.create` takes."""
        spec = CompareSpec.create(baseline, candidate, **choices)
        return cls(spec=spec, tags=tags, fresh=fresh, state_root=state_root, reviewer=reviewer)


def create_app(config: AppConfig) -> EvalTuiApp:
    """The one factory for the CLI and the tests."""
    return EvalTuiApp(config)


class _QuitNowExecutor(ThreadPoolExecutor):
    """Runs the app's thread workers (Textual hands them to the loop's default executor).

    When the app ends, asyncio shuts the default executor down and waits for its threads: on a
    million-item pair, q right after the first screen waited 4.7 s for the re-hashing, preview
    and bootstrap workers. Their results are no longer wanted and the reviewer's work is already
    on disk, so shutting down does not wait; the CLI then ends the process (`cli.py`).
    """

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        super().shutdown(wait=False, cancel_futures=True)


class EvalTuiApp(App[int]):
    """evaltui: paired review of two eval runs."""

    TITLE = "evaltui"
    CSS_PATH = "app.tcss"
    # The descriptions are the help screen's (`?`); each screen's footer shows its own short
    # labels for the keys that matter there (`FOOTER`, evaltui/ui/screens/keys.py).
    BINDINGS = [
        Binding("q", "quit", "Quit", id="app.quit"),
        Binding("question_mark", "help", "Help: every key, the words on screen", id="app.help"),
        Binding("x", "export", "Sign off: write the decision record", id="app.export"),
        Binding("e", "note", "Edit the item's note", id="app.note"),
        Binding("g", "gates", "Release gates (with --policy)", id="app.gates"),
        Binding("l", "slices", "Slices: table and forest plot", id="app.slices"),
        Binding("m", "next_metric", "Compare on the next metric", id="app.metric"),
        # (the same key: with three or more runs every pair compares one metric, see check_action)
        Binding("m", "matrix", "Back to the matrix of every pair (3+ runs)", id="app.matrix"),
        Binding("0", "clear_tag", "Clear the item's tag", id="app.untag"),
        Binding("z", "undo", "Undo the last tag or bulk tag", id="app.undo"),
        *[Binding(str(n), f"tag({n})", f"Tag {n}", id=f"app.tag{n}") for n in range(1, 10)],
    ]

    def __init__(self, config: AppConfig) -> None:
        # NO_COLOR: with native ANSI colours Textual strips every colour (its NoColor filter),
        # so the terminal's own foreground draws all text. Without them it turns each colour
        # into a grey of the same luminance, and red on the dark background became a grey
        # nobody could read. Meaning is carried by words, marks, bold and reverse video.
        super().__init__(ansi_color=True if no_color_requested() else None)
        self.config = config
        self.loaded: Loaded | None = None
        self.views: dict[str, ListView] = {}
        self.load_error: str | None = None
        self.last_signoff: tuple[Path, ...] | None = None
        self.closing = False  # set on quit, so keys typed after q open nothing new
        self.previews_ready = False  # input texts still being read: search sees ids only
        self.main_screen: MainScreen | None = None
        self.triage = Triage()  # what z undoes: the session's tag changes, newest last
        self._rows_by_id: dict[str, ListRow] = {}
        # Inputs whose sha256 came from the scan cache are re-hashed after the first screen;
        # the sign-off waits for that (see `check_inputs_confirmed`).
        self._confirmed_paths: set[str] = set()
        self.inputs_problem: str | None = None
        self.hung_up = False  # the terminal went away (SIGHUP or a closed pty): ending
        self.unexpected_errors: list[str] = []  # bugs the app survived (`report_unexpected`)
        # Three or more runs (`config.run_set`): the matrix, and the pair reviewed from it.
        self.run_set: RunSetAnalysis | None = None
        self.run_set_decision: RunSetDecision | None = None
        self.open_pair: tuple[int, int] | None = None  # the pair under review (None: the matrix)
        self.opening_pair: tuple[int, int] | None = None  # its review being opened in a worker
        self.matrix_cursor: tuple[int, int] = (1, 0)  # (row, column): candidate vs baseline
        self._reviewed_pairs: set[tuple[int, int]] = set()  # `--fresh` starts each pair once
        # Two runs of different items (`--design independent|auto`): shown, never reviewed.
        self.independent: Independent | None = None

    # -- start-up --------------------------------------------------------------------------

    # Set by the CLI: quitting must not wait for background thread workers (see
    # `_QuitNowExecutor`). Pilot tests leave it off and wait for their workers themselves.
    quit_without_waiting = False

    def on_mount(self) -> None:
        from evaltui.ui.screens.main import MainScreen

        if self.quit_without_waiting:  # before the first worker starts
            asyncio.get_running_loop().set_default_executor(_QuitNowExecutor())
        self.main_screen = MainScreen()
        self.push_screen(self.main_screen)
        if not self.is_headless:  # (headless, under Pilot, TERM says nothing of a terminal)
            self.use_terminal_colours()
            self._watch_terminal()
        if self.config.log_directory is not None:  # `evaltui DIR`: pick the pair first
            from evaltui.ui.screens.picker import PickerScreen

            self.push_screen(PickerScreen(self.config.log_directory, self.open_picked))
            return
        if self.config.run_set is not None:  # three or more runs: the matrix first
            self.load_run_set()
            return
        self.load_pair()

    def open_picked(self, baseline: Path, candidate: Path) -> None:
        """The pair picked in a log directory, compared as if named on the command line."""
        spec = self.config.spec.with_inputs(baseline, candidate)
        self.config = replace(self.config, spec=spec, log_directory=None)
        self.pop_screen()
        self.load_pair()

    def use_terminal_colours(self) -> None:
        """In a 16-colour terminal, the theme of its own 16 colours (unless TEXTUAL_THEME
        names one): the cursor a neutral bar, red, yellow and green each one meaning."""
        theme = theme_for(self.console.color_system)
        if theme is not None and "TEXTUAL_THEME" not in os.environ:
            self.theme = theme

    # -- the terminal going away -----------------------------------------------------------

    def _watch_terminal(self) -> None:
        """End the app when its terminal goes away, so it never holds the pair with no one at
        the keys: on SIGHUP (a closed tmux pane, a dropped SSH session), and when the terminal
        stops answering without one (a pty closed under a process that ignores SIGHUP or is
        not its session's): reads then return nothing and every terminal call fails with EIO.
        """
        ttys = [f.fileno() for f in (sys.__stdin__, sys.__stdout__, sys.__stderr__) if f]
        self._ttys = [fd for fd in ttys if os.isatty(fd)]
        with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
            # (no signals on this platform or loop: the polling below still notices)
            asyncio.get_running_loop().add_signal_handler(signal.SIGHUP, self.hang_up)
        # Polled from a thread of its own, not the event loop: a loop stuck writing to the
        # terminal that is gone would never run a timer (seen under load in CI).
        threading.Thread(target=self._poll_terminal, daemon=True, name="terminal check").start()

    def _poll_terminal(self) -> None:
        import termios

        while not self.hung_up:
            threading.Event().wait(TERMINAL_CHECK)
            for fd in self._ttys:
                try:
                    termios.tcgetattr(fd)
                except (termios.error, OSError):
                    # The backstop first: if the loop is stuck, the call below never returns.
                    threading.Thread(target=_end_after_grace, daemon=True, name="hangup").start()
                    self.post_message(TerminalGone())  # thread-safe, and never blocks
                    return

    def on_terminal_gone(self, message: TerminalGone) -> None:
        self.hang_up()

    def hang_up(self) -> None:
        """The terminal is gone: end as q does (every tag and note is already on disk; a note
        being typed is not, see the note editor). Textual's shutdown writes to the terminal
        that is gone; if that takes longer than HANGUP_GRACE, the process just ends: the
        kernel drops the pair's lock either way."""
        if self.hung_up:
            return
        self.hung_up = self.closing = True
        self.exit(HANGUP_CODE, return_code=HANGUP_CODE)
        threading.Thread(target=_end_after_grace, daemon=True, name="hangup").start()

    @work(thread=True, exclusive=True, group="load")
    def load_pair(self) -> None:
        """Load, pair and analyse off the UI thread, reporting each step."""
        from evaltui.core.analysis.pipeline import compare, compare_design

        cfg = self.config
        try:
            if cfg.spec.design != "paired":  # maybe two samples of different items
                found = compare_design(
                    cfg.spec,
                    progress=lambda what, step, total: self._progress(what, step),
                    defer_hash_check=True,  # as below: `confirm_inputs` re-hashes right after
                    complete=False,  # a paired outcome completes after the first screen
                )
                if not isinstance(found, Analysis):
                    self.post_message(IndependentLoaded(independent_view(found)))
                    return
                analysis = found
            else:
                analysis = compare(
                    cfg.spec,
                    progress=lambda what, step, total: self._progress(what, step),
                    # The first screen need not wait for hashing gigabytes the scan cache has
                    # seen before; `confirm_inputs` re-hashes them right after it.
                    defer_hash_check=True,
                    complete=False,  # clusters, metric family, slices: after the first screen
                )
            self._progress(LOAD_STEPS[3], 3)
            session = start_review(
                analysis,
                tags=cfg.tags,
                fresh=cfg.fresh,
                state_root=cfg.state_root,
                reviewer=cfg.reviewer,
            )
            self._progress(LOAD_STEPS[4], 4)
            rows = _list_rows(analysis, session)
            gates, decision = judge(analysis, session)
        except Exception as exc:  # noqa: BLE001 - one line and an exit code, not a traceback
            failed = _load_failed(exc)
            if failed is None:  # EVALTUI_DEBUG=1: the traceback
                raise
            self.post_message(failed)
            return
        self.post_message(PairLoaded(Loaded(analysis, session, rows, gates, decision)))

    def _progress(self, what: str, step: float) -> None:
        if self.main_screen is not None:  # posting is thread-safe; a burst is drawn once
            self.main_screen.post_message(LoadProgress(what, step, len(LOAD_STEPS)))

    # -- three or more runs: the matrix, and each pair reviewed from it ------------------------

    @work(thread=True, exclusive=True, group="load")
    def load_run_set(self) -> None:
        """Read every run once, compare every pair and decide the set, off the UI thread,
        reporting each step on the loading screen as `load_pair` does."""
        from evaltui.core.analysis.run_set import compare_runs

        spec = self.config.run_set
        assert spec is not None
        steps = spec.k + 3  # compare_runs' k reads, the pairs and the omnibus test; deciding

        def progress(what: str, step: float, total: int) -> None:
            if self.main_screen is not None:
                self.main_screen.post_message(LoadProgress(what, step, steps))

        try:
            run_set = compare_runs(spec, progress=progress)
            progress("deciding the set with each pair's tags", steps - 1, steps)
            decision = self._decide_run_set(run_set)
        except Exception as exc:  # noqa: BLE001 - one line and an exit code, not a traceback
            failed = _load_failed(exc)
            if failed is None:  # EVALTUI_DEBUG=1: the traceback
                raise
            self.post_message(failed)
            return
        self.post_message(RunSetLoaded(run_set, decision))

    def _decide_run_set(self, run_set: RunSetAnalysis) -> RunSetDecision:
        """The set's decision with the tags in each baseline pair's journal as it is now (read
        only: the lock stays free). Opened here, in this app's state folder, not by
        `judge_run_set`, which would read the default one."""
        from evaltui.core.record.session import judge_run_set

        sessions = {}
        try:
            for pair in run_set.baseline_pairs:
                sessions[(pair.baseline, pair.candidate)] = start_review(
                    pair.analysis, read_only=True, state_root=self.config.state_root
                )
            return judge_run_set(run_set, sessions)
        finally:
            for session in sessions.values():
                session.close()

    def on_run_set_loaded(self, message: RunSetLoaded) -> None:
        from evaltui.ui.screens.matrix import MatrixScreen

        self.run_set, self.run_set_decision = message.run_set, message.decision
        if not self.closing:
            self.push_screen(MatrixScreen())

    def open_run_set_pair(self, row: int, col: int) -> None:
        """Review the pair of runs `row` and `col` (the lower index as the baseline, whichever
        cell was chosen): its analysis is the run set's, adjusted over the family of pairs,
        so it is never recomputed from the files (that would lose the adjustment)."""
        if self.run_set is None or self.closing or self.opening_pair is not None:
            return
        self.matrix_cursor = (row, col)
        pair = (min(row, col), max(row, col))
        self.opening_pair = pair
        self._open_pair_review(pair)

    @work(thread=True, exclusive=True, group="load")
    def _open_pair_review(self, pair: tuple[int, int]) -> None:
        assert self.run_set is not None
        cfg = self.config
        analysis = self.run_set.pair(*pair).analysis
        try:
            session = start_review(
                analysis,
                tags=cfg.tags,
                fresh=cfg.fresh and pair not in self._reviewed_pairs,  # never a second time
                state_root=cfg.state_root,
                reviewer=cfg.reviewer,
            )
            try:
                rows = _list_rows(analysis, session)
                gates, decision = judge(analysis, session)
            except BaseException:
                session.close()
                raise
        except Exception as exc:  # noqa: BLE001 - said on the matrix, which stays open
            failed = _load_failed(exc)
            bug = failed is None or failed.code == 3
            self.post_message(RunSetPairFailed("" if bug else failed.text))
            if bug:
                raise  # reported as a bug (`report_unexpected`); the matrix stays
            return
        self.post_message(RunSetPairLoaded(pair, Loaded(analysis, session, rows, gates, decision)))

    def on_run_set_pair_failed(self, message: RunSetPairFailed) -> None:
        self.opening_pair = None
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
        from evaltui.ui.screens.main import MainScreen

        self.opening_pair = None
        if self.closing or self.loaded is not None:  # (quitting, or a pair already open)
            message.loaded.session.close()
            return
        self.open_pair = message.pair
        self._reviewed_pairs.add(message.pair)
        self.triage.steps.clear()  # an undo never reaches into another pair's journal
        while len(self.screen_stack) > 2 and self.screen is not self.main_screen:
            self.pop_screen()  # the matrix, and a help screen opened while the pair loaded
        self.main_screen = MainScreen()
        self.switch_screen(self.main_screen)
        self.adopt(message.loaded)

    def action_matrix(self) -> None:
        """Back to the matrix from a pair's review (m, or Esc on its list with nothing to
        clear): the pair's session is closed (it holds the lock on the pair's journal) and the
        set is decided anew with the tags just made."""
        from evaltui.ui.screens.matrix import MatrixScreen

        if self.run_set is None or self.closing or self.opening_pair is not None:
            return
        if any(isinstance(screen, MatrixScreen) for screen in self.screen_stack):
            return  # (already there, under a dialog)
        while len(self.screen_stack) > 2 and self.screen is not self.main_screen:
            self.pop_screen()
        if self.loaded is not None:  # (None: the matrix itself was closed by an error)
            self.loaded.session.close()
            self.loaded = None
        self.open_pair = None
        self.push_screen(MatrixScreen())
        self.redecide_run_set(self.run_set)

    @work(thread=True, exclusive=True, group="decide-set")
    def redecide_run_set(self, run_set: RunSetAnalysis) -> None:
        try:
            decision = self._decide_run_set(run_set)
        except EvalTuiError as exc:
            self.post_message(WorkerProblem(str(exc)))
            return
        if not get_current_worker().is_cancelled:
            self.post_message(RunSetDecided(decision))

    def on_run_set_decided(self, message: RunSetDecided) -> None:
        self.run_set_decision = message.decision
        self._tell_screens(RunSetChanged)

    def sign_off_run_set(self) -> None:
        """x on the matrix: the whole set's sign-off dialog, once each baseline pair's journal
        says what an approval would override (read off the UI thread, as the set is decided)."""
        if (
            self.run_set is None
            or self.closing
            or self.loaded is not None  # (a pair's review is open: its x names the way here)
            or self.opening_pair is not None  # (its session is being opened, with its lock)
        ):
            return
        self._read_run_set_overrides(self.run_set)

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
        from evaltui.ui.screens.matrix import MatrixScreen
        from evaltui.ui.screens.signoff import RunSetSignoffScreen

        if not self.closing and isinstance(self.screen, MatrixScreen):  # (not moved on)
            self.push_screen(RunSetSignoffScreen(message.overrides))

    def on_independent_loaded(self, message: IndependentLoaded) -> None:
        from evaltui.ui.screens.independent import IndependentScreen

        self.independent = message.independent
        if not self.closing:
            self.push_screen(IndependentScreen())

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """`m` is the next metric with two runs and the way back to the matrix with three or
        more (where every pair compares one metric: another would leave the family). An
        independent comparison has no item pairs: no key that tags, notes or signs them."""
        if self.independent is not None and action.split("(")[0] in PAIR_ACTIONS:
            return False
        three_or_more = self.config.run_set is not None  # (known before the runs are read)
        if action == "matrix":
            return three_or_more
        if action == "next_metric":
            return not three_or_more
        return True

    def on_load_failed(self, message: LoadFailed) -> None:
        self.load_error = message.text
        self.exit(message.code, return_code=message.code)  # the CLI prints it afterwards

    def on_pair_loaded(self, message: PairLoaded) -> None:
        self.adopt(message.loaded)

    def adopt(self, loaded: Loaded) -> None:
        """Show a pair: its lists, then the slower parts (breakdowns, previews, hashes)."""
        self.loaded = loaded
        self.views = {name: ListView(rows) for name, rows in loaded.rows.items()}
        self._rows_by_id = {row.item_id: row for rows in loaded.rows.values() for row in rows}
        if loaded.analysis.kind == "graded":  # worst drops first, biggest gains first
            self.views["regressions"].sort_key = "delta"
            self.views["improvements"].sort_key = "delta"
            self.views["improvements"].reverse = True
            for view in self.views.values():
                view.refresh()
        self._tell_screens(lambda: AnalysisChanged(first=True))
        if not loaded.analysis.metrics:
            self.complete_pair(loaded)
        self.load_previews(loaded)
        self.confirm_inputs(loaded)
        # A million long-lived rows would be walked by every full collection (a 100-300 ms
        # stall on a keypress); they live as long as the pair is open, so park them.
        gc.freeze()
        for notice in loaded.session.notices:
            self.notify(notice.text, severity="warning", timeout=10, markup=False)

    def notify(self, message: str, *, title: str = "", markup: bool = True, **kwargs: Any) -> None:
        """Every toast, from any screen, is inert text: toasts name ids, tags, metrics and paths
        from the runs, which must neither be parsed as markup nor reach the terminal raw."""
        super().notify(inert(str(message)), title=one_line(title), markup=False, **kwargs)

    def _tell_screens(self, make: Callable[[], Message]) -> None:
        """Post a fresh message to every screen on the stack; those that care handle it."""
        for screen in self.screen_stack:
            screen.post_message(make())

    def _replace_loaded(self, basis: Loaded, **changes: Any) -> None:
        """Adopt a worker's result for the pair `basis` showed; drop it if the pair was
        re-analysed meanwhile (a metric switch), so an old result never overwrites a new one."""
        if self.loaded is not basis:
            return
        self.loaded = replace(basis, **changes)
        self._tell_screens(AnalysisChanged)

    @work(thread=True, exclusive=True, group="confirm")
    def confirm_inputs(self, loaded: Loaded) -> None:
        """Re-hash inputs whose sha256 the scan cache supplied; a mismatch means the numbers
        on screen are not from the bytes on disk, so say it loudly and refuse to sign off."""
        paired = loaded.analysis.paired
        try:
            for source in (paired.baseline.source, paired.candidate.source):
                confirm_source(source)
                self._confirmed_paths.add(source.path)
        except EvalTuiError as exc:
            self.post_message(InputsChanged(str(exc)))

    def check_inputs_confirmed(self, loaded: Loaded) -> None:
        """Raise unless every input's sha256 is known to be its bytes' own: the sign-off
        records them. Never hashes here (seconds for big files, on the UI thread)."""
        if self.inputs_problem is not None:
            raise EvalTuiError(self.inputs_problem)
        paired = loaded.analysis.paired
        for source in (paired.baseline.source, paired.candidate.source):
            if not source.hash_checked and source.path not in self._confirmed_paths:
                raise EvalTuiError(
                    f"still checking the sha256 of {source.path} against what is shown "
                    "(a few seconds for big files); try again shortly"
                )

    def on_inputs_changed(self, message: InputsChanged) -> None:
        self.inputs_problem = message.text
        self.notify(message.text, title="Input changed", severity="error", timeout=60, markup=False)

    def on_worker_problem(self, message: WorkerProblem) -> None:
        self.notify(message.text, severity=message.severity, markup=False)  # type: ignore[arg-type]

    @work(thread=True, exclusive=True, group="gates")
    def refresh_decision(self, loaded: Loaded) -> None:
        """Re-evaluate the gates and the decision off the UI thread (0.7 s at a million items);
        a newer tag cancels an older evaluation, so a burst of tags costs one."""
        try:
            gates, decision = judge(loaded.analysis, loaded.session)
        except EvalTuiError as exc:
            self.post_message(WorkerProblem(str(exc)))
            return
        if not get_current_worker().is_cancelled:  # a newer tag's evaluation supersedes this
            self.post_message(GatesUpdated(loaded, gates, decision))

    def on_gates_updated(self, message: GatesUpdated) -> None:
        self._replace_loaded(message.basis, gates=message.gates, decision=message.decision)

    @work(thread=True, exclusive=True, group="complete")
    def complete_pair(self, loaded: Loaded) -> None:
        """The slower parts of the analysis, after the first screen is up."""
        from evaltui.core.analysis.pipeline import complete_analysis

        try:
            analysis = complete_analysis(loaded.analysis)
            gates, decision = judge(analysis, loaded.session)
        except EvalTuiError as exc:
            self.post_message(WorkerProblem(str(exc)))
            return
        self.post_message(BreakdownsReady(loaded, analysis, gates, decision))

    def on_breakdowns_ready(self, message: BreakdownsReady) -> None:
        self._replace_loaded(
            message.basis,
            analysis=message.analysis,
            gates=message.gates,
            decision=message.decision,
        )

    @work(thread=True, exclusive=True, group="previews")
    def load_previews(self, loaded: Loaded) -> None:
        """Fill the input previews after the first screen is up; redraw as chunks arrive."""
        rows = [*loaded.rows["regressions"], *loaded.rows["improvements"]]
        self.previews_ready = False
        try:
            fill_previews(loaded.analysis, rows, self._previews_grew)
        except EvalTuiError as exc:
            self.post_message(WorkerProblem(f"previews: {exc}", severity="warning"))
        self.previews_ready = True
        self._previews_grew()

    def _previews_grew(self) -> None:
        if self.main_screen is not None:  # thread-safe; queued redraws collapse into one
            self.main_screen.post_message(PreviewsGrew())

    # -- unexpected errors -----------------------------------------------------------------

    async def run_action(
        self, action: Any, default_namespace: Any = None, namespaces: Any = None
    ) -> bool:
        """Every key binding runs its action here. A key for a screen that is not (or no
        longer) the one on top, still being built or already torn down (a key typed while the
        next item loads or the screen closes), is ignored. A bug in an action is reported by
        `report_unexpected` and the review stays open."""
        target = default_namespace
        if isinstance(target, Screen) and not (
            target.is_mounted
            and target.is_attached
            and not target._closing
            and target is self.screen
        ):
            return False
        try:
            return await super().run_action(action, default_namespace, namespaces)
        except Exception as error:  # noqa: BLE001 - reported on screen and in the log
            if not self.report_unexpected(error, f"the {_action_name(action)} key"):
                raise
            return True

    def _handle_exception(self, error: Exception) -> None:
        """Textual's one place for an error no handler caught; by default it ends the app with
        a traceback. Here a failed background task, or a failure inside a screen other than
        the main one (that screen is closed: its message loop has stopped), is reported and
        the review stays open. Anything else (the app itself or the main screen failing, or
        a report refused) ends the app with one line naming the error and the log."""
        from textual._context import active_message_pump
        from textual.worker import WorkerFailed

        if isinstance(error, WorkerFailed):
            where: str | None = "a background task"
        else:
            screen = _screen_of(active_message_pump.get(None))
            where = None
            if screen is not None and screen is not self.main_screen:
                where = f"the {type(screen).__name__.removesuffix('Screen').lower()} screen"
                if screen in self.screen_stack:
                    self.call_later(self._close_broken_screen, screen)
        if where is not None and self.report_unexpected(error, where):
            return
        cause = error.error if isinstance(error, WorkerFailed) else error
        logged = self._log_unexpected(cause, "ended the app")
        self.load_error = f"internal error: {_error_text(cause)} ({logged})"  # the CLI prints it
        super()._handle_exception(error)
        self._return_code = 3  # the CLI's internal-error exit code

    def _fatal_error(self) -> None:
        """End after an error nothing recovered: the CLI prints one line (`load_error`), and
        the traceback is in the log; EVALTUI_DEBUG=1 prints Textual's traceback as well."""
        if os.environ.get("EVALTUI_DEBUG"):
            super()._fatal_error()
            return
        self.bell()
        self._close_messages_no_wait()

    def report_unexpected(self, error: BaseException, where: str) -> bool:
        """The one handler for a bug inside the running app: the traceback goes to the log,
        the screen says what failed in red, the review stays open. Returns False (the caller
        lets the error end the app) under EVALTUI_DEBUG=1, while closing, or once
        MAX_RECOVERED_ERRORS have been survived. Every report is kept in `unexpected_errors`,
        and the first is also left where Pilot's `run_test` re-raises it at the end, so a test
        never passes over a bug the app survived."""
        from textual.worker import WorkerFailed

        if (
            os.environ.get("EVALTUI_DEBUG")
            or self.closing
            or len(self.unexpected_errors) >= MAX_RECOVERED_ERRORS
        ):
            return False
        cause = error.error if isinstance(error, WorkerFailed) else error
        text = _error_text(cause)
        self.unexpected_errors.append(f"{where}: {text}")
        if self._exception is None and isinstance(cause, Exception):
            self._exception = cause
        logged = self._log_unexpected(cause, where)
        self.notify(
            f"internal error in {where}: {text}. The review is still open; every tag and note "
            f"shown as saved is on disk ({logged}; please report it).",
            title="evaltui bug",
            severity="error",
            timeout=30,
            markup=False,
        )
        return True

    def _close_broken_screen(self, screen: Screen) -> None:
        """Close a screen whose message loop stopped on an error, and every one above it."""
        stack = self.screen_stack
        if screen in stack and stack.index(screen) > 0:
            for _ in range(len(stack) - stack.index(screen)):
                self.pop_screen()

    def error_log(self) -> Path:
        from evaltui.core.record.journal import state_dir

        return (self.config.state_root or state_dir()) / "errors.log"

    def _log_unexpected(self, error: BaseException, where: str) -> str:
        """Append the traceback to the error log; what to tell the reviewer about it."""
        import time
        import traceback

        path = self.error_log()
        text = "".join(traceback.format_exception(error))
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            with path.open("a", encoding="utf-8") as log:
                log.write(f"--- {time.strftime('%Y-%m-%dT%H:%M:%S%z')} in {where}\n{text}")
        except OSError as exc:
            return f"the traceback could not be written to {path}: {os_error_text(exc)}"
        return f"traceback in {path}"

    async def action_quit(self) -> None:
        self.closing = True
        self.exit(0)

    def _can_act(self) -> bool:
        return self.loaded is not None and not self.closing

    # -- reviewer actions ------------------------------------------------------------------

    def current_item(self) -> str | None:
        """The item the reviewer is looking at, on whichever screen is on top."""
        getter = getattr(self.screen, "current_item_id", None)
        return getter() if getter else None

    def action_tag(self, number: int) -> None:
        if not self._can_act():
            return
        tags = self.loaded.session.info.tags
        if not 1 <= number <= len(tags):
            self.notify(f"no tag on key {number} (tags: 1-{len(tags)})", severity="warning")
            return
        self._set_tag(tags[number - 1])

    def action_clear_tag(self) -> None:
        self._set_tag(None)

    def action_undo(self) -> None:
        """Undo the last tag or bulk tag (journalled: an undo appends, never rewrites)."""
        from evaltui.ui.triage import undo

        if self._can_act():
            undo(self)

    def _set_tag(self, tag: str | None) -> None:
        item_id = self.current_item()
        if not self._can_act() or item_id is None:
            return
        previous = self.loaded.session.review(item_id)
        seen = item_values(self.loaded.analysis, [item_id]).get(item_id)
        shown = tag if tag is not None else "no tag"
        try:
            review = self.loaded.session.set_tag(item_id, tag, seen=seen)  # returns after fsync
        except EvalTuiError as exc:  # a full disk: the tag is not kept, and the screen says so
            self._not_saved(f"{item_id} → {shown}", exc)
            return
        self.triage.remember(f"{item_id} → {shown}", [previous])
        self._after_review_change(item_id, review.tag)
        self.notify(f"saved: {item_id} → {shown}", timeout=3, markup=False)

    def _not_saved(self, what: str, exc: EvalTuiError) -> None:
        """Say on screen that a tag or note was not written (the review stays open; the next
        try writes again once the disk takes it)."""
        self.notify(
            f"NOT saved: {what}: {exc}",
            title="Not saved (the review stays open; try again once the disk takes it)",
            severity="error",
            timeout=30,
            markup=False,
        )

    def action_note(self) -> None:
        from evaltui.ui.screens.note import NoteScreen

        item_id = self.current_item()
        if not self._can_act() or item_id is None:
            return
        current = self.loaded.session.review(item_id).note

        def save(note: str | None) -> None:
            if note is None or self.loaded is None:
                return
            try:
                self.loaded.session.set_note(item_id, note)
            except EvalTuiError as exc:  # not written: reopen the editor with the typed text
                self._not_saved(f"note on {item_id}", exc)
                if not self.closing:
                    self.push_screen(NoteScreen(item_id, note), save)
                return
            self._after_review_change(item_id, self.loaded.session.review(item_id).tag)
            self.notify(f"saved: note on {item_id}", timeout=3, markup=False)

        self.push_screen(NoteScreen(item_id, current), save)

    def _after_review_change(self, item_id: str, tag: str | None) -> None:
        if self.loaded is not None:  # tags move gates and the decision: pending -> passed…
            self.refresh_decision(self.loaded)
        row = self._rows_by_id.get(item_id)
        if row is not None:  # the lists re-filter when shown (MainScreen.on_review_changed)
            row.tag = tag
        self._tell_screens(lambda: ReviewChanged(item_id))

    def triaged(self) -> int:
        """Regressions closed by a tag (a tag that leaves an item open does not count)."""
        if self.loaded is None:
            return 0
        analysis = self.loaded.analysis
        return len(analysis.regressions) - len(untriaged_regressions(analysis, self.loaded.session))

    def action_next_metric(self) -> None:
        """Compare the pair on the next metric it carries (re-analysed off the UI thread)."""
        if not self._can_act():
            return
        if self.run_set is not None:  # (the palette's Next metric; the key is the matrix's)
            self.notify(f"every pair of the run set compares {self.run_set.metric}", timeout=4)
            return
        names = [row.metric for row in self.loaded.analysis.metrics]
        if not names:
            self.notify("still computing the other metrics…", timeout=3)
            return
        if len(names) < 2:
            self.notify("these runs carry a single metric", timeout=3)
            return
        current = self.loaded.analysis.metric
        nxt = names[(names.index(current) + 1) % len(names)] if current in names else names[0]
        self.notify(f"switching to {nxt}…", timeout=2, markup=False)
        self.switch_metric(nxt)

    @work(thread=True, exclusive=True, group="load")
    def switch_metric(self, metric: str) -> None:
        from evaltui.core.analysis.pipeline import reanalyse

        loaded = self.loaded
        try:
            analysis = reanalyse(loaded.analysis, metric)
            rows = _list_rows(analysis, loaded.session)
            gates, decision = judge(analysis, loaded.session)
        except EvalTuiError as exc:
            self.post_message(WorkerProblem(str(exc)))
            return
        self.post_message(PairLoaded(Loaded(analysis, loaded.session, rows, gates, decision)))

    def show_items(self, item_ids: tuple[str, ...], label: str, list_name: str) -> None:
        """Filter a list to these items (a failed gate's, a slice's) and show it."""
        view = self.views.get(list_name)
        screen = self.main_screen
        if view is None or screen is None:
            return
        view.id_filter = frozenset(item_ids)
        view.id_filter_label = label
        view.refresh()
        while self.screen is not screen:
            self.pop_screen()
        screen.show_list(list_name)

    def action_gates(self) -> None:
        from evaltui.ui.screens.gates import GatesScreen

        if self._can_act() and self.loaded.gates and not isinstance(self.screen, GatesScreen):
            self.push_screen(GatesScreen())
        elif self._can_act() and not self.loaded.gates:
            self.notify("no release policy: open the pair with --policy FILE", timeout=4)

    def action_slices(self) -> None:
        from evaltui.ui.screens.slices import SlicesScreen

        if self._can_act() and self.loaded.analysis.slices:
            if not isinstance(self.screen, SlicesScreen):
                self.push_screen(SlicesScreen())
        elif self._can_act() and not self.loaded.analysis.metrics:
            self.notify("still computing the slices…", timeout=3)
        elif self._can_act():
            self.notify("no slices to show (needs a slice column and pass/fail verdicts)")

    def action_export(self) -> None:
        from evaltui.ui.screens.signoff import SignoffScreen

        if self.run_set is not None and self.loaded is None:  # (the palette's, on the matrix)
            self.sign_off_run_set()
            return
        if self._can_act() and self.run_set is not None:
            # A record of one pair would not verify: its p-values are adjusted over every pair.
            self.notify(
                "three or more runs are signed off together, each pair with its own tags: go "
                "back to the matrix (m) and press x there, or run `evaltui signoff BASE CAND "
                "CAND2 ... --decision D --rationale R --output PREFIX` (tags made here are in "
                "each pair's journal, where both read them)",
                title="Sign off the whole set",
                severity="warning",
                timeout=20,
            )
            return
        if self._can_act() and not isinstance(self.screen, SignoffScreen):
            self.push_screen(SignoffScreen())

    def action_help(self) -> None:
        from evaltui.ui.screens.help import HelpScreen

        if not self.closing and not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen())

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)
        yield SystemCommand("Help", "Show every key (?)", self.action_help)
        commands = getattr(screen, "palette_commands", None)
        if self.independent is not None:  # (no pair: nothing to tag, note, gate or sign)
            yield from commands() if commands else ()
            return
        yield SystemCommand("Sign off", "Write the sign-off record (x)", self.action_export)
        # The same action under the words a reviewer looks for it by.
        yield SystemCommand(
            "Export the sign-off (save JSON, Markdown for a PR, CSV)",
            "PREFIX.json, PREFIX.md and PREFIX.csv (x)",
            self.action_export,
        )
        yield SystemCommand("Edit note", "Write a note on the current item (e)", self.action_note)
        yield SystemCommand("Clear tag", "Remove the current item's tag (0)", self.action_clear_tag)
        yield SystemCommand("Undo tag", "Undo the last tag or bulk tag (z)", self.action_undo)
        yield SystemCommand("Release gates", "Each gate's status and items (g)", self.action_gates)
        yield SystemCommand("Slices", "Per-slice table and forest plot (l)", self.action_slices)
        if self.run_set is not None:
            yield SystemCommand(
                "Matrix", "Back to the matrix of every pair (m)", self.action_matrix
            )
        else:
            yield SystemCommand(
                "Next metric", "Compare on the next metric (m)", self.action_next_metric
            )
        if self.loaded is not None:
            for n, tag in enumerate(self.loaded.session.info.tags, start=1):
                yield SystemCommand(
                    f"Tag: {tag}", f"Tag the current item ({n})", lambda n=n: self.action_tag(n)
                )
        if commands:
            yield from commands()


def independent_view(analysis: Any) -> Independent:
    """What the independent screen shows: core's decision on the comparison and its report
    (the same words and numbers as `evaltui report --design independent`)."""
    from evaltui.core.decide.independent import decide_independent
    from evaltui.core.report.independent import independent_report_dict

    spec = analysis.spec
    decision = decide_independent(analysis, accept_mismatch=bool(spec and spec.accept_mismatch))
    return Independent(analysis, decision, independent_report_dict(analysis, decision))


def _error_text(error: BaseException) -> str:
    """`Type: message` on one line, bounded."""
    return f"{type(error).__name__}: {' '.join(str(error).split())}"[:300]


def _load_failed(exc: Exception) -> LoadFailed | None:
    """What a failed load tells the reviewer, on one line: a user's mistake or the
    environment exit 2, a bug exit 3; None under EVALTUI_DEBUG=1 (the caller re-raises)."""
    if isinstance(exc, EvalTuiError):
        return LoadFailed(str(exc))
    if isinstance(exc, OSError) and exc.filename is not None:
        # The environment, not a bug (permissions, a full disk): one line, exit 2.
        return LoadFailed(f"{exc.filename}: {os_error_text(exc)}")
    if os.environ.get("EVALTUI_DEBUG"):
        return None
    detail = " ".join(str(exc).split())
    return LoadFailed(
        f"internal error: {type(exc).__name__}: {detail} (EVALTUI_DEBUG=1 shows more)", 3
    )


def _action_name(action: Any) -> str:
    """An action as the reviewer's key named it: `scroll(1)`, `tag(3)`."""
    return action if isinstance(action, str) else repr(action)


def _screen_of(node: Any) -> Screen | None:
    """The screen a message pump (a widget, a screen) belongs to; None for the app."""
    while node is not None and not isinstance(node, Screen):
        node = getattr(node, "parent", None)
    return node


def _end_after_grace() -> None:
    """The hang-up's backstop: end the process if the normal shutdown has not by now."""
    threading.Event().wait(HANGUP_GRACE)
    os._exit(HANGUP_CODE)


def _list_rows(analysis: Analysis, session: ReviewSession) -> dict[str, list[ListRow]]:
    """Rows for both lists. Input previews are filled in afterwards by `fill_previews`, so the
    first screen never waits for the transcripts of every discordant item."""
    items = analysis.paired.items.with_row_index("_index")
    wanted = [*analysis.regressions, *analysis.improvements]
    sub = items.filter(pl.col(ITEM_ID).is_in(pl.Series(wanted, dtype=pl.String).implode()))
    has_slice = SLICE in sub.columns
    graded = analysis.kind == "graded"
    tags = {item_id: review.tag for item_id, review in session.items.items()}
    columns = [sub[c].to_list() for c in (ITEM_ID, "_index", BASE_ROW, CAND_ROW)]
    slices = sub[SLICE].fill_null("").to_list() if has_slice else [""] * sub.height
    by_id = {}
    for item_id, index, base_row, cand_row, slice_name in zip(*columns, slices, strict=True):
        by_id[item_id] = ListRow(
            index=index,
            item_id=item_id,
            slice=slice_name,
            preview="",
            search_text=item_id.lower(),
            tag=tags.get(item_id),
            delta=float(analysis.deltas[index]) if graded else None,
            rows=(base_row, cand_row),
        )
    return {
        "regressions": [by_id[i] for i in analysis.regressions],
        "improvements": [by_id[i] for i in analysis.improvements],
    }


PREVIEW_CHUNK = 2000


def fill_previews(analysis: Analysis, rows: list[ListRow], done: Callable[[], None]) -> None:
    """Read each row's input (baseline, else candidate) in chunks and make it searchable.

    Runs in a worker thread; `done` is called (from the thread) after every chunk so the list
    can redraw. Assigning a str attribute is atomic, so the UI thread never sees a torn row.
    """
    base, cand = analysis.paired.baseline.transcripts, analysis.paired.candidate.transcripts
    step = getattr(base, "batch_size", PREVIEW_CHUNK)
    for start in range(0, len(rows), step):
        chunk = rows[start : start + step]
        texts = base.read_field([r.rows[0] for r in chunk], "input")
        if all(t is None for t in texts):
            texts = cand.read_field([r.rows[1] for r in chunk], "input")
        for row, text in zip(chunk, texts, strict=True):
            text = (text or "")[:PREVIEW_CHARS]
            row.preview = " ".join(text.split())[:300]
            row.search_text = f"{row.item_id}\n{text}".lower()
        done()
