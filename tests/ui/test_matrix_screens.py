"""The matrix screen as drawn: SVG snapshots at 80x24 and 160x48, in 16 colours, and without
colour (NO_COLOR: the marks, the status word's reverse video and the cursor carry the meaning;
every word reads on the dark background). Update with --snapshot-update, then look at every
changed SVG."""

from __future__ import annotations

import pytest
from rich.color import ColorSystem

from evaltui.ui.app import ANSI_THEME
from evaltui.ui.screens.matrix import MatrixScreen
from tests.ui.helpers import settle
from tests.ui.test_matrix_flow import matrix_app
from tests.ui.test_no_color import assert_no_colour, assert_readable, find, line_with

SIZES = [pytest.param((80, 24), id="80x24"), pytest.param((160, 48), id="160x48")]


async def _matrix(pilot):
    await settle(pilot.app, pilot)
    assert isinstance(pilot.app.screen, MatrixScreen)
    await pilot.press("down")  # (2, 0): candidate2 against baseline, the improved pair
    await pilot.pause()


async def _after_a_confirmed_regression(pilot):
    await settle(pilot.app, pilot)
    await pilot.press("enter")  # candidate against baseline
    await settle(pilot.app, pilot)
    await pilot.press("1")  # its first regression: confirmed
    await settle(pilot.app, pilot)
    await pilot.press("m")
    await settle(pilot.app, pilot)
    pilot.app.clear_notifications()
    await pilot.pause()


async def _sixteen_colours(pilot):
    pilot.app.console._color_system = ColorSystem.STANDARD  # what TERM=xterm makes Rich say
    pilot.app.use_terminal_colours()
    await _matrix(pilot)
    assert pilot.app.theme == ANSI_THEME


@pytest.mark.slow
@pytest.mark.parametrize("size", SIZES)
def test_matrix_screen_snapshot(snap_compare, tmp_path, size):
    assert snap_compare(matrix_app(tmp_path / "state"), terminal_size=size, run_before=_matrix)


@pytest.mark.slow  # over a CPU-second: out of the default run's budget, in CI
def test_matrix_after_a_confirmed_regression_snapshot(snap_compare, tmp_path):
    """The decision line redone on the way back: BLOCKED, the cursor where it was left."""
    app = matrix_app(tmp_path / "state")
    assert snap_compare(app, terminal_size=(80, 24), run_before=_after_a_confirmed_regression)


@pytest.mark.slow
@pytest.mark.parametrize("size", SIZES)
def test_matrix_16_colours_snapshot(snap_compare, tmp_path, size):
    app = matrix_app(tmp_path / "state")
    assert snap_compare(app, terminal_size=size, run_before=_sixteen_colours)


@pytest.fixture
def no_color(monkeypatch):
    monkeypatch.setenv("NO_COLOR", "1")  # before the app exists: Textual reads it at start


@pytest.mark.slow
@pytest.mark.parametrize("size", [(80, 24), (160, 48)])
async def test_matrix_reads_without_colour(tmp_path, no_color, size):
    app = matrix_app(tmp_path / "state")
    async with app.run_test(size=size) as pilot:
        await _matrix(pilot)
        assert app.no_color and app.native_ansi_color
        assert_no_colour(app)
        # The status word in reverse video, the rest of the decision line bold.
        statuses = find(app, " NEEDS REVIEW ")  # the set's, and the pair's below the matrix
        assert len(statuses) == 2
        assert all(style.reverse for status in statuses for _, style in status)
        assert_readable(app, "NEEDS REVIEW", "3 runs against baseline", "Cochran's Q")
        # Marks, not colours: every cell says better, worse or neither, and reads.
        assert_readable(app, "▲ +8.0 pts", "▼ -8.0 pts", "· +6.0 pts", "[+2.2, +13.7]", "—")
        assert_readable(app, "baseline", "candidate2", "Row minus column")
        # The cell under the cursor is in reverse video (app.tcss), its words below it.
        cursor = line_with(app, "▲ +8.0 pts")
        start = "".join(char for char, _ in cursor).index("▲ +8.0 pts")
        assert all(style.reverse for _, style in cursor[start : start + 10])
        assert_readable(app, "candidate2 vs baseline: ▲ +8.0 pts", "improved")
        # Off the cursor the marked effects are bold: more than a colour says them.
        (worse,) = find(app, "▼ -8.0 pts")
        assert all(style.bold for char, style in worse if char.strip())
