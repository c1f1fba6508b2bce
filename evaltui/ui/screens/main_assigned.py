"""The main screen's "assigned to you": while a team splits the regressions (`--reviewers`, the
policy's `[review]`), the items assigned to the reviewer at the keys come first in every list,
marked `you` in the `for` column (a word, not a colour), `w` shows only them, and the list
title counts them ("assigned to you: N of M"). A mixin of `MainScreen` (`screens/main.py`).

Other reviewers' tags stay hidden on an item until you have tagged it (`ReviewState.shown`),
so your judgment is your own; the decision still counts every reviewer's tags.
"""

from __future__ import annotations

from rich.text import Text
from textual.screen import Screen

from evaltui.ui.listmodel import ListView
from evaltui.ui.state import ReviewState


class MainAssigned(Screen):
    """`w` (bound in `MainScreen.BINDINGS`, which the help lists), the `you` column and the
    title's count (see the module's docstring)."""

    state: ReviewState

    @property
    def view(self) -> ListView | None:
        raise NotImplementedError  # (the main screen's)

    def _reshow(self) -> None:
        raise NotImplementedError  # (the main screen's)

    @property
    def has_assignment(self) -> bool:
        return self.state.assignment is not None

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
