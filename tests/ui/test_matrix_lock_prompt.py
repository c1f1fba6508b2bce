"""A pair of the run set, opened from the matrix, held by another live evaltui: the matrix offers
the pair's own lock prompt (`LockPromptScreen`, asked by `lock_choice.py`): read-only (every key
that writes says why), take over (the other process told to end), or back to the matrix with the
pair left unopened. Issue 26, item 5, for three or more runs."""

from __future__ import annotations

import signal
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from evaltui.core.record.journal import LOCK_NAME, session_key
from evaltui.ui.screens.lock_prompt import LockPromptScreen
from evaltui.ui.screens.main import MainScreen
from evaltui.ui.screens.matrix import MatrixScreen
from tests.ui.helpers import SAMPLE, settle, text_of
from tests.ui.test_lock_prompt import HOLDER, toasts
from tests.ui.test_matrix_flow import back_to_matrix, matrix_app, open_cell, state  # noqa: F401
from tests.ui.test_real_terminal import ROOT, _capture, _once_sized, _stop, _tmux
from tests.ui.test_team_terminal import _keys, _until


@pytest.fixture
def holder(state: Path):  # noqa: F811 - the matrix tests' state folder fixture
    """Another evaltui holding the review of the set's first pair (baseline, candidate)."""
    folder = state / "sessions" / session_key(*SAMPLE)
    folder.mkdir(parents=True)
    process = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(folder / LOCK_NAME), socket.gethostname()],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None and process.stdout.readline().strip() == "locked"
    yield process
    if process.poll() is None:
        process.kill()
    process.wait()


async def _choose_held_cell(app, pilot) -> None:
    """Enter on the matrix's (candidate, baseline) cell: the pair the holder holds."""
    await settle(app, pilot)
    assert isinstance(app.screen, MatrixScreen)
    row, col = app.screen.current_matrix_cell()
    await pilot.press(*(["down"] * (1 - row) if row < 1 else ["up"] * (row - 1)))
    await pilot.press(*(["left"] * col))
    assert app.screen.current_matrix_cell() == (1, 0)
    await pilot.press("enter")
    await settle(app, pilot)


@pytest.mark.slow  # a variant of a flow the default run covers (the suite's CPU budget); CI runs it
async def test_a_held_pair_from_the_matrix_opens_read_only_and_the_next_pair_writes(
    state,  # noqa: F811
    holder,
):
    app = matrix_app(state)
    async with app.run_test(size=(100, 30)) as pilot:
        await _choose_held_cell(app, pilot)
        assert isinstance(app.screen, LockPromptScreen)
        assert f"pid {holder.pid}" in app.screen.holder
        assert "r open read-only" in text_of(app, "#lock-choices")
        assert "q back to the matrix" in text_of(app, "#lock-choices")
        await pilot.press("r")
        await settle(app, pilot)
        assert isinstance(app.screen, MainScreen) and app.open_pair == (0, 1)
        assert app.loaded is not None and app.loaded.session.read_only
        refusal = f"read-only: another evaltui (pid {holder.pid}) holds this review"
        app.clear_notifications()
        await pilot.press("1")
        await settle(app, pilot)
        assert refusal in toasts(app)
        first = app.loaded.analysis.regressions[0]
        assert app.loaded.session.review(first).tag is None
        await back_to_matrix(app, pilot)
        # Another pair, nobody else's: writable again, the read-only reason gone with the pair.
        await open_cell(app, pilot, 2, 0)
        assert app.loaded is not None and not app.loaded.session.read_only
        await pilot.press("1")
        await settle(app, pilot)
        second = app.loaded.analysis.regressions[0]
        assert app.loaded.session.review(second).tag == app.loaded.session.info.tags[0]
        await pilot.press("q")
    assert holder.poll() is None  # read-only left the other evaltui alone
    assert app.unexpected_errors == []


@pytest.mark.slow  # a variant of a flow the default run covers (the suite's CPU budget); CI runs it
async def test_q_at_a_held_pairs_prompt_goes_back_to_the_matrix_leaving_the_holder(
    state,  # noqa: F811
    holder,
):
    app = matrix_app(state)
    async with app.run_test(size=(100, 30)) as pilot:
        await _choose_held_cell(app, pilot)
        assert isinstance(app.screen, LockPromptScreen)
        await pilot.press("q")
        await settle(app, pilot)
        assert isinstance(app.screen, MatrixScreen)
        assert app.loaded is None and app.state.opening_pair is None
        assert "opening the review" not in text_of(app, "#matrix-pair")  # the cell's words again
        assert "review candidate against baseline" in text_of(app, "#matrix-pair")
        assert any(f"pid {holder.pid}" in said for said in toasts(app)), toasts(app)
        await open_cell(app, pilot, 2, 0)  # the matrix still opens pairs
        await pilot.press("q")
    assert app.return_code in (0, None)
    assert holder.poll() is None
    assert app.unexpected_errors == []


