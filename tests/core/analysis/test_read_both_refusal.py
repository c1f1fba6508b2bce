"""When the baseline is refused, the candidate's reader (a daemon thread that goes on reading, so
the refusal comes at once) reports nothing more: no progress line drawn after the one-line error,
no thread writing to stderr while the interpreter exits (CPython's fatal
`_enter_buffered_busy`, exit 134). The real thing through a pty, many times: the slow
tests/cli/test_refusal_exit.py."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from evaltui.core.analysis import read_both
from evaltui.core.errors import EvalTuiError
from evaltui.core.read import meter
from evaltui.core.read.formats import LoadOptions


def test_the_candidate_read_on_after_the_baseline_is_refused_reports_no_progress(
    tmp_path: Path, monkeypatch
):
    base, cand = tmp_path / "base.jsonl", tmp_path / "cand.jsonl"
    base.write_text("not a record\n")
    cand.write_bytes(b"x" * 100_000)
    refused, read_on = threading.Event(), threading.Event()

    def read_candidate(path, input_format, options, wait_for_hash):
        refused.wait(30)
        meter.read(50_000)  # still reading after the refusal
        read_on.set()
        raise EvalTuiError("(never heard of)")

    def refuse_baseline(path, input_format, options, wait_for_hash):
        raise EvalTuiError(f"{path}:1: not a record")

    monkeypatch.setattr(read_both, "candidate_loader", lambda *args: read_candidate)
    monkeypatch.setattr(read_both, "load_run", refuse_baseline)
    said: list[tuple[str, float, int]] = []
    with pytest.raises(EvalTuiError, match=":1: not a record"):
        read_both.load_both(
            base,
            cand,
            None,
            LoadOptions(),
            LoadOptions(),
            progress=lambda *report: said.append(report),
            prefetch=False,
        )
    refused.set()
    assert read_on.wait(30)
    assert said == []


SCRIPT = """
import logging, sys, threading
from evaltui.cli.main import main
from evaltui.core.analysis import read_both
from evaltui.core.errors import EvalTuiError
from evaltui.core.held_warnings import LOGGER

refused, warned = threading.Event(), threading.Event()

def read_candidate(path, input_format, options, wait_for_hash):
    refused.wait(30)
    logging.getLogger(LOGGER).warning("%s: a damaged cache entry, read afresh", path)
    warned.set()
    raise EvalTuiError("(never heard of)")

def refuse_baseline(path, input_format, options, wait_for_hash):
    raise EvalTuiError(f"{path}:1: not a record")

read_both.candidate_loader = lambda *args: read_candidate
read_both.load_run = refuse_baseline
code = main(["report", sys.argv[1], sys.argv[2]])
refused.set()
warned.wait(30)
sys.exit(code)
"""


def test_a_cache_warning_from_the_candidate_after_the_baseline_is_refused_is_not_printed(
    tmp_path: Path,
):
    """`report`'s refusal is its one line: a damaged cache entry the candidate's thread finds
    afterwards (the caches' logger, on Python's last-resort handler: so in a process of its
    own, where pytest's log capture is not that logger's handler) adds none."""
    import subprocess
    import sys

    base, cand = tmp_path / "base.jsonl", tmp_path / "cand.jsonl"
    base.write_text("not a record\n")
    cand.write_text('{"item_id": "a", "passed": true}\n')
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(base), str(cand)],
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
    err = done.stderr.strip().splitlines()
    assert done.returncode == 2
    assert len(err) == 1 and err[0].endswith(":1: not a record"), err
