"""The terminal going away (SIGHUP, a closed pty): the app ends as q does, within a second.
Told to end (SIGTERM: another evaltui taking the review over, `kill PID`): the same.

A mixin of the app (`EvalTuiApp`). Textual 8 handles neither signal (its Linux driver only
handles SIGTSTP/SIGCONT/SIGWINCH): without these handlers SIGHUP and SIGTERM ended the process
at once, the terminal left in the application's modes. Every tag and note is on disk when it
says saved, and a note or rationale being typed is kept as a draft as it is typed
(`core/record/drafts.py`), so ending loses nothing the next open does not offer back.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sys
import threading

from evaltui.ui.base import ReviewApp
from evaltui.ui.messages import TerminalGone

HANGUP_CODE = 128 + signal.SIGHUP  # the exit status when the terminal went away
TERMINATED_CODE = 128 + signal.SIGTERM  # the exit status when told to end
TERMINAL_CHECK = 0.25  # seconds between checks that the terminal is still there
HANGUP_GRACE = 0.5  # seconds the normal shutdown may take before the process just ends


class TerminalWatch(ReviewApp):
    """Ends the app when its terminal is gone (see `check_terminal`)."""

    _ttys: list[int]

    def check_terminal(self) -> None:
        """End the app when its terminal goes away, so it never holds the pair with no one at
        the keys: on SIGHUP (a closed tmux pane, a dropped SSH session), and when the terminal
        stops answering without one (a pty closed under a process that ignores SIGHUP or is
        not its session's): reads then return nothing and every terminal call fails with EIO.
        """
        ttys = [f.fileno() for f in (sys.__stdin__, sys.__stdout__, sys.__stderr__) if f]
        self._ttys = [fd for fd in ttys if os.isatty(fd)]
        with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
            # (no signals on this platform or loop: the polling below still notices)
            asyncio.get_running_loop().add_signal_handler(signal.SIGHUP, self.hang_up)
        with contextlib.suppress(ValueError, OSError):  # (not the main thread: nothing to do)
            # A plain handler, not the loop's: it runs even while the loop is stuck (a write to
            # a terminal nobody reads), starts the backstop, then asks the loop to end.
            loop = asyncio.get_running_loop()
            signal.signal(
                signal.SIGTERM,
                lambda *_: self._terminated(loop),
            )
        # Polled from a thread of its own, not the event loop: a loop stuck writing to the
        # terminal that is gone would never run a timer (seen under load in CI).
        threading.Thread(target=self._poll_terminal, daemon=True, name="terminal check").start()

    def _poll_terminal(self) -> None:
        import termios

        while not self.hung_up:
            threading.Event().wait(TERMINAL_CHECK)
            for fd in self._ttys:
                try:
                    termios.tcgetattr(fd)
                except (termios.error, OSError):
                    # The backstop first: if the loop is stuck, the call below never returns.
                    threading.Thread(target=_end_after_grace, daemon=True, name="hangup").start()
                    self.post_message(TerminalGone())  # thread-safe, and never blocks
                    return

    def on_terminal_gone(self, message: TerminalGone) -> None:
        self.hang_up()

    def _terminated(self, loop: asyncio.AbstractEventLoop) -> None:
        """SIGTERM: end as q does, within HANGUP_GRACE, whatever the loop is doing."""
        threading.Thread(
            target=_end_after_grace, args=(TERMINATED_CODE,), daemon=True, name="terminated"
        ).start()
        with contextlib.suppress(RuntimeError):  # the loop has closed: the backstop ends it
            loop.call_soon_threadsafe(self._end_now, TERMINATED_CODE)

    def _end_now(self, code: int) -> None:
        self.hung_up = self.state.closing = True
        self.exit(code, return_code=code)

    def hang_up(self) -> None:
        """The terminal is gone: end as q does (every tag and note is already on disk; a note
        being typed is not, see the note editor). Textual's shutdown writes to the terminal
        that is gone; if that takes longer than HANGUP_GRACE, the process just ends: the
        kernel drops the pair's lock either way."""
        if self.hung_up:
            return
        self.hung_up = self.state.closing = True
        self.exit(HANGUP_CODE, return_code=HANGUP_CODE)
        threading.Thread(target=_end_after_grace, daemon=True, name="hangup").start()


def _end_after_grace(code: int = HANGUP_CODE) -> None:
    """The hang-up's backstop: end the process if the normal shutdown has not by now."""
    threading.Event().wait(HANGUP_GRACE)
    os._exit(code)
