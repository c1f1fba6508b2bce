"""`evaltui DIR`: the log-directory picker, driven with Pilot and in a real terminal (tmux).

The directory is the HELM v4 benchmark_output fixture (tests/data/helm/README.md) plus, for the
real-terminal test, an Inspect log directory made of the real popularity pair
(tests/data/inspect_ai/README.txt).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import uuid
from pathlib import Path

import pytest
from textual.widgets import DataTable, Static

from evaltui.core.compare.spec import CompareSpec
from evaltui.ui.app import AppConfig, create_app
from evaltui.ui.screens.main import MainScreen
from evaltui.ui.screens.picker import PickerScreen
from tests.ui.helpers import settle, text_of

ROOT = Path(__file__).resolve().parents[2]
HELM = ROOT / "tests" / "data" / "helm" / "benchmark_output"
INSPECT = ROOT / "tests" / "data" / "inspect_ai"


def picker_app(directory: Path, state: Path):
    spec = CompareSpec.create(directory, directory)  # the picker names the pair
    return create_app(AppConfig(spec=spec, log_directory=directory, state_root=state))


async def listed(app, pilot) -> None:
    """Wait for the listing worker and the table it fills."""
    await settle(app, pilot)


@pytest.mark.slow
async def test_the_picker_lists_the_runs_marks_the_default_pair_and_opens_it(tmp_path):
    app = picker_app(HELM, tmp_path / "state")
    async with app.run_test(size=(160, 40)) as pilot:
        await listed(app, pilot)
        assert isinstance(app.screen, PickerScreen)
        table = app.screen.query_one(DataTable)
        assert table.row_count == 2
        status = str(app.screen.query_one("#picker-status", Static).content)
        assert "2 runs, sorted by task then date" in status
        pair = str(app.screen.query_one("#picker-pair", Static).content)
        assert "baseline: runs/v4/mmlu_subject=anatomy_model=eleutherai_pythia-1b-v0" in pair
        assert "candidate: runs/v4/mmlu_subject=anatomy_model=eleutherai_pythia-6.9b" in pair
        await pilot.press("enter")
        await settle(app, pilot)
        assert isinstance(app.screen, MainScreen)
        header = text_of(app, "#header")
        assert "both pass 4" in header and "regressions 1" in header
        assert app.config.spec.baseline.name.endswith("pythia-1b-v0")


@pytest.mark.slow
async def test_b_and_c_mark_the_run_under_the_cursor(tmp_path):
    app = picker_app(HELM, tmp_path / "state")
    async with app.run_test(size=(160, 40)) as pilot:
        await listed(app, pilot)
        await pilot.press("k", "c", "j", "b")  # swap: the 6.9b run becomes the baseline
        pair = str(app.screen.query_one("#picker-pair", Static).content)
        assert "baseline: runs/v4/mmlu_subject=anatomy_model=eleutherai_pythia-6.9b" in pair
        assert "candidate: runs/v4/mmlu_subject=anatomy_model=eleutherai_pythia-1b-v0" in pair
        await pilot.press("enter")
        await settle(app, pilot)
        assert "regressions 4" in text_of(app, "#header")


async def test_the_same_run_twice_is_refused_in_place(tmp_path):
    app = picker_app(HELM, tmp_path / "state")
    async with app.run_test(size=(160, 40)) as pilot:
        await listed(app, pilot)
        await pilot.press("b")  # the cursor is on the candidate: both are now that run
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, PickerScreen)


@pytest.mark.slow  # a variant of a flow the default run covers (the suite's CPU budget); CI runs it
def test_the_installed_command_lists_a_log_directory_and_opens_the_pair_picked(tmp_path):
    from tests.ui.test_real_terminal import _capture, _stop, _tmux, _wait_for

    logs = tmp_path / "logs"
    logs.mkdir()
    for name in (
        "2025-09-15T15-04-34-04-00_popularity_CuCFPdqnwXupUkxp69nJ2a.eval",
        "2025-02-11T15-17-00-05-00_popularity_dPiJifoWeEQBrfWsAopzWr.eval",
    ):
        shutil.copy(INSPECT / name, logs / name)
    shutil.copy(
        INSPECT / "zstd" / "2025-09-15T15-04-34-04-00_popularity_jKN69eAYYpZFAZhRgMAztp.eval",
        logs / "2025-09-15T15-04-34-04-00_popularity_jKN69eAYYpZFAZhRgMAztp.eval",
    )
    tmux = _tmux()
    script = Path(sys.executable).parent / "evaltui"
    session = f"evaltui-{uuid.uuid4().hex[:8]}"
    command = (
        f"cd {ROOT} && EVALTUI_STATE_DIR={tmp_path / 'state'} TERM=xterm-256color "
        f"{script} {logs}; echo EXIT=$?; sleep 30"
    )
    subprocess.run(
        [*tmux, "new-session", "-d", "-s", session, "-x", "160", "-y", "30", command], check=True
    )
    try:
        screen = _wait_for(tmux, session, "3 runs, sorted by task then date", "BASELINE")
        assert "openai/gpt-5" in screen and "anthropic/claude-sonnet-4" in screen
        subprocess.run([*tmux, "send-keys", "-t", session, "Enter"], check=True)
        # The pair opened: its list (a 30-line terminal folds the header to two lines).
        screen = _wait_for(tmux, session, "Improvements (1)")
        assert "popularity" in screen or "regressions" in screen.lower()
        subprocess.run([*tmux, "send-keys", "-t", session, "q"], check=True)
        _wait_for(tmux, session, "EXIT=0")
    finally:
        _capture(tmux, session)
        _stop(tmux)


async def _at_the_14th_run(pilot) -> None:
    """The listing settled, the cursor moved to the 14th run (the errored gpt-5 log)."""
    await settle(pilot.app, pilot)
    table = pilot.app.screen.query_one(DataTable)
    await pilot.press(*["k"] * table.cursor_row, *["j"] * 13)
    await settle(pilot.app, pilot)


@pytest.mark.slow  # 2.5 s (22 logs' headers read); CI runs it
async def test_at_80x24_the_run_under_the_cursor_and_the_pair_stay_on_screen(tmp_path, monkeypatch):
    """A directory of more runs than the screen has rows: the table scrolls, and the lines
    under it stay. Before, at 80x24 the marked pair's line was pushed off the screen and the
    file column past its edge: rows of one task, model and day could not be told apart."""
    monkeypatch.chdir(ROOT)
    app = picker_app(Path("tests/data/inspect_ai"), tmp_path / "state")
    async with app.run_test(size=(80, 24)) as pilot:
        await _at_the_14th_run(pilot)
        screen = app.screen
        assert screen.query_one(DataTable).row_count > 20
        for line in ("#picker-run", "#picker-pair"):
            region = screen.query_one(line, Static).region
            assert region.height >= 1 and region.bottom <= 23  # above the footer, not cut
        under = str(screen.query_one("#picker-run", Static).content)
        entry = screen.listing.runs[13]
        assert under.startswith("▶ 14 ") and entry.name in under and entry.status in under
        pair = str(screen.query_one("#picker-pair", Static).content)
        assert "baseline: " in pair and "candidate: " in pair


@pytest.mark.slow
@pytest.mark.parametrize("size", [(80, 24), (160, 40)], ids=["80x24", "160x40"])
def test_picker_snapshot(snap_compare, tmp_path, monkeypatch, size):
    """The Inspect fixtures' folder (more runs than 24 rows hold), the cursor on the 14th:
    the run under it said whole below the table, the marked pair under that."""
    monkeypatch.chdir(ROOT)  # the title names the folder as given: the same on every machine
    app = picker_app(Path("tests/data/inspect_ai"), tmp_path / "state")
    assert snap_compare(app, terminal_size=size, run_before=_at_the_14th_run)
