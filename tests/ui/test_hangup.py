"""The installed app never holds a pair with no one at the keys, and a dead one blocks nobody.

It ends when its terminal goes away: on SIGHUP, when a tmux pane is closed, and when its pty is
closed under it without any signal (a process that is not its terminal's session). A killed
app that nobody has reaped yet (a zombie) does not block the next open or sign-off: the pair's
lock is the kernel's flock, dropped when the process dies.
"""

from __future__ import annotations

import fcntl
import json
import os
import pty
import re
import signal
import struct
import subprocess
import sys
import termios
import textwrap
import threading
import time
import uuid
from pathlib import Path

import pytest

from evaltui.core.errors import UsageError
from evaltui.core.record.journal import LOCK_NAME, ReviewSession, session_key
from tests.conftest import SAMPLE_RUNS
from tests.ui.test_real_terminal import (
    _capture,
    _full_header,
    _once_sized,
    _stop,
    _tmux,
    _wait_for,
)

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = Path(sys.executable).parent / "evaltui"
BASE, CAND = SAMPLE_RUNS / "baseline.jsonl", SAMPLE_RUNS / "candidate.jsonl"
TIMEOUT = 30.0  # any one wait gives up after this, instead of hanging the suite
HANGUP_CODE = 128 + signal.SIGHUP
# The main screen's header is up: words of its first line, full or folded (at 80x24 the decided
# full header is too tall and folds by itself, so the triage line is drawn only while deciding).
FIRST_SCREEN = "9 of 9 untriaged"
PTY_ROWS, PTY_COLUMNS = 30, 100  # the pty's size, as a terminal sets it (0x0 otherwise)
# Escape sequences (CSI, charset, OSC/DCS/APC strings) between the words the app draws.
ESCAPES = re.compile(rb"\x1b\[[0-9;?<>=]*[ -/]*[@-~]|\x1b[()][0-9A-Za-z]|\x1b[P\]X^_][^\x07\x1b]*")

pytestmark = pytest.mark.skipif(
    not Path("/proc/self/stat").exists(), reason="needs /proc to see process states"
)


def lock_path(state: Path) -> Path:
    return state / "sessions" / session_key(BASE, CAND) / LOCK_NAME


def process_state(pid: int) -> str:
    """The one-letter state from /proc (Z: dead, not yet reaped); "" when the pid is gone."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return ""


def wait_until(condition, timeout: float = TIMEOUT, step: float = 0.02) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(step)
    return condition()


def holds_the_pair(state: Path, pid: int) -> bool:
    """The lock file names `pid`: that process has opened the review session."""
    try:
        return json.loads(lock_path(state).read_text() or "{}").get("pid") == pid
    except (OSError, ValueError):
        return False


def pair_opens(state: Path) -> bool:
    """Another process could take the pair now (this one takes and gives it back)."""
    session = ReviewSession.open(BASE, CAND, "s1", "s2", root=state)
    session.close()
    return True


def pair_given_back(state: Path) -> bool:
    """`pair_opens`, False instead of the refusal while another process holds the pair."""
    try:
        return pair_opens(state)
    except UsageError:
        return False


class PtyApp:
    """The installed command on a pty of the test's own, its output drained (a full pty would
    stall the app's writes). `own_session`: a session of its own without a controlling
    terminal, so closing the pty sends it no SIGHUP."""

    def __init__(self, state: Path, own_session: bool = False) -> None:
        self.master, slave = pty.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", PTY_ROWS, PTY_COLUMNS, 0, 0))
        os.set_inheritable(slave, True)
        env = {**os.environ, "EVALTUI_STATE_DIR": str(state), "TERM": "xterm-256color"}
        env.pop("EVALTUI_DEBUG", None)
        self.process = subprocess.Popen(
            [str(SCRIPT), str(BASE), str(CAND)], stdin=slave, stdout=slave, stderr=slave,
            env=env, cwd=ROOT, start_new_session=own_session, close_fds=True,
        )  # fmt: skip
        os.close(slave)
        self.output = bytearray()
        self._reader = threading.Thread(target=self._drain, daemon=True)
        self._reader.start()

    def _drain(self) -> None:
        while True:
            try:
                chunk = os.read(self.master, 65536)
            except OSError:
                return
            if not chunk:
                return
            self.output += chunk

    def shows(self, text: str) -> bool:
        """`text` is in what the app has drawn so far (escape sequences taken out)."""
        return text.encode() in ESCAPES.sub(b"", bytes(self.output))

    def close_terminal(self) -> None:
        if self.master >= 0:
            os.close(self.master)
            self.master = -1

    def ended(self, timeout: float = TIMEOUT) -> int | None:
        try:
            return self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            return None

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait()
        self.close_terminal()


@pytest.mark.slow
def test_sighup_ends_the_app_and_gives_the_pair_back(tmp_path):
    state = tmp_path / "state"
    app = PtyApp(state)
    try:
        assert wait_until(lambda: holds_the_pair(state, app.process.pid)), bytes(app.output)
        assert wait_until(lambda: app.shows(FIRST_SCREEN)), bytes(app.output[-2000:])
        os.kill(app.process.pid, signal.SIGHUP)
        code = app.ended()
    finally:
        app.stop()
    assert code == HANGUP_CODE, bytes(app.output[-2000:])
    assert lock_path(state).read_bytes() == b""  # it ended the normal way: holder text cleared
    assert pair_opens(state)


@pytest.mark.slow  # a variant of a flow the default run covers (the suite's CPU budget); CI runs it
def test_a_pty_closed_without_a_hangup_signal_ends_the_app(tmp_path):
    """Not the pty's session, so no SIGHUP comes: the app notices the terminal is gone."""
    state = tmp_path / "state"
    app = PtyApp(state, own_session=True)
    try:
        assert wait_until(lambda: holds_the_pair(state, app.process.pid)), bytes(app.output)
        assert wait_until(lambda: app.shows(FIRST_SCREEN)), bytes(app.output[-2000:])
        app.close_terminal()
        code = app.ended()
    finally:
        app.stop()
    assert code == HANGUP_CODE
    assert pair_opens(state)


