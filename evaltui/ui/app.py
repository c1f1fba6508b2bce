"""The review app: one factory for the CLI and the tests, the workers that load, and the state.

The app holds no statistics. It asks core for the analysis (in a thread, with progress), keeps
what is open in one review state (`ui/state.py`) that every screen is given, and sends reviewer
actions (tags, notes, sign-off) to core, which writes them to disk before the screen says
"saved". Which worker loads what was opened, which screen it opens on and which keys apply is
its design's mode (`modes.py`, from the Design registry). Its other jobs are mixins, one file
each: the reviewer's keys (`actions.py`), three or more runs (`run_set_mode.py`), the app's own
bugs (`unexpected.py`), the terminal going away (`terminal.py`) and a review another evaltui
holds (`lock_choice.py`); what the workers compute is in `loading.py`.
"""

from __future__ import annotations

import asyncio
import gc
import os
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path
from typing import Any

from textual import work
from textual.binding import Binding

from evaltui.core.decide.deciding import waiting_for
from evaltui.core.designs import INDEPENDENT, PAIR, design_of
from evaltui.core.errors import EvalTuiError
from evaltui.core.held_warnings import hold, holding
from evaltui.core.read import meter
from evaltui.core.read.collector import collector_paused
from evaltui.core.read.formats.scan_cache import confirm as confirm_source
from evaltui.core.record.drafts import load_draft, load_place
from evaltui.core.record.lock import LockHeld
from evaltui.ui.after_keys import StrayKeys
from evaltui.ui.cached_open import INPUTS
from evaltui.ui.completion import Completion
from evaltui.ui.config import AppConfig
from evaltui.ui.deciding_updates import DecidingUpdates
from evaltui.ui.input_hashing import hashing_reports
from evaltui.ui.keys_first import KeysFirst
from evaltui.ui.loading import (
    BAR_STEPS,
    fill_previews,
    independent_view,
    load_failed,
    load_position,
)
from evaltui.ui.lock_choice import LockChoice
from evaltui.ui.messages import (
    AnalysisChanged,
    IndependentLoaded,
    InputsChanged,
    InputsConfirmed,
    InputsHashing,
    LoadFailed,
    LoadProgress,
    LockBusy,
    PairLoaded,
    PreviewsGrew,
    ReviewChanged,
    ReviewsChanged,
    WorkerProblem,
)
from evaltui.ui.modes import keys_design, mode_of, opening_mode
from evaltui.ui.screens.main import MainScreen
from evaltui.ui.state import Loaded, ReviewState
from evaltui.ui.terminal import TerminalWatch
from evaltui.ui.toasts import ToastRepaint
from evaltui.ui.unexpected import UnexpectedErrors

TEAM_REFRESH = 3.0  # seconds between two looks at the other reviewers' journals

__all__ = ["ANSI_THEME", "AppConfig", "EvalTuiApp", "create_app", "theme_for"]

# Textual's theme of the terminal's own 16 colours: used where the terminal has no more (Rich
# reads that from TERM/COLORTERM: TERM=xterm, linux, screen…), instead of Textual squeezing its
# truecolor theme into 16, where the cursor, the warnings and the errors all became bright red.
ANSI_THEME = "ansi-dark"
SIXTEEN_COLOURS = ("standard", "windows")  # Rich's names of 16-colour terminals


def no_color_requested() -> bool:
    """NO_COLOR as Textual reads it: set, whatever its value (https://no-color.org)."""
    return "NO_COLOR" in os.environ


def theme_for(color_system: str | None) -> str | None:
    """The theme a terminal with this many colours needs; None: Textual's default."""
    return ANSI_THEME if color_system in SIXTEEN_COLOURS else None


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


