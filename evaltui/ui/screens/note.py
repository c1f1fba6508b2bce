"""The note editor: a modal text area; Ctrl+S saves to the journal, Esc cancels."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Footer, Static, TextArea

from evaltui.ui.safe import literal_line


class NoteScreen(ModalScreen[str | None]):
    BINDINGS = [
        Binding("ctrl+s", "save", "Save note", priority=True, id="note.save"),
        Binding("escape", "cancel", "Cancel", id="note.cancel"),
    ]

    def __init__(self, item_id: str, note: str) -> None:
        super().__init__()
        self.item_id = item_id
        self.note = note

    def compose(self) -> ComposeResult:
        with Vertical(id="note-box", classes="dialog"):
            title = literal_line(f"Note on {self.item_id}", 70, style="bold")
            yield Static(title)
            yield TextArea(self.note, id="note-text", soft_wrap=True)
            yield Static("Ctrl+S saves (written to disk at once) · Esc cancels", classes="hint")
        yield Footer(compact=True)

    def on_mount(self) -> None:
        self.query_one(TextArea).focus()

    def action_save(self) -> None:
        self.dismiss(self.query_one(TextArea).text)

    def action_cancel(self) -> None:
        self.dismiss(None)
