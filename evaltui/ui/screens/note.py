"""The note editor: a modal text area; Ctrl+S saves to the journal, Esc cancels.

Ctrl+S saves what the field holds after the keys typed before it reached it (`after_keys.py`).
What is typed is kept as a draft beside the journal as it changes (`core/record/drafts.py`) and
offered back, in this editor, when the review reopens after a crash or a dropped connection.

It opens with the cursor after the existing note (a reviewer adds to a note more often than
rewriting it), and Esc over typed text asks first: a second Esc discards it.
"""

from __future__ import annotations

from pathlib import Path

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Static, TextArea

from evaltui.core.record.drafts import clear_draft, save_draft
from evaltui.ui.after_keys import after_queued_keys
from evaltui.ui.safe import literal_line
from evaltui.ui.screens.keys import FooterKeys, Shown
from evaltui.ui.text_area_field import FieldTextArea
from evaltui.ui.widgets.key_footer import KeyFooter

HINT = "Ctrl+S saves (written to disk at once) · Esc cancels"
RECOVERED = "Recovered: the text typed before the last session ended · Ctrl+S saves · Esc discards"


class NoteScreen(FooterKeys, ModalScreen[str | None]):
    BINDINGS = [
        Binding("ctrl+s", "save", "Save note", priority=True, id="note.save"),
        Binding("escape", "cancel", "Cancel", id="note.cancel"),
    ]
    FOOTER = (Shown("note.save", "Save"), Shown("note.cancel", "Cancel"))

    def __init__(
        self,
        item_id: str,
        note: str,
        draft_folder: Path | None = None,
        draft: str | None = None,
    ) -> None:
        super().__init__()
        self.item_id = item_id
        self.note = note  # what the journal holds
        self.draft_folder = draft_folder  # where the text is kept as it is typed (None: not)
        self.draft = draft  # text recovered from a session that ended before Ctrl+S
        self.asked_to_discard = False  # Esc was pressed once over changed text
        self.saving = False  # dismissed with the text: a second Ctrl+S in the burst does nothing

    def compose(self) -> ComposeResult:
        with Vertical(id="note-box", classes="dialog"):
            title = literal_line(f"Note on {self.item_id}", 70, style="bold")
            yield Static(title)
            text = self.note if self.draft is None else self.draft
            yield FieldTextArea(text, id="note-text", soft_wrap=True)
            hint = RECOVERED if self.draft is not None else HINT
            yield Static(hint, id="note-hint", classes="hint")
        yield KeyFooter()

    def on_mount(self) -> None:
        area = self.query_one(TextArea)
        area.focus()
        area.move_cursor(area.document.end)

    @property
    def changed(self) -> bool:
        return self.query_one(TextArea).text != self.note

    def on_text_area_changed(self, event: TextArea.Changed) -> None:
        if self.draft_folder is not None:  # kept as typed: a dropped connection loses none
            if event.text_area.text != self.note:
                save_draft(self.draft_folder, "note", self.item_id, event.text_area.text)
            else:
                clear_draft(self.draft_folder)
        if self.asked_to_discard:  # typing again: the next Esc asks again
            self.asked_to_discard = False
            self.query_one("#note-hint", Static).update(HINT)
            self.query_one("#note-hint").remove_class("warning")

    def action_save(self) -> None:
        """Ctrl+S: save what the field holds once the keys typed before it are in it."""
        after_queued_keys(self, self._save_now)

    def _save_now(self) -> None:
        if self.is_active and not self.saving:
            self.saving = True
            self.dismiss(self.query_one(TextArea).text)

    def action_cancel(self) -> None:
        if self.changed and not self.asked_to_discard:
            self.asked_to_discard = True
            hint = self.query_one("#note-hint", Static)
            hint.update(
                Text("Discard what you typed? Esc again discards it · Ctrl+S saves it", "bold")
            )
            hint.add_class("warning")
            return
        if self.draft_folder is not None:  # discarded on purpose
            clear_draft(self.draft_folder)
        self.dismiss(None)
