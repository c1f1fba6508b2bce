"""The app's common ground: what the parts of the app (`app.py` and its mixins, one file per
job) share: the config, the review state, the main screen, telling the screens (every
toast goes through `ToastRepaint.notify` in `toasts.py`, which makes its text inert) and
showing what a worker loaded in its design's mode (`ui/modes.py`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from textual.app import App
from textual.message import Message
from textual.screen import Screen

from evaltui.core.designs import Design
from evaltui.ui.completion import Completion
from evaltui.ui.config import AppConfig
from evaltui.ui.modes import mode_of
from evaltui.ui.state import Loaded, ReviewState


class ReviewApp(App[int]):
    """What every part of the review app reads and calls (see the module's docstring)."""

    config: AppConfig
    state: ReviewState  # what is open and what the reviewer did: given to every screen
    main_screen: Screen | None
    load_error: str | None
    unexpected_errors: list[str]
    hung_up: bool = False  # the terminal went away (SIGHUP or a closed pty): ending
    completion: Completion | None  # the analysis that decides, started by the loading worker

    def tell_screens(self, make: Callable[[], Message]) -> None:
        """Post a fresh message to every screen on the stack; those that care handle it."""
        for screen in self.screen_stack:
            screen.post_message(make())

    def open_mode(self, design: Design) -> None:
        """What a worker loaded (already in the review state) is of `design`: its mode's keys
        apply from now on, and its first screen opens over the main (loading) screen."""
        self.state.design = design
        first_screen = mode_of(design).first_screen
        if first_screen is not None and not self.state.closing:
            self.push_screen(first_screen(self.state))

    def adopt(self, loaded: Loaded) -> None:
        """Show a pair (the app's)."""
        raise NotImplementedError

    def ask_about_lock(
        self,
        refused: Any,
        problem: str,
        reopen: Callable[[bool, Any], object],
        declined: Callable[[], None],
        quit_label: str = "",
    ) -> None:
        """Another live evaltui holds a review: the lock prompt (the app's, `lock_choice.py`)."""
        raise NotImplementedError

    def refresh_decision(self, loaded: Loaded) -> Any:
        """Re-evaluate the gates and the decision (the app's worker)."""
        raise NotImplementedError
