"""A list of discordant items that draws only the rows on screen (Textual's Line API).

A DataTable builds a row object per item; with tens of thousands of regressions that makes every
filter keystroke a rebuild. Here the rows are a sequence (`ListView.visible`, whose rows are
made as they are asked for) and `render_line` draws the few that fit the window, so drawing
and scrolling cost the same at 100 rows or 100,000.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual.binding import Binding
from textual.geometry import Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from evaltui.core.textsafe import one_line
from evaltui.core.words import signed
from evaltui.ui.listmodel import ListRow
from evaltui.ui.row_store import RowsAt

HEADER_LINES = 1
MAX_ID, MAX_SLICE, MAX_TAG = 40, 24, 24  # columns never grow past these
MIN_INPUT, INPUT_SHARE = 20, 0.3  # the input preview keeps at least this much of the width
NOTE_MARK = "✎"  # an item with a note: a mark, not a colour
CURSOR_MARK = "▶"  # the cursor row: a mark, not only a colour
MATCH = Style(reverse=True, bold=True)
# On the cursor row (itself in reverse video with NO_COLOR) a match is underlined instead.
MATCH_ON_CURSOR = Style(underline=True, bold=True)
# What a tag's meaning (core/tags.py) draws it with; a tag without one is drawn plainly.
TAG_CLASS = {"confirmed": "tag-confirmed", "grader_error": "tag-doubt", "open": "tag-doubt"}
ASSIGNED_COLUMN, ASSIGNED_MARK = "for", "you"  # a team's review: the items assigned to you


def tag_text(row: ListRow) -> str:
    """The tag column in words: the tag; "disputed" (a shared review's reviewers disagree);
    "— (N hidden)" (other reviewers' tags, hidden until you tag it); "—" (untagged)."""
    if row.tag:
        return row.tag
    if row.disputed:
        return "disputed"
    return f"— ({row.hidden} hidden)" if row.hidden else "—"


def line_style_for_note(base: Style) -> Style:
    """An empty list's explanation: italic, so it reads as ours and not as a row."""
    return base + Style(italic=True)


class ItemTable(ScrollView, can_focus=True):
    """Rows: item id, slice (when any row has one), tag, delta (graded metrics), a mark for an
    item with a note, and the input preview (or, while searching, where the search matched)."""

    BINDINGS = [
        Binding("up,k", "cursor(-1)", "Up", show=False, id="list.up"),
        Binding("down,j", "cursor(1)", "Down", show=False, id="list.down"),
        Binding("pageup,ctrl+b", "page(-1)", "Page up", show=False, id="list.pageup"),
        Binding("pagedown,ctrl+f,space", "page(1)", "Page down", show=False, id="list.pagedown"),
        Binding("home", "jump(0)", "First", show=False, id="list.first"),
        Binding("end,G", "jump(-1)", "Last", show=False, id="list.last"),
        Binding("enter", "open", "Open", id="list.open"),
    ]

    # The cursor row: the block cursor's colours (never the warning or error colour), and a
    # mark in the first column, so it reads without colour; with NO_COLOR in reverse video.
    # Tags take their meaning's colour: a confirmed regression the regression colour, a
    # grader error or a still-open tag the warning colour, every other tag none.
    DEFAULT_CSS = """
    ItemTable { height: 1fr; }
    ItemTable > .item-table--header { text-style: bold; }
    ItemTable > .item-table--cursor {
        background: $block-cursor-blurred-background;
        color: $block-cursor-blurred-foreground;
        text-style: bold;
    }
    ItemTable:focus > .item-table--cursor {
        background: $block-cursor-background;
        color: $block-cursor-foreground;
        text-style: bold;
    }
    ItemTable:nocolor > .item-table--cursor { text-style: bold reverse; }
    ItemTable > .item-table--tag-confirmed { color: $text-error; text-style: bold; }
    ItemTable > .item-table--tag-doubt { color: $text-warning; }
    ItemTable > .item-table--untagged { color: $text-muted; }
    """
    COMPONENT_CLASSES = {
        "item-table--header",
        "item-table--cursor",
        "item-table--tag-confirmed",
        "item-table--tag-doubt",
        "item-table--untagged",
    }

    cursor = reactive(0, always_update=True)

    class Opened(Message):
        """The reviewer pressed Enter on a row."""

        def __init__(self, row: ListRow, position: int) -> None:
            super().__init__()
            self.row = row
            self.position = position  # index in the table's rows

    class Highlighted(Message):
        def __init__(self, row: ListRow | None) -> None:
            super().__init__()
            self.row = row

    def __init__(self, *, show_delta: bool = False, **kwargs) -> None:
        super().__init__(**kwargs)
        self.rows: Sequence[ListRow] = []
        self.show_delta = show_delta
        self.delta_points = False  # the deltas are pass-rate differences: shown in points
        # What an empty list says instead of rows: why it is empty, and how to clear that.
        self.empty_text: tuple[str, ...] = ()
        # Whether an item carries a note (the screen supplies it: notes live in the session).
        self.has_note: Callable[[str], bool] = lambda item_id: False
        # While searching: the needle (highlighted in the rows), and where a row matched, which
        # the input column shows instead of the input: (field, stretch around the match).
        self.search_needle = ""
        self.match_where: Callable[[ListRow, str], tuple[str, str] | None] = lambda r, n: None
        # What a tag means to the decision (the screen supplies the pair's `TagMeanings`).
        self.tag_meaning: Callable[[str | None], str | None] = lambda tag: None
        self.show_assigned = False  # a team's review: the `for` column says `you`
        self._id_width = 7
        self._slice_width = 0  # 0: no row has a slice, so the column is not drawn
        self._tag_width = 1

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # The rows never scroll sideways: left/right belong to the screen (the other list).
        if action in ("scroll_left", "scroll_right"):
            return False
        return super().check_action(action, parameters)

    # -- data ------------------------------------------------------------------------------

    def set_rows(self, rows: Sequence[ListRow], keep_item: str | None = None) -> None:
        """Show `rows` (a list's `RowsAt`: its rows are made as they are drawn); keep the
        cursor on `keep_item` when it is still listed."""
        self.rows = rows
        # Measured once per data change: render_line runs for every visible line of every frame.
        id_width, slice_width, tag_width = 7, 0, 1
        if isinstance(rows, RowsAt):  # (the store's widths: no row made for them)
            if len(rows):
                id_width, slice_width, tag_width = rows.column_widths(tag_text)
        elif rows:
            id_width = max(len(r.item_id) for r in rows)
            slice_width = max(len(r.slice) for r in rows)
            tag_width = max(len(tag_text(r)) for r in rows)
        self._id_width = min(id_width, MAX_ID)
        self._slice_width = min(slice_width, MAX_SLICE)
        self._tag_width = min(tag_width, MAX_TAG)
        target = 0
        if keep_item is not None:
            if isinstance(rows, RowsAt):
                target = rows.position_of(keep_item) or 0
            else:
                target = next((i for i, r in enumerate(rows) if r.item_id == keep_item), 0)
        self.virtual_size = Size(self.size.width, len(rows) + HEADER_LINES)
        self.cursor = min(target, max(len(rows) - 1, 0))
        self.refresh()

    @property
    def current(self) -> ListRow | None:
        if 0 <= self.cursor < len(self.rows):
            return self.rows[self.cursor]
        return None

    # -- movement --------------------------------------------------------------------------

    def watch_cursor(self, old: int, new: int) -> None:
        self._scroll_cursor_into_view()
        self.refresh()
        self.post_message(self.Highlighted(self.current))

    def _scroll_cursor_into_view(self) -> None:
        height = max(self.scrollable_content_region.height - HEADER_LINES, 1)
        top = int(self.scroll_y)
        if self.cursor < top:
            self.scroll_to(y=self.cursor, animate=False)
        elif self.cursor >= top + height:
            self.scroll_to(y=self.cursor - height + 1, animate=False)

    def action_cursor(self, step: int) -> None:
        if self.rows:
            self.cursor = max(0, min(len(self.rows) - 1, self.cursor + step))

    def action_page(self, direction: int) -> None:
        page = max(self.scrollable_content_region.height - HEADER_LINES - 1, 1)
        self.action_cursor(direction * page)

    def action_jump(self, where: int) -> None:
        if self.rows:
            self.cursor = 0 if where == 0 else len(self.rows) - 1

    def action_open(self) -> None:
        if self.current is not None:
            self.post_message(self.Opened(self.current, self.cursor))

    def on_click(self, event) -> None:
        row = event.y - HEADER_LINES + int(self.scroll_y)
        if 0 <= row < len(self.rows) and event.y >= HEADER_LINES:
            self.cursor = row
            if event.chain >= 2:
                self.action_open()

    # -- drawing ---------------------------------------------------------------------------

    def _columns(self) -> list[str]:
        names = [CURSOR_MARK, "item"]
        if self.show_assigned:
            names.append(ASSIGNED_COLUMN)
        if self._slice_width:
            names.append("slice")
        names.append("tag")
        if self.show_delta:
            names.append("delta")
        return [*names, NOTE_MARK, "input"]

    def _widths(self, width: int) -> list[int]:
        """Each column's width at `width`: the id, slice and tag get what their longest value
        needs (up to a cap) while the input keeps a fair share; the rest goes to the input."""
        names = self._columns()
        gaps = len(names) - 1
        wanted = {
            "item": max(self._id_width, 4),
            "slice": max(self._slice_width, 5),
            "tag": max(self._tag_width, 3),
            "delta": 6,
            NOTE_MARK: 1,
            CURSOR_MARK: 1,
            ASSIGNED_COLUMN: len(ASSIGNED_MARK),
        }
        floor = {"item": min(wanted["item"], 10), "slice": min(wanted["slice"], 8), "tag": 3}
        widths = {name: floor.get(name, wanted.get(name, 0)) for name in names}
        widths["input"] = 0
        spare = width - gaps - sum(widths.values()) - max(MIN_INPUT, int(width * INPUT_SHARE))
        for name in ("tag", "item", "slice"):  # the tag first: a cut tag reads wrong
            if name in widths and spare > 0:
                grow = min(wanted[name] - widths[name], spare)
                widths[name] += grow
                spare -= grow
        widths["input"] = max(width - gaps - sum(widths.values()), 8)
        return [widths[name] for name in names]

    def _cells(self, row: ListRow | None, widths: list[int]) -> list[tuple[str, str]]:
        names = self._columns()
        if row is None:
            heading = {CURSOR_MARK: " ", "delta": "Δ pts" if self.delta_points else "delta"}
            return [(heading.get(n, n), "header") for n in names]
        values = {
            CURSOR_MARK: (" ", "mark"),
            "item": (one_line(row.item_id), ""),
            "slice": (one_line(row.slice), ""),
            # (untriaged, in words: the reviewers of a shared review disagree)
            "tag": (tag_text(row), self._tag_kind(row.tag)),
            ASSIGNED_COLUMN: (ASSIGNED_MARK if row.assigned else "", ""),
            "delta": ("" if row.delta is None else signed(row.delta, self.delta_points), ""),
            NOTE_MARK: (NOTE_MARK if self.has_note(row.item_id) else " ", ""),
            "input": (one_line(row.preview), ""),
        }
        if self.search_needle:
            where = self.match_where(row, self.search_needle)
            if where is not None:
                field, stretch = where
                shown = f"{field}: {one_line(stretch)}" if field else one_line(stretch)
                values["input"] = (shown, "")
        return [values[name] for name in names]

    def _tag_kind(self, tag: str | None) -> str:
        if tag is None:
            return "untagged"
        return TAG_CLASS.get(self.tag_meaning(tag) or "", "tag")

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        widths = self._widths(width)
        base_style = self.rich_style
        if y < HEADER_LINES:
            cells = self._cells(None, widths)
            line_style = base_style + self.get_component_rich_style("item-table--header")
            return self._strip(cells, widths, line_style, width)
        index = y - HEADER_LINES + int(self.scroll_y)
        if not self.rows and 0 < y <= len(self.empty_text):
            style = line_style_for_note(base_style)
            text = Text(self.empty_text[y - 1], style=style, no_wrap=True, overflow="ellipsis")
            rendered = text.render(self.app.console)
            segments = [Segment(seg.text, seg.style or style) for seg in rendered]
            return Strip(segments).adjust_cell_length(width, base_style)
        if index >= len(self.rows):
            return Strip.blank(width, base_style)
        line_style = base_style
        cells = self._cells(self.rows[index], widths)
        if index == self.cursor:
            line_style = base_style + self.get_component_rich_style("item-table--cursor")
            cells[0] = (CURSOR_MARK, "mark")
        return self._strip(cells, widths, line_style, width, cursor=index == self.cursor)

    def _strip(self, cells, widths, line_style: Style, width: int, cursor: bool = False) -> Strip:
        text = Text(no_wrap=True, overflow="ellipsis", style=line_style)
        match = MATCH_ON_CURSOR if cursor else MATCH
        for i, ((value, kind), w) in enumerate(zip(cells, widths, strict=True)):
            cell = Text(value, no_wrap=True, overflow="ellipsis")
            cell.truncate(w, overflow="ellipsis", pad=True)
            if self.search_needle and kind == "":  # the match, in reverse video (not colour)
                cell.highlight_words([self.search_needle], match, case_sensitive=False)
            # The cursor row keeps the cursor's colours (the tag is a word, in bold or not).
            if (kind.startswith("tag-") or kind == "untagged") and not cursor:
                tag_style = self.get_component_rich_style(f"item-table--{kind}")
                cell.stylize(Style(color=tag_style.color, bold=tag_style.bold))
            text.append_text(cell)
            if i < len(cells) - 1:
                text.append(" ")
        # Every segment gets a real Style: the NO_COLOR (monochrome) filter cannot take None.
        segments = [
            Segment(seg.text, seg.style or line_style, seg.control)
            for seg in text.render(self.app.console)
        ]
        return Strip(segments).adjust_cell_length(width, line_style).simplify()

    def get_content_height(self, container, viewport, width) -> int:
        return len(self.rows) + HEADER_LINES
