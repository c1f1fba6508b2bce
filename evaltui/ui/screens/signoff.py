"""The sign-off dialog: reviewer, decision, rationale, where to write; core builds the record.

`SignoffScreen` signs off the open pair; `RunSetSignoffScreen` (x on the matrix of three or more
runs) the whole set, in one record naming every baseline pair: the same form and keys, with the
set's decision line, the pairs it covers and what an approval would override in each pair.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, RadioButton, RadioSet, Static, TextArea

from evaltui.core.decide.disputes import approval_refusal
from evaltui.core.decide.vocabulary import FirstLine
from evaltui.core.errors import EvalTuiError
from evaltui.core.record.drafts import clear_draft, load_draft, save_draft
from evaltui.core.record.session import (
    Override,
    OverrideRequired,
    evaluate_policy_gates,
    override_for,
    reviewer_identity,
    start_review,
)
from evaltui.core.record.signoff import DECISIONS, ReviewerDecision, build_record, write_record
from evaltui.core.record.signoff_place import default_prefix, make_review_folder, review_folder
from evaltui.ui.after_keys import FieldInput, after_queued_keys
from evaltui.ui.messages import AnalysisChanged, RunSetChanged, SignoffFailed, SignoffWritten
from evaltui.ui.safe import literal, literal_line
from evaltui.ui.screens.given import GivenState
from evaltui.ui.screens.keys import FooterKeys, Shown
from evaltui.ui.state import ReviewState
from evaltui.ui.text_area_field import FieldTextArea
from evaltui.ui.widgets.header_pane import first_line_text, shown_line
from evaltui.ui.widgets.key_footer import KeyFooter

if TYPE_CHECKING:
    from evaltui.core.analysis.run_set import PairResult, RunSetAnalysis


class MarkedRadioButton(RadioButton):
    """A choice whose state shows as a character, not only a colour: ● chosen, ○ not (with
    NO_COLOR the stock button draws ● for every choice)."""

    @property
    def BUTTON_INNER(self) -> str:  # type: ignore[override]  # noqa: N802 - Textual's name
        return "●" if self.value else "○"


DISCARD_QUESTION = "Discard what you typed? Esc again discards it · Ctrl+S writes the record"


class SignoffScreen(GivenState, FooterKeys, ModalScreen[None]):
    """The open pair's sign-off. Subclasses say what is signed off (`HEADING`, the decision,
    `compose_covers`, `override_problems`) and how it is written (`check_ready`, `start_writing`);
    the form, its keys and its messages are this one's."""

    writing = False  # a record is being written: Ctrl+S again does nothing
    asked_to_discard = False  # Esc was pressed once over typed text
    _composed: tuple[str, ...] | None = None  # the typed fields as the dialog opened
    HEADING = "Sign off this comparison"

    BINDINGS = [
        Binding("ctrl+s", "write", "Write record", priority=True, id="signoff.write"),
        Binding("escape", "cancel", "Cancel", id="signoff.cancel"),
    ]
    FOOTER = (
        Shown("signoff.write", "Write record"),
        Shown("signoff.cancel", "Cancel"),
        Shown("action:app.focus_next", "Next field"),
    )

    # -- what is signed off (the open pair here; the run set in RunSetSignoffScreen) -----------

    def decision(self) -> Any:
        """The tool's decision, shown first (a `Decision` or a `RunSetDecision`)."""
        return self.state.require_loaded().decision

    def decision_line(self) -> FirstLine | None:
        """The decision's first line as it stands now: "DECIDING… (clusters, step 1 of 3)"
        while the analysis that decides still runs (no record may be written from it)."""
        decided = self.decision()
        return None if decided is None else shown_line(decided, self.state.deciding_progress)

    def compose_covers(self) -> ComposeResult:
        """What the record covers, below the decision (a pair's dialog needs no such line)."""
        yield from ()

    def override_problems(self) -> list[str]:
        """What an approval would override, each in words; empty: nothing."""
        loaded = self.state.require_loaded()
        override = override_for(loaded.analysis, loaded.session, loaded.gates)
        return override.problems() if override.needed else []

    def approval_refused(self) -> str:
        """Why no approval can be written whatever the reason given (regressions whose
        reviewers disagree: a dispute is settled, never overridden), or ""."""
        loaded = self.state.require_loaded()
        disputed = override_for(loaded.analysis, loaded.session, loaded.gates).disputed
        return approval_refusal(len(disputed)) if disputed else ""

    def check_ready(self) -> None:
        """Raise EvalTuiError when no record may be written now."""
        self.check_final()
        # The record's sha256 must be the bytes' own.
        self.state.check_inputs_confirmed(self.state.require_loaded())

    def check_final(self) -> None:
        """Refuse a record of a decision still being made: what it would record (and what an
        approval overrides) may change when the analysis that decides arrives."""
        line = self.decision_line()
        if line is not None and not line.final:
            raise EvalTuiError(
                f"the decision is still being made ({line.progress}); nothing is final yet, "
                "so no record can be written: this dialog shows the decision when it is"
            )

    def start_writing(self, decision: ReviewerDecision, prefix: Path) -> None:
        loaded = self.state.with_confirmed_hashes(self.state.require_loaded())
        self.write_record(loaded, decision, prefix)

    def record_runs(self) -> list[Path]:
        """The runs the record covers, baseline first: they name its default place."""
        paired = self.state.require_loaded().analysis.paired
        return [Path(paired.baseline.source.path), Path(paired.candidate.source.path)]

    # -- the form ----------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="signoff-box", classes="dialog"):
            yield Static(self.HEADING, classes="title")
            yield Static(id="signoff-decision")
            yield from self.compose_covers()
            yield Label("Reviewer")
            yield FieldInput(reviewer_identity(self.state.config.reviewer), id="reviewer")
            yield Label("Your decision (none chosen yet: pick one)")
            with RadioSet(id="decision"):
                for decision in DECISIONS:
                    yield MarkedRadioButton(decision, value=False, id=f"decision-{decision}")
            yield Label("Rationale")
            folder = self.draft_place()
            kept = load_draft(folder) if folder is not None else None
            recovered = kept.text if kept is not None and kept.kind == "rationale" else ""
            yield FieldTextArea(recovered, id="rationale", soft_wrap=True)
            if recovered:
                yield Static("(recovered: typed before the last session ended)", classes="hint")
            # (shown when an approval overrides something: `show_decision` follows the decision)
            yield Label("Override reason (needed to approve)", id="override-label")
            yield Static(classes="warning", id="override-what")
            yield FieldInput(id="override", placeholder="why approve over these (recorded)")
            yield Label("Write to (PREFIX.json, PREFIX.md and PREFIX.csv)")
            yield FieldInput(
                str(default_prefix(self.record_runs(), self.state.config.state_root)), id="prefix"
            )
            yield Static(id="signoff-error", classes="error")
            with Horizontal(classes="buttons"):
                yield Button("Write record (Ctrl+S)", variant="primary", id="write")
                yield Button("Cancel (Esc)", id="cancel")
        yield KeyFooter()

    def on_mount(self) -> None:
        self.show_decision()
        # Open at the top: the title, the decision line and the reviewer field first.
        self.query_one("#signoff-box", VerticalScroll).scroll_home(animate=False)
        self.query_one("#decision", RadioSet).focus(scroll_visible=False)
        self._composed = self._typed_text()

    def show_decision(self) -> None:
        """Draw the decision line and what an approval overrides as they stand now; while the
        decision is still being made, say so and keep the write button off."""
        line = self.decision_line()
        shown = self.query_one("#signoff-decision", Static)
        shown.display = line is not None
        if line is not None:
            shown.update(first_line_text(line))
        deciding = line is not None and not line.final
        problems = [] if deciding else self.override_problems()
        what = self.query_one("#override-what", Static)
        refused = "" if deciding else self.approval_refused()
        if deciding:
            what.update(Text("What an approval overrides is known once the decision is made."))
        elif refused:  # said before anyone types a reason the record could not use
            what.update(literal(refused[0].upper() + refused[1:]))
        else:
            what.update(literal("Approving overrides: " + "; ".join(problems)))
        what.display = deciding or bool(problems)
        self.query_one("#override-label", Label).display = bool(problems)
        self.query_one("#override", Input).display = bool(problems)
        if not self.writing:
            self.query_one("#write", Button).disabled = deciding

    def on_analysis_changed(self, message: AnalysisChanged) -> None:
        """The pair's analysis or decision changed (the clusters arrived, a tag): the decision
        line and what an approval overrides follow."""
        self.show_decision()

    def _typed_text(self) -> tuple[str, ...]:
        """Every field a reviewer types in, as it reads now."""
        texts = [i.value for i in self.query(Input)]
        return (*texts, self.query_one("#rationale", TextArea).text)

    def on_input_changed(self, event: Input.Changed) -> None:
        self._typing_again()

    def on_text_area_changed(self, event: TextArea.Changed) -> None:
        self._typing_again()
        if self.writing:  # the record is being written from what was typed: keys after the
            return  # save (the next command's, over a laggy link) must not revive its draft
        folder = self.draft_place()
        if folder is not None and event.text_area.id == "rationale":  # kept as typed
            text = event.text_area.text
            if text.strip():
                save_draft(folder, "rationale", "", text)
            else:
                clear_draft(folder)

    def draft_place(self) -> Path | None:
        """Where the rationale is kept as it is typed: the pair's journal folder."""
        return self.state.draft_folder()

    def _typing_again(self) -> None:
        if self.asked_to_discard:  # the next Esc asks again
            self.asked_to_discard = False
            self.query_one("#signoff-error", Static).update("")

    def _decision(self) -> str | None:
        pressed = self.query_one(RadioSet).pressed_button
        return str(pressed.label) if pressed is not None else None

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "write":
            self.action_write()
        else:
            self.action_cancel()

    def action_write(self) -> None:
        """Ctrl+S: read the form once the keys typed before it reached their fields (a burst
        from a laggy link), then write."""
        after_queued_keys(self, self._write_now)

    def _write_now(self) -> None:
        """Read the form here; build and write the record in a worker (seconds at 300k
        items), so the screen keeps answering while it is written."""
        if self.writing or not self.is_attached:
            return
        override = self.query_one("#override", Input)
        chosen = self._decision()
        if chosen is None:
            self._show_error(
                "choose your decision first (approve, block or needs-more-data)", "#decision"
            )
            return
        try:
            decision = ReviewerDecision(
                reviewer=self.query_one("#reviewer", Input).value,
                decision=chosen,
                rationale=self.query_one("#rationale", TextArea).text,
                override_reason=override.value if override.display else None,
            )
            self.check_ready()
        except EvalTuiError as exc:
            self._show_error(str(exc))
            return
        typed = self.query_one("#prefix", Input).value.strip()
        runs, root = self.record_runs(), self.state.config.state_root
        prefix = Path(typed) if typed else default_prefix(runs, root)
        try:
            make_review_folder(prefix, runs, root)
        except OSError as exc:
            self._show_error(f"cannot make the folder {prefix.parent}: {exc.strerror or exc}")
            return
        self.writing = True
        self.asked_to_discard = False
        self.query_one("#write", Button).disabled = True
        self.query_one("#signoff-error", Static).update(Text("Writing the record…"))
        self.start_writing(decision, prefix)

    @work(thread=True, exclusive=True, group="signoff")
    def write_record(self, loaded, decision: ReviewerDecision, prefix: Path) -> None:
        analysis = loaded.analysis  # (complete: `check_final` refused a deciding one)
        try:
            record = build_record(analysis, loaded.session, decision)
            paths = write_record(record, analysis, prefix)
        except OverrideRequired as exc:
            why = exc.override.refusal("fill in the override reason in this dialog")
            self.post_message(SignoffFailed(why, focus="#override"))
            return
        except (EvalTuiError, OSError) as exc:
            self.post_message(SignoffFailed(str(exc)))
            return
        csv_path = paths[0].with_suffix(".csv")
        self.post_message(SignoffWritten((*paths, csv_path)))

    def on_signoff_failed(self, message: SignoffFailed) -> None:
        self.writing = False
        self.show_decision()  # (the write button back on, unless still deciding)
        self._show_error(message.text, message.focus)

    def on_signoff_written(self, message: SignoffWritten) -> None:
        self.state.last_signoff = message.paths
        folder = self.draft_place()
        if folder is not None:
            clear_draft(folder)
        shown = ", ".join(str(p.resolve()) for p in message.paths)
        self.app.notify(f"wrote {shown}", timeout=8, markup=False)
        self.dismiss(None)

    def _show_error(self, text: str, focus: str | None = None) -> None:
        """Say why beside the buttons the reviewer just used, and move to the field that
        needs them (the decision, the override reason), scrolled into view."""
        error = self.query_one("#signoff-error", Static)
        error.update(literal(f"Not written: {text}"))
        target = self.query(focus).first() if focus and self.query(focus) else None
        if target is not None:
            target.focus()
        error.scroll_visible(animate=False)

    def action_cancel(self) -> None:
        """Esc: close; over typed text, ask first (a second Esc discards it)."""
        if not self.writing and not self.asked_to_discard and self._typed_text() != self._composed:
            self.asked_to_discard = True
            error = self.query_one("#signoff-error", Static)
            error.update(Text(DISCARD_QUESTION, style="bold"))
            error.scroll_visible(animate=False)
            return
        folder = self.draft_place()
        if folder is not None and not self.writing:  # discarded on purpose
            clear_draft(folder)
        self.dismiss(None)


