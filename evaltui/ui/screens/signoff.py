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


class SignoffScreen(ModalScreen[None]):
    writing = False  # a record is being written: Ctrl+S again does nothing

    BINDINGS = [
        Binding("ctrl+s", "write", "Write record", priority=True, id="signoff.write"),
        Binding("escape", "cancel", "Cancel", id="signoff.cancel"),
    ]

    def compose(self) -> ComposeResult:
        app = self.app
        override = override_for(app.loaded.analysis, app.loaded.session, app.loaded.gates)
        with VerticalScroll(id="signoff-box", classes="dialog"):
            yield Static("Sign off this comparison", classes="title")
            yield Static(Text(app.loaded.analysis.headline))
            yield Label("Reviewer")
            yield Input(default_reviewer(), id="reviewer")
            yield Label("Decision")
            with RadioSet(id="decision"):
                for i, decision in enumerate(DECISIONS):
                    yield RadioButton(decision, value=(i == 0), id=f"decision-{decision}")
            yield Label("Rationale")
            yield TextArea(id="rationale", soft_wrap=True)
            if override.needed:
                yield Static(
                    Text(
                        "Override reason: "
                        + " and ".join(override.problems())
                        + "; approving anyway needs a reason (recorded)"
                    ),
                    classes="warning",
                )
                yield Input(id="override", placeholder="why approve with untriaged regressions")
            yield Label("Write to (PREFIX.json, PREFIX.md and PREFIX.csv)")
            yield Input(f"signoff-{time.strftime('%Y%m%d-%H%M%S')}", id="prefix")
            yield Static(id="signoff-error", classes="error")
            with Horizontal(classes="buttons"):
                yield Button("Write record (Ctrl+S)", variant="primary", id="write")
                yield Button("Cancel (Esc)", id="cancel")
        yield Footer(compact=True)

    def on_mount(self) -> None:
        self.query_one("#rationale", TextArea).focus()

    def _decision(self) -> str:
        pressed = self.query_one(RadioSet).pressed_button
        return str(pressed.label) if pressed is not None else DECISIONS[0]

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
        try:
            decision = ReviewerDecision(
                reviewer=self.query_one("#reviewer", Input).value,
                decision=self._decision(),
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
            why = exc.override.refusal("fill in the override reason above")
            self.post_message(SignoffFailed(why))
            return
        except (EvalTuiError, OSError) as exc:
            self.post_message(SignoffFailed(str(exc)))
            return
        csv_path = paths[0].with_suffix(".csv")
        self.post_message(SignoffWritten((*paths, csv_path)))

    def on_signoff_failed(self, message: SignoffFailed) -> None:
        self.writing = False
        self.query_one("#write", Button).disabled = False
        self._show_error(message.text)

    def on_signoff_written(self, message: SignoffWritten) -> None:
        self.app.last_signoff = message.paths
        shown = ", ".join(str(p) for p in message.paths)
        self.app.notify(f"wrote {shown}", timeout=8, markup=False)
        self.dismiss(None)

    def _show_error(self, text: str) -> None:
        self.query_one("#signoff-error", Static).update(Text(f"Not written: {text}"))

    def action_cancel(self) -> None:
        self.dismiss(None)
