"""The app's modes, one per design that opens in the review app, looked up in the Design registry.

What was opened is a design of the registry (`core.designs`): two runs are a pair, or two samples
of different items (`--design independent|auto`, as `evaltui report` chooses), three or more runs
a run set. A mode is what the app adds to that design: the worker that reads and analyses it, the
screen it opens on and the app's keys that do not apply there. What the design can do is read
from the design, not decided here: a design that signs nothing off (`signs_off`) has none of the
keys that tag, note or sign item pairs, and a design with no mode (a judge's preferences) is
refused in its own words (`Design.refusal`). So the app asks this table, never the types of what
it holds, which mode it is in.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from textual.screen import Screen

from evaltui.core.designs import DESIGNS, Design, design_for_runs
from evaltui.core.errors import UsageError
from evaltui.ui.config import AppConfig
from evaltui.ui.state import ReviewState

APP = "the review app"  # what a design with no mode refuses, in its own words
# The app's actions on an item pair's review (`x`, `e`, `g`, `l`, `m`, `0`, `z`, `C`, the tag
# digits): none applies to a design that signs nothing off, which has no item pairs.
PAIR_ACTIONS = frozenset(
    {
        "export",
        "note",
        "gates",
        "slices",
        "next_metric",
        "matrix",
        "clear_tag",
        "undo",
        "tag",
        "adjudicate",
    }
)

FirstScreen = Callable[[ReviewState], Screen]


@dataclass(frozen=True)
class ModeParts:
    """What the UI brings to a design: the app's worker (a method name) that loads it, the
    screen pushed over the main (loading) screen once it is loaded (None: the main screen shows
    it) and the app actions this mode has not (beside those its design's `signs_off` rules out).
    `m` is the next metric with two runs and the way back to the matrix with three or more."""

    loader: str
    first_screen: FirstScreen | None
    without: frozenset[str]


@dataclass(frozen=True)
class AppMode:
    """One design as the app opens it (see the module's docstring)."""

    design: Design
    loader: str
    first_screen: FirstScreen | None
    hidden: frozenset[str]  # the app's actions whose keys do not apply

    def applies(self, action: str) -> bool:
        """Whether the app's `action` (with its parameters, as `check_action` is given it)
        applies in this mode."""
        return action.split("(")[0] not in self.hidden


def independent_screen(state: ReviewState) -> Screen:
    """`IndependentScreen`, its module imported when one opens: not before every pair's
    first screen (with the matrix's and the run-set sign-off's, 25 ms of CPU at start-up)."""
    from evaltui.ui.screens.independent import IndependentScreen

    return IndependentScreen(state)


def matrix_screen(state: ReviewState) -> Screen:
    """`MatrixScreen`, its module imported when one opens (as `independent_screen`)."""
    from evaltui.ui.screens.matrix import MatrixScreen

    return MatrixScreen(state)


# Keyed by the registry's design names; a design missing here does not open in the app.
UI_PARTS: dict[str, ModeParts] = {
    "pair": ModeParts("load_pair", None, frozenset({"matrix"})),
    "independent": ModeParts("load_pair", independent_screen, frozenset({"matrix"})),
    "run_set": ModeParts("load_run_set", matrix_screen, frozenset({"next_metric"})),
}


def build_modes(
    designs: Mapping[str, Design], parts: Mapping[str, ModeParts]
) -> dict[str, AppMode]:
    """A mode for each design of `designs` that has UI parts, its keys read from the design."""
    modes = {}
    for name, design in designs.items():
        part = parts.get(name)
        if part is None:
            continue
        hidden = part.without if design.signs_off else part.without | PAIR_ACTIONS
        modes[name] = AppMode(design, part.loader, part.first_screen, hidden)
    return modes


MODES: dict[str, AppMode] = build_modes(DESIGNS, UI_PARTS)


def mode_of(design: Design) -> AppMode:
    """The app's mode for `design`; a design that does not open in the app is refused on one
    line, in the design's words (UsageError)."""
    try:
        return MODES[design.name]
    except KeyError:
        raise UsageError(design.refusal(APP)) from None


def runs_of(config: AppConfig) -> int:
    """How many runs the app was opened with."""
    return config.run_set.k if config.run_set is not None else 2


def opening_mode(config: AppConfig) -> AppMode:
    """The mode whose worker loads what the app was opened with: the design the command line
    names (`design_for_runs`, as `evaltui report` chooses; with `--design auto` the pair's
    worker learns from the analysis whether the runs are independent)."""
    return mode_of(design_for_runs(runs_of(config), config.spec.design))


def keys_design(config: AppConfig) -> Design:
    """The design whose keys apply while the app loads: the run set's with three or more runs
    (known before the runs are read), the pair's with two until the analysis says they are two
    samples of different items."""
    return design_for_runs(runs_of(config))