# -- three or more runs: the whole set in one record -----------------------------------------

PairKey = tuple[int, int]  # (baseline index, candidate index) of a pair of the run set


def pair_name(run_set: RunSetAnalysis, pair: PairResult) -> str:
    """ "candidate vs baseline": a pair as the matrix and the record's CSV name it."""
    names = run_set.names
    return f"{names[pair.candidate]} vs {names[pair.baseline]}"


def pair_override(pair: PairResult, session: Any) -> Override:
    """What approving this pair with these tags would override (the rule `build_record` applies
    to each pair of the set)."""
    gates = evaluate_policy_gates(pair.analysis, session)
    return override_for(pair.analysis, session, gates)


def read_overrides(run_set: RunSetAnalysis, state_root: Path | None) -> dict[PairKey, Override]:
    """Each baseline pair's override as its journal stands now, read only (no lock is taken:
    the matrix holds no pair's session). Seconds at a million items: call it in a worker."""
    overrides = {}
    for pair in run_set.baseline_pairs:
        session = start_review(pair.analysis, read_only=True, state_root=state_root)
        try:
            overrides[(pair.baseline, pair.candidate)] = pair_override(pair, session)
        finally:
            session.close()
    return overrides


class RunSetSignoffScreen(SignoffScreen):
    """x on the matrix: one record for the whole set (`runset_signoff`), naming every baseline
    pair, each pair's own record inside with its own tags. No pair's session is open while the
    matrix shows; the worker opens each in the app's state folder (taking its lock, as the CLI
    does), builds and writes, and closes them all, whatever happens."""

    HEADING = "Sign off the whole set"

    def __init__(self, state: ReviewState, overrides: dict[PairKey, Override]) -> None:
        super().__init__(state)
        self.overrides = overrides  # read when x was pressed (`read_overrides`)

    @property
    def run_set(self) -> RunSetAnalysis:
        run_set = self.state.run_set
        assert run_set is not None  # opened from the matrix
        return run_set

    def decision(self) -> Any:
        return self.state.run_set_decision

    def decision_line(self) -> FirstLine | None:
        """The set's line; while the set is decided anew (the tags of the pair just closed),
        "DECIDING…" (the app's `run_set_line`)."""
        return self.state.run_set_line()

    def compose_covers(self) -> ComposeResult:
        names = ", ".join(pair_name(self.run_set, p) for p in self.run_set.baseline_pairs)
        covers = Text("covers: ", style="bold")
        covers.append_text(literal_line(names, 600))
        line = Static(covers, id="signoff-covers")
        line.styles.padding = (1, 0, 0, 0)  # (apart from the decision line above it)
        yield line

    def approval_refused(self) -> str:
        """(A pair's dispute refuses the set's approval when its record is built, in the
        pair's words.)"""
        return ""

    def override_problems(self) -> list[str]:
        """Pair by pair, as the rule applies: "candidate vs baseline: 5 of 5 regressions are
        untriaged"; a pair an approval overrides nothing in is not named."""
        problems = []
        for pair in self.run_set.baseline_pairs:
            override = self.overrides[(pair.baseline, pair.candidate)]
            if override.needed:
                problems.append(
                    f"{pair_name(self.run_set, pair)}: {', '.join(override.problems())}"
                )
        return problems

    def check_ready(self) -> None:
        """Only the set's decision to wait for: the run set hashed every file as it read it."""
        self.check_final()

    def start_writing(self, decision: ReviewerDecision, prefix: Path) -> None:
        self.write_run_set(self.run_set, decision, prefix)

    def record_runs(self) -> list[Path]:
        return [Path(run.source.path) for run in self.run_set.runs]

    def draft_place(self) -> Path | None:
        """The run set's own folder (no pair's journal is open while the dialog shows)."""
        return review_folder(self.record_runs(), self.state.config.state_root).parent

    def on_run_set_changed(self, message: RunSetChanged) -> None:
        """The set decided anew (the tags of the pair just closed): the line follows."""
        self.show_decision()

    @work(thread=True, exclusive=True, group="signoff")
    def write_run_set(
        self, run_set: RunSetAnalysis, decision: ReviewerDecision, prefix: Path
    ) -> None:
        from evaltui.core.record.run_set_signoff import build_run_set_record, write_run_set_record

        config = self.state.config
        sessions: dict[PairKey, Any] = {}
        try:
            for pair in run_set.baseline_pairs:
                try:  # (locked by another evaltui: that pair's name, and nothing written)
                    session = start_review(
                        pair.analysis, state_root=config.state_root, reviewer=config.reviewer
                    )
                except EvalTuiError as exc:
                    self.post_message(SignoffFailed(f"{pair_name(run_set, pair)}: {exc}"))
                    return
                sessions[(pair.baseline, pair.candidate)] = session
            try:
                record = build_run_set_record(run_set, sessions, decision)
                paths = write_run_set_record(record, run_set, prefix)
            except OverrideRequired as exc:
                self.post_message(SignoffFailed(self._refusal(run_set, sessions, exc), "#override"))
                return
            except (EvalTuiError, OSError) as exc:
                self.post_message(SignoffFailed(str(exc)))
                return
        finally:
            for session in sessions.values():
                session.close()
        self.post_message(SignoffWritten(paths))

    @staticmethod
    def _refusal(
        run_set: RunSetAnalysis, sessions: dict[PairKey, Any], exc: OverrideRequired
    ) -> str:
        """The refusal in the dialog's words, naming the pair it is about (`build_record`
        refuses the first pair whose approval overrides something without a reason)."""
        why = exc.override.refusal("fill in the override reason in this dialog")
        for key, session in sessions.items():
            pair = run_set.pair(*key)
            if pair_override(pair, session) == exc.override:
                return f"{pair_name(run_set, pair)}: {why}"
        return why
