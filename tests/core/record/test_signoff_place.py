"""Without --output a sign-off record goes to the review's folder (beside its journal), named by
the runs and the time; never the current directory, which for a newcomer is the git checkout."""

from __future__ import annotations

import json
from pathlib import Path

from evaltui.cli.main import main
from evaltui.core.record.journal import session_key, state_dir
from evaltui.core.record.signoff_place import default_prefix, make_review_folder, review_folder
from tests.conftest import SAMPLE_RUNS

DEMO = [SAMPLE_RUNS / "baseline.jsonl", SAMPLE_RUNS / "candidate.jsonl"]
NOON = 1_780_000_000.0  # a fixed time: the name's stamp is its local time


def test_the_default_place_is_the_pairs_session_folder_named_by_runs_and_time(tmp_path):
    prefix = default_prefix(DEMO, tmp_path, now=NOON)
    assert prefix.parent == tmp_path / "sessions" / session_key(*DEMO) / "signoffs"
    assert prefix.name.startswith("signoff-baseline-vs-candidate-2026")
    assert not prefix.parent.exists()  # made when written, not when the dialog opens
    make_review_folder(prefix, DEMO, tmp_path)
    prefix.with_suffix(".json").write_text("{}")
    again = default_prefix(DEMO, tmp_path, now=NOON)
    assert again.name == prefix.name + "-2"  # the same second: never over an earlier record


def test_a_run_sets_place_is_keyed_by_every_run_and_a_hostile_name_is_made_safe(tmp_path):
    runs = [*DEMO, tmp_path / "../we ird$(rm -rf)\u202e.jsonl"]
    prefix = default_prefix(runs, tmp_path, now=NOON)
    assert prefix.parent.parent.parent == tmp_path / "run-sets"
    assert prefix.parent != review_folder(DEMO[::-1] + runs[2:], tmp_path)  # order matters
    assert "-and-1-more-" in prefix.name
    assert all(c.isalnum() or c in "._-" for c in prefix.name)


def test_a_folder_the_reviewer_named_is_never_made(tmp_path):
    named = tmp_path / "typo" / "record"
    make_review_folder(named, DEMO, tmp_path)
    assert not named.parent.exists()


def test_signoff_without_output_writes_in_the_review_folder_not_the_current_one(
    tmp_path, monkeypatch, capsys
):
    monkeypatch.chdir(tmp_path)
    args = ["signoff", *map(str, DEMO), "--decision", "block", "--rationale", "two bad"]
    assert main(args) == 0
    assert list(tmp_path.iterdir()) == []
    written = capsys.readouterr().out
    folder = state_dir() / "sessions" / session_key(*DEMO) / "signoffs"
    records = sorted(folder.glob("signoff-baseline-vs-candidate-*.json"))
    assert len(records) == 1 and str(records[0]) in written
    assert json.loads(records[0].read_text())["rationale"] == "two bad"
    assert {p.suffix for p in folder.iterdir()} == {".json", ".md", ".csv"}
    assert Path(written.split("wrote ", 1)[1].split(", ")[0]) == records[0]
