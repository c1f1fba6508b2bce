"""One discordant item: baseline and candidate transcripts side by side, or the output diff."""

from __future__ import annotations

import threading
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor

from rich.text import Text
from textual import work
from textual.app import ComposeResult, SystemCommand
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.screen import Screen
from textual.widgets import Footer, Static
from textual.worker import get_current_worker

from evaltui.core.analysis import signed
from evaltui.core.errors import EvalTuiError
from evaltui.core.pairing import BASE_ROW, CAND_ROW
from evaltui.core.runs import CLUSTER, ITEM_ID, SLICE, Transcript
from evaltui.ui.listmodel import ListRow
from evaltui.ui.messages import ReviewChanged, TranscriptsRead, WorkerProblem
from evaltui.ui.safe import literal_line
from evaltui.ui.transcript import output_diff, transcript_text


class ItemScreen(Screen):
    """Drill-down. n/p step through the list without going back; d toggles the diff."""

    BINDINGS = [
        Binding("escape", "back", "Back", id="item.back"),
        Binding("n,right_square_bracket", "step(1)", "Next", id="item.next"),
        Binding("p,left_square_bracket", "step(-1)", "Prev", id="item.prev"),
        Binding("d", "toggle_diff", "Diff", id="item.diff"),
        Binding("j,down", "scroll(1)", "Scroll down", show=False, id="item.down"),
        Binding("k,up", "scroll(-1)", "Scroll up", show=False, id="item.up"),
        Binding("pagedown,space", "scroll(10)", "Page down", show=False, id="item.pagedown"),
        Binding("pageup", "scroll(-10)", "Page up", show=False, id="item.pageup"),
    ]

    def __init__(self, rows: list[ListRow], index: int, list_name: str) -> None:
        super().__init__()
        self.rows = rows
        self.index = index
        self.list_name = list_name
        self.show_diff = False
        self.transcripts: tuple[Transcript, Transcript] | None = None
        # The next item's transcripts, read while the reviewer reads this one (n is the usual
        # next key): (item_id, baseline, candidate).
        self.read_ahead: tuple[str, Transcript, Transcript] | None = None

    def compose(self) -> ComposeResult:
        yield Static(id="item-meta")
        with Horizontal(id="sides"):
            with VerticalScroll(id="baseline-pane", classes="side"):
                yield Static(id="baseline-text")
            with VerticalScroll(id="candidate-pane", classes="side"):
                yield Static(id="candidate-text")
        with VerticalScroll(id="diff-pane"):
            yield Static(id="diff-text")
        yield Footer(compact=True)

    def on_mount(self) -> None:
        self.query_one("#diff-pane").display = False
        self.show_item()

    @property
    def row(self) -> ListRow:
        return self.rows[self.index]

    def current_item_id(self) -> str | None:
        return self.row.item_id

    def show_item(self) -> None:
        self.transcripts = None
        self._update_meta()
        for pane in ("#baseline-text", "#candidate-text", "#diff-text"):
            self.query_one(pane, Static).update(Text("loading…", style="dim"))
        for pane in ("#baseline-pane", "#candidate-pane", "#diff-pane"):
            self.query_one(pane, VerticalScroll).scroll_home(animate=False)
        ahead, self.read_ahead = self.read_ahead, None
        if ahead is not None and ahead[0] == self.row.item_id:
            self._show_transcripts(*ahead)
            self.load_transcripts(self.row.item_id, shown=True)
        else:
            self.load_transcripts(self.row.item_id)

    @work(thread=True, exclusive=True, group="transcript")
    def load_transcripts(self, item_id: str, shown: bool = False) -> None:
        """Read both sides from disk off the UI thread (a big run may need a seek and a parse),
        then the next item's, so that n shows it at once."""
        worker = get_current_worker()
        try:
            if not shown:
                self._read_item(item_id, self._item_index(item_id), show=True)
            position = self.index + 1 if self.row.item_id == item_id else len(self.rows)
            if position < len(self.rows) and not worker.is_cancelled:
                following = self.rows[position]
                base, cand = self._read_item(following.item_id, following.index, show=False)
                if not worker.is_cancelled:
                    self.read_ahead = (following.item_id, base, cand)
        except EvalTuiError as exc:
            self.app.post_message(WorkerProblem(str(exc)))

    def _read_item(self, item_id: str, index: int, show: bool) -> tuple[Transcript, Transcript]:
        """Both sides at once: each may be a seek and a parse, or a row-group decode. With
        `show`, a reader with a slow nested column (Parquet messages) gives a quick view of the
        flat fields first, so the reviewer reads the answer while the rest decodes."""
        paired = self.app.loaded.analysis.paired
        record = paired.items.row(index, named=True)
        sides = (
            (paired.baseline.transcripts, record[BASE_ROW]),
            (paired.candidate.transcripts, record[CAND_ROW]),
        )
        with ThreadPoolExecutor(max_workers=2) as pool:
            done: list[Transcript | None] = [None, None]
            if show and any(hasattr(reader, "read_quick") for reader, _ in sides):
                quick = [
                    pool.submit(getattr(reader, "read_quick", reader.read), row)
                    for reader, row in sides
                ]
                # None: that reader has nothing slow to read, so its full read is quick too.
                early = [
                    q.result() or reader.read(row)
                    for q, (reader, row) in zip(quick, sides, strict=True)
                ]
                done = [e if e.complete else None for e in early]
                if not all(e.complete for e in early):
                    # Shown before the slow reads start: they would take both cores from it.
                    shown = threading.Event()
                    self.post_message(TranscriptsRead(item_id, *early, shown=shown))
                    shown.wait(timeout=1.0)
            full = [
                pool.submit(reader.read, row) if have is None else None
                for (reader, row), have in zip(sides, done, strict=True)
            ]
            base, cand = (
                f.result() if f is not None else have for f, have in zip(full, done, strict=True)
            )
        if show:
            self.post_message(TranscriptsRead(item_id, base, cand))
        return base, cand

    def on_transcripts_read(self, message: TranscriptsRead) -> None:
        try:
            self._show_transcripts(message.item_id, message.baseline, message.candidate)
        finally:
            if message.shown is not None:
                message.shown.set()

    def _item_index(self, item_id: str) -> int:
        """The item's row in `paired.items` (ListRow.index is exactly that)."""
        if self.row.item_id == item_id:
            return self.row.index
        return self.app.loaded.analysis.paired.items[ITEM_ID].index_of(item_id)

    def _show_transcripts(self, item_id: str, base: Transcript, cand: Transcript) -> None:
        if item_id != self.row.item_id:
            return  # the reviewer already moved on
        self.transcripts = (base, cand)
        self.query_one("#baseline-text", Static).update(transcript_text(base, "BASELINE"))
        self.query_one("#candidate-text", Static).update(transcript_text(cand, "CANDIDATE"))
        self.query_one("#diff-text", Static).update(output_diff(base, cand))

    def _update_meta(self) -> None:
        app = self.app
        paired = app.loaded.analysis.paired
        record = paired.items.row(self._item_index(self.row.item_id), named=True)
        review = app.loaded.session.review(self.row.item_id)
        meta = Text()
        meta.append(
            f"{self.list_name[:-1].capitalize()} {self.index + 1}/{len(self.rows)} ", style="bold"
        )
        meta.append_text(literal_line(self.row.item_id, 40, style="bold"))
        for key in (SLICE, CLUSTER):
            if record.get(key):
                meta.append(" · ")
                meta.append_text(literal_line(record[key], 36))
        meta.append("\n")
        analysis = app.loaded.analysis
        for arm in ("baseline", "candidate"):
            status, epochs = record[f"{arm}_status"], record[f"{arm}_epochs"]
            meta.append(f"{arm} ", style="bold")
            if analysis.metric == "passed" and epochs == 1:
                word = "PASS" if record[f"{arm}_pass"] >= 1.0 else "FAIL"
                meta.append(word, style="green" if word == "PASS" else "red")
            elif analysis.metric == "passed":
                meta.append(f"{record[f'{arm}_pass']:.0%} of {epochs} epochs")
            else:
                meta.append(f"{record[f'{arm}_{analysis.metric}']:.3g}")
                if epochs > 1:
                    meta.append(f" (mean of {epochs})")
            if status != "ok":
                meta.append(f" ({status})", style="yellow")
            meta.append("  ")
        if analysis.kind == "graded":
            delta = float(analysis.deltas[self._item_index(self.row.item_id)])
            meta.append(f"Δ {signed(delta, analysis.in_points)}  ", style="bold")
        meta.append("tag: ", style="bold")
        meta.append(review.tag or "untriaged", style="green" if review.tag else "yellow")
        n_tags = len(app.loaded.session.info.tags)
        meta.append(f"  (keys 1-{n_tags}, 0 clears)", style="dim")
        meta.append("\nnote: ", style="bold")
        meta.append_text(literal_line(review.note or "—", 200))
        self.query_one("#item-meta", Static).update(meta)

    def on_review_changed(self, message: ReviewChanged) -> None:
        if message.item_id == self.row.item_id:
            self._update_meta()

    # -- actions ---------------------------------------------------------------------------

    def action_back(self) -> None:
        self.app.pop_screen()

    def action_step(self, step: int) -> None:
        target = self.index + step
        if 0 <= target < len(self.rows):
            self.index = target
            self.show_item()
        else:
            edge = "last" if step > 0 else "first"
            self.notify(f"this is the {edge} item of the list", timeout=2)

    def action_toggle_diff(self) -> None:
        self.show_diff = not self.show_diff
        self.query_one("#sides").display = not self.show_diff
        self.query_one("#diff-pane").display = self.show_diff

    def action_scroll(self, lines: int) -> None:
        panes = ("#diff-pane",) if self.show_diff else ("#baseline-pane", "#candidate-pane")
        for pane in panes:  # both sides move together, so the turns stay aligned
            self.query_one(pane, VerticalScroll).scroll_relative(y=lines, animate=False)

    def palette_commands(self) -> Iterable[SystemCommand]:
        yield SystemCommand(
            "Next item", "Open the next item of the list (n)", lambda: self.action_step(1)
        )
        yield SystemCommand(
            "Previous item", "Open the previous item (p)", lambda: self.action_step(-1)
        )
        yield SystemCommand(
            "Toggle diff", "Side by side / unified diff of outputs (d)", self.action_toggle_diff
        )
        yield SystemCommand("Back to the list", "Close the item (Esc)", self.action_back)
