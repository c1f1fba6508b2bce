"""A refused baseline ends `report` with its one line and exit 2, however big the candidate that
is still being read beside it. At a terminal the candidate's reader (a daemon thread, so the
refusal comes at once) drew its progress line after the error: 9 runs in 60 of a loop on
b51fba3, 1 in 20 of this test's rounds (the deterministic tests are the fast ones:
tests/core/analysis/test_read_both_refusal.py, tests/cli/test_progress_line.py); and a daemon
thread inside a write to stderr as the interpreter exits makes CPython abort ("Fatal Python
error: _enter_buffered_busy", exit 134). Run through a pty so the progress line is drawn."""

from __future__ import annotations

import json
import os
import pty
import subprocess
import sys
from pathlib import Path

import pytest

DATA = Path(__file__).resolve().parent.parent / "data" / "lm_eval"
TEMPLATE = DATA / "sshleifer__tiny-gpt2" / "samples_copa_2026-10-01T23-15-32.942677.jsonl"
SCRIPT = Path(sys.executable).parent / "evaltui"
ROUNDS = 20


def _samples(path: Path, lines: int, refused_at: int | None = None) -> Path:
    """An lm-eval samples file of `lines` copa records; line `refused_at` (1-based) holds an
    `acc` that is no number."""
    template = json.loads(TEMPLATE.read_text(encoding="utf-8").splitlines()[0])
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8") as out:
        for i in range(lines):
            record = dict(template, doc_id=i, acc=1.0 if i % 4 else 0.0)
            record["doc"] = dict(template["doc"], idx=i, premise=f"Premise number {i}.")
            record["doc_hash"] = f"{i:064x}"
            if i + 1 == refused_at:
                record["acc"] = "maybe"
            out.write(json.dumps(record) + "\n")
    return path


def _at_a_terminal(*args: str) -> tuple[int, str]:
    """Run the command with stdout and stderr on a pty; its exit code and all it wrote."""
    master, slave = pty.openpty()
    proc = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=slave, stderr=slave)
    os.close(slave)
    written = b""
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:  # (EIO: the pty's other end closed)
            break
        if not chunk:
            break
        written += chunk
    os.close(master)
    return proc.wait(), written.decode("utf-8", errors="replace")


@pytest.mark.slow
def test_a_refused_baseline_ends_on_its_one_line_and_exit_2_while_the_candidate_is_read(
    tmp_path: Path,
):
    # A baseline refused past the progress line's delay, a candidate three times as long.
    base = _samples(tmp_path / "base" / TEMPLATE.name, 40_001, refused_at=40_001)
    cand = _samples(tmp_path / "cand" / TEMPLATE.name.replace("32.942677", "52.736695"), 120_000)
    wrong = []
    for round_no in range(ROUNDS):
        code, written = _at_a_terminal(str(SCRIPT), "report", str(base), str(cand))
        refusal = written.rpartition("evaltui: error: ")[2]
        if code != 2 or "Fatal Python error" in written or "reading" in refusal:
            wrong.append((round_no, code, written[-600:]))
    assert "40001: field 'acc'" in refusal
    assert wrong == [], f"{len(wrong)} of {ROUNDS} rounds did not end on the refusal: {wrong[0]}"
