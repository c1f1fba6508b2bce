"""The list's title line, which redraws itself when its width changes."""

from __future__ import annotations

from textual import events
from textual.message import Message
from textual.widgets import Static


class ListTitle(Static):
    """The list's title: the lists, their counts, what is shown. What it names depends on its
    own width (narrow, the unchanged lists are named only once open), and that width changes
    after the title was first composed: the outputs preview appears beside the list once the
    pair has loaded. A title composed before that layout kept the wide form at a narrow width
    (a snapshot showed one form or the other by timing), so every change of width asks the
    screen to compose it again."""

    class WidthChanged(Message):
        """The title's width changed: compose it again for the new width."""

    def __init__(self, *, id: str) -> None:
        super().__init__(id=id)
        self._width = 0

    def on_resize(self, event: events.Resize) -> None:
        if event.size.width != self._width:
            self._width = event.size.width
            self.post_message(self.WidthChanged())
