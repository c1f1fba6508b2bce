"""16 colours: in a terminal Rich reads as 16-colour (TERM=xterm, linux, screen…), the app uses
Textual's ansi-dark theme, the terminal's own palette, instead of squeezing its truecolor theme
into 16 (where the cursor bar, the warnings and the errors all became bright red).

Headless, TERM says nothing about a terminal, so these snapshots take the path the app takes on
mount in a real one (`EvalTuiApp.use_terminal_colours`) with Rich's 16-colour system set by
hand. The SVG shows each ANSI colour as Rich's export palette draws it; the terminal draws its
own. Update with --snapshot-update, then look at every changed SVG."""

from __future__ import annotations

import pytest
from rich.color import ColorSystem
from textual.widgets import Input

from evaltui.ui.app import ANSI_THEME, AppConfig, create_app, theme_for
from tests.ui.helpers import SAMPLE, settle

POLICY = SAMPLE[0].parent / "policy.toml"


def policy_app(tmp_path):
    config = AppConfig.for_pair(SAMPLE[0], SAMPLE[1], state_root=tmp_path / "state", policy=POLICY)
    return create_app(config)


async def sixteen_colours(pilot) -> None:
    pilot.app.console._color_system = ColorSystem.STANDARD  # what TERM=xterm makes Rich say
    pilot.app.use_terminal_colours()
    await settle(pilot.app, pilot)
    assert pilot.app.theme == ANSI_THEME


async def _main(pilot):
    await sixteen_colours(pilot)
    await pilot.press("1", "j", "3", "j", "2", "j")  # confirmed, grader error, acceptable
    await settle(pilot.app, pilot)  # the wide screen's preview reads the selected item
    pilot.app.clear_notifications()  # the three "saved" toasts would hide the list
    await pilot.pause()


async def _main_header(pilot):
    await _main(pilot)
    await pilot.press("h")
    await settle(pilot.app, pilot)


async def _item(pilot):
    await sixteen_colours(pilot)
    await pilot.press("enter")
    await settle(pilot.app, pilot)


async def _diff(pilot):
    await _item(pilot)
    await pilot.press("d")
    await pilot.pause()


async def _gates(pilot):
    await sixteen_colours(pilot)
    await pilot.press("g")
    await settle(pilot.app, pilot)


async def _slices(pilot):
    await sixteen_colours(pilot)
    await pilot.press("l", "j")
    await settle(pilot.app, pilot)


async def _signoff(pilot):
    await sixteen_colours(pilot)
    await pilot.press("x")
    await pilot.pause()
    pilot.app.screen.query_one("#prefix", Input).value = "signoff-demo"
    await pilot.press("down", "enter")  # choose "block": ● marks it
    await pilot.pause()


def test_a_16_colour_terminal_gets_the_theme_of_its_own_colours():
    assert theme_for("standard") == theme_for("windows") == ANSI_THEME
    assert theme_for("256") is None and theme_for("truecolor") is None


# The larger size runs with the slow tests (CI runs both): the default run keeps 80x24. Each size
# is its own test function: the snapshot plugin matches snapshots to tests by function name, so a
# deselected slow parameter's snapshot would count as unused and fail the default run.
@pytest.mark.slow
def test_main_screen_16_colours_snapshot(snap_compare, tmp_path):
    """The cursor a neutral bar marked ▶; tags by meaning (confirmed in the regression colour,
    grader error as a warning, acceptable plain)."""
    assert snap_compare(policy_app(tmp_path), terminal_size=(80, 24), run_before=_main)


@pytest.mark.slow  # the larger size: in CI
def test_main_screen_16_colours_large_snapshot(snap_compare, tmp_path):
    assert snap_compare(policy_app(tmp_path), terminal_size=(160, 48), run_before=_main)


@pytest.mark.slow  # over a CPU-second: out of the default run's budget, in CI
def test_main_screen_full_header_16_colours_snapshot(snap_compare, tmp_path):
    assert snap_compare(policy_app(tmp_path), terminal_size=(80, 24), run_before=_main_header)


@pytest.mark.slow
def test_item_screen_16_colours_snapshot(snap_compare, tmp_path):
    assert snap_compare(policy_app(tmp_path), terminal_size=(80, 24), run_before=_item)


@pytest.mark.slow
def test_item_diff_16_colours_snapshot(snap_compare, tmp_path):
    assert snap_compare(policy_app(tmp_path), terminal_size=(80, 24), run_before=_diff)


@pytest.mark.slow  # the larger size: in CI
def test_item_diff_16_colours_large_snapshot(snap_compare, tmp_path):
    assert snap_compare(policy_app(tmp_path), terminal_size=(160, 48), run_before=_diff)


@pytest.mark.slow
def test_gates_16_colours_snapshot(snap_compare, tmp_path, monkeypatch):
    # The gates screen names the policy file as given: a relative path, so the snapshot is the
    # same in any checkout.
    monkeypatch.chdir(SAMPLE[0].parent.parent)
    config = AppConfig.for_pair(
        SAMPLE[0], SAMPLE[1], state_root=tmp_path / "state", policy="sample_runs/policy.toml"
    )
    assert snap_compare(create_app(config), terminal_size=(80, 24), run_before=_gates)


@pytest.mark.slow
def test_slices_16_colours_snapshot(snap_compare, tmp_path):
    assert snap_compare(policy_app(tmp_path), terminal_size=(80, 24), run_before=_slices)


@pytest.mark.slow
def test_signoff_16_colours_snapshot(snap_compare, tmp_path, monkeypatch):
    monkeypatch.setenv("EVALTUI_REVIEWER", "dana")
    assert snap_compare(policy_app(tmp_path), terminal_size=(80, 24), run_before=_signoff)
