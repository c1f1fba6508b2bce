"""What a pair's first screen imports, and what waits until its screen opens.

Every first screen pays the UI's imports on the main thread, beside the early read's thread
(`core/analysis/early_read.py`): the screens a key opens (help, gates, slices, the note editor,
the adjudication dialog), the log directory's picker, the text area and the agreement
statistics of a shared review are imported when first used. Run in a fresh interpreter (this
one has imported every screen already): the app is driven by Pilot to its settled first
screen, the modules are looked up, then each key opens its screen. A pair reopened from the
analysis cache (the early read started as the CLI starts it) imports no statistics (scipy) and
neither of the other designs' analyses before its first screen.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

# The screens a key opens, each with a module only it imports.
LATER = {
    "question_mark": ["evaltui.ui.screens.help"],
    "g": ["evaltui.ui.screens.gates"],
    "l": ["evaltui.ui.screens.slices"],
    "e": ["evaltui.ui.screens.note", "evaltui.ui.text_area_field", "textual.widgets._text_area"],
}
# Screens this pair never opens (C on a disputed item of a shared review; `evaltui DIR`).
NEVER = ["evaltui.ui.screens.adjudicate", "evaltui.ui.screens.picker"]
# A shared review's agreement line (kappa, its tables): not the first screen's of a review of
# one's own (a later step, such as the sign-off's record, may import them).
NOT_FIRST = ["evaltui.core.record.team_review", "evaltui.core.stats.agreement"]

SCRIPT = """
import asyncio, sys, tempfile
from pathlib import Path
from evaltui.ui.app import AppConfig, create_app
from tests.ui.helpers import SAMPLE, settle

LATER, NEVER, NOT_FIRST = {later!r}, {never!r}, {not_first!r}

async def main():
    state, policy = Path(tempfile.mkdtemp()) / "state", SAMPLE[0].parent / "policy.toml"
    app = create_app(AppConfig.for_pair(*SAMPLE, state_root=state, policy=policy))
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(app, pilot)
        print("decided", app.loaded is not None and app.loaded.decision is not None)
        every = [m for ms in LATER.values() for m in ms] + NEVER + NOT_FIRST
        print("first", sorted(m for m in every if m in sys.modules))
        for key, modules in LATER.items():
            await pilot.press(key)
            await settle(app, pilot)
            print(key, type(app.screen).__name__, all(m in sys.modules for m in modules))
            await pilot.press("escape")
            await settle(app, pilot)
        print("never", sorted(m for m in NEVER if m in sys.modules))

asyncio.run(main())
"""


@pytest.mark.slow
def test_a_screen_a_key_opens_is_imported_when_it_opens_not_before_the_first_screen(tmp_path):
    code = SCRIPT.format(later=LATER, never=NEVER, not_first=NOT_FIRST)
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT
    )
    lines = done.stdout.strip().splitlines()
    assert lines[0] == "decided True"
    assert lines[1] == "first []"  # nothing of these on the way to the first screen
    assert lines[2:6] == [
        "question_mark HelpScreen True",
        "g GatesScreen True",
        "l SlicesScreen True",
        "e NoteScreen True",
    ]
    assert lines[6] == "never []"  # opened on two runs, by its only reviewer


# What a pair reopened from the analysis cache leaves unimported until its first screen is
# drawn: the statistics (scipy) it reads back instead of computing, and the designs it is not
# (two samples of different items; three or more runs).
NOT_ON_REOPEN = [
    "scipy",
    "evaltui.core.analysis.independent",
    "evaltui.core.stats.independent",
    "evaltui.core.analysis.run_set",
    "evaltui.core.decide.run_set",
    "evaltui.core.stats.omnibus",
]

REOPEN = """
import asyncio, sys
from pathlib import Path
from evaltui.core.analysis import analysis_cache
from evaltui.core.analysis.early_read import start_reading
from evaltui.core.compare.spec import CompareSpec
from evaltui.core.read.formats import scan_cache
from evaltui.ui.app import AppConfig, create_app
from tests.ui.helpers import settle

analysis_cache.MIN_ITEMS = scan_cache.MIN_BYTES = 0  # (a small pair, kept as a big one is)
NOT_ON_REOPEN = {not_on_reopen!r}

async def main():
    spec = CompareSpec.create({baseline!r}, {candidate!r}, metric="score")
    config = AppConfig(spec=spec, state_root=Path({state!r}), reading=start_reading(spec))
    app = create_app(config)  # (as the CLI makes it, the early read started)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(app, pilot)
        print("cached", app.analysis_cached, app.loaded.decision is not None)
        print("imported", sorted(m for m in NOT_ON_REOPEN if m in sys.modules))

asyncio.run(main())
"""


@pytest.mark.slow
def test_a_reopened_pair_imports_no_statistics_and_no_other_design_before_its_first_screen(
    tmp_path, monkeypatch
):
    from evaltui.core.analysis import analysis_cache
    from evaltui.core.analysis.pipeline import compare, keep_analysis
    from evaltui.core.read.formats import scan_cache
    from tests.core.analysis.test_sealed_entries import graded_pair

    monkeypatch.setenv(scan_cache.ENV, str(tmp_path / "cache"))
    monkeypatch.delenv("EVALTUI_NO_CACHE", raising=False)
    monkeypatch.setattr(analysis_cache, "MIN_ITEMS", 0)
    monkeypatch.setattr(scan_cache, "MIN_BYTES", 0)
    spec = graded_pair(tmp_path / "runs")
    keep_analysis(compare(spec, cached=True))  # (the first open, kept)
    code = REOPEN.format(
        not_on_reopen=NOT_ON_REOPEN,
        baseline=str(spec.baseline),
        candidate=str(spec.candidate),
        state=str(tmp_path / "state"),
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT
    )
    assert done.stdout.strip().splitlines() == ["cached True True", "imported []"]
