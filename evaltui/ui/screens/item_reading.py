"""Reading an item's two transcripts and aligning their turns, off the UI thread.

A worker reads both sides (a seek and a parse each, or a row-group decode), then aligns the two
trajectories by content (`core.compare.trajectory`: up to ~0.3 s for two 1,000-turn runs), and
only then posts them to the screen; meanwhile the pane says what is being done ("loading…",
then "aligning the two trajectories (9 vs 7 messages)…"), never a half-built view. The next
item is read and aligned ahead the same way. Transcripts the screen gets without an alignment
are aligned by a worker of their own.

A mixin of `ItemScreen` (`screens/item.py`), which draws what is read.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor

from rich.text import Text
from textual import work
from textual.screen import Screen
from textual.widgets import Static
from textual.worker import get_current_worker

from evaltui.core.compare.pairing import BASE_ROW, CAND_ROW
from evaltui.core.compare.trajectory import Alignment
from evaltui.core.errors import EvalTuiError
from evaltui.core.read.runs import ITEM_ID, Transcript
from evaltui.ui.listmodel import ListRow
from evaltui.ui.messages import Aligning, TranscriptsRead, WorkerProblem
from evaltui.ui.state import ReviewState
from evaltui.ui.trajectory_view import align_pair


class ItemReading(Screen):
    """The item screen's reading and aligning workers (see the module's docstring)."""

    state: ReviewState
    rows: Sequence[ListRow]
    index: int
    transcripts: tuple[Transcript, Transcript] | None
    read_ahead: tuple[str, Transcript, Transcript, Alignment | None] | None
    _read_gen: int

    @property
    def row(self) -> ListRow:
        return self.rows[self.index]

    def _show_transcripts(
        self, item_id: str, base: Transcript, cand: Transcript, alignment: Alignment | None = None
    ) -> None:
        raise NotImplementedError  # (the item screen's)

    @work(thread=True, exclusive=True, group="transcript")
    def load_transcripts(
        self,
        item_id: str,
        shown: bool = False,
        rows: tuple[int, int] | None = None,
        gen: int = 0,
    ) -> None:
        """Read both sides from disk off the UI thread (a big run may need a seek and a parse),
        then the next item's, so that n shows it at once. `rows`: another epoch's records."""
        worker = get_current_worker()
        try:
            if not shown:
                self._read_item(item_id, self._item_index(item_id), show=True, rows=rows, gen=gen)
            if rows is not None:
                return  # an epoch picked by hand: the next item opens at its first epoch
            position = self.index + 1 if self.row.item_id == item_id else len(self.rows)
            if position < len(self.rows) and not worker.is_cancelled:
                following = self.rows[position]
                ahead = self._read_item(following.item_id, following.index, show=False)
                if not worker.is_cancelled:
                    self.read_ahead = (following.item_id, *ahead)
        except EvalTuiError as exc:
            self.app.post_message(WorkerProblem(str(exc)))

    def _read_item(
        self,
        item_id: str,
        index: int,
        show: bool,
        rows: tuple[int, int] | None = None,
        gen: int | None = None,
    ) -> tuple[Transcript, Transcript, Alignment | None]:
        """Both sides at once: each may be a seek and a parse, or a row-group decode. With
        `show`, a reader with a slow nested column (Parquet messages) gives a quick view of the
        flat fields first, so the reviewer reads the answer while the rest decodes. `rows`: the
        two records to read (another epoch's), else the item's first. Then their turns are
        aligned here, off the UI thread (the screen says so meanwhile)."""
        paired = self.state.require_loaded().analysis.paired
        if rows is None:
            record = paired.items.row(index, named=True)
            rows = (record[BASE_ROW], record[CAND_ROW])
        sides = (
            (paired.baseline.transcripts, rows[0]),
            (paired.candidate.transcripts, rows[1]),
        )
        show = show and (gen is None or gen == self._read_gen)
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
                    aligned = align_pair(*early)
                    self.post_message(TranscriptsRead(item_id, early[0], early[1], shown, aligned))
                    shown.wait(timeout=1.0)
            full = [
                pool.submit(reader.read, row) if have is None else None
                for (reader, row), have in zip(sides, done, strict=True)
            ]
            base, cand = (
                f.result() if f is not None else have for f, have in zip(full, done, strict=True)
            )
        assert base is not None and cand is not None  # (each side read, quick or in full)
        show = show and (gen is None or gen == self._read_gen)
        if show and (base.messages or cand.messages):
            self.post_message(Aligning(item_id, (len(base.messages), len(cand.messages))))
        alignment = align_pair(base, cand)
        if show and (gen is None or gen == self._read_gen):
            self.post_message(TranscriptsRead(item_id, base, cand, alignment=alignment))
        return base, cand, alignment

    @work(thread=True, exclusive=True, group="align")
    def align_item(self, item_id: str, base: Transcript, cand: Transcript) -> None:
        """Align two transcripts the screen was given without their alignment."""
        self.post_message(TranscriptsRead(item_id, base, cand, alignment=align_pair(base, cand)))

    def on_aligning(self, message: Aligning) -> None:
        if message.item_id == self.row.item_id and self.transcripts is None:
            a, b = message.counts
            text = f"aligning the two trajectories ({a:,} vs {b:,} messages)…"
            self.query_one("#sides-text", Static).update(Text(text, style="dim"))

    def on_transcripts_read(self, message: TranscriptsRead) -> None:
        try:
            self._show_transcripts(
                message.item_id, message.baseline, message.candidate, message.alignment
            )
        finally:
            if message.shown is not None:
                message.shown.set()

    def _item_index(self, item_id: str) -> int:
        """The item's row in `paired.items` (ListRow.index is exactly that)."""
        if self.row.item_id == item_id:
            return self.row.index
        index = self.state.require_loaded().analysis.paired.items[ITEM_ID].index_of(item_id)
        assert index is not None  # (an item of the pair's list)
        return index