@pytest.mark.slow  # a variant of a flow the default run covers (the suite's CPU budget); CI runs it
def test_closing_the_tmux_pane_ends_the_app(tmp_path):
    tmux = _tmux()
    state = tmp_path / "state"
    session = f"evaltui-{uuid.uuid4().hex[:8]}"
    command = _once_sized(
        f"cd {ROOT} && EVALTUI_STATE_DIR={state} exec {SCRIPT} {BASE} {CAND}", 100, 30
    )
    subprocess.run(
        [*tmux, "new-session", "-d", "-s", session, "-x", "100", "-y", "30", command], check=True
    )
    try:
        _full_header(tmux, session)
        pid = int(
            subprocess.run(
                [*tmux, "display-message", "-p", "-t", session, "#{pane_pid}"],
                capture_output=True,
                text=True,
                check=True,
            ).stdout  # fmt: skip
        )
        subprocess.run([*tmux, "kill-pane", "-t", session], check=True)
        # Ended: gone, or a zombie the tmux server has not reaped yet.
        assert wait_until(lambda: process_state(pid) in ("", "Z")), process_state(pid)
    finally:
        _stop(tmux)
    # A barrier, not a check: under load the pair was seen still locked just after the process
    # looked gone (in 2 of 5 runs); the check below says so if it is never given back.
    wait_until(lambda: pair_given_back(state))
    assert pair_opens(state)


KEEPER = textwrap.dedent(
    """
    # Starts the app as its child on this terminal and never reaps it: once killed, it stays a
    # zombie until this process ends.
    import subprocess, sys, time
    from pathlib import Path
    child = subprocess.Popen(sys.argv[2:])
    Path(sys.argv[1]).write_text(str(child.pid))
    time.sleep(600)
    """
)


@pytest.mark.slow  # a variant of a flow the default run covers (the suite's CPU budget); CI runs it
def test_a_killed_app_not_yet_reaped_blocks_neither_the_next_open_nor_a_signoff(tmp_path):
    tmux = _tmux()
    state = tmp_path / "state"
    pid_file = tmp_path / "app.pid"
    keeper = tmp_path / "keeper.py"
    keeper.write_text(KEEPER)
    first = f"evaltui-{uuid.uuid4().hex[:8]}"
    command = _once_sized(
        f"cd {ROOT} && EVALTUI_STATE_DIR={state} exec {sys.executable} {keeper} {pid_file} "
        f"{SCRIPT} {BASE} {CAND}",
        100,
        30,
    )
    subprocess.run(
        [*tmux, "new-session", "-d", "-s", first, "-x", "100", "-y", "30", command], check=True
    )
    try:
        _full_header(tmux, first)
        pid = int(pid_file.read_text())
        subprocess.run([*tmux, "send-keys", "-t", first, "4"], check=True)
        _wait_for(tmux, first, "saved:")
        os.kill(pid, signal.SIGKILL)
        assert wait_until(lambda: process_state(pid) == "Z"), process_state(pid)
        env = {**os.environ, "EVALTUI_STATE_DIR": str(state)}
        done = subprocess.run(
            [str(SCRIPT), "signoff", str(BASE), str(CAND), "--decision", "block",
             "--reviewer", "dana", "--rationale", "after a kill", "--output",
             str(tmp_path / "so")],
            capture_output=True, text=True, env=env, timeout=TIMEOUT, check=False,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        record = json.loads((tmp_path / "so.json").read_text())
        assert record["triage"]["triaged"] == 1 and record["triage"]["by_tag"] == {"flaky": 1}
        second = f"evaltui-{uuid.uuid4().hex[:8]}"
        # Started once the pane has its size: an app that read 0x0 draws at Textual's 80x24,
        # its header folded and the triage line absent (seen under the parallel slow run).
        again = _once_sized(
            f"cd {ROOT} && EVALTUI_STATE_DIR={state} {SCRIPT} {BASE} {CAND}; "
            "echo EXIT=$?; sleep 30",
            100,
            30,
        )
        subprocess.run(
            [*tmux, "new-session", "-d", "-s", second, "-x", "100", "-y", "30", again],
            check=True,
        )
        _wait_for(tmux, second, "Triage: 1 of 9")
        subprocess.run([*tmux, "send-keys", "-t", second, "q"], check=True)
        _wait_for(tmux, second, "EXIT=0")
        assert process_state(pid) == "Z"  # all of it ran against the unreaped app
        assert "another evaltui" not in _capture(tmux, second)
    finally:
        _stop(tmux)
