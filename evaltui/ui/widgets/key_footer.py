"""The footer every screen shows: Textual's compact Footer, with each key born compact.

Textual's `FooterKey` is created without the `-compact` class and given it by a watcher once it
is mounted; each such class change restyles the key on the spot (a full stylesheet pass over it
and its component classes). The footer is recomposed whenever the bindings change (a screen
opens, the focus moves, the terminal is resized), so that second pass was about half of all the
styling an app start does. Keys that carry the class from the start make the watcher's change a
no-op: the same footer, drawn the same, styled once.

Textual recomposes the footer on every change of the screen's bindings, whether or not the keys
it shows changed: the main screen's bindings are refreshed at each step of a load (the progress,
the analysis, the lists, the decision), seven recompositions of the same keys before a pair's
first decision line, each a dozen widgets removed, made, mounted and styled on the UI thread.
So the footer recomposes only when what it would show differs from what it shows.
"""

from __future__ import annotations

from typing import Any

from textual.app import ComposeResult
from textual.screen import Screen
from textual.widgets import Footer
from textual.widgets._footer import FooterKey


class KeyFooter(Footer):
    """A compact footer without the command palette key (the screens list it themselves)."""

    def __init__(self) -> None:
        super().__init__(compact=True, show_command_palette=False)
        self._composed: tuple[Any, ...] | None = None  # what the keys were made from

    def keys_shown(self) -> tuple[Any, ...]:
        """Everything the footer's keys are made from: each shown binding (key, its display,
        label, action, group) with whether it is enabled and its tooltip, and the footer's
        own switches."""
        shown = tuple(
            (binding, enabled, tooltip)
            for (_, binding, enabled, tooltip) in self.screen.active_bindings.values()
            if binding.show
        )
        return (self.compact, self.show_command_palette, shown)

    def compose(self) -> ComposeResult:
        self._composed = self.keys_shown() if self._bindings_ready else None
        for widget in super().compose():
            if isinstance(widget, FooterKey) and self.compact:
                widget.add_class("-compact", update=False)
            yield widget

    def bindings_changed(self, screen: Screen) -> None:
        """Textual's (the footer of the screen whose bindings changed recomposes after the
        refresh, once the app has the focus), but only when its keys would differ."""
        self._bindings_ready = True
        if not screen.app.app_focus:
            return
        if self.is_attached and screen is self.screen:
            self.call_after_refresh(self._recompose_if_changed)

    async def _recompose_if_changed(self) -> None:
        if not self.is_attached or self._composed is None or self.keys_shown() != self._composed:
            await self.recompose()
