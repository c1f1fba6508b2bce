"""A review held by another live evaltui: the app asks, before the main screen, whether to open
it read-only (every key that writes says why and writes nothing) or to take it over (the other
process is told to end, and the review opens writable once it let go). Issue 26, item 5.
"""

from __future__ import annotations

import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from evaltui.core.record.journal import LOCK_NAME, session_key
from evaltui.ui.screens.lock_prompt import LockPromptScreen
from evaltui.ui.screens.main import MainScreen
from tests.ui.helpers import SAMPLE, demo_app, settle

HOLDER = textwrap.dedent(
    """
    import fcntl, json, os, sys, time
    fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT, 0o644)
    fcntl.flock(fd, fcntl.LOCK_EX)
    text = {"pid": os.getpid(), "host": sys.argv[2], "time": "t0", "tty": "/dev/null"}
    data = json.dumps(text).encode()
    os.pwrite(fd, data, 0)
    os.ftruncate(fd, len(data))
    print("locked", flush=True)
    time.sleep(60)
    """
)


@pytest.fixture
def holder(tmp_path: Path):
    """Another evaltui holding the demo pair's review (a process at a terminal that exists)."""
    import socket

    folder = tmp_path / "state" / "sessions" / session_key(*SAMPLE)
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


def toasts(app) -> list[str]:
    return [n.message for n in app._notifications]


@pytest.mark.slow
async def test_a_held_review_opens_read_only_and_every_write_key_says_why(tmp_path, holder):
    state = tmp_path / "state"
    app = demo_app(state)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(app, pilot)
        assert isinstance(app.screen, LockPromptScreen)
        assert (
            f"pid {holder.pid}" in app.screen.holder and "terminal /dev/null" in app.screen.holder
        )
        await pilot.press("r")
        await settle(app, pilot)
        assert isinstance(app.screen, MainScreen)
        assert app.loaded is not None and app.loaded.session.read_only
        journal = app.loaded.session.path
        before = journal.read_bytes() if journal.exists() else b""
        refusal = f"read-only: another evaltui (pid {holder.pid}) holds this review"
        for key in ("1", "0", "z", "e", "x", "T"):
            app.clear_notifications()
            await pilot.press(key)
            await settle(app, pilot)
            assert isinstance(app.screen, MainScreen), key  # no editor, no dialog opened
            assert refusal in toasts(app), (key, toasts(app))
        assert app.loaded.session.review(app.loaded.analysis.regressions[0]).tag is None
        await pilot.press("q")
    assert (journal.read_bytes() if journal.exists() else b"") == before
    assert holder.poll() is None  # read-only leaves the other evaltui alone


@pytest.mark.slow  # a second Pilot load (~4 s CPU); core's take-over tests run by default
async def test_taking_over_a_held_review_ends_the_other_evaltui_and_writes(tmp_path, holder):
    state = tmp_path / "state"
    app = demo_app(state)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(app, pilot)
        assert isinstance(app.screen, LockPromptScreen)
        await pilot.press("t")
        await settle(app, pilot)
        assert holder.wait(10) == -signal.SIGTERM
        assert isinstance(app.screen, MainScreen)
        assert app.loaded is not None and not app.loaded.session.read_only
        line = f"took over the review from pid {holder.pid}, which was told to end"
        assert line in toasts(app)
        await pilot.press("1")
        await settle(app, pilot)
        first = app.loaded.analysis.regressions[0]
        assert app.loaded.session.review(first).tag == app.loaded.session.info.tags[0]
        journal = app.loaded.session.path
        await pilot.press("q")
    assert f'"item_id":"{first}"' in journal.read_text()


@pytest.mark.slow  # a Pilot load (the suite's CPU budget); CI runs it
async def test_quitting_at_the_prompt_leaves_the_other_evaltui_and_prints_the_refusal(
    tmp_path, holder
):
    app = demo_app(tmp_path / "state")
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(app, pilot)
        assert isinstance(app.screen, LockPromptScreen)
        await pilot.press("q")
    assert app.return_code == 2
    assert app.load_error is not None
    assert app.load_error.startswith(f"another evaltui (pid {holder.pid} on ")
    assert app.load_error.endswith(f"end it with `kill {holder.pid}`")
    assert holder.poll() is None
