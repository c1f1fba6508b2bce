"""The review state as every screen receives it: given when the screen is made, never fetched
from the app (`self.app` is Textual's, typed as any app; the state is ours, typed)."""

from __future__ import annotations

from typing import Any

from evaltui.ui.state import ReviewState


class GivenState:
    """A screen (or widget) made with the review state: `Screen(state, ...)`. First among the
    bases, so it takes the state and passes the rest on."""

    state: ReviewState

    def __init__(self, state: ReviewState, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.state = state
