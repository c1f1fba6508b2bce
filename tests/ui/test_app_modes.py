"""The app's mode comes from the Design registry (issue 23): the design of what was opened picks
the worker that loads it, the screen it opens on and the keys that apply (`ui/modes.py`); what a
design can do (sign off, triage) is read from the design; a design that does not open in the app
is refused on one line in its own words.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

import pytest
from textual.app import ComposeResult
from textual.screen import Screen
from textual.widgets import Static

from evaltui.core.analysis.run_set import RunSetSpec
from evaltui.core.compare.spec import CompareSpec
from evaltui.core.designs import DESIGNS, INDEPENDENT, PAIR, PREFERENCE, RUN_SET, design_for_runs
from evaltui.core.errors import UsageError
from evaltui.ui import modes
from evaltui.ui.app import AppConfig, create_app
from evaltui.ui.modes import (
    APP,
    MODES,
    PAIR_ACTIONS,
    UI_PARTS,
    ModeParts,
    build_modes,
    independent_screen,
    keys_design,
    matrix_screen,
    mode_of,
    opening_mode,
)
from evaltui.ui.state import ReviewState
from tests.ui.helpers import ROOT, SAMPLE, settle
from tests.ui.test_independent_screen import BASE, independent_app
from tests.ui.test_review_state import Host


@pytest.fixture(autouse=True)
def _at_root(monkeypatch):
    """The independent fixtures' paths are relative to the repository root."""
    monkeypatch.chdir(ROOT)


KEYS = ("export", "note", "gates", "slices", "next_metric", "matrix", "clear_tag", "undo")


def test_every_mode_is_a_registered_design_and_every_design_without_one_is_refused_in_one_line():
    assert set(MODES) == {"pair", "run_set", "independent"}
    for name, mode in MODES.items():
        assert mode.design is DESIGNS[name]
    for design in DESIGNS.values():
        if design.name in MODES:
            assert mode_of(design) is MODES[design.name]
            continue
        with pytest.raises(UsageError) as refused:
            mode_of(design)
        assert str(refused.value) == design.refusal(APP)
        assert str(refused.value) and "\n" not in str(refused.value)
    assert PREFERENCE.name not in MODES  # (a judge's preferences: `evaltui prefer FILE`)


def test_each_modes_loader_and_first_screen():
    assert mode_of(PAIR).loader == mode_of(INDEPENDENT).loader == "load_pair"
    assert mode_of(RUN_SET).loader == "load_run_set"
    assert mode_of(PAIR).first_screen is None  # the main screen, up while the pair loads
    assert mode_of(INDEPENDENT).first_screen is independent_screen
    assert mode_of(RUN_SET).first_screen is matrix_screen


def test_the_first_screens_of_independent_samples_and_run_sets_are_theirs():
    """Their modules are imported when one opens (not before every pair's first screen)."""
    from evaltui.ui.screens.independent import IndependentScreen
    from evaltui.ui.screens.matrix import MatrixScreen

    state = ReviewState(AppConfig(spec=CompareSpec.create("a.jsonl", "b.jsonl")), host=Host())
    assert type(independent_screen(state)) is IndependentScreen
    assert type(matrix_screen(state)) is MatrixScreen


def test_a_design_that_signs_nothing_off_has_none_of_the_item_pair_keys():
    assert not INDEPENDENT.signs_off
    independent = mode_of(INDEPENDENT)
    assert not any(independent.applies(action) for action in (*KEYS, "tag(1)", "tag(9)"))
    assert independent.applies("quit") and independent.applies("help")
    pair, run_set = mode_of(PAIR), mode_of(RUN_SET)
    for action in ("export", "note", "tag(3)", "undo", "clear_tag", "gates", "slices"):
        assert pair.applies(action) and run_set.applies(action)
    # m: the next metric with two runs, the way back to the matrix with three or more
    assert pair.applies("next_metric") and not pair.applies("matrix")
    assert run_set.applies("matrix") and not run_set.applies("next_metric")


@dataclass(frozen=True)
class FakeDesign:
    """A design the registry does not have: only what a mode reads of a design."""

    name: str = "fake"
    signs_off: bool = False

    def refusal(self, what: str) -> str:
        return f"{what}: the fake design has no items"


class FakeScreen(Screen):
    def __init__(self, state: ReviewState) -> None:
        super().__init__()
        self.state = state

    def compose(self) -> ComposeResult:
        yield Static("fake")


def test_a_new_design_gets_its_mode_from_its_registry_entry_and_its_keys_from_the_design():
    fake = FakeDesign()
    parts = {**UI_PARTS, "fake": ModeParts("load_pair", FakeScreen, frozenset())}
    built = build_modes({**DESIGNS, "fake": fake}, parts)  # type: ignore[dict-item]
    assert built["fake"].design is fake and built["fake"].first_screen is FakeScreen
    assert built["fake"].hidden == PAIR_ACTIONS  # it signs nothing off
    signing = build_modes({"fake": replace(fake, signs_off=True)}, parts)  # type: ignore[dict-item]
    assert signing["fake"].hidden == frozenset()
    assert set(build_modes(DESIGNS, {})) == set()  # no UI parts: nothing opens


def config_for(design: str, more: tuple[Path, ...] = ()) -> AppConfig:
    config = AppConfig.for_pair(SAMPLE[0], SAMPLE[1], design=design)
    if more:
        config = replace(config, run_set=RunSetSpec.of(config.spec, more))
    return config


@pytest.mark.parametrize("design", ["paired", "independent", "auto"])
@pytest.mark.parametrize("more", [(), (BASE,)])
def test_the_app_opens_the_design_the_cli_chooses(design, more):
    config = config_for(design, more)
    runs = 2 + len(more)
    assert opening_mode(config).design is design_for_runs(runs, design)
    # the keys while loading: the run set's with three or more runs, else the pair's until the
    # analysis says the runs are two samples of different items
    assert keys_design(config) is (RUN_SET if more else PAIR)


async def test_the_app_opens_the_screen_of_the_mode_the_registry_gives_the_loaded_design(
    tmp_path, monkeypatch
):
    """The independent design's mode is swapped for one with another first screen: the app
    opens that screen, so it asks the table, not the type of what it loaded."""
    swapped = replace(MODES["independent"], first_screen=FakeScreen)
    monkeypatch.setitem(modes.MODES, "independent", swapped)
    app = independent_app(tmp_path / "state")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        assert isinstance(app.screen, FakeScreen), app.load_error
        assert app.state.design is INDEPENDENT
        assert app.check_action("tag(1)", ()) is False
        assert app.check_action("export", ()) is False
        assert app.check_action("help", ()) is True


async def test_two_runs_of_the_same_items_open_as_a_pair_with_its_keys(tmp_path):
    app = create_app(AppConfig.for_pair(SAMPLE[0], SAMPLE[1], state_root=tmp_path / "state"))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        assert app.state.design is PAIR and app.loaded is not None
        assert app.check_action("tag(1)", ()) is True
        assert app.check_action("next_metric", ()) is True
        assert app.check_action("matrix", ()) is False
