"""The sign-off dialog: reviewer, decision, rationale, where to write; core builds the record."""

from __future__ import annotations

import time
from pathlib import Path

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Footer, Input, Label, RadioButton, RadioSet, Static, TextArea

from evaltui.core.errors import EvalTuiError
from evaltui.core.signoff import (
    DECISIONS,
    Decision,
    build_record,
    default_reviewer,
    untriaged_regressions,
    write_record,
)


class SignoffScreen(ModalScreen[None]):
    BINDINGS = [
        Binding("ctrl+s", "write", "Write record", priority=True, id="signoff.write"),
        Binding("escape", "cancel", "Cancel", id="signoff.cancel"),
    ]

    def compose(self) -> ComposeResult:
        app = self.app
        untriaged = untriaged_regressions(app.loaded.analysis, app.loaded.session)
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
            failed = [g.name for g in app.loaded.gates if g.status == "failed"]
            if untriaged or failed:
                problems = []
                if untriaged:
                    n_reg = len(app.loaded.analysis.regressions)
                    problems.append(f"{len(untriaged)} of {n_reg} regressions are untriaged")
                if failed:
                    problems.append(f"{len(failed)} release gate(s) failed")
                yield Static(
                    "Override reason: "
                    + " and ".join(problems)
                    + "; approving anyway needs a reason (recorded)",
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
        app = self.app
        overrides = self.query("#override")
        try:
            decision = Decision(
                reviewer=self.query_one("#reviewer", Input).value,
                decision=self._decision(),
                rationale=self.query_one("#rationale", TextArea).text,
                override_reason=overrides.first(Input).value if overrides else None,
            )
            app.check_inputs_confirmed(app.loaded)  # the record's sha256 are the bytes' own
            analysis = app.loaded.analysis
            if not analysis.metrics:  # exported before the background analysis finished
                from evaltui.core.compare import complete_analysis

                analysis = app.loaded.analysis = complete_analysis(analysis)
            record = build_record(analysis, app.loaded.session, decision)
            prefix = Path(self.query_one("#prefix", Input).value.strip() or "signoff")
            json_path, md_path = write_record(record, analysis, prefix)
        except (EvalTuiError, OSError) as exc:
            self.query_one("#signoff-error", Static).update(Text(f"Not written: {exc}"))
            return
        app.last_signoff = (json_path, md_path)
        app.notify(f"wrote {json_path} and {md_path}", timeout=8)
        self.dismiss(None)

    def action_cancel(self) -> None:
        self.dismiss(None)
