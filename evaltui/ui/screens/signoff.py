"""The sign-off dialog: reviewer, decision, rationale, where to write; core builds the record."""

from __future__ import annotations

import time
from pathlib import Path

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Footer, Input, Label, RadioButton, RadioSet, Static, TextArea

from evaltui.core.errors import EvalTuiError
from evaltui.core.signoff import (
    DECISIONS,
    ReviewerDecision,
    build_record,
    default_reviewer,
    write_record,
)
from evaltui.core.workflow import OverrideRequired, override_for
from evaltui.ui.messages import BreakdownsReady, SignoffFailed, SignoffWritten
from evaltui.ui.safe import literal
from evaltui.ui.screens.keys import FooterKeys, Shown
from evaltui.ui.widgets.header_pane import decision_text


class MarkedRadioButton(RadioButton):
    """A choice whose state shows as a character, not only a colour: ● chosen, ○ not (with
    NO_COLOR the stock button draws ● for every choice)."""

    @property
    def BUTTON_INNER(self) -> str:  # type: ignore[override]  # noqa: N802 - Textual's name
        return "●" if self.value else "○"


class SignoffScreen(FooterKeys, ModalScreen[None]):
    writing = False  # a record is being written: Ctrl+S again does nothing

    BINDINGS = [
        Binding("ctrl+s", "write", "Write record", priority=True, id="signoff.write"),
        Binding("escape", "cancel", "Cancel", id="signoff.cancel"),
    ]
    FOOTER = (
        Shown("signoff.write", "Write record"),
        Shown("signoff.cancel", "Cancel"),
        Shown("action:app.focus_next", "Next field"),
    )

    def compose(self) -> ComposeResult:
        app = self.app
        loaded = app.loaded
        override = override_for(loaded.analysis, loaded.session, loaded.gates)
        with VerticalScroll(id="signoff-box", classes="dialog"):
            yield Static("Sign off this comparison", classes="title")
            if loaded.decision is not None:
                yield Static(decision_text(loaded.decision), id="signoff-decision")
            yield Label("Reviewer")
            yield Input(default_reviewer(), id="reviewer")
            yield Label("Your decision (none chosen yet: pick one)")
            with RadioSet(id="decision"):
                for decision in DECISIONS:
                    yield MarkedRadioButton(decision, value=False, id=f"decision-{decision}")
            yield Label("Rationale")
            yield TextArea(id="rationale", soft_wrap=True)
            if override.needed:
                yield Label("Override reason (needed to approve)")
                yield Static(
                    literal("Approving overrides: " + "; ".join(override.problems())),
                    classes="warning",
                    id="override-what",
                )
                yield Input(id="override", placeholder="why approve over these (recorded)")
            yield Label("Write to (PREFIX.json, PREFIX.md and PREFIX.csv)")
            yield Input(f"signoff-{time.strftime('%Y%m%d-%H%M%S')}", id="prefix")
            yield Static(id="signoff-error", classes="error")
            with Horizontal(classes="buttons"):
                yield Button("Write record (Ctrl+S)", variant="primary", id="write")
                yield Button("Cancel (Esc)", id="cancel")
        yield Footer(compact=True, show_command_palette=False)

    def on_mount(self) -> None:
        # Open at the top: the title, the decision line and the reviewer field first.
        self.query_one("#signoff-box", VerticalScroll).scroll_home(animate=False)
        self.query_one("#decision", RadioSet).focus(scroll_visible=False)

    def _decision(self) -> str | None:
        pressed = self.query_one(RadioSet).pressed_button
        return str(pressed.label) if pressed is not None else None

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "write":
            self.action_write()
        else:
            self.action_cancel()

    def action_write(self) -> None:
        """Read the form here; build and write the record in a worker (seconds at 300k
        items), so the screen keeps answering while it is written."""
        if self.writing:
            return
        app = self.app
        overrides = self.query("#override")
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
                override_reason=overrides.first(Input).value if overrides else None,
            )
            app.check_inputs_confirmed(app.loaded)  # the record's sha256 are the bytes' own
        except EvalTuiError as exc:
            self._show_error(str(exc))
            return
        prefix = Path(self.query_one("#prefix", Input).value.strip() or "signoff")
        self.writing = True
        self.query_one("#write", Button).disabled = True
        self.query_one("#signoff-error", Static).update(Text("Writing the record…"))
        self.write_record(app.loaded, decision, prefix)

    @work(thread=True, exclusive=True, group="signoff")
    def write_record(self, loaded, decision: ReviewerDecision, prefix: Path) -> None:
        analysis = loaded.analysis
        try:
            if not analysis.metrics:  # exported before the background analysis finished
                from evaltui.core.compare import complete_analysis
                from evaltui.core.workflow import judge_review

                analysis = complete_analysis(analysis)
                gates, verdict = judge_review(analysis, loaded.session)
                self.app.post_message(BreakdownsReady(loaded, analysis, gates, verdict))
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
        self.query_one("#write", Button).disabled = False
        self._show_error(message.text, message.focus)

    def on_signoff_written(self, message: SignoffWritten) -> None:
        self.app.last_signoff = message.paths
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
        self.dismiss(None)
