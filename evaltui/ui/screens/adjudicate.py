"""`C` on a disputed item: the adjudicator's dialog. It shows every reviewer's tag and note (and
an adjudication already in force), asks for the settled tag and a one-line reason; Ctrl+S
settles (core journals it in the adjudicator's own journal), Esc cancels.

Only opened for a named adjudicator (`actions.action_adjudicate` says who may otherwise); the
adjudication is the core's (`record.session.adjudicate`), this screen only collects it.
"""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Input, Label, RadioButton, RadioSet, Static

from evaltui.core.record.review_item import ItemReview
from evaltui.ui.after_keys import FieldInput, after_queued_keys
from evaltui.ui.safe import literal_line
from evaltui.ui.screens.keys import FooterKeys, Shown
from evaltui.ui.widgets.key_footer import KeyFooter

Settled = tuple[str, str]  # (tag, reason)


class MarkedChoice(RadioButton):
    """A tag choice whose state shows as a character (● chosen, ○ not), not only a colour."""

    @property
    def BUTTON_INNER(self) -> str:  # type: ignore[override]  # noqa: N802 - Textual's name
        return "●" if self.value else "○"


def reviews_text(review: ItemReview) -> Text:
    """Every reviewer's tag and note, one reviewer a line, literal (names and notes are
    untrusted text); then the adjudication in force, if any."""
    lines = []
    for r in review.reviews:
        line = literal_line(f"{r.reviewer or '(unnamed)'}: {r.tag or '(no tag)'}", 120)
        if r.note:
            line.append(" — ")
            line.append_text(literal_line(r.note, 300))
        lines.append(line)
    if not review.reviews:
        lines.append(Text("(no reviews yet)", style="italic"))
    a = review.adjudication
    if a is not None:
        line = Text("settled before: ", style="bold")
        line.append_text(literal_line(f"{a.tag} by {a.by}, {a.time}: {a.reason}", 300))
        lines.append(line)
    return Text("\n").join(lines)


class AdjudicateScreen(FooterKeys, ModalScreen[Settled | None]):
    BINDINGS = [
        Binding("ctrl+s", "settle", "Settle the dispute", priority=True, id="adjudicate.save"),
        Binding("escape", "cancel", "Cancel", id="adjudicate.cancel"),
    ]
    FOOTER = (
        Shown("adjudicate.save", "Settle"),
        Shown("adjudicate.cancel", "Cancel"),
        Shown("action:app.focus_next", "Next field"),
    )

    def __init__(self, review: ItemReview, tags: tuple[str, ...]) -> None:
        super().__init__()
        self.review = review
        self.tags = tags
        self.settling = False  # dismissed: a second Ctrl+S in the burst does nothing

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="adjudicate-box", classes="dialog"):
            title = f"Settle the dispute on {self.review.item_id}"
            yield Static(literal_line(title, 70, style="bold"), classes="title")
            yield Label("Each reviewer's tag and note")
            yield Static(reviews_text(self.review), id="adjudicate-reviews")
            yield Label("The settled tag (none chosen yet: pick one)")
            with RadioSet(id="adjudicate-tag"):
                for n, tag in enumerate(self.tags):
                    yield MarkedChoice(tag, value=False, id=f"adjudicate-tag-{n}")
            yield Label("Why, in one line (recorded with your name and the time)")
            yield FieldInput(id="adjudicate-reason", placeholder="the reason")
            yield Static(id="adjudicate-error", classes="error")
        yield KeyFooter()

    def on_mount(self) -> None:
        self.query_one("#adjudicate-box", VerticalScroll).scroll_home(animate=False)
        self.query_one("#adjudicate-tag", RadioSet).focus(scroll_visible=False)

    def _chosen(self) -> str | None:
        pressed = self.query_one(RadioSet).pressed_button
        if pressed is None or pressed.id is None:
            return None
        return self.tags[int(pressed.id.rsplit("-", 1)[1])]

    def action_settle(self) -> None:
        """Ctrl+S: read the form once the keys typed before it reached the reason field."""
        after_queued_keys(self, self._settle_now)

    def _settle_now(self) -> None:
        if self.settling or not self.is_attached:
            return
        tag = self._chosen()
        reason = self.query_one("#adjudicate-reason", Input).value.strip()
        if tag is None:
            self._error("choose the settled tag first", "#adjudicate-tag")
            return
        if not reason:
            self._error("say why, in one line: the reason is recorded", "#adjudicate-reason")
            return
        self.settling = True
        self.dismiss((tag, reason))

    def _error(self, text: str, focus: str) -> None:
        self.query_one("#adjudicate-error", Static).update(literal_line(f"Not settled: {text}"))
        self.query_one(focus).focus()

    def action_cancel(self) -> None:
        self.dismiss(None)
