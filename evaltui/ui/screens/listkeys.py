"""The list keys of the main list (j/k, G) for the screens whose list is an OptionList."""

from __future__ import annotations

from textual.binding import Binding
from textual.widgets import OptionList

LIST_KEYS = [
    Binding("j", "list_cursor('down')", "Down", show=False, id="list.option.down"),
    Binding("k", "list_cursor('up')", "Up", show=False, id="list.option.up"),
    Binding("G", "list_cursor('last')", "Last", show=False, id="list.option.last"),
]


class ListKeys:
    """Mixed into a screen holding one OptionList: j/k/G move it like the main list."""

    def action_list_cursor(self, where: str) -> None:
        options = self.query_one(OptionList)  # type: ignore[attr-defined]
        {
            "down": options.action_cursor_down,
            "up": options.action_cursor_up,
            "last": options.action_last,
        }[where]()
