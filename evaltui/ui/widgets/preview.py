"""The selected item's two outputs beside the list, on terminals wide enough for both.

Reading is a worker's (a seek and a parse, or a row-group decode), started a moment after the
cursor settles, so holding `j` over a long list reads only where it stops.
"""

from __future__ import annotations

from rich.text import Text
from textual import work
from textual.containers import VerticalScroll
from textual.message import Message
from textual.timer import Timer
from textual.widgets import Static
from textual.worker import get_current_worker

from evaltui.core.errors import EvalTuiError
from evaltui.core.read.runs import Transcript
from evaltui.ui.listmodel import ListRow
from evaltui.ui.safe import literal, literal_line
from evaltui.ui.state import ReviewState
from evaltui.ui.styles import style_of

SETTLE = 0.12  # seconds the cursor rests on a row before its outputs are read
MAX_CHARS = 4000  # per output: a preview, not the transcript (Enter opens that)


def answer(t: Transcript) -> str | None:
    """The final answer: the output, else the last assistant message."""
    if t.output:
        return t.output
    for message in reversed(t.messages):
        if message.role == "assistant":
            return message.content
    return None


def preview_text(item_id: str, base: Transcript, cand: Transcript) -> Text:
    text = Text()
    text.append_text(literal_line(item_id, 60, style="bold"))
    text.append("  Enter opens both transcripts\n\n", style="dim")
    for title, t in (("BASELINE output", base), ("CANDIDATE output", cand)):
        text.append(f" {title} ", style="bold reverse")
        text.append("\n")
        body = answer(t)
        if body is None and not t.complete:
            text.append("(reading…)", style="dim")
        elif body is None:
            text.append("(no output recorded)", style="dim")
        else:
            text.append_text(literal(body[:MAX_CHARS]))
            if len(body) > MAX_CHARS:
                text.append(f"\n… {len(body) - MAX_CHARS:,} more characters", style="dim")
        text.append("\n\n")
    return text


class OutputsPreview(VerticalScroll, can_focus=False):
    """Shows the outputs of the row `show` was last given."""

    class Read(Message):
        def __init__(self, item_id: str, text: Text) -> None:
            super().__init__()
            self.item_id, self.text = item_id, text

    def __init__(self, state: ReviewState, **kwargs) -> None:
        super().__init__(**kwargs)
        self.state = state  # the review state: the open pair's transcripts
        self.item_id: str | None = None
        self._timer: Timer | None = None

    def compose(self):
        yield Static(Text("Select an item to see both outputs here.", style="dim"))

    def show(self, row: ListRow | None, now: bool = False) -> None:
        """Show `row`'s outputs: read after the cursor settles, or at once with `now`."""
        if row is None:
            self.item_id = None
            self.query_one(Static).update(Text("No item selected.", style="dim"))
            return
        if row.item_id == self.item_id:
            return
        self.item_id = row.item_id
        self.query_one(Static).update(literal_line(row.item_id, 60, style="bold"))
        if self._timer is not None:
            self._timer.stop()
        if now:
            self._read(row)
        else:
            self._timer = self.set_timer(SETTLE, lambda: self._read(row))

    def _read(self, row: ListRow) -> None:
        if row.item_id == self.item_id and self.state.loaded is not None:
            self.read_outputs(row)

    @work(thread=True, exclusive=True, group="preview")
    def read_outputs(self, row: ListRow) -> None:
        paired = self.state.require_loaded().analysis.paired
        worker = get_current_worker()
        try:
            sides = []
            for reader, record in (
                (paired.baseline.transcripts, row.rows[0]),
                (paired.candidate.transcripts, row.rows[1]),
            ):
                quick = getattr(reader, "read_quick", None)
                t = quick(record) if quick is not None else None
                sides.append(t if t is not None and answer(t) else reader.read(record))
        except EvalTuiError as exc:
            text = literal(f"cannot read this item: {exc}", style=style_of("caution"))
            self.post_message(self.Read(row.item_id, text))
            return
        if not worker.is_cancelled:
            self.post_message(self.Read(row.item_id, preview_text(row.item_id, *sides)))

    def on_outputs_preview_read(self, message: Read) -> None:
        if message.item_id == self.item_id:
            self.query_one(Static).update(message.text)
            self.scroll_home(animate=False, immediate=True)