class EvalTuiApp(
    KeysFirst,
    StrayKeys,
    UnexpectedErrors,
    TerminalWatch,
    ToastRepaint,
    LockChoice,
    DecidingUpdates,
):
    """evaltui: paired review of two eval runs."""

    TITLE = "evaltui"
    CSS_PATH = ["app.tcss", "styles.tcss"]  # the layout, and the one style map
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
        Binding(
            "C",
            "adjudicate",
            "Settle a disputed item (adjudicators; shared review)",
            id="app.adjudicate",
        ),  # fmt: skip
        *[Binding(str(n), f"tag({n})", f"Tag {n}", id=f"app.tag{n}") for n in range(1, 10)],
    ]

    def __init__(self, config: AppConfig) -> None:
        # NO_COLOR: with native ANSI colours Textual strips every colour (its NoColor filter),
        # so the terminal's own foreground draws all text. Without them it turns each colour
        # into a grey of the same luminance, and red on the dark background became a grey
        # nobody could read. Meaning is carried by words, marks, bold and reverse video.
        super().__init__(ansi_color=True if no_color_requested() else None)
        self.config = config
        self.state = ReviewState(config, host=self, design=keys_design(config))
        self.load_error: str | None = None
        self.main_screen: MainScreen | None = None
        self.hung_up = False  # the terminal went away (SIGHUP or a closed pty): ending
        self._team_timer: Any = None  # a shared review: the look at the others' journals
        self.unexpected_errors: list[str] = []  # bugs the app survived (`report_unexpected`)
        # The analysis that decides, started by the loading worker (`completion.py`).
        self.completion: Completion | None = None
        self.init_cached_open()  # (what keeping the analysis for the next open waits for)

    # What the CLI and the tests read of the review (the state's, which the screens are given).

    @property
    def loaded(self) -> Loaded | None:
        return self.state.loaded

    @property
    def views(self) -> dict[str, Any]:
        return self.state.views

    @property
    def closing(self) -> bool:
        return self.state.closing

    @property
    def run_set(self) -> Any:
        return self.state.run_set

    @property
    def open_pair(self) -> tuple[int, int] | None:
        return self.state.open_pair

    @property
    def last_signoff(self) -> tuple[Any, ...] | None:
        return self.state.last_signoff

    @property
    def independent(self) -> Any:
        return self.state.independent

    def triaged(self) -> int:
        return self.state.triaged()

    # -- start-up --------------------------------------------------------------------------

    # Set by the CLI: quitting must not wait for background thread workers (see
    # `_QuitNowExecutor`). Pilot tests leave it off and wait for their workers themselves.
    quit_without_waiting = False

    def on_mount(self) -> None:
        if self.quit_without_waiting:  # before the first worker starts
            asyncio.get_running_loop().set_default_executor(_QuitNowExecutor())
        # The caches' warnings (a damaged entry computed afresh) as toasts, those the CLI's
        # early read said before the app existed first: stderr is never drawn while it runs.
        self.cache_warnings = holding() or hold()
        self.cache_warnings.show_with(self._show_cache_warning)
        self.main_screen = MainScreen(self.state)
        self.push_screen(self.main_screen)
        if not self.is_headless:  # (headless, under Pilot, TERM says nothing of a terminal)
            self.use_terminal_colours()
            self.check_terminal()
        if self.config.log_directory is not None:  # `evaltui DIR`: pick the pair first
            # (imported only here: with its data table, 6 ms of every other open's start-up)
            from evaltui.ui.screens.picker import PickerScreen

            self.push_screen(PickerScreen(self.config.log_directory, self.open_picked))
            return
        self.load_opened()

    def _show_cache_warning(self, text: str) -> None:
        """(Any thread.) One cache warning as a toast, without its command-line prefix."""
        self.post_message(WorkerProblem(text.removeprefix("evaltui: warning: "), "warning"))

    def on_unmount(self) -> None:
        self.cache_warnings.stop_holding()  # (later warnings: stderr, the app no longer drawn)

    def load_opened(self) -> None:
        """Start the worker of the opened design's mode: three or more runs read the whole
        set (the matrix first), two runs are paired, or compared as independent samples."""
        getattr(self, opening_mode(self.config).loader)()

    def open_picked(self, baseline: Path, candidate: Path) -> None:
        """The pair picked in a log directory, compared as if named on the command line."""
        spec = self.config.spec.with_inputs(baseline, candidate)
        self.config = replace(self.config, spec=spec, log_directory=None)
        self.pop_screen()
        self.load_opened()

    def use_terminal_colours(self) -> None:
        """In a 16-colour terminal, the theme of its own 16 colours (unless TEXTUAL_THEME
        names one): the cursor a neutral bar, red, yellow and green each one meaning."""
        theme = theme_for(self.console.color_system)
        if theme is not None and "TEXTUAL_THEME" not in os.environ:
            self.theme = theme

    @work(thread=True, exclusive=True, group="load")
    def load_pair(self) -> None:
        """Load, pair and analyse off the UI thread, reporting each step; when the runs turn
        out to be (or were asked to be compared as) two samples of different items, their
        design decides and reports them (`independent_view`)."""
        with collector_paused():  # (a million list rows: no collector walks while built)
            self._load_pair()

    def _load_pair(self) -> None:
        from evaltui.core.analysis.pipeline import compare, compare_design

        cfg = self.config
        try:
            if cfg.spec.design != "paired":  # maybe two samples of different items
                found = compare_design(
                    cfg.spec,
                    progress=lambda what, step, total: self._progress(what, step),
                    defer_hash_check=True,  # as below: `confirm_inputs` re-hashes right after
                    complete=False,  # a paired outcome completes after the first screen
                    reading=cfg.reading,  # (the read the CLI started, if any)
                )
                design = design_of(found)
                if design is not PAIR:
                    self.post_message(IndependentLoaded(independent_view(design, found)))
                    return
                from evaltui.core.analysis.pair_result import Analysis

                assert isinstance(found, Analysis)  # (the paired design's)
                analysis = found
            else:
                analysis = compare(
                    cfg.spec,
                    progress=lambda what, step, total: self._progress(what, step),
                    # The first screen need not wait for hashing gigabytes the scan cache has
                    # seen before; `confirm_inputs` re-hashes them right after it.
                    defer_hash_check=True,
                    complete=False,  # clusters, metric family, slices: after the first screen
                    cached=True,  # (or all of it, kept by an earlier open: `cached_open.py`)
                    reading=cfg.reading,  # (the read the CLI started, if any)
                )
                self.note_cached(analysis)
            if waiting_for(analysis) or not analysis.metrics:  # (as `adopt` asks)
                self.completion = Completion(analysis)  # beside the session and the rows
            loaded = self._open_review(analysis)
        except LockHeld as refused:  # a live evaltui holds the pair: ask what to do
            self.post_message(LockBusy(analysis, refused))
            return
        except Exception as exc:  # noqa: BLE001 - one line and an exit code, not a traceback
            failed = load_failed(exc)
            if failed is None:  # EVALTUI_DEBUG=1: the traceback
                raise
            self.post_message(failed)
            return
        self.post_message(PairLoaded(loaded))

    def _progress(self, what: str, step: float) -> None:
        if self.main_screen is not None:  # posting is thread-safe; a burst is drawn once
            position = load_position(step) * BAR_STEPS  # (the read weighted as it takes)
            self.main_screen.post_message(LoadProgress(what, position, BAR_STEPS))

    def on_independent_loaded(self, message: IndependentLoaded) -> None:
        self.state.independent = message.independent
        self.open_mode(INDEPENDENT)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """The keys of the open design's mode (`modes.py`): `m` is the next metric with two
        runs and the way back to the matrix with three or more (where every pair compares one
        metric: another would leave the family); a design that signs nothing off (the
        independent comparison) has no item pairs: no key that tags, notes or signs them."""
        return mode_of(self.state.design).applies(action)

    def on_load_failed(self, message: LoadFailed) -> None:
        self.load_error = message.text
        self.exit(message.code, return_code=message.code)  # the CLI prints it afterwards

    def on_pair_loaded(self, message: PairLoaded) -> None:
        self.adopt(message.loaded)
        self.reopened(message.loaded)  # (after a refuted cached analysis: `cached_open.py`)

    def adopt(self, loaded: Loaded) -> None:
        """Show a pair: its lists, then the slower parts (breakdowns, previews, hashes)."""
        with collector_paused():  # (the rows' views and marks: a million objects to walk)
            self.state.adopt(loaded)
            # A million long-lived rows would be walked by every full collection (a 100-300 ms
            # stall on a keypress); they live as long as the pair is open, so park them, and
            # before the collector is back: its first collection would walk every object the
            # paused load made (0.14 s in-process at 1M, 0.56 s in the app under load, on the
            # UI thread just before the first paint; the load leaves no cyclic garbage).
            gc.freeze()
        self.tell_screens(lambda: AnalysisChanged(self.state, first=True))
        completing = waiting_for(loaded.analysis) or not loaded.analysis.metrics
        if completing:
            self.complete_pair(loaded)  # (until it arrives, every surface says DECIDING…)
        else:  # decided at load: an analysis completed beside the rows is kept once drawn
            self.keep_after_paint()
        # The background readers wait at their first pass until the frame showing the pair is
        # drawn: their chunks (a Python loop over 20,000 records) would share the GIL with it.
        first_frame = self.state.background.hold()
        self.load_previews(loaded)
        self.confirm_inputs(loaded)
        if loaded.session.team is not None and self._team_timer is None:
            self._team_timer = self.set_interval(TEAM_REFRESH, self.refresh_team)
        if loaded.session.took_over:
            self.notify(loaded.session.took_over, severity="warning", timeout=10, markup=False)
        if self.state.read_only_reason and loaded.session.read_only:
            self.notify(
                f"{self.state.read_only_reason}: browse, search and read; nothing is written",
                severity="warning",
                timeout=10,
                markup=False,
            )
        for notice in loaded.session.notices:
            self.notify(notice.text, severity="warning", timeout=10, markup=False)
        self.reopen_item()  # the item screen open when the last session ended
        self.call_after_refresh(self._import_item_screen, first_frame)
        self.offer_draft(loaded)
        if not completing:  # (decided already, by the loading worker: as `BreakdownsReady`)
            self.open_on_blocking_metric()

    def refresh_team(self) -> None:
        """A shared review: the other reviewers' new tags (their journals only grow; a look
        reads what was appended, a few ms), shown in the lists and judged like a tag here."""
        loaded = self.state.loaded
        if loaded is None or self.state.closing or loaded.session.team is None:
            return
        try:
            loaded.session.refresh_team()  # (a tag here looks too: what it read counts)
            changed = loaded.session.take_team_changes()
        except EvalTuiError as exc:
            self.notify(str(exc), severity="warning", timeout=10, markup=False)
            return
        if changed:
            self.state.others_changed(tuple(sorted(changed)))

    item_reopen_tried = False

    def reopen_item(self) -> None:
        """Push the item screen kept in place.json (screens/item_place.py), if it was open and
        its item is in its list: once per app, at the first pair shown (a pair loaded again,
        for another metric, keeps the screens the reviewer has now)."""
        if self.item_reopen_tried:
            return
        self.item_reopen_tried = True
        folder = self.state.draft_folder()
        place = load_place(folder) if folder is not None else None
        view = self.state.views.get(place.list_name) if place and place.item_open else None
        rows = view.visible if view is not None else None
        index = rows.position_of(place.item_id) if rows is not None and place else None
        if place is not None and rows is not None and index is not None:  # (else: the list)
            # (imported here, not before every first screen: 20 ms of CPU, 50-165 ms of the
            # UI thread's time at 1M beside the readers that start with the first screen)
            from evaltui.ui.screens.item import ItemScreen

            screen = ItemScreen(self.state, rows, index, place.list_name)
            screen.restore_scroll = place.scroll
            self.push_screen(screen)

    def _import_item_screen(self, first_frame: Callable[[], None] | None = None) -> None:
        """Import the item screen once the first screen is drawn, with the background readers
        held meanwhile (20 ms of CPU alone; 50-165 ms beside the readers): before the first
        Enter, and neither before the decision line nor behind the readers' GIL turns. Then
        `first_frame` (the hold `adopt` took until that frame) is let go too."""
        release = self.state.background.hold()
        try:
            import evaltui.ui.screens.item  # noqa: F401
        finally:
            release()
            if first_frame is not None:
                first_frame()

    def offer_draft(self, loaded: Loaded) -> None:
        """Text typed before the last session ended without Ctrl+S: a note opens in its
        editor again (Ctrl+S saves it, Esc discards it); a sign-off rationale is named, and
        the dialog (x) opens with it."""
        folder = self.state.draft_folder()
        draft = load_draft(folder) if folder is not None else None
        if draft is None:
            return
        if draft.kind == "note" and any(
            rows.position_of(draft.item_id) is not None for rows in loaded.rows.values()
        ):
            self.edit_note(draft.item_id, draft.text)
        elif draft.kind == "rationale":
            self.notify(
                f"a sign-off rationale typed before the last session ended was kept "
                f"({len(draft.text)} characters): x opens the dialog with it",
                timeout=10,
                markup=False,
            )

    # -- what the review state asks of the app (`state.ReviewHost`) -----------------------------

    def reviews_changed(self, item_ids: tuple[str, ...], many: bool) -> None:
        """After a tag, a note, a bulk tag or an undo (already in the journal): the gates and
        the decision are re-evaluated in a worker (tags move them: pending -> passed...) and
        the screens are told, once per change, not once per item."""
        if self.state.loaded is not None:
            self.refresh_decision(self.state.loaded)
        last = item_ids[-1]
        self.tell_screens(lambda: ReviewChanged(self.state, last))
        if many:
            self.tell_screens(lambda: ReviewsChanged(self.state, item_ids))

    def show_list(self, list_name: str) -> None:
        """Back to the main screen, showing `list_name` (as the state just filtered it)."""
        screen = self.main_screen
        if screen is None:
            return
        while self.screen is not screen:
            self.pop_screen()
        screen.show_list(list_name)

    @work(thread=True, exclusive=True, group="confirm")
    def confirm_inputs(self, loaded: Loaded) -> None:
        """Re-hash inputs whose sha256 the scan cache supplied; a mismatch means the numbers
        on screen are not from the bytes on disk, so say it loudly and refuse to sign off."""
        paired = loaded.analysis.paired
        sources = (paired.baseline.source, paired.candidate.source)
        to_hash = sum(source.size for source in sources if not source.hash_checked)
        try:
            # (the bytes hashed said as they are read: `input_hashing.py`)
            said = hashing_reports(
                lambda *bytes_: self.post_message(InputsHashing(loaded, *bytes_)), to_hash
            )
            with meter.metering(said):
                for source in sources:
                    self.state.confirmed_sources[source.path] = confirm_source(source)
                    self.state.confirmed_paths.add(source.path)
        except EvalTuiError as exc:
            self.forget_analyses((paired.baseline.source.path, paired.candidate.source.path))
            self.post_message(InputsChanged(str(exc)))
            return
        confirmed = self.state.confirmed_sources
        hashes = (confirmed[paired.baseline.source.path], confirmed[paired.candidate.source.path])
        self.post_message(InputsConfirmed(loaded, hashes[0].sha256, hashes[1].sha256))
        self.keep_when_confirmed(INPUTS)  # (an analysis of confirmed bytes only is kept)

    def on_inputs_hashing(self, message: InputsHashing) -> None:
        """The inputs' hashing has read this far: the header says it (the sign-off waits)."""
        paired = message.basis.analysis.paired
        sources = (paired.baseline.source, paired.candidate.source)
        if all(s.hash_checked or s.path in self.state.confirmed_paths for s in sources):
            return  # (a report queued behind the hash's end)
        self.state.inputs_hashed = (message.done, message.total)
        self.tell_screens(lambda: AnalysisChanged(self.state))

    def _hashing_over(self) -> None:
        if self.state.inputs_hashed is not None:
            self.state.inputs_hashed = None
            self.tell_screens(lambda: AnalysisChanged(self.state))

    def on_inputs_confirmed(self, message: InputsConfirmed) -> None:
        """The inputs' sha256 are known (a deferred hash, computed after the first screen):
        the review journals them if it started without them, so its next open can tell a
        changed file. (A file changed since the tags was found before the first screen:
        `start_review` hashes deferred inputs when the journal knows theirs.)"""
        self._hashing_over()
        session = message.basis.session
        if self.state.closing or session.read_only:
            return
        try:
            session.record_inputs(*message.hashes)
        except EvalTuiError as exc:
            self.notify(f"review journal: {exc}", severity="error", markup=False)

    def on_inputs_changed(self, message: InputsChanged) -> None:
        self._hashing_over()
        self.state.inputs_problem = message.text
        if self.refute_cached(message.text):  # shown from the analysis cache: recomputed
            return
        self.notify(message.text, title="Input changed", severity="error", timeout=60, markup=False)

    def on_worker_problem(self, message: WorkerProblem) -> None:
        self.notify(message.text, severity=message.severity, markup=False)

    @work(thread=True, exclusive=True, group="previews")
    def load_previews(self, loaded: Loaded) -> None:
        """Fill the input previews after the first screen is up; redraw as chunks arrive."""
        rows = [loaded.rows["regressions"], loaded.rows["improvements"]]
        self.state.previews_ready = False
        try:
            refusals = fill_previews(
                loaded.analysis,
                rows,
                self._previews_grew,
                self.state.background.pass_through,
                said=self.state.said_refused,  # (the search's fill says the rest)
            )
        except EvalTuiError as exc:
            self.post_message(WorkerProblem(f"previews: {exc}", severity="warning"))
        else:
            if (told := refusals.told("previews")) is not None:
                self.post_message(WorkerProblem(told, severity="warning"))
        self.state.previews_ready = True
        self._previews_grew()

    def _previews_grew(self) -> None:
        if self.main_screen is not None:  # thread-safe; queued redraws collapse into one
            self.main_screen.post_message(PreviewsGrew())
