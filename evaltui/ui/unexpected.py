"""Bugs inside the running app: reported on screen and in the error log, the review kept open.

A mixin of the app (`EvalTuiApp`): Textual's one place for uncaught errors
(`_handle_exception`), every key's action (`run_action`) and the log they write to.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from textual.screen import Screen

from evaltui.core.record.journal import os_error_text
from evaltui.ui.base import ReviewApp

MAX_RECOVERED_ERRORS = 20  # unexpected errors one session survives; more, and the app ends


class UnexpectedErrors(ReviewApp):
    """The app's handling of its own bugs (see the module's docstring)."""

    async def run_action(
        self, action: Any, default_namespace: Any = None, namespaces: Any = None
    ) -> bool:
        """Every key binding runs its action here. A key for a screen that is not (or no
        longer) the one on top, still being built or already torn down (a key typed while the
        next item loads or the screen closes), is ignored. A bug in an action is reported by
        `report_unexpected` and the review stays open."""
        target = default_namespace
        if isinstance(target, Screen) and not (
            target.is_mounted
            and target.is_attached
            and not target._closing
            and target is self.screen
        ):
            return False
        try:
            return await super().run_action(action, default_namespace, namespaces)
        except Exception as error:  # noqa: BLE001 - reported on screen and in the log
            if not self.report_unexpected(error, f"the {_action_name(action)} key"):
                raise
            return True

    def _handle_exception(self, error: Exception) -> None:
        """Textual's one place for an error no handler caught; by default it ends the app with
        a traceback. Here a failed background task, or a failure inside a screen other than
        the main one (that screen is closed: its message loop has stopped), is reported and
        the review stays open. Anything else (the app itself or the main screen failing, or
        a report refused) ends the app with one line naming the error and the log."""
        from textual._context import active_message_pump
        from textual.worker import WorkerFailed

        if isinstance(error, WorkerFailed):
            where: str | None = "a background task"
        else:
            screen = _screen_of(active_message_pump.get(None))
            where = None
            if screen is not None and screen is not self.main_screen:
                where = f"the {type(screen).__name__.removesuffix('Screen').lower()} screen"
                if screen in self.screen_stack:
                    self.call_later(self._close_broken_screen, screen)
        if where is not None and self.report_unexpected(error, where):
            return
        cause = error.error if isinstance(error, WorkerFailed) else error
        logged = self._log_unexpected(cause, "ended the app")
        self.load_error = f"internal error: {error_text(cause)} ({logged})"  # the CLI prints it
        super()._handle_exception(error)
        self._return_code = 3  # the CLI's internal-error exit code

    def _fatal_error(self) -> None:
        """End after an error nothing recovered: the CLI prints one line (`load_error`), and
        the traceback is in the log; EVALTUI_DEBUG=1 prints Textual's traceback as well."""
        if os.environ.get("EVALTUI_DEBUG"):
            super()._fatal_error()
            return
        self.bell()
        self._close_messages_no_wait()

    def report_unexpected(self, error: BaseException, where: str) -> bool:
        """The one handler for a bug inside the running app: the traceback goes to the log,
        the screen says what failed in red, the review stays open. Returns False (the caller
        lets the error end the app) under EVALTUI_DEBUG=1, while closing, or once
        MAX_RECOVERED_ERRORS have been survived. Every report is kept in `unexpected_errors`,
        and the first is also left where Pilot's `run_test` re-raises it at the end, so a test
        never passes over a bug the app survived."""
        from textual.worker import WorkerFailed

        if (
            os.environ.get("EVALTUI_DEBUG")
            or self.state.closing
            or len(self.unexpected_errors) >= MAX_RECOVERED_ERRORS
        ):
            return False
        cause = error.error if isinstance(error, WorkerFailed) else error
        text = error_text(cause)
        self.unexpected_errors.append(f"{where}: {text}")
        if self._exception is None and isinstance(cause, Exception):
            self._exception = cause
        logged = self._log_unexpected(cause, where)
        self.notify(
            f"internal error in {where}: {text}. The review is still open; every tag and note "
            f"shown as saved is on disk ({logged}; please report it).",
            title="evaltui bug",
            severity="error",
            timeout=30,
            markup=False,
        )
        return True

    def _close_broken_screen(self, screen: Screen) -> None:
        """Close a screen whose message loop stopped on an error, and every one above it."""
        stack = self.screen_stack
        if screen in stack and stack.index(screen) > 0:
            for _ in range(len(stack) - stack.index(screen)):
                self.pop_screen()

    def error_log(self) -> Path:
        from evaltui.core.record.journal import state_dir

        return (self.config.state_root or state_dir()) / "errors.log"

    def _log_unexpected(self, error: BaseException, where: str) -> str:
        """Append the traceback to the error log; what to tell the reviewer about it."""
        import time
        import traceback

        path = self.error_log()
        text = "".join(traceback.format_exception(error))
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            with path.open("a", encoding="utf-8") as log:
                log.write(f"--- {time.strftime('%Y-%m-%dT%H:%M:%S%z')} in {where}\n{text}")
        except OSError as exc:
            return f"the traceback could not be written to {path}: {os_error_text(exc)}"
        return f"traceback in {path}"


def error_text(error: BaseException) -> str:
    """`Type: message` on one line, bounded."""
    return f"{type(error).__name__}: {' '.join(str(error).split())}"[:300]


def _action_name(action: Any) -> str:
    """An action as the reviewer's key named it: `scroll(1)`, `tag(3)`."""
    return action if isinstance(action, str) else repr(action)


def _screen_of(node: Any) -> Screen | None:
    """The screen a message pump (a widget, a screen) belongs to; None for the app."""
    while node is not None and not isinstance(node, Screen):
        node = getattr(node, "parent", None)
    return node
