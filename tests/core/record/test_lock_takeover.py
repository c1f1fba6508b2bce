"""Never locked out of your own review: a holder nobody can be at is taken over, a live one is
named with its terminal and how to end it, and ended only when asked (issue 26, item 5).

The holders here are small processes that take the pair's flock and write a holder text, so
each test costs one interpreter start (tens of ms), not an evaltui import.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from evaltui.core.errors import UsageError
from evaltui.core.record import lock as lock_module
from evaltui.core.record.journal import ReviewSession, session_key
from evaltui.core.record.lock import LOCK_NAME, LockHeld, read_holder
from evaltui.core.record.lock_holder import (
    ALIVE,
    ELSEWHERE,
    GONE,
    TERMINAL_GONE,
    Holder,
    holder_state,
    process_start,
)

HOST = socket.gethostname()
DEAD_PID = 2**22 + 7  # above the default pid_max: no process has it
TIMEOUT = 20.0

HOLDER = textwrap.dedent(
    """
    import fcntl, json, os, signal, sys, time
    path, tty, host, mode = sys.argv[1:5]
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    fcntl.flock(fd, fcntl.LOCK_EX)
    pid = 2**22 + 7 if mode == "name-dead" else os.getpid()
    text = {"pid": pid, "host": host, "time": "t0", "tty": tty, "ctty": False}
    data = json.dumps(text).encode()
    os.pwrite(fd, data, 0)
    os.ftruncate(fd, len(data))
    if mode == "ignore-term":
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    print("locked", flush=True)
    time.sleep(60)
    """
)


@pytest.fixture
def pair(tmp_path: Path) -> tuple[Path, Path, Path]:
    return tmp_path / "state", tmp_path / "b.jsonl", tmp_path / "c.jsonl"


def folder_of(root: Path, base: Path, cand: Path) -> Path:
    folder = root / "sessions" / session_key(base, cand)
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def start_holder(folder: Path, tty: str = "", host: str = HOST, mode: str = "") -> subprocess.Popen:
    """A process holding the pair's flock whose text names it, its terminal `tty`."""
    args = [sys.executable, "-c", HOLDER, str(folder / LOCK_NAME), tty, host, mode]
    holder = subprocess.Popen(args, stdout=subprocess.PIPE, text=True)
    assert holder.stdout is not None and holder.stdout.readline().strip() == "locked"
    return holder


def ended(holder: subprocess.Popen) -> int | None:
    try:
        return holder.wait(TIMEOUT)
    except subprocess.TimeoutExpired:
        return None


def stop(holder: subprocess.Popen) -> None:
    if holder.poll() is None:
        holder.kill()
    holder.wait()


# -- judging a holder --------------------------------------------------------------------------


def test_a_dead_pid_is_gone_and_a_live_one_without_terminal_is_alive():
    assert holder_state(Holder(DEAD_PID, HOST)) == GONE
    assert holder_state(Holder(os.getpid(), HOST, start=process_start(os.getpid()))) == ALIVE


def test_a_live_pid_whose_recorded_terminal_no_longer_exists_is_stale():
    gone_tty = "/dev/pts/987654"  # no such pty: its other side closed (a dropped SSH session)
    assert not os.path.exists(gone_tty)
    assert holder_state(Holder(os.getpid(), HOST, tty=gone_tty)) == TERMINAL_GONE


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc start times")
def test_a_reused_pid_with_another_start_time_is_not_the_holder():
    start = process_start(os.getpid())
    assert start > 0
    assert holder_state(Holder(os.getpid(), HOST, start=start + 1)) == GONE


def test_a_holder_on_another_host_cannot_be_judged_from_here():
    assert holder_state(Holder(DEAD_PID, HOST + "-elsewhere")) == ELSEWHERE


# -- opening over a holder -------------------------------------------------------------------


def test_a_holder_that_died_holding_the_pair_is_taken_over_with_one_line(pair):
    root, base, cand = pair
    folder = folder_of(root, base, cand)
    (folder / LOCK_NAME).write_text(json.dumps({"pid": DEAD_PID, "host": HOST, "time": "t"}))
    session = ReviewSession.open(base, cand, "s1", "s2", root=root)
    try:
        assert (
            session.took_over == f"took over the review from pid {DEAD_PID}, whose process is gone"
        )
        held = read_holder(folder)
        assert held is not None and held.pid == os.getpid()
    finally:
        session.close()
    again = ReviewSession.open(base, cand, "s1", "s2", root=root)
    assert again.took_over == ""  # a clean release leaves no one to take over from
    again.close()


