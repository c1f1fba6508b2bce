"""Records written by earlier evaltui versions (tests/data/old_records/README.md says which):
a key added since is not a claim the old record made, and a method that changed is said in
words."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import DATA, SAMPLE_RUNS
from tests.in_process import run_evaltui

OLD = DATA / "old_records"


def test_a_record_made_before_it_said_what_was_compared_still_verifies(tmp_path: Path):
    done = run_evaltui(
        [
            "verify",
            OLD / "demo_block_before_described.json",
            SAMPLE_RUNS / "baseline.jsonl",
            SAMPLE_RUNS / "candidate.jsonl",
        ],
        {"EVALTUI_STATE_DIR": str(tmp_path / "state")},
    )
    assert done.returncode == 0, done.stderr
    assert "verified: the record is intact" in done.stdout


def test_a_graded_record_made_on_the_bootstrap_interval_says_the_method_changed(tmp_path: Path):
    done = run_evaltui(
        [
            "verify",
            OLD / "graded_bca_before_paired_t.json",
            OLD / "graded_baseline.jsonl",
            OLD / "graded_candidate.jsonl",
        ],
        {"EVALTUI_STATE_DIR": str(tmp_path / "state")},
    )
    assert done.returncode == 1
    assert "computed by bootstrap-bca, and this evaltui computes it by paired-t" in done.stderr
    assert "Traceback" not in done.stderr and len(done.stderr.splitlines()) == 1
