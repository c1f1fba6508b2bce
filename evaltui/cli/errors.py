"""How the command line ends: its exit codes, and every error a user can cause as one line on
stderr with exit code 2, never a traceback (`main` catches; this module says what to print)."""

from __future__ import annotations

import os
import sys

EXIT_OK = 0
EXIT_REGRESSED = 1
EXIT_USAGE = 2
EXIT_INTERNAL = 3
EXIT_SIGPIPE = 141  # what a shell reports for a writer whose reader closed the pipe


def reader_went_away() -> int:
    """`evaltui report A B | head`: the reader stopped reading. Nothing to say; stdout is
    pointed at /dev/null so the interpreter's final flush does not complain either."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except OSError:
        pass
    return EXIT_SIGPIPE


def fail(exc: Exception) -> int:
    """An exception that reached `main`: bad input and the environment are exit 2 on one line;
    anything else is a bug, exit 3, named on one line (the traceback with EVALTUI_DEBUG=1)."""
    from evaltui.core.errors import EvalTuiError

    if isinstance(exc, EvalTuiError):
        sys.stderr.write(f"evaltui: error: {message_line(exc)}\n")
        return EXIT_USAGE
    if isinstance(exc, OSError) and exc.filename is not None:
        # The environment, not a bug: a file that cannot be read or written (permissions, a
        # full or read-only disk) that no more specific check caught. One line, the path.
        from evaltui.core.record.journal import os_error_text

        text = message_line(f"{exc.filename}: {os_error_text(exc)}")
        sys.stderr.write(f"evaltui: error: {text}\n")
        return EXIT_USAGE
    if isinstance(exc, OSError):  # the environment too (a full disk, no permission), unnamed
        sys.stderr.write(f"evaltui: error: {message_line(exc.strerror or exc)}\n")
        return EXIT_USAGE
    if os.environ.get("EVALTUI_DEBUG"):
        raise exc
    sys.stderr.write(
        f"evaltui: internal error: {type(exc).__name__}: {message_line(exc)} "
        "(set EVALTUI_DEBUG=1 for the traceback, and please report it)\n"
    )
    return EXIT_INTERNAL


def message_line(message: object) -> str:
    """An error message as one inert line for stderr: it may quote an id, a path or a key
    from an input, and a terminal would obey the escapes in it (set the title, the clipboard,
    clear the screen), so control and bidi characters are shown as visible stand-ins. In
    GitHub Actions `::` and `##[` are broken too: the runner would obey a workflow command."""
    from evaltui.core.textsafe import one_line

    line = one_line(str(message))
    if os.environ.get("GITHUB_ACTIONS") == "true":  # the runner reads stderr for commands too
        from evaltui.core.report.github import defused

        line = defused(line)
    return line


def is_panic(exc: BaseException) -> bool:
    """A Rust panic inside polars (pyo3's PanicException, a BaseException)."""
    return type(exc).__name__ == "PanicException"


def panicked(exc: BaseException) -> int:
    """A polars panic no loader turned into an input error: named, exit 3 (internal), never a
    traceback and exit 1, which `report` means as "blocked". (A panic while reading an input
    is the formats' InputError, exit 2.)"""
    if os.environ.get("EVALTUI_DEBUG"):
        raise exc
    sys.stderr.write(
        f"evaltui: internal error: polars panicked: {message_line(exc)} "
        "(set EVALTUI_DEBUG=1 for the traceback, and please report it)\n"
    )
    return EXIT_INTERNAL
