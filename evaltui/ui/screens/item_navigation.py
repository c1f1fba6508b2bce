"""The item screen's moves: both sides scrolled as one, the search's matches, the jumps to a
message, the answer or the grader, the steps through the list, and the palette's list of them.

A mixin of `ItemScreen` (`screens/item.py`), which holds what is shown.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from textual.app import SystemCommand
from textual.containers import VerticalScroll
from textual.screen import Screen

from evaltui.core.compare.trajectory import Alignment
from evaltui.core.read.runs import Transcript
from evaltui.ui.listmodel import ListRow
from evaltui.ui.state import ReviewState
from evaltui.ui.trajectory_view import ItemRows, units_at
from evaltui.ui.transcript import SideBySide, final_answer_key


class Pane(VerticalScroll, can_focus=False):
    """A scrolling pane the screen's keys drive (it never takes focus, so no key of its own
    can move it alone); the mouse wheel scrolls it where the pointer is."""


class ItemNavigation(Screen):
    """The keys that move within one item and between the list's items."""

    state: ReviewState
    rows: Sequence[ListRow]
    index: int
    list_name: str
    show_diff: bool
    sides: SideBySide | None
    transcripts: tuple[Transcript, Transcript] | None
    match_rows: list[int]
    _pending_match: str | None
    item_rows: ItemRows | None
    unfold: bool
    unfolded: frozenset[tuple[int, int, int]]

    @property
    def row(self) -> ListRow:
        return self.rows[self.index]

    def _show_transcripts(
        self, item_id: str, base: Transcript, cand: Transcript, alignment: Alignment | None = None
    ) -> None:
        raise NotImplementedError  # (the item screen's)

    def show_item(self, epoch: int = 0) -> None:
        raise NotImplementedError  # (the item screen's)

    def draw_diff(self) -> None:
        raise NotImplementedError  # (the item screen's)

    def action_epoch(self, step: int) -> None:
        raise NotImplementedError  # (the item screen's)

    def action_toggle_advance(self) -> None:
        raise NotImplementedError  # (the item screen's)

    # -- scrolling: one offset for both sides ------------------------------------------------

    @property
    def pane(self) -> Pane:
        return self.query_one("#diff-pane" if self.show_diff else "#sides-pane", Pane)

    def action_scroll(self, lines: int) -> None:
        # immediate: a burst of keys (ten j at once over SSH) moves ten lines, not one
        self.pane.scroll_relative(y=lines, animate=False, immediate=True)

    def action_page(self, direction: int) -> None:
        pane = self.pane
        page = max(pane.scrollable_content_region.height - 1, 1)
        pane.scroll_relative(y=direction * page, animate=False, immediate=True)

    def action_edge(self, end: int) -> None:
        pane = self.pane
        pane.scroll_to(y=pane.max_scroll_y if end else 0, animate=False, immediate=True)

    def _row_starts(self) -> list[int]:
        sides = self.sides
        if sides is None or sides.drawn_width is None:
            return []
        return sides.row_starts(sides.drawn_width)

    def _scroll_to_row(self, row: int) -> None:
        starts = self._row_starts()
        if 0 <= row < len(starts):
            pane = self.query_one("#sides-pane", Pane)
            pane.scroll_to(y=starts[row], animate=False, immediate=True)
            # A row near the end cannot reach the top: f still means the row jumped to.
            self._jumped = (row, int(pane.scroll_y))

    def _row_in_view(self) -> int:
        """The row the reviewer is on: the one last jumped to (a, D, J/K...) while the pane has
        not moved since, else the row at the top of the pane."""
        top = int(self.query_one("#sides-pane", Pane).scroll_y)
        jumped = getattr(self, "_jumped", None)
        if jumped is not None and jumped[1] == top:
            return int(jumped[0])
        return max((i for i, s in enumerate(self._row_starts()) if s <= top), default=0)

    def _side_by_side(self) -> bool:
        """Switch to the side-by-side view (the section keys act on it)."""
        if self.show_diff:
            self.action_toggle_diff()
        return self.sides is not None

    # -- search matches ----------------------------------------------------------------------

    @property
    def needle(self) -> str:
        """The list's search, highlighted here; n/N walk its matches."""
        view = self.state.views.get(self.list_name)
        return view.search.strip() if view is not None else ""

    def _scroll_to_pending_match(self) -> None:
        where, self._pending_match = self._pending_match, None
        if self.match_rows and not self.show_diff:
            self._scroll_to_row(self.match_rows[0] if where == "first" else self.match_rows[-1])

    def action_next_match(self, step: int) -> None:
        """With a search: the next (previous) row holding it, then on to the next (previous)
        item's first (last) match; without one, the next (previous) item."""
        if not self.needle:
            self.action_step(step)
            return
        if self._side_by_side() and self.match_rows:
            starts = self._row_starts()
            top = int(self.query_one("#sides-pane", Pane).scroll_y)
            bottom = self.query_one("#sides-pane", Pane).max_scroll_y
            rows = [r for r in self.match_rows if r < len(starts)]
            ahead = [r for r in rows if min(starts[r], bottom) > top]
            behind = [r for r in rows if starts[r] < top]
            target = (ahead[:1] if step > 0 else behind[-1:]) or None
            if target is not None:
                self._scroll_to_row(target[0])
                return
        if 0 <= self.index + step < len(self.rows):
            self.action_step(step)
            self._pending_match = "first" if step > 0 else "last"
        else:
            self.notify(f"no {'later' if step > 0 else 'earlier'} match in this list", timeout=2)

    def action_jump_section(self, step: int) -> None:
        """Next/previous aligned turn, both panes at once (any row: a turn, the output, the
        target, the scorers)."""
        if not self._side_by_side():
            return
        top = int(self.query_one("#sides-pane", Pane).scroll_y)
        starts = self._row_starts()
        if step > 0:
            later = [i for i, s in enumerate(starts) if s > top]
            if later:
                self._scroll_to_row(later[0])
            else:
                self.notify("no later message", timeout=2)
        else:
            earlier = [i for i, s in enumerate(starts) if s < top]
            if earlier:
                self._scroll_to_row(earlier[-1])
            else:
                self.notify("this is the first message", timeout=2)

    def _jump_to_keys(self, wanted: list[str], missing: str) -> None:
        if not self._side_by_side() or self.sides is None:
            return
        for i, key in enumerate(self.sides.keys):
            if key in wanted:
                self._scroll_to_row(i)
                return
        self.notify(missing, timeout=3)

    def action_jump_answer(self) -> None:
        """The final assistant answer (the output, else the last assistant message)."""
        if self.transcripts is None:
            return
        keys = ["answer", *(k for k in (final_answer_key(t) for t in self.transcripts) if k)]
        self._jump_to_keys(keys, "neither run recorded an answer for this item")

    def action_jump_divergence(self) -> None:
        """The first aligned turn where the two runs differ (a gap, or a different turn)."""
        rows = self.item_rows
        if not self._side_by_side() or rows is None:
            return
        if rows.alignment is None:
            self.notify("neither run recorded messages for this item", timeout=3)
        elif rows.divergence_row is None:
            self.notify("the two runs take the same turns", timeout=3)
        else:
            self._scroll_to_row(rows.divergence_row)

    def action_toggle_unfold(self) -> None:
        """Unfold (fold again) the reasoning block, long tool-call argument or result at the cursor:
        the top of the pane, or the row last jumped to (a, D, J/K) while the pane has not
        moved. The block the cursor is in, else the first below it in view; where both runs
        have one at that line, both (one per side). The rest of the turn stays as it was."""
        rows, sides = self.item_rows, self.sides
        if not self._side_by_side() or rows is None or sides is None:
            return
        if self.unfold:
            self.notify("everything is unfolded: F folds it back", timeout=2)
            return
        pane = self.query_one("#sides-pane", Pane)
        top, starts, width = int(pane.scroll_y), self._row_starts(), sides.drawn_width
        if not starts or width is None:
            return
        jumped: tuple[int, int] | None = getattr(self, "_jumped", None)
        held = None  # the row jumped to, when the view is still where the jump left it
        if jumped is not None and jumped[1] == top and jumped[0] < len(starts):
            held = jumped[0]
        cursor = starts[held] if held is not None else top
        bottom = max(top, cursor) + max(pane.scrollable_content_region.height, 1)
        found = units_at(rows, starts, sides.split(width), cursor, bottom, self.app.console)
        if not found:
            self.notify("nothing folded here (F unfolds every block)", timeout=2)
            return
        opened = all(unit in self.unfolded for unit in found)
        self.unfolded = self.unfolded - set(found) if opened else self.unfolded | set(found)
        self._redraw_folds(top)
        if held is not None:
            self.call_after_refresh(self._scroll_to_row, held)  # its start, drawn anew

    def action_toggle_unfold_all(self) -> None:
        """Unfold (fold again) every reasoning block, long tool-call argument and tool result."""
        self.unfold = not self.unfold
        self.unfolded = frozenset()
        self.notify("reasoning unfolded" if self.unfold else "reasoning folded", timeout=2)
        self._redraw_folds(int(self.query_one("#sides-pane", Pane).scroll_y))

    def _redraw_folds(self, top: int) -> None:
        if self.transcripts is not None:
            self._show_transcripts(self.row.item_id, *self.transcripts)
            self.query_one("#sides-pane", Pane).scroll_to(y=top, animate=False, immediate=True)

    def action_jump_grader(self) -> None:
        """The grader's explanation (every scorer's), with the target just above it."""
        self._jump_to_keys(["target", "grader"], "neither run recorded a grader explanation")

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
        self.query_one("#sides-pane").display = not self.show_diff
        self.query_one("#side-labels").display = not self.show_diff
        self.query_one("#diff-pane").display = self.show_diff
        if self.show_diff:
            self.draw_diff()

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
        yield SystemCommand(
            "Next message", "Scroll both sides to the next message (J)",
            lambda: self.action_jump_section(1),
        )  # fmt: skip
        yield SystemCommand(
            "Previous message", "Scroll both sides to the previous message (K)",
            lambda: self.action_jump_section(-1),
        )  # fmt: skip
        yield SystemCommand("Final answer", "Jump to the final answer (a)", self.action_jump_answer)
        yield SystemCommand(
            "First divergence", "Jump to where the two runs first differ (D)",
            self.action_jump_divergence,
        )  # fmt: skip
        yield SystemCommand(
            "Unfold this block", "Unfold/fold the reasoning, argument or result at the top (f)",
            self.action_toggle_unfold,
        )  # fmt: skip
        yield SystemCommand(
            "Unfold everything", "Unfold/fold every reasoning block, long argument and result (F)",
            self.action_toggle_unfold_all,
        )  # fmt: skip
        yield SystemCommand(
            "Grader's explanation", "Jump to the target and grader (v)", self.action_jump_grader
        )
        yield SystemCommand("Top", "Both sides to the top (Home)", lambda: self.action_edge(0))
        yield SystemCommand("Bottom", "Both sides to the bottom (End)", lambda: self.action_edge(1))
        yield SystemCommand(
            "Tag-and-advance on/off", "Whether a tag opens the next untriaged item (A)",
            self.action_toggle_advance,
        )  # fmt: skip
        yield SystemCommand(
            "Next epoch", "Both runs' next epoch's transcripts (>)", lambda: self.action_epoch(1)
        )
        yield SystemCommand(
            "Previous epoch", "The previous epoch's transcripts (<)", lambda: self.action_epoch(-1)
        )
        yield SystemCommand(
            "Next match", "The search's next match, then the next item's (n)",
            lambda: self.action_next_match(1),
        )  # fmt: skip
        yield SystemCommand(
            "Previous match", "The search's previous match (N)", lambda: self.action_next_match(-1)
        )
        yield SystemCommand("Back to the list", "Close the item (Esc)", self.action_back)
