"""The CLI asks OpenBLAS for one thread (its spinning workers cost ~0.12 s of CPU per process,
for matrix products evaltui does not make), unless the user chose a number; and leaves the
environment as it found it."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from evaltui.cli import main as cli_main


@pytest.mark.parametrize("chosen", [None, "4"], ids=["unset", "chosen by the user"])
def test_a_command_runs_with_one_blas_thread_unless_the_user_chose(monkeypatch, chosen):
    if chosen is None:
        monkeypatch.delenv("OPENBLAS_NUM_THREADS", raising=False)
    else:
        monkeypatch.setenv("OPENBLAS_NUM_THREADS", chosen)
    seen = []
    monkeypatch.setattr(
        cli_main, "_main", lambda argv: seen.append(os.environ.get("OPENBLAS_NUM_THREADS")) or 0
    )
    assert cli_main.main(["plan", "--delta", "0.05"]) == 0
    assert seen == [chosen or "1"]
    assert os.environ.get("OPENBLAS_NUM_THREADS") == chosen  # restored on return


def test_numpy_is_not_loaded_before_main_sets_the_variable():
    # OpenBLAS reads OPENBLAS_NUM_THREADS once, when numpy first loads it
    code = "import sys, evaltui.cli.main; print('numpy' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.stdout.strip() == "False", done.stderr
