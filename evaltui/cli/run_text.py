"""Printing text from the runs (ids, model output, names) where a GitHub Actions runner reads it.

The runner reads every line a step prints, on stdout and stderr, for workflow commands (`::` at
a line's start, the legacy `##[` anywhere in it): an item id or a model's answer printed raw
could mask a secret, fake an error annotation or stop the runner reading our own commands. So
every command that prints run text to stdout does it through `print_run_text`, the one place
that knows how, and each command's output stays what its reader expects:

- text is printed between `::stop-commands::<token>` and `::<token>::` (a fresh random token per
  run, which no run text can guess): the runner acts on nothing between them;
- a JSON or Markdown document is defused instead (`core.report.github.defused_document`: the
  same document to its reader), because it is often redirected to a file, which the two lines
  would spoil.

Lines on stderr (errors, warnings) are defused one by one (`errors.message_line`). Outside
Actions nothing is changed.
"""

from __future__ import annotations

import contextlib
import io
import os
import secrets
import sys
from collections.abc import Callable, Mapping

DOCUMENTS = ("json", "markdown")  # forms defused, not fenced


def in_actions(environ: Mapping[str, str] | None = None) -> bool:
    """Whether the command runs in GitHub Actions (the runner sets `GITHUB_ACTIONS=true`)."""
    env = os.environ if environ is None else environ
    return env.get("GITHUB_ACTIONS") == "true"


def print_run_text(form: str, print_it: Callable[[], int], guard: bool | None = None) -> int:
    """Run `print_it` (it prints run text to stdout in `form`: text, json or markdown, and
    returns the exit code), made inert to the runner when `guard` (default: in Actions)."""
    if not (in_actions() if guard is None else guard):
        return print_it()
    from evaltui.core.report.github import defused_document, stop_commands

    if form in DOCUMENTS:
        printed = io.StringIO()
        with contextlib.redirect_stdout(printed):
            code = print_it()
        sys.stdout.write(defused_document(printed.getvalue(), form))
        sys.stdout.flush()
        return code
    stop, resume = stop_commands(secrets.token_hex(16))
    write_line(sys.stdout, stop)
    tail = _Tail(sys.stdout)
    try:
        with contextlib.redirect_stdout(tail):  # type: ignore[type-var]
            return print_it()
    finally:  # (a failure half-way too: the runner must read our error annotation)
        # on a line of its own, or the runner would never start reading commands again
        write_line(sys.stdout, resume if tail.last == "\n" else "\n" + resume)


def write_line(stream: object, text: str) -> None:
    """One line on `stream` after everything printed to stdout so far (the runner reads both
    streams as one log: an annotation must not land inside the report)."""
    sys.stdout.flush()
    stream.write(text + "\n")  # type: ignore[attr-defined]
    stream.flush()  # type: ignore[attr-defined]


class _Tail:
    """stdout, remembering the last character written (streamed, not held: a long report or
    transcript is not kept in memory, and Rich still sees the real stream's terminal)."""

    def __init__(self, out: object) -> None:
        self.out, self.last = out, "\n"

    def write(self, text: str) -> int:
        if text:
            self.last = text[-1]
        return self.out.write(text)  # type: ignore[attr-defined]

    def __getattr__(self, name: str) -> object:
        return getattr(self.out, name)
