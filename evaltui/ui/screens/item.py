"""One discordant item: baseline and candidate transcripts side by side, or the output diff."""

from __future__ import annotations

from collections.abc import Sequence

import polars as pl
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.widgets import Static

from evaltui.core.compare.pairing import BASE_ROW, CAND_ROW
from evaltui.core.compare.trajectory import Alignment
from evaltui.core.read.runs import CLUSTER, EPOCH, ITEM_ID, PASSED, ROW, SLICE, STATUS, Transcript
from evaltui.core.record.session import tag_meanings
from evaltui.ui.listmodel import ListRow, singular
from evaltui.ui.messages import (
    ReviewChanged,
    ReviewsChanged,
)
from evaltui.ui.row_store import RowsAt
from evaltui.ui.safe import literal_line
from evaltui.ui.screens.given import GivenState
from evaltui.ui.screens.item_navigation import ItemNavigation, Pane
from evaltui.ui.screens.item_place import KeepsPlace, item_shown, scroll_back, shown_again
from evaltui.ui.screens.item_reading import ItemReading
from evaltui.ui.screens.keys import PALETTE, TAGS, FooterKeys, Shown, shared_review
from evaltui.ui.state import ReviewState
from evaltui.ui.styles import style_of
from evaltui.ui.trajectory_view import ItemRows, item_rows, trajectory_meta
from evaltui.ui.transcript import SideBySide, labels, matching_rows, output_diff
from evaltui.ui.widgets.header_pane import UNTRIAGED_STYLE, tag_style
from evaltui.ui.widgets.header_pane import delta as delta_text
from evaltui.ui.widgets.key_footer import KeyFooter

OUTCOME_STYLE = {"PASS": style_of("outcome--pass"), "FAIL": style_of("outcome--fail")}


