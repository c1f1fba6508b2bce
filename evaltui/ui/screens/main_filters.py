"""The main screen's filters and sort: slice (f), tag (t), untriaged (u), assigned to you (w),
the sort column (s, S). A mixin of `MainScreen` (`screens/main.py`), which binds the keys.

While a team splits the regressions (`--reviewers`, the policy's `[review]`), the items assigned
to the reviewer at the keys come first in every list, marked `you` in the `for` column (a word,
not a colour), `w` shows only them, and the list title counts them ("assigned to you: N of M").

Other reviewers' tags stay hidden on an item until you have tagged it (`ReviewState.shown`),
so your judgment is your own; the decision still counts every reviewer's tags.
"""

from __future__ import annotations

from rich.text import Text
from textual.screen import Screen

from evaltui.ui.listmodel import SORT_KEYS, UNTAGGED, ListView, cycle
from evaltui.ui.state import ReviewState


class MainFilters(Screen):
    """The list's filter and sort keys (bound in `MainScreen.BINDINGS`, which the help lists)
    and the title's count of your items (see the module's docstring)."""

    state: ReviewState

    @property
    def view(self) -> ListView | None:
        raise NotImplementedError  # (the main screen's)

    def _reshow(self) -> None:
        raise NotImplementedError  # (the main screen's)

    @property
    def has_assignment(self) -> bool:
        return self.state.assignment is not None

    def action_filter_slice(self) -> None:
        if self.view is not None:
            self.view.slice_filter = cycle(self.view.slices(), self.view.slice_filter)
            self._reshow()

    def action_filter_tag(self) -> None:
        if self.view is not None and self.state.loaded is not None:
            options = [UNTAGGED, *self.state.require_loaded().session.info.tags]
            self.view.tag_filter = cycle(options, self.view.tag_filter)
            self._reshow()

    def action_untriaged(self) -> None:
        """Only the regressions the decision line counts as untriaged (untagged, or tagged
        with a tag that leaves them open)."""
        if self.view is not None:
            self.view.untriaged_only = not self.view.untriaged_only
            self._reshow()

    def action_sort(self) -> None:
        if self.view is not None:
            loaded = self.state.loaded
            graded = loaded is not None and loaded.analysis.kind == "graded"
            keys = [k for k in SORT_KEYS if k != "delta" or graded]
            self.view.sort_key = keys[(keys.index(self.view.sort_key) + 1) % len(keys)]
            self._reshow()

    def action_reverse(self) -> None:
        if self.view is not None:
            self.view.reverse = not self.view.reverse
            self._reshow()

    def action_assigned_only(self) -> None:
        """Only the items assigned to you (again: every item, yours first)."""
        if self.view is None:
            return
        if not self.has_assignment:
            self.notify(
                "no review team: give --reviewers A,B,C (or the policy's [review] reviewers)",
                timeout=4,
            )
            return
        self.view.assigned_only = not self.view.assigned_only
        self._reshow()

    def assigned_title(self) -> Text:
        """The title's "assigned to you: N of M" (nothing without an assignment)."""
        counts = self.state.assigned_counts()
        if counts is None:
            return Text()
        mine, total = counts
        return Text(f" assigned to you: {mine:,} of {total:,} (w) ·", style="bold")
