"""Who holds a review's lock, and whether anyone is still at its keys.

The flock (`lock.py`) decides who writes; this module only reads the holder's text beside it
(pid, host, start time, controlling terminal) and judges it, so a reviewer is never locked out
of their own review by an app nobody can reach: a holder whose process is gone, or (on this
host) whose terminal is gone or hung up, is stale and may be ended and taken over; a live one
is named, with its terminal and how to end it, and the caller offers to open read-only.

Only the same host can be judged: a pid on another machine says nothing here, so a holder
elsewhere is always "alive". A recorded process start time (Linux: /proc/PID/stat field 22)
guards against a reused pid: a process with the holder's pid but another start time is not the
holder.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import sys
import time
from dataclasses import dataclass
from pathlib import Path

ALIVE = "alive"  # someone may be at its keys: ask before ending it
GONE = "gone"  # the process is gone (or its pid is another process now)
TERMINAL_GONE = "terminal gone"  # alive, but its terminal is gone or hung up: nobody at the keys
ELSEWHERE = "elsewhere"  # on another host: cannot be judged from here


@dataclass(frozen=True)
class Holder:
    """What the lock's text says of the process holding it."""

    pid: int
    host: str
    since: str = ""
    tty: str = ""  # the controlling terminal's path when it took the lock ("" when none)
    start: int = 0  # its start time in clock ticks since boot (Linux), 0 when unknown
    ctty: bool = False  # it had a controlling terminal (a hang-up takes it away)

    def describe(self) -> str:
        """`pid N on HOST, since T, terminal /dev/pts/3`: the holder on one line."""
        text = f"pid {self.pid} on {self.host}"
        if self.since:
            text += f", since {self.since}"
        text += f", terminal {self.tty}" if self.tty else ", no terminal"
        return text

    def how_to_end(self) -> str:
        """What the user can do about a live holder, in words for a one-line refusal."""
        where = "" if self.host == socket.gethostname() else f" on {self.host}"
        return f"close it, or end it with `kill {self.pid}`{where}"


def this_process() -> dict[str, object]:
    """The text this process writes when it takes a lock."""
    tty, ctty = _own_terminal()
    return {
        "pid": os.getpid(),
        "host": socket.gethostname(),
        "time": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "tty": tty,
        "start": process_start(os.getpid()),
        "ctty": ctty,
    }


def parse_holder(raw: bytes) -> Holder | None:
    """The holder from a lock's text; None when it is not that text (empty, torn, garbled).
    Every string must be printable so a refusal built from it stays one line."""
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        return None
    if not isinstance(data, dict):
        return None
    pid, host, since = data.get("pid"), data.get("host"), data.get("time")
    if type(pid) is not int or pid <= 0 or not isinstance(host, str) or not _printable(host):
        return None
    tty, start = data.get("tty"), data.get("start")
    return Holder(
        pid=pid,
        host=host,
        since=since if isinstance(since, str) and _printable(since) else "",
        tty=tty if isinstance(tty, str) and _printable(tty) else "",
        start=start if type(start) is int and start > 0 else 0,
        ctty=data.get("ctty") is True,
    )


def holder_state(holder: Holder) -> str:
    """ALIVE, GONE, TERMINAL_GONE or ELSEWHERE (see the constants)."""
    if holder.host != socket.gethostname():
        return ELSEWHERE
    if not pid_alive(holder.pid):
        return GONE
    if holder.start and process_start(holder.pid) not in (0, holder.start):
        return GONE  # the pid now names another process
    if holder.tty and not os.path.exists(holder.tty):
        return TERMINAL_GONE  # a pty whose other side closed (a dropped SSH session, a pane)
    if holder.ctty and _controlling_terminal(holder.pid) == 0:
        return TERMINAL_GONE  # its terminal hung up and took itself from its session
    return ALIVE


def pid_alive(pid: int) -> bool:
    """The process exists and has not died (a zombie, dead but not reaped, is gone)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass  # another user's process: alive
    return _proc_state(pid) not in ("Z", "X")


def end_process(pid: int) -> None:
    """Ask the holder to end (SIGTERM: the app ends as q does, its drafts already on disk),
    and wake it if it is stopped, as a shell's `kill` of a stopped job does (SIGCONT), so a
    stopped app does not keep the lock with the signal pending. Raises PermissionError for
    another user's process (the caller says so)."""
    os.kill(pid, signal.SIGTERM)
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGCONT)


def kill_process(pid: int) -> None:
    """The last resort for a holder that did not end on SIGTERM within the wait."""
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGKILL)


def process_start(pid: int) -> int:
    """The process's start time in clock ticks since boot (Linux); 0 when unknown."""
    fields = _proc_fields(pid)
    try:
        return int(fields[19]) if fields else 0  # field 22 of stat; 0-based after the name
    except (IndexError, ValueError):
        return 0


def _proc_state(pid: int) -> str:
    fields = _proc_fields(pid)
    return fields[0] if fields else ""


def _controlling_terminal(pid: int) -> int | None:
    """tty_nr of /proc/PID/stat (0: no controlling terminal); None when unknown."""
    fields = _proc_fields(pid)
    try:
        return int(fields[4]) if fields else None
    except (IndexError, ValueError):
        return None


def _proc_fields(pid: int) -> list[str]:
    """The fields of /proc/PID/stat after the command name (state first); [] off Linux."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text(encoding="ascii", errors="replace")
    except OSError:
        return []
    return stat.rsplit(")", 1)[-1].split()


def _own_terminal() -> tuple[str, bool]:
    """The path of this process's terminal (of stdin, stdout or stderr) and whether it has a
    controlling terminal; ("", False) for a process without one (CI, a cron job)."""
    path = ""
    for stream in (sys.__stdin__, sys.__stdout__, sys.__stderr__):
        with contextlib.suppress(AttributeError, OSError, ValueError):
            if stream is not None and os.isatty(stream.fileno()):
                path = os.ttyname(stream.fileno())
                break
    if not _printable(path):
        path = ""
    return path, bool(path) and bool(_controlling_terminal(os.getpid()))


def _printable(text: str) -> bool:
    return 0 < len(text) <= 255 and text.isprintable()
