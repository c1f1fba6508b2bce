"""The installed `evaltui` command with three runs, in a real terminal (tmux): the matrix opens,
a pair is reviewed from it and tagged, `m` comes back with the set decided anew, q ends."""

from __future__ import annotations

import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from evaltui.core.read.runs import sha256_of
from evaltui.core.record.journal import ReviewSession
from tests.ui.test_real_terminal import ROOT, _stop, _tmux, _wait_for


@pytest.mark.slow  # a variant of a flow the default run covers (the suite's CPU budget); CI runs it
def test_installed_command_opens_the_matrix_reviews_a_pair_and_comes_back(tmp_path):
    tmux = _tmux()
    script = Path(sys.executable).parent / "evaltui"
    assert script.exists(), "the evaltui console script is not installed"
    state = tmp_path / "state"
    session = f"evaltui-{uuid.uuid4().hex[:8]}"
    runs = "sample_runs/baseline.jsonl sample_runs/candidate.jsonl sample_runs/candidate2.jsonl"
    command = (
        f"cd {ROOT} && EVALTUI_STATE_DIR={state} TERM=xterm-256color {script} {runs}; "
        "echo EXIT=$?; sleep 30"
    )
    subprocess.run(
        [*tmux, "new-session", "-d", "-s", session, "-x", "80", "-y", "24", command], check=True
    )
    keys = [*tmux, "send-keys", "-t", session]
    try:
        screen = _wait_for(tmux, session, "Row minus column", "⏎ Review pair")
        assert "NEEDS REVIEW · 3 runs against baseline" in screen
        assert "▲ +8.0 pts" in screen and "▼ -8.0 pts" in screen and "[+2.2, +13.7]" in screen
        assert "candidate vs baseline: · +6.0 pts [-0.7, +12.4]" in screen
        subprocess.run([*keys, "Down"], check=True)
        _wait_for(tmux, session, "candidate2 vs baseline: ▲ +8.0 pts")
        subprocess.run([*keys, "Enter"], check=True)
        screen = _wait_for(tmux, session, "Regressions (5)", "m Matrix")
        assert "candidate2.jsonl" in screen
        subprocess.run([*keys, "1"], check=True)  # confirmed regression
        _wait_for(tmux, session, "saved:")
        subprocess.run([*keys, "m"], check=True)
        screen = _wait_for(tmux, session, "Row minus column", "BLOCKED · 3 runs against")
        assert "candidate2 vs baseline" in screen  # the cursor where it was left
        subprocess.run([*keys, "q"], check=True)
        _wait_for(tmux, session, "EXIT=0")
    finally:
        _stop(tmux)
    base, cand = ROOT / "sample_runs" / "baseline.jsonl", ROOT / "sample_runs" / "candidate2.jsonl"
    reopened = ReviewSession.open(
        base, cand, sha256_of(base), sha256_of(cand), root=state, read_only=True
    )
    assert [r.tag for r in reopened.items.values()] == ["confirmed regression"]
