"""Records written by earlier evaltui versions (tests/data/old_records/README.md says which):
a key added since is not a claim the old record made, and a method that changed is said in
words."""

from __future__ import annotations

import json
from pathlib import Path

from evaltui.core.decide.pair import NOTHING_CHANGED
from tests.conftest import DATA, SAMPLE_RUNS
from tests.core.verify.test_verify_claims import _rehashed
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


TWO_SCORERS = DATA / "inspect_ai" / "two_scorers"
NAMED_BEFORE = OLD / "two_scorers_block_before_named_no_verdict.json"


def _verify_two_scorers(record: Path, tmp_path: Path):
    files = [TWO_SCORERS / "baseline.eval", TWO_SCORERS / "candidate.eval"]
    return run_evaltui(["verify", record, *files], {"EVALTUI_STATE_DIR": str(tmp_path / "s")})


def test_a_record_made_before_the_no_verdict_reason_named_its_metric_still_verifies(
    tmp_path: Path,
):
    """Its reason says "no item changed: nothing to weigh, so there is no verdict" where this
    evaltui says "no item changed on answered: ..."; the record claimed nothing else."""
    record = json.loads(NAMED_BEFORE.read_text(encoding="utf-8"))
    assert record["decision"]["reasons"][1]["text"] == NOTHING_CHANGED
    done = _verify_two_scorers(NAMED_BEFORE, tmp_path)
    assert done.returncode == 0, done.stderr
    assert "verified: the record is intact" in done.stdout


def test_a_no_verdict_reason_in_other_words_than_either_is_still_a_difference(tmp_path: Path):
    record = json.loads(NAMED_BEFORE.read_text(encoding="utf-8"))
    record["decision"]["reasons"][1]["text"] = "no item changed on safe_advice: nothing to weigh"
    edited = tmp_path / "edited.json"
    edited.write_text(json.dumps(_rehashed(record)), encoding="utf-8")
    done = _verify_two_scorers(edited, tmp_path)
    assert done.returncode == 1
    assert "decision.reasons[1].text" in done.stderr and len(done.stderr.splitlines()) == 1
