"""The orphaned app of issue 26 in real terminals: a reviewer is never locked out of their own
review.

App A runs in one tmux server, app B in another (two terminals, as two SSH sessions would be).
- A silent SSH drop: the side of A's terminal that reads its output stops (its tmux server is
  SIGSTOPped, as sshd stops reading when the client vanished); A is alive and its terminal
  still exists, so B asks: `r` opens read-only (a write key is refused by name), `t` ends A
  and takes the review over with A's tags intact.
- A's terminal gone while A cannot notice (A stopped, not its terminal's session, then its
  tmux server killed): B takes the review over without asking and says so in one line.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import uuid
from pathlib import Path

import pytest

from tests.ui.test_hangup import (
    BASE,
    CAND,
    ROOT,
    SCRIPT,
    lock_path,
    process_state,
    wait_until,
)
from tests.ui.test_real_terminal import (
    _capture,
    _full_header,
    _once_sized,
    _stop,
    _tmux,
    _wait_for,
)


def toast_text(screen: str) -> str:
    """The toasts' words on a captured screen, their lines joined: a toast wraps where its width
    falls (the window's width, the host's name in the text), so a phrase may span two lines.
    A toast line is what follows its `▌` edge, up to the padding (a run of spaces) before the
    list row it covers shows again."""
    parts = [
        re.split(r" {2,}", line.rsplit("▌", 1)[1].strip())[0]
        for line in screen.splitlines()
        if "▌" in line
    ]
    return " ".join(parts)


def wait_for_toast(tmux: list[str], session: str, *phrases: str, timeout: float = 30.0) -> None:
    """A barrier on a toast's words, wherever they wrap."""
    said = lambda: all(p in toast_text(_capture(tmux, session)) for p in phrases)  # noqa: E731
    if not wait_until(said, timeout=timeout, step=0.2):
        screen = _capture(tmux, session)
        raise AssertionError(f"no toast said {phrases!r}; toasts: {toast_text(screen)!r}\n{screen}")


pytestmark = [
    pytest.mark.slow,  # two or three app starts in real terminals: CI runs them
    pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc"),
]


def start(tmux: list[str], state: Path, *, own_session: bool = False) -> str:
    """The app on the demo pair in a new session of `tmux`; the session's name."""
    session = f"evaltui-{uuid.uuid4().hex[:8]}"
    app = f"{SCRIPT} {BASE} {CAND}"
    if own_session:  # not its terminal's session: closing the terminal sends it no SIGHUP
        app = f"setsid -w {app}"
    command = _once_sized(
        f"cd {ROOT} && EVALTUI_STATE_DIR={state} {app}; echo EXIT=$?; sleep 30", 100, 30
    )
    subprocess.run(
        [*tmux, "new-session", "-d", "-s", session, "-x", "100", "-y", "30", command], check=True
    )
    return session


def holder_pid(state: Path) -> int:
    return int(json.loads(lock_path(state).read_text())["pid"])


def server_pid(tmux: list[str]) -> int:
    done = subprocess.run(
        [*tmux, "display-message", "-p", "#{pid}"], capture_output=True, text=True, check=True
    )
    return int(done.stdout.strip())


def keys(tmux: list[str], session: str, *pressed: str) -> None:
    subprocess.run([*tmux, "send-keys", "-t", session, *pressed], check=True)


def test_after_a_silent_drop_the_review_opens_read_only_or_is_taken_over(tmp_path):
    state = tmp_path / "state"
    first, second = _tmux(), _tmux()
    stopped = None
    try:
        a = start(first, state)
        _full_header(first, a)
        keys(first, a, "4")  # A tags the first regression
        _wait_for(first, a, "saved:")
        pid = holder_pid(state)
        stopped = server_pid(first)
        os.kill(stopped, signal.SIGSTOP)  # nobody reads A's terminal any more

        b = start(second, state)
        _wait_for(second, b, "This review is open in another evaltui", f"pid {pid}")
        keys(second, b, "r")
        _wait_for(second, b, "8 of 9 untriaged")  # A's tag, read
        # The opening toast says read-only too: once it is gone, a write key must say it again.
        assert wait_until(lambda: "read-only: another" not in _capture(second, b), timeout=20)
        keys(second, b, "1")
        wait_for_toast(second, b, "read-only: another evaltui", "holds this review")
        assert "saved:" not in _capture(second, b)
        keys(second, b, "q")
        _wait_for(second, b, "EXIT=0")
        assert process_state(pid) not in ("", "Z")  # read-only left A alone

        c = start(second, state)
        _wait_for(second, c, "This review is open in another evaltui")
        keys(second, c, "t")
        _wait_for(second, c, "8 of 9 untriaged")
        wait_for_toast(second, c, "took over the review from pid")
        assert wait_until(lambda: process_state(pid) in ("", "Z")), process_state(pid)
        keys(second, c, "5")  # B writes now
        _wait_for(second, c, "saved:")
        keys(second, c, "q")
        _wait_for(second, c, "EXIT=0")
    finally:
        if stopped is not None:
            os.kill(stopped, signal.SIGCONT)
        _stop(first)
        _stop(second)
    journal = (lock_path(state).parent / "journal.jsonl").read_text().splitlines()
    tags = [json.loads(line) for line in journal if '"kind":"tag"' in line]
    assert [t["tag"] for t in tags] == ["flaky", "needs investigation"]


def test_an_app_whose_terminal_is_gone_is_taken_over_without_asking(tmp_path):
    state = tmp_path / "state"
    first, second = _tmux(), _tmux()
    pid = None
    try:
        a = start(first, state, own_session=True)
        _full_header(first, a)
        pid = holder_pid(state)
        tty = json.loads(lock_path(state).read_text())["tty"]
        assert tty.startswith("/dev/")
        os.kill(pid, signal.SIGSTOP)  # it cannot notice its terminal going
        _stop(first)  # the terminal is gone
        assert wait_until(lambda: not os.path.exists(tty))
        assert process_state(pid) == "T"  # alive, stopped, holding the review

        b = start(second, state)
        wait_for_toast(second, b, "took over the review from pid", "whose terminal is gone")
        assert "This review is open in another evaltui" not in _capture(second, b)
        assert wait_until(lambda: process_state(pid) in ("", "Z")), process_state(pid)
        keys(second, b, "q")
        _wait_for(second, b, "EXIT=0")
    finally:
        if pid is not None and process_state(pid) not in ("", "Z"):
            os.kill(pid, signal.SIGKILL)
        _stop(first)
        _stop(second)