class ItemScreen(GivenState, FooterKeys, KeepsPlace, ItemNavigation, ItemReading):
    """Drill-down. n/p step through the list without going back; d toggles the diff."""

    BINDINGS = [
        Binding("escape", "back", "Back to the list", id="item.back"),
        Binding("n", "next_match(1)", "Next item (searching: the next match)", id="item.next"),
        Binding("right_square_bracket", "step(1)", "Next item", show=False, id="item.nextitem"),
        Binding("p,left_square_bracket", "step(-1)", "Previous item", id="item.prev"),
        Binding("N", "next_match(-1)", "Previous match", show=False, id="item.prevmatch"),
        Binding("d", "toggle_diff", "Side by side / diff of the two outputs", id="item.diff"),
        Binding("j,down", "scroll(1)", "Scroll down", show=False, id="item.down"),
        Binding("k,up", "scroll(-1)", "Scroll up", show=False, id="item.up"),
        Binding("pagedown,space,ctrl+f", "page(1)", "Page down", show=False, id="item.pagedown"),
        Binding("pageup,ctrl+b", "page(-1)", "Page up", show=False, id="item.pageup"),
        Binding("home", "edge(0)", "Top", show=False, id="item.top"),
        Binding("end,G", "edge(1)", "Bottom", show=False, id="item.bottom"),
        Binding("J", "jump_section(1)", "Next message", show=False, id="item.nextmsg"),
        Binding("K", "jump_section(-1)", "Previous message", show=False, id="item.prevmsg"),
        Binding("a", "jump_answer", "Final answer", show=False, id="item.answer"),
        Binding("v", "jump_grader", "Grader's explanation", show=False, id="item.grader"),
        Binding("D", "jump_divergence", "Where the runs diverge", show=False, id="item.diverge"),
        Binding(
            "f",
            "toggle_unfold",
            "Unfold/fold the reasoning, long argument or result at the top",
            show=False,
            id="item.unfold",
        ),
        Binding(
            "F",
            "toggle_unfold_all",
            "Unfold/fold every reasoning block, long argument and result",
            show=False,
            id="item.unfoldall",
        ),
        *[
            Binding(
                str(n),
                f"tag_next({n})",
                "Tag, then the next untriaged item",
                show=False,
                id=f"item.tag{n}",
            )
            for n in range(1, 10)
        ],  # fmt: skip
        Binding(
            "greater_than_sign,full_stop", "epoch(1)", "Next epoch", show=False, id="item.epoch"
        ),
        Binding(
            "less_than_sign,comma", "epoch(-1)", "Previous epoch", show=False, id="item.prevepoch"
        ),
        Binding("A", "toggle_advance", "Tag-and-advance on/off", show=False, id="item.advance"),
        Binding("z", "undo", "Undo the last tag (back to its item)", show=False, id="item.undo"),
    ]

    FOOTER = (
        Shown("item.back", "Back"),
        Shown(TAGS, "Tag"),
        Shown("item.next", "Next"),
        Shown("item.prev", "Prev"),
        Shown("item.diff", "Diff"),
        Shown("app.note", "Note"),
        Shown("app.adjudicate", "Settle", when=shared_review),
        Shown("app.export", "Sign off"),
        Shown("app.help", "Help"),
        Shown("app.quit", "Quit"),
        Shown("item.answer", "Answer"),
        Shown("item.grader", "Grader"),
        Shown("item.nextmsg", "Next msg"),
        Shown("item.prevmsg", "Prev msg"),
        Shown("item.diverge", "Diverge"),
        Shown("item.unfold", "Unfold"),
        Shown("item.epoch", "Epoch", when=lambda screen: screen.max_epochs > 1),
        Shown("item.advance", "Auto-next"),
        Shown("item.undo", "Undo"),
        Shown(PALETTE, "Commands"),
    )

    def __init__(
        self, state: ReviewState, rows: Sequence[ListRow], index: int, list_name: str
    ) -> None:
        super().__init__(state)
        self.rows = rows
        self.index = index
        self.list_name = list_name
        self.show_diff = False
        self.transcripts: tuple[Transcript, Transcript] | None = None
        self._diff_drawn_for: str | None = None  # the item whose diff the diff pane holds
        self.sides: SideBySide | None = None  # what the side-by-side pane draws
        self.item_rows: ItemRows | None = None  # its rows, alignment, divergence and answer
        self.unfold = False  # every reasoning, long tool argument and result unfolded (F)
        # The blocks unfolded one by one (f): (row, side, unit of the turn).
        self.unfolded: frozenset[tuple[int, int, int]] = frozenset()
        self.labels: SideBySide = labels(Text(), Text())  # the fixed line above it
        # The next item's transcripts, read and aligned while the reviewer reads this one (n is
        # the usual next key): (item_id, baseline, candidate, alignment).
        self.read_ahead: tuple[str, Transcript, Transcript, Alignment | None] | None = None
        # After tag-and-advance: the item just tagged and its tag, shown until the next move.
        self.just_tagged: tuple[str, str] | None = None
        self.match_rows: list[int] = []  # rows of the side-by-side pane holding the search
        # Every epoch of the item per arm (epoch, row, status, value), and which one is shown.
        self.epochs: tuple[list[dict], list[dict]] = ([], [])
        self.epoch = 0
        self._read_gen = 0  # bumped per read started: an older read's text is not shown
        self._pending_match: str | None = None  # "first"/"last": scroll there once drawn
        # From the key that opened it until its transcripts are drawn, the background readers
        # (previews, search index) wait: they would take the GIL's turns from this screen.
        self.release_background = state.background.hold()

    def compose(self) -> ComposeResult:
        yield Static(id="item-meta")
        yield Static(id="side-labels")
        with Pane(id="sides-pane"):
            yield Static(id="sides-text")
        with Pane(id="diff-pane"):
            yield Static(id="diff-text")
        yield KeyFooter()

    def on_mount(self) -> None:
        self.query_one("#diff-pane").display = False
        self.show_item()

    def on_unmount(self) -> None:
        self.release_background()  # (left before its transcripts were drawn)

    def on_screen_resume(self) -> None:
        shown_again(self)  # a reopened item's kept scroll, once a recovered note is closed

    @property
    def row(self) -> ListRow:
        return self.rows[self.index]

    def current_item_id(self) -> str | None:
        return self.row.item_id

    def show_item(self, epoch: int = 0) -> None:
        self.transcripts = None
        self.just_tagged = None
        self.sides = None
        self.item_rows = None
        self.unfolded = frozenset()
        self.epochs = self._item_epochs()
        self.epoch = epoch
        self._update_meta()
        self._update_labels()
        for pane in ("#sides-text", "#diff-text"):
            self.query_one(pane, Static).update(Text("loading…", style="dim"))
        for pane in ("#sides-pane", "#diff-pane"):
            self.query_one(pane, Pane).scroll_home(animate=False, immediate=True)
        self._read_gen += 1
        item_shown(self)  # kept for a reopen after a crash (item_place.py)
        if epoch:
            self.load_transcripts(self.row.item_id, rows=self._epoch_rows(), gen=self._read_gen)
            return
        ahead, self.read_ahead = self.read_ahead, None
        if ahead is not None and ahead[0] == self.row.item_id:
            self._show_transcripts(*ahead)
            self.load_transcripts(self.row.item_id, shown=True, gen=self._read_gen)
        else:
            self.load_transcripts(self.row.item_id, gen=self._read_gen)

    def _show_transcripts(
        self,
        item_id: str,
        base: Transcript,
        cand: Transcript,
        alignment: Alignment | None = None,
    ) -> None:
        """Draw the item's rows; the turns' alignment comes from the worker that read them
        (or, for the same transcripts drawn again, from the rows shown), never computed here."""
        if item_id != self.row.item_id:
            return  # the reviewer already moved on
        if alignment is None and (base.messages or cand.messages):
            shown, rows = self.transcripts, self.item_rows
            same = shown is not None and shown[0] is base and shown[1] is cand
            if same and rows is not None and rows.alignment is not None:
                alignment = rows.alignment
            else:
                self.align_item(item_id, base, cand)
                self.query_one("#sides-text", Static).update(
                    Text("aligning the two trajectories…", style="dim")
                )
                return
        self.transcripts = (base, cand)
        needle = self.needle
        self.item_rows = item_rows(base, cand, needle, self.unfold, self.unfolded, alignment)
        self.sides, pairs = self.item_rows.sides, self.item_rows.pairs
        self.match_rows = matching_rows(pairs, needle)
        self._update_meta()
        self.query_one("#sides-text", Static).update(self.sides)
        self.call_after_refresh(self.release_background)  # drawn: the readers go on
        if needle and self._pending_match is None:
            self._pending_match = "first"  # opened from a search: show where it matched
        if self._pending_match is not None and base.complete and cand.complete:
            self.call_after_refresh(self._scroll_to_pending_match)
        self.call_after_refresh(scroll_back, self)  # reopened after a crash: where it was
        self._diff_drawn_for = None
        if self.show_diff:
            self.draw_diff()

    def draw_diff(self) -> None:
        """The outputs' unified diff, drawn when the diff pane is shown, not on every open: a
        word diff of two long outputs is quadratic (about a second for 20,000 characters), and
        most items are read side by side."""
        if self.transcripts is None or self._diff_drawn_for == self.row.item_id:
            return
        base, cand = self.transcripts
        self.query_one("#diff-text", Static).update(output_diff(base, cand, self._verdicts()))
        self._diff_drawn_for = self.row.item_id

    def _verdicts(self) -> tuple[str, str]:
        """Each arm's verdict on this item in words (PASS/FAIL, or the share of its epochs)."""
        record = self.state.require_loaded().analysis.paired.items.row(self.row.index, named=True)
        return (self._verdict(record, "baseline"), self._verdict(record, "candidate"))

    def _verdict(self, record: dict, arm: str) -> str:
        analysis = self.state.require_loaded().analysis
        epochs = record[f"{arm}_epochs"]
        if analysis.metric == "passed" and epochs == 1:
            return "PASS" if record[f"{arm}_pass"] >= 1.0 else "FAIL"
        if analysis.metric == "passed":
            return f"{record[f'{arm}_pass']:.0%} of {epochs} epochs"
        value = f"{record[f'{arm}_{analysis.metric}']:.3g}"
        return value + (f" (mean of {epochs})" if epochs > 1 else "")

    # -- epochs ------------------------------------------------------------------------------

    def _item_epochs(self) -> tuple[list[dict], list[dict]]:
        """Each arm's records of this item, one per epoch: epoch, row, status and the value of
        the compared metric (a verdict or a score), in epoch order."""
        analysis = self.state.require_loaded().analysis
        paired = analysis.paired
        record = paired.items.row(self.row.index, named=True)
        value = PASSED if analysis.metric == "passed" else analysis.metric
        out = []
        for arm, run, first in (
            ("baseline", paired.baseline, record[BASE_ROW]),
            ("candidate", paired.candidate, record[CAND_ROW]),
        ):
            if record[f"{arm}_epochs"] <= 1:
                values = [{EPOCH: 1, ROW: first, STATUS: record[f"{arm}_status"], "value": None}]
            else:
                table = run.table.filter(pl.col(ITEM_ID) == self.row.item_id).sort(EPOCH)
                column = pl.col(value) if value in table.columns else pl.lit(None)
                values = table.select(EPOCH, ROW, STATUS, column.alias("value")).to_dicts()
            out.append(values)
        return out[0], out[1]

    def _epoch_rows(self) -> tuple[int, int]:
        base, cand = self.epochs
        return (
            base[min(self.epoch, len(base) - 1)][ROW],
            cand[min(self.epoch, len(cand) - 1)][ROW],
        )

    @property
    def max_epochs(self) -> int:
        return max(len(self.epochs[0]), len(self.epochs[1]))

    def action_epoch(self, step: int) -> None:
        """Show the next/previous epoch's transcripts (both arms; an arm with fewer epochs
        stays on its last)."""
        if self.max_epochs <= 1:
            self.notify("this item has a single epoch in both runs", timeout=2)
            return
        self.show_item(epoch=(self.epoch + step) % self.max_epochs)

    def _epoch_label(self, title: str, epochs: list[dict]) -> Text:
        """The side's label: its name, then with repeated epochs which one is shown and each
        epoch's verdict (✓ pass, ✗ fail, E error, T timeout, or the score), the shown one in
        brackets: words and marks, not colours."""
        text = Text(f" {title} ", style="bold reverse")
        if len(epochs) <= 1:
            return text
        shown = min(self.epoch, len(epochs) - 1)
        text.append(f" epoch {epochs[shown][EPOCH]}/{len(epochs)} ", style="bold")
        for i, entry in enumerate(epochs):
            mark = _epoch_mark(entry)
            text.append(
                f"[{mark}]" if i == shown else f" {mark} ", style="bold" if i == shown else ""
            )
        return text

    def _update_labels(self) -> None:
        left = self._epoch_label("BASELINE", self.epochs[0])
        right = self._epoch_label("CANDIDATE", self.epochs[1])
        self.labels = labels(left, right)
        self.query_one("#side-labels", Static).update(self.labels)

    def side_plain(self, column: int) -> str:
        """What one side shows, as plain text: its label line, then its sections."""
        body = self.sides.plain(column) if self.sides is not None else "loading…"
        return self.labels.plain(column) + "\n" + body

    def _update_meta(self) -> None:
        loaded = self.state.loaded
        assert loaded is not None  # (the item screen opens on a loaded pair)
        paired = loaded.analysis.paired
        record = paired.items.row(self._item_index(self.row.item_id), named=True)
        review, hidden = self.state.shown(self.row.item_id)
        meta = Text()
        where = f"{singular(self.list_name).capitalize()} {self.index + 1:,}/{len(self.rows):,} "
        meta.append(where, style="bold")
        meta.append_text(literal_line(self.row.item_id, 40, style="bold"))
        for key in (SLICE, CLUSTER):
            if record.get(key):
                meta.append(" · ")
                meta.append_text(literal_line(record[key], 36))
        meta.append("\n")
        analysis = loaded.analysis
        for arm in ("baseline", "candidate"):
            status = record[f"{arm}_status"]
            meta.append(f"{arm} ", style="bold")
            word = self._verdict(record, arm)
            meta.append(word, style=OUTCOME_STYLE.get(word, ""))
            if status != "ok":
                meta.append(f" ({status})", style=style_of("caution"))
            meta.append("  ")
        if analysis.kind == "graded":
            delta = float(analysis.deltas[self._item_index(self.row.item_id)])
            meta.append(f"Δ {delta_text(delta, analysis.in_points)}  ", style="bold")
        meta.append("tag: ", style="bold")
        tagged = [r for r in review.reviews if r.tag is not None]
        if len(tagged) > 1 or review.disputed:  # every reviewer's tag, with who
            meta.append_text(literal_line(" · ".join(f"{r.reviewer}: {r.tag}" for r in tagged), 60))
            meta.append(" (disputed)" if review.disputed else " (agreed)", style="bold")
        elif review.tag is None:
            meta.append("untriaged", style=UNTRIAGED_STYLE)
        else:
            meaning = tag_meanings(analysis).meaning(review.tag)
            meta.append_text(literal_line(review.tag, 40, style=tag_style(meaning)))
            if tagged and tagged[0].reviewer and tagged[0].reviewer != self.state.you:
                meta.append_text(literal_line(f" by {tagged[0].reviewer}", 30))
        if hidden:
            meta.append(f" ({hidden} other review(s) hidden until you tag it)", style="italic")
        n_tags = len(loaded.session.info.tags)
        then = " & next" if self.state.triage.advance else ""
        _append_if_fits(meta, f"  (1-{n_tags} tag{then}, 0 clears)", self.size.width - 2)
        if self.item_rows is not None and self.transcripts is not None:
            meta.append("\n")
            meta.append_text(trajectory_meta(self.item_rows, *self.transcripts))
        meta.append("\nnote: ", style="bold")
        meta.append_text(literal_line(review.note or "—", 60))
        if self.just_tagged is not None:
            item_id, tag = self.just_tagged
            meta.append("   ✓ ", style="bold")
            meta.append_text(literal_line(item_id, 30))
            meta.append(f" tag: {tag}", style="bold")
            _append_if_fits(meta, " (z undoes)", self.size.width - 2)
        self.query_one("#item-meta", Static).update(meta)

    def on_review_changed(self, message: ReviewChanged) -> None:
        if message.item_id == self.row.item_id:
            self._update_meta()

    def on_reviews_changed(self, message: ReviewsChanged) -> None:
        if self.row.item_id in message.item_ids:
            self._update_meta()

    # -- triage ----------------------------------------------------------------------------

    def action_tag_next(self, number: int) -> None:
        """Tag this item; with tag-and-advance on, open the next untriaged item of the list."""
        state = self.state
        item_id = self.row.item_id
        if state.can_act():
            state.tag_key(item_id, number)
        tag = state.loaded.session.review(item_id).tag if state.loaded is not None else None
        if tag is None or not state.triage.advance:
            return  # not saved (or advance is off): stay
        following = self._next_untriaged()
        if following is None:
            self.notify("every item of this list is triaged", timeout=3)
            return
        self.index = following
        self.show_item()
        self.just_tagged = (item_id, tag)
        self._update_meta()

    def _next_untriaged(self) -> int | None:
        """The next untriaged item after this one (untagged, or tagged as still open: the set
        the decision line counts), wrapping round the list; None if none."""
        triaged = tag_meanings(self.state.require_loaded().analysis).triaged
        n = len(self.rows)
        for step in range(1, n):
            position = (self.index + step) % n
            if not triaged(self.rows[position].tag):
                return position
        return None

    def action_toggle_advance(self) -> None:
        triage = self.state.triage
        triage.advance = not triage.advance
        state = "on: a tag opens the next untriaged item" if triage.advance else "off"
        self.notify(f"tag-and-advance {state}", timeout=3)
        self._update_meta()

    def action_undo(self) -> None:
        """Undo the last tag; when it was one item of this list, show that item again."""
        restored = self.state.undo()
        if len(restored) == 1:
            rows = self.rows  # (a list's view: found by id, without making every row)
            if isinstance(rows, RowsAt):
                position = rows.position_of(restored[0])
            else:
                position = next((i for i, r in enumerate(rows) if r.item_id == restored[0]), None)
            if position is not None and position != self.index:
                self.index = position
                self.show_item()


def _append_if_fits(text: Text, hint: str, width: int) -> None:
    """A dim hint at the end of the last line, only when the line still fits on screen."""
    last = text.plain.rsplit("\n", 1)[-1]
    if len(last) + len(hint) <= width:
        text.append(hint, style="dim")


def _epoch_mark(entry: dict) -> str:
    status, value = entry[STATUS], entry["value"]
    if status in ("error", "timeout"):
        return status[0].upper()
    if isinstance(value, bool):
        return "✓" if value else "✗"
    if value is None:
        return "?"
    return f"{value:.2g}"
