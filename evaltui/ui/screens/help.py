"""`?`: every key of every screen, generated from the bindings so it cannot drift, shown as it
is typed and in one column; then the statistics words on screen, one line each."""

from __future__ import annotations

from collections.abc import Iterable

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.keys import format_key
from textual.screen import ModalScreen
from textual.widgets import Static

from evaltui.core.record.journal import state_dir
from evaltui.ui.safe import literal
from evaltui.ui.screens.given import GivenState
from evaltui.ui.screens.keys import FooterKeys, Shown
from evaltui.ui.styles import style_of
from evaltui.ui.widgets.key_footer import KeyFooter

GENERAL_NOTES = """\
Tags and notes are written to the session journal (and flushed to disk) before "saved" shows.
Reopening the same pair of files resumes the session; `evaltui --fresh BASE CAND` starts anew
(the old journal is kept beside the new one). Journals live in {state}/sessions/.
With a review team (--reviewers, or the policy's [review]), your items come first, marked
`you` (w: only them); the other reviewers' tags on an item stay hidden until you have tagged it
yourself, so your judgment is independent of theirs (the decision counts every reviewer's).
Ctrl+P opens the command palette: every action is listed there too."""


KEY_WIDTH = 20  # the key (and glossary term) column: every table's column starts alike
# Keys as they are typed, not as Textual names them (`]`, not "right square bracket").
KEY_NAMES = {
    "enter": "Enter",
    "escape": "Esc",
    "tab": "Tab",
    "space": "Space",
    "pageup": "PgUp",
    "pagedown": "PgDn",
    "home": "Home",
    "end": "End",
    "up": "↑",
    "down": "↓",
    "left": "←",
    "right": "→",
    "backspace": "Backspace",
    "delete": "Del",
}
MODIFIERS = {"ctrl": "Ctrl", "shift": "Shift", "alt": "Alt", "meta": "Meta"}

# The statistics words on screen, one line each (docs/statistics.md has the detail).
GLOSSARY = (
    ("pts", "percentage points: a pass rate of 75% → 81% is +6.0 pts"),
    ("discordant", "the items the two runs disagree on: regressions and improvements"),
    ("McNemar", "the exact test of the discordant split: more lopsided than chance?"),
    ("mid-p", "McNemar's p less half the chance of the table seen: less conservative"),
    ("Tango", "the default interval of a paired pass-rate difference (score)"),
    ("Newcombe", "hybrid score interval: two independent rates, or paired on request"),
    ("Wilson", "the score interval of one run's pass rate"),
    ("wild cluster bootstrap-t", "an interval for clustered items: resamples whole clusters"),
    ("design effect", "how much the clusters widen the variance (1: not at all)"),
    (
        "the verdict follows the cluster-aware interval",
        "with clusters, the clustered interval decides improved or regressed",
    ),
    ("BCa", "bias-corrected and accelerated bootstrap interval (graded scores)"),
    ("Holm", "p-values adjusted for testing many slices or metrics at once"),
    ("omnibus test", "do any of 3+ runs differ? Cochran's Q (pass/fail), Friedman (scores)"),
    ("▲ ▼ ·", "in the matrix: the row's run better, worse, no significant difference"),
    ("independent (unpaired)", "two runs of different items as two samples: at best NEEDS REVIEW"),
)


def key_name(key: str) -> str:
    """A key as typed: `]`, `?`, `/`, `Enter`, `Ctrl+S`, `Shift+Tab`, `G`."""
    *modifiers, name = key.split("+")
    shown = KEY_NAMES.get(name) or format_key(name)
    if modifiers and len(shown) == 1:
        shown = shown.upper()
    return "+".join([*(MODIFIERS.get(m, m) for m in modifiers), shown])


def _keys(binding: Binding) -> str:
    if binding.key_display and binding.key_display not in ("?", "/"):
        return binding.key_display
    return ", ".join(key_name(k.strip()) for k in binding.key.split(","))


def _table(title: str) -> Table:
    table = Table(title=title, title_justify="left", show_header=False, box=None)
    table.title_style = "bold"
    table.add_column("key", style=style_of("key--name"), width=KEY_WIDTH, no_wrap=False)
    table.add_column("action")
    return table


