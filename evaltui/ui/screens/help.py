"""`?`: every key of every screen, generated from the bindings so it cannot drift."""

from __future__ import annotations

from rich.table import Table
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Footer, Static

from evaltui.core.review import state_dir
from evaltui.ui.safe import literal

GENERAL_NOTES = """\
Tags and notes are written to the session journal (and flushed to disk) before "saved" shows.
Reopening the same pair of files resumes the session; `evaltui --fresh BASE CAND` starts anew
(the old journal is kept beside the new one). Journals live in {state}/sessions/.
Ctrl+P opens the command palette: every action is listed there too."""


def _keys(binding: Binding) -> str:
    if binding.key_display:
        return binding.key_display
    return ", ".join(k.replace("_", " ") for k in binding.key.split(","))


def bindings_table(title: str, bindings: list[Binding]) -> Table:
    table = Table(title=title, title_justify="left", show_header=False, box=None, expand=True)
    table.add_column("key", style="bold cyan", width=22)
    table.add_column("action")
    rows: list[tuple[list[str], str]] = []
    for binding in bindings:
        if rows and rows[-1][1] == binding.description:  # 1-9 doing one thing: one row
            rows[-1][0].append(_keys(binding))
        else:
            rows.append(([_keys(binding)], binding.description))
    for keys, description in rows:
        digits = all(k.isdigit() for k in keys) and len(keys) > 2
        table.add_row(f"{keys[0]}-{keys[-1]}" if digits else ", ".join(keys), description)
    return table


class HelpScreen(ModalScreen[None]):
    BINDINGS = [
        Binding("escape,question_mark,q", "close", "Close help", id="help.close"),
        Binding("j", "scroll(1)", "Scroll down", show=False, id="help.down"),
        Binding("k", "scroll(-1)", "Scroll up", show=False, id="help.up"),
    ]

    def compose(self) -> ComposeResult:
        from evaltui.ui.screens.gates import GatesScreen
        from evaltui.ui.screens.item import ItemScreen
        from evaltui.ui.screens.main import MainScreen
        from evaltui.ui.screens.note import NoteScreen
        from evaltui.ui.screens.slices import SlicesScreen
        from evaltui.ui.widgets.item_table import ItemTable

        tags = self.app.loaded.session.info.tags if self.app.loaded else ()
        tag_rows = [Binding(str(n), "", f"tag: {t}") for n, t in enumerate(tags, 1)]
        app_bindings = [b for b in type(self.app).BINDINGS if not b.action.startswith("tag(")]
        with VerticalScroll(id="help-box", classes="dialog"):
            yield Static("evaltui — keys", classes="title")
            yield Static(bindings_table("Everywhere", app_bindings + tag_rows))
            yield Static(bindings_table("Lists", MainScreen.BINDINGS + ItemTable.BINDINGS))
            yield Static(bindings_table("An item", ItemScreen.BINDINGS))
            yield Static(
                bindings_table(
                    "Gates (g) and slices (l)", [*GatesScreen.BINDINGS, *SlicesScreen.BINDINGS]
                )
            )
            yield Static(bindings_table("The note editor (e)", NoteScreen.BINDINGS))
            yield Static(
                literal(GENERAL_NOTES.format(state=self.app.config.state_root or state_dir())),
                classes="hint",
            )
        yield Footer(compact=True)

    def action_scroll(self, lines: int) -> None:
        self.query_one("#help-box", VerticalScroll).scroll_relative(
            y=lines, animate=False, immediate=True
        )

    def action_close(self) -> None:
        self.dismiss(None)
