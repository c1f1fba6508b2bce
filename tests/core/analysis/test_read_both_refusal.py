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
