"""SVG snapshots of the main and item screens at 80x24, 160x48 and 200x50 (update:
--snapshot-update, then look at every changed SVG)."""

from __future__ import annotations

import pytest

from tests.ui.helpers import demo_app, settle


async def _loaded(pilot):
    await settle(pilot.app, pilot)


async def _item_open(pilot):
    await settle(pilot.app, pilot)
    await pilot.press("enter")
    await settle(pilot.app, pilot)


async def _diff_open(pilot):
    await _item_open(pilot)
    await pilot.press("d")
    await pilot.pause()


SIZES = [pytest.param((80, 24), id="80x24"), pytest.param((160, 48), id="160x48")]


@pytest.mark.parametrize("size", SIZES)
def test_main_screen_snapshot(snap_compare, tmp_path, size):
    assert snap_compare(demo_app(tmp_path / "state"), terminal_size=size, run_before=_loaded)


@pytest.mark.parametrize("size", SIZES)
def test_item_screen_snapshot(snap_compare, tmp_path, size):
    assert snap_compare(demo_app(tmp_path / "state"), terminal_size=size, run_before=_item_open)


def test_item_diff_snapshot(snap_compare, tmp_path):
    assert snap_compare(demo_app(tmp_path / "state"), terminal_size=(80, 24), run_before=_diff_open)


async def _header(pilot, folded: bool):
    await settle(pilot.app, pilot)
    if pilot.app.screen.header_is_folded != folded:
        await pilot.press("h")
    await settle(pilot.app, pilot)  # the wide screen's preview reads the selected item


async def _folded(pilot):
    await _header(pilot, True)


async def _full(pilot):
    await _header(pilot, False)


HEADER_SIZES = [pytest.param((80, 24), id="80x24"), pytest.param((200, 50), id="200x50")]


@pytest.mark.parametrize("size", HEADER_SIZES)
@pytest.mark.parametrize("header", [_folded, _full], ids=["folded", "full"])
def test_main_screen_header_snapshot(snap_compare, tmp_path, size, header):
    assert snap_compare(demo_app(tmp_path / "state"), terminal_size=size, run_before=header)


def test_item_diff_snapshot_wide(snap_compare, tmp_path):
    """The word diff with the target and both graders beside it (200x50)."""
    assert snap_compare(
        demo_app(tmp_path / "state"), terminal_size=(200, 50), run_before=_diff_open
    )