def test_a_live_holder_whose_terminal_is_gone_is_ended_and_taken_over(pair):
    root, base, cand = pair
    folder = folder_of(root, base, cand)
    holder = start_holder(folder, tty="/dev/pts/987654")
    try:
        session = ReviewSession.open(base, cand, "s1", "s2", root=root)
        assert ended(holder) == -signal.SIGTERM  # told to end, not killed outright
        assert session.took_over == (
            f"took over the review from pid {holder.pid}, whose terminal is gone"
        )
        session.set_tag("q1", "flaky")
        session.close()
    finally:
        stop(holder)


def test_a_live_holder_at_its_terminal_is_refused_by_name_and_left_running(pair):
    root, base, cand = pair
    folder = folder_of(root, base, cand)
    holder = start_holder(folder, tty="/dev/null")  # a terminal path that exists
    try:
        with pytest.raises(LockHeld) as refused:
            ReviewSession.open(base, cand, "s1", "s2", root=root)
        assert holder.poll() is None
    finally:
        stop(holder)
    assert refused.value.holder is not None and refused.value.holder.pid == holder.pid
    assert str(refused.value) == (
        f"another evaltui (pid {holder.pid} on {HOST}, since t0, terminal /dev/null) is "
        f"reviewing this pair; close it, or end it with `kill {holder.pid}`"
    )


def test_a_holder_on_another_host_is_named_with_where_to_end_it_and_never_signalled(pair):
    root, base, cand = pair
    folder = folder_of(root, base, cand)
    holder = start_holder(folder, tty="/dev/pts/987654", host="build-box")
    try:
        with pytest.raises(LockHeld) as refused:
            ReviewSession.open(base, cand, "s1", "s2", root=root)
        with pytest.raises(LockHeld):
            ReviewSession.open(base, cand, "s1", "s2", root=root, end_holder=refused.value.holder)
        assert holder.poll() is None
    finally:
        stop(holder)
    assert str(refused.value).endswith(f"end it with `kill {holder.pid}` on build-box")


def test_taking_over_from_a_live_holder_ends_it_and_then_writes(pair):
    root, base, cand = pair
    folder = folder_of(root, base, cand)
    holder = start_holder(folder, tty="/dev/null")
    try:
        with pytest.raises(LockHeld) as refused:
            ReviewSession.open(base, cand, "s1", "s2", root=root)
        session = ReviewSession.open(
            base, cand, "s1", "s2", root=root, end_holder=refused.value.holder
        )
        assert ended(holder) == -signal.SIGTERM
        assert (
            session.took_over
            == f"took over the review from pid {holder.pid}, which was told to end"
        )
        session.set_tag("q1", "acceptable")
        session.close()
    finally:
        stop(holder)


def test_a_stopped_holder_is_woken_to_end(pair):
    """The orphaned app stopped (SIGSTOP, a suspended job): SIGTERM alone would stay pending."""
    root, base, cand = pair
    folder = folder_of(root, base, cand)
    holder = start_holder(folder, tty="/dev/null")
    try:
        os.kill(holder.pid, signal.SIGSTOP)
        held = read_holder(folder)
        session = ReviewSession.open(base, cand, "s1", "s2", root=root, end_holder=held)
        assert ended(holder) == -signal.SIGTERM
        session.close()
    finally:
        stop(holder)


def test_a_holder_that_ignores_sigterm_is_killed_after_the_wait(pair, monkeypatch):
    monkeypatch.setattr(lock_module, "TERM_WAIT", 0.3)
    root, base, cand = pair
    folder = folder_of(root, base, cand)
    holder = start_holder(folder, tty="/dev/null", mode="ignore-term")
    try:
        started = time.monotonic()
        session = ReviewSession.open(
            base, cand, "s1", "s2", root=root, end_holder=read_holder(folder)
        )
        assert time.monotonic() - started >= 0.3
        assert ended(holder) == -signal.SIGKILL
        session.close()
    finally:
        stop(holder)


def test_a_lock_held_by_a_process_its_text_does_not_name_is_never_signalled(pair, monkeypatch):
    """The text names a dead pid while another process holds the flock (a descriptor the
    dead holder left behind): nothing is ended, and the error says how to find the holder."""
    monkeypatch.setattr(lock_module, "TERM_WAIT", 0.1)
    monkeypatch.setattr(lock_module, "KILL_WAIT", 0.1)
    root, base, cand = pair
    folder = folder_of(root, base, cand)
    holder = start_holder(folder, tty="/dev/null", mode="name-dead")
    try:
        with pytest.raises(LockHeld) as refused:
            ReviewSession.open(base, cand, "s1", "s2", root=root)
        assert refused.value.state == GONE
        with pytest.raises(UsageError, match=r"not by pid 4194311, which is gone; .*fuser"):
            ReviewSession.open(base, cand, "s1", "s2", root=root, end_holder=refused.value.holder)
        assert holder.poll() is None
    finally:
        stop(holder)
