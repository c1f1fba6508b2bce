"""The footer every screen shows: Textual's compact Footer, with each key born compact.

Textual's `FooterKey` is created without the `-compact` class and given it by a watcher once it
is mounted; each such class change restyles the key on the spot (a full stylesheet pass over it
and its component classes). The footer is recomposed whenever the bindings change (a screen
opens, the focus moves, the terminal is resized), so that second pass was about half of all the
styling an app start does. Keys that carry the class from the start make the watcher's change a
no-op: the same footer, drawn the same, styled once.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.widgets import Footer
from textual.widgets._footer import FooterKey


class KeyFooter(Footer):
    """A compact footer without the command palette key (the screens list it themselves)."""

    def __init__(self) -> None:
        super().__init__(compact=True, show_command_palette=False)

    def compose(self) -> ComposeResult:
        for widget in super().compose():
            if isinstance(widget, FooterKey) and self.compact:
                widget.add_class("-compact", update=False)
            yield widget
