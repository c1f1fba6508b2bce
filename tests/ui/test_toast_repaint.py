"""An expired toast leaves the terminal: seen in the crash-reopen tmux test
(tests/ui/test_burst_terminal.py, slow), toasts stayed drawn on the scrolled item screen long
after they expired, until a key redrew it. Textual 8 marks nothing dirty when a toast is removed
after a scroll (see `evaltui/ui/toasts.py`); these tests read what the app actually wrote to the
terminal, replayed on a grid of cells, since a screenshot renders the whole screen afresh and
never shows a cell left unpainted."""

from __future__ import annotations

from typing import Any

import pytest
from rich.console import Console
from rich.segment import ControlType
from textual.widgets._toast import Toast

from evaltui.ui.screens.item import ItemScreen
from evaltui.ui.screens.note import NoteScreen
from tests.ui.helpers import demo_app, settle, until

SIZE = (100, 30)


class Terminal:
    """The cells of the terminal as the app's updates painted them (updates are replayed here
    as they are handed to the driver: a cell nobody repaints keeps what was drawn there)."""

    def __init__(self, app: Any) -> None:
        width, height = SIZE
        self.cells = [[" "] * width for _ in range(height)]
        self.console = Console(width=width, height=height, color_system=None)
        display = app._display

        def painted(screen: Any, update: Any) -> None:
            if update is not None and not app._batch_count:
                self.paint(update)
            display(screen, update)

        app._display = painted

    def paint(self, update: Any) -> None:
        x = y = 0
        for segment in self.console.render(update):
            if segment.control:
                for code in segment.control:
                    if code[0] == ControlType.CURSOR_MOVE_TO:
                        x, y = code[1], code[2]
                continue
            for char in segment.text:
                if char == "\n":
                    x, y = 0, y + 1
                    continue
                if 0 <= y < len(self.cells) and 0 <= x < len(self.cells[y]):
                    self.cells[y][x] = char
                x += 1

    @property
    def text(self) -> str:
        return "\n".join("".join(row) for row in self.cells)


def toasts_left(app: Any) -> bool:
    """A toast still in a screen, or the app's repaint after one still to come."""
    if any(screen.query(Toast) for screen in app.screen_stack):
        return True
    return any(
        timer.name == "toast expiry repaint" and timer._task is not None and not timer._task.done()
        for timer in app._timers
    )


async def item_screen(app: Any, pilot: Any) -> None:
    await settle(app, pilot)
    await pilot.press("j", "enter")
    await settle(app, pilot)
    assert isinstance(app.screen, ItemScreen)


async def scroll(app: Any, pilot: Any) -> None:
    """Scrolled with the toasts shown (as the reopened item screen is, to its kept place): the
    compositor re-lays out only what is visible, and its full map goes stale."""
    pane = app.screen.query_one("#sides-pane")
    start = pane.scroll_y
    await pilot.press(*"jjjj")
    await until(pilot, lambda: pane.scroll_y == start + 4, "the scroll")


@pytest.mark.slow  # a variant of a flow the default run covers (the suite's CPU budget); CI runs it
async def test_a_toast_that_expires_on_the_scrolled_item_screen_leaves_the_terminal(tmp_path):
    app = demo_app(tmp_path / "state")
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        terminal = Terminal(app)
        await item_screen(app, pilot)
        app.notify("a short toast", timeout=1)
        await until(pilot, lambda: "a short toast" in terminal.text, "the toast drawn")
        await scroll(app, pilot)
        await until(pilot, lambda: not toasts_left(app), "the toast expired and repainted")
        await settle(app, pilot)
        assert "a short toast" not in terminal.text, terminal.text


@pytest.mark.slow
async def test_a_toast_shown_over_the_note_editor_leaves_the_terminal_once_it_is_closed(
    tmp_path,
):
    """The reopen's case: toasts raised on the item screen and over its note editor, the editor
    closed, the toasts expiring on the item screen beneath."""
    app = demo_app(tmp_path / "state")
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        terminal = Terminal(app)
        await item_screen(app, pilot)
        app.notify("toast on the item", timeout=1.5)
        await pilot.press("e")
        await settle(app, pilot)
        assert isinstance(app.screen, NoteScreen)
        app.notify("toast over the editor", timeout=1.2)
        await until(pilot, lambda: "toast over the editor" in terminal.text, "the toast drawn")
        await pilot.press("escape")
        await settle(app, pilot)
        assert isinstance(app.screen, ItemScreen)
        await scroll(app, pilot)
        await until(pilot, lambda: not toasts_left(app), "the toasts expired and repainted")
        await settle(app, pilot)
        assert "toast on the item" not in terminal.text, terminal.text
        assert "toast over the editor" not in terminal.text, terminal.text
