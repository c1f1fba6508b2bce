"""The OptionList of the gates, slices and bulk-tag screens: the main list's keys (j/k, G)
and its cursor mark (▶ on the highlighted option, so the selection reads without colour)."""

from __future__ import annotations

from rich.segment import Segment
from rich.style import Style
from textual.binding import Binding
from textual.strip import Strip
from textual.widgets import OptionList

from evaltui.ui.widgets.item_table import CURSOR_MARK

REVERSE = Style(reverse=True)

LIST_KEYS = [
    Binding("j", "list_cursor('down')", "Down", show=False, id="list.option.down"),
    Binding("k", "list_cursor('up')", "Up", show=False, id="list.option.up"),
    Binding("G", "list_cursor('last')", "Last", show=False, id="list.option.last"),
]


class MarkedOptionList(OptionList):
    """An OptionList whose highlighted option is marked by ▶ in a gutter before every option,
    as well as being drawn in the cursor's colours; with NO_COLOR in reverse video too (drawn
    here: Textual 8 drops `reverse` from an OptionList's component styles). The prompts stay
    as given: the mark is drawing, not data."""

    DEFAULT_CSS = """
    MarkedOptionList > .option-list--option { padding: 0 0 0 2; }
    """

    def render_line(self, y: int) -> Strip:
        strip = super().render_line(y)
        try:
            index, offset = self._lines[self.scroll_offset.y + y]
        except (AttributeError, IndexError):  # past the last option (or Textual changed)
            return strip
        if index != self.highlighted or self.options[index].disabled:
            return strip
        if self.app.no_color:
            strip = Strip(
                [Segment(t, (s or Style()) + REVERSE, c) for t, s, c in strip],
                strip.cell_length,
            )
        if offset == 0 and strip.cell_length > 2:
            head = strip.crop(0, 1)
            style = next((s for _, s, _ in head), None)
            strip = Strip.join([Strip([Segment(CURSOR_MARK, style)], 1), strip.crop(1)])
        return strip


class ListKeys:
    """Mixed into a screen holding one OptionList: j/k/G move it like the main list."""

    def action_list_cursor(self, where: str) -> None:
        options = self.query_one(OptionList)  # type: ignore[attr-defined]
        {
            "down": options.action_cursor_down,
            "up": options.action_cursor_up,
            "last": options.action_last,
        }[where]()
