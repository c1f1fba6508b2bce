"""The command line run inside the test's own process, returned as a subprocess would be.

A child `evaltui` costs about a CPU-second before it reads a byte (Python, polars, scipy and
the package imported anew); tests that check what a command prints and returns, not how the
installed script starts, run `main()` here instead. A test that needs a real process (a
dropped capability, a signal, the console script itself) keeps its subprocess.
"""

from __future__ import annotations

import io
import os
import subprocess
from collections.abc import Mapping, Sequence
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

from evaltui.cli.main import main


def run_evaltui(
    args: Sequence[str | Path], env: Mapping[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """`evaltui ARGS` in this process with `env` added to the environment for the call:
    its exit code and what it wrote to stdout and stderr. An exception that escapes `main`
    (a traceback a user would see) fails the calling test as it propagates."""
    argv = [str(a) for a in args]
    added = dict(env or {})
    before = {name: os.environ.get(name) for name in added}
    out, err = io.StringIO(), io.StringIO()
    os.environ.update(added)
    try:
        with redirect_stdout(out), redirect_stderr(err):
            code = main(argv)
    finally:
        for name, value in before.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
    return subprocess.CompletedProcess(["evaltui", *argv], code, out.getvalue(), err.getvalue())
