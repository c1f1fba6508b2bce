"""Toasts: every toast's text is inert, and the screen is repainted once a toast has expired.

A mixin of the app (`EvalTuiApp`). Toasts name ids, tags, metrics and paths from the runs, which
must neither be parsed as markup nor reach the terminal raw, so every `notify` goes through here.

The repaint works around a Textual 8 redraw gap (seen in the crash-reopen tmux test: expired
toasts left drawn on the item screen until a key redrew it). After a scroll, the compositor
re-lays out only the visible widgets and marks its full map stale (`Compositor.reflow_visible`).
When an expired toast is then removed, `App._prune` refreshes the toast rack, and that refresh
reads the rack's region (`Widget._set_dirty` -> `Compositor.find_widget`), which rebuilds the
stale full map from the DOM the toast has already left. The layout that follows compares the
new arrangement with that rebuilt map (`Compositor.reflow`), finds nothing changed, marks no
region dirty, and the toast's cells are never repainted. So once the toasts of a notification
have left the screens, the top screen is repainted whole (a modal's repaint redraws the screen
beneath it too).
"""

from __future__ import annotations

from typing import Any

from textual.widgets._toast import Toast

from evaltui.core.textsafe import inert, one_line
from evaltui.ui.base import ReviewApp

LOOK_AGAIN = 0.1  # seconds between two looks for a toast that has expired but is still shown
LOOKS = 100  # how many looks before giving up (a toast is removed as soon as the app is idle)


class ToastRepaint(ReviewApp):
    """Inert toasts, and a repaint once they are gone (see the module's docstring)."""

    def notify(self, message: str, *, title: str = "", markup: bool = True, **kwargs: Any) -> None:
        """Every toast, from any screen, is inert text; its expiry repaints the screen."""
        super().notify(inert(str(message)), title=one_line(title), markup=False, **kwargs)
        timeout = kwargs.get("timeout")
        self.set_timer(
            self.NOTIFICATION_TIMEOUT if timeout is None else timeout,
            lambda: self._repaint_once_expired(LOOKS),
            name="toast expiry repaint",
        )

    def _expired_toasts_shown(self) -> bool:
        """Is a toast whose time is up still in a screen (its removal not done yet)?"""
        return any(
            toast._notification.has_expired
            for screen in self.screen_stack
            for toast in screen.query(Toast)
        )

    def _repaint_once_expired(self, looks: int) -> None:
        """Repaint the top screen whole once no expired toast is left in any screen, and once
        more after its next refresh (the rack's layout may still be on its way then)."""
        if self._exit or not self.is_running or not self.screen_stack:
            return
        if self._expired_toasts_shown() and looks > 0:
            self.set_timer(
                LOOK_AGAIN,
                lambda: self._repaint_once_expired(looks - 1),
                name="toast expiry repaint",
            )
            return
        screen = self.screen
        screen.refresh()
        screen.call_after_refresh(screen.refresh)