def bindings_table(title: str, bindings: Iterable[BindingType]) -> Table:
    table = _table(title)
    rows: list[tuple[list[str], str]] = []
    for binding in Binding.make_bindings(bindings):
        keys = _keys(binding)
        if rows and rows[-1][1] == binding.description:  # 1-9 doing one thing: one row
            rows[-1][0].append(keys)
        elif ([keys], binding.description) not in rows:  # (two screens' j/k: one row)
            rows.append(([keys], binding.description))
    for row_keys, description in rows:
        digits = all(k.isdigit() for k in row_keys) and len(row_keys) > 2
        shown = f"{row_keys[0]}-{row_keys[-1]}" if digits else ", ".join(row_keys)
        table.add_row(Text(shown), literal(description))
    return table


def glossary_table() -> Table:
    table = _table("The words on screen")
    for term, meaning in GLOSSARY:
        table.add_row(Text(term, style="bold"), Text(meaning))
    return table


class HelpScreen(GivenState, FooterKeys, ModalScreen[None]):
    BINDINGS = [
        Binding("escape,question_mark,q", "close", "Close help", id="help.close"),
        Binding("j", "scroll(1)", "Scroll down", show=False, id="help.down"),
        Binding("k", "scroll(-1)", "Scroll up", show=False, id="help.up"),
    ]
    FOOTER = (Shown("help.close", "Close help"), Shown("help.down", "Scroll", key="j/k"))

    def compose(self) -> ComposeResult:
        from evaltui.ui.screens.bulk import BulkTagScreen
        from evaltui.ui.screens.gates import GatesScreen
        from evaltui.ui.screens.independent import IndependentScreen
        from evaltui.ui.screens.item import ItemScreen
        from evaltui.ui.screens.main import MainScreen
        from evaltui.ui.screens.matrix import MatrixScreen
        from evaltui.ui.screens.note import NoteScreen
        from evaltui.ui.screens.signoff import SignoffScreen
        from evaltui.ui.screens.slices import SlicesScreen
        from evaltui.ui.widgets.item_table import ItemTable

        loaded = self.state.loaded
        tags = loaded.session.info.tags if loaded else ()
        tag_rows = [Binding(str(n), "", f"tag: {t}") for n, t in enumerate(tags, 1)]
        app_bindings = [  # (only the m this app has: the next metric, or the matrix of 3+ runs)
            b
            for b in Binding.make_bindings(type(self.app).BINDINGS)
            if not b.action.startswith("tag(") and self.app.check_action(b.action, ()) is not False
        ]
        palette = Binding("ctrl+p", "", "Command palette: every action, by name")
        back = [  # (the app's m and the list's Esc, named where a reviewer of 3+ runs looks)
            Binding("m", "", "From a pair's review: back to the matrix (the tags stay the pair's)"),
            Binding("escape", "", "From a pair's list with nothing to clear: back to the matrix"),
        ]
        with VerticalScroll(id="help-box", classes="dialog"):
            yield Static("evaltui — keys", classes="title")
            yield Static(bindings_table("Everywhere", [*app_bindings, palette, *tag_rows]))
            independent = bindings_table("Two runs of different items", IndependentScreen.BINDINGS)
            if self.state.independent is not None:  # (this screen's keys first: nothing else is)
                yield Static(independent)
            yield Static(bindings_table("Lists", [*MainScreen.BINDINGS, *ItemTable.BINDINGS]))
            yield Static(bindings_table("The matrix of 3+ runs", [*MatrixScreen.BINDINGS, *back]))
            if self.state.independent is None:
                yield Static(independent)
            yield Static(bindings_table("An item", ItemScreen.BINDINGS))
            yield Static(
                bindings_table(
                    "Gates (g) and slices (l)", [*GatesScreen.BINDINGS, *SlicesScreen.BINDINGS]
                )
            )
            yield Static(bindings_table("Tag many at once (T)", BulkTagScreen.BINDINGS))
            yield Static(bindings_table("The note editor (e)", NoteScreen.BINDINGS))
            yield Static(bindings_table("The sign-off dialog (x)", SignoffScreen.BINDINGS))
            yield Static(bindings_table("This help (?)", type(self).BINDINGS))
            yield Static(glossary_table())
            yield Static(
                literal(GENERAL_NOTES.format(state=self.state.config.state_root or state_dir())),
                classes="hint",
            )
        yield KeyFooter()

    def action_scroll(self, lines: int) -> None:
        self.query_one("#help-box", VerticalScroll).scroll_relative(
            y=lines, animate=False, immediate=True
        )

    def action_close(self) -> None:
        self.dismiss(None)