@pytest.mark.slow  # a run set and a take-over (~5 s CPU); the pair's take-over runs by default
async def test_taking_over_a_held_pair_from_the_matrix_ends_the_other_evaltui_and_writes(
    state,  # noqa: F811
    holder,
):
    app = matrix_app(state)
    async with app.run_test(size=(100, 30)) as pilot:
        await _choose_held_cell(app, pilot)
        assert isinstance(app.screen, LockPromptScreen)
        await pilot.press("t")
        await settle(app, pilot)
        assert holder.wait(10) == -signal.SIGTERM
        assert isinstance(app.screen, MainScreen) and app.open_pair == (0, 1)
        assert app.loaded is not None and not app.loaded.session.read_only
        assert f"took over the review from pid {holder.pid}, which was told to end" in toasts(app)
        await pilot.press("1")
        await settle(app, pilot)
        first = app.loaded.analysis.regressions[0]
        assert app.loaded.session.review(first).tag == app.loaded.session.info.tags[0]
        journal = app.loaded.session.path
        await pilot.press("q")
    assert f'"item_id":"{first}"' in journal.read_text()
    assert app.unexpected_errors == []


async def _prompt_open(pilot) -> None:
    await _choose_held_cell(pilot.app, pilot)
    assert isinstance(pilot.app.screen, LockPromptScreen)


@pytest.mark.slow  # a run set loaded per size
@pytest.mark.parametrize(
    "size", [pytest.param((80, 24), id="80x24"), pytest.param((120, 40), id="120x40")]
)
def test_matrix_lock_prompt_snapshot(snap_compare, state, holder, monkeypatch, size):  # noqa: F811
    """The prompt over the matrix; the holder's pid and host (the test process's, different
    each run) replaced by fixed ones so the picture is stable."""
    import evaltui.ui.lock_choice as lock_choice

    def fixed(holder: str, pid: int | None, problem: str = "", quit_label: str = ""):
        described = "pid 4242 on box, since 2026-12-02T09:14:03+0000, terminal /dev/pts/3"
        return LockPromptScreen(described, 4242, problem, quit_label)

    monkeypatch.setattr(lock_choice, "LockPromptScreen", fixed)
    assert snap_compare(matrix_app(state), terminal_size=size, run_before=_prompt_open)


@pytest.mark.slow  # the installed app in tmux, three runs (~5 s)
def test_the_installed_app_asks_on_the_matrix_and_opens_the_held_pair_read_only(
    state,  # noqa: F811
    holder,
):
    """The INSTALLED `evaltui BASE CAND CAND2` in tmux: Enter on the held pair shows the prompt
    over the matrix; `r` opens the pair's list saying read-only; a tag key writes nothing."""
    tmux = _tmux()
    session = f"matrix-lock-{holder.pid}"
    runs = " ".join(
        str(ROOT / "sample_runs" / name)
        for name in ("baseline.jsonl", "candidate.jsonl", "candidate2.jsonl")
    )
    # COLUMNS/LINES unset, as tests/ui/test_team_terminal.py explains.
    command = _once_sized(
        f"unset COLUMNS LINES; cd {ROOT} && EVALTUI_STATE_DIR={state} TERM=xterm-256color "
        f"exec {Path(sys.executable).parent / 'evaltui'} {runs}",
        100,
        30,
    )
    subprocess.run(
        [*tmux, "new-session", "-d", "-s", session, "-x", "100", "-y", "30", command], check=True
    )
    screen = lambda: _capture(tmux, session)  # noqa: E731
    try:
        _until(lambda: "review candidate against baseline" in screen(), "the matrix", shown=screen)
        _keys(tmux, session, "Enter")  # the cursor starts on (candidate, baseline): held
        _until(
            lambda: "This review is open in another evaltui" in screen(), "the prompt", shown=screen
        )
        assert f"pid {holder.pid}" in screen() and "q back to the matrix" in screen()
        _keys(tmux, session, "r")
        _until(lambda: "Regressions (9)" in screen(), "the pair's list", shown=screen)
        _until(lambda: "read-only" in screen(), "the read-only line", shown=screen)
        _keys(tmux, session, "1")
        _until(
            lambda: f"another evaltui (pid {holder.pid}) holds" in screen(),
            "the refusal",
            shown=screen,
        )
        _keys(tmux, session, "q")
    finally:
        _stop(tmux)
    assert holder.poll() is None
    journal = state / "sessions" / session_key(*SAMPLE) / "journal.jsonl"
    assert not journal.exists() or '"tag"' not in journal.read_text()
