"""Reviewer work survives and stays honest: one writer per pair, stale tags named, files that
change under the app refused."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

from evaltui.core.errors import EvalTuiError, UsageError
from evaltui.core.read.formats import load_run
from evaltui.core.record.journal import ReviewSession

HOLDER = textwrap.dedent(
    """
    import sys, time
    from pathlib import Path
    from evaltui.core.record.journal import ReviewSession
    root, base, cand = map(Path, sys.argv[1:4])
    s = ReviewSession.open(base, cand, "s1", "s2", root=root)
    print("locked", flush=True)
    time.sleep(60)
    """
)


def test_a_second_instance_on_the_same_pair_gets_a_clear_message(tmp_path):
    root, base, cand = tmp_path / "state", tmp_path / "b.jsonl", tmp_path / "c.jsonl"
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(root), str(base), str(cand)],
        stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert holder.stdout.readline().strip() == "locked"
        with pytest.raises(UsageError, match=rf"another evaltui \(pid {holder.pid}"):
            ReviewSession.open(base, cand, "s1", "s2", root=root)
        # Reading is always allowed (headless reports), and writes nothing.
        reader = ReviewSession.open(base, cand, "s1", "s2", root=root, read_only=True)
        with pytest.raises(UsageError, match="read-only"):
            reader.set_tag("q1", "flaky")
    finally:
        os.kill(holder.pid, signal.SIGKILL)
        holder.wait()
    # The holder was killed: the kernel dropped its lock, so the pair opens again.
    session = ReviewSession.open(base, cand, "s1", "s2", root=root)
    session.set_tag("q1", "flaky")
    session.close()


def test_tagged_items_whose_outcome_changed_are_named(tmp_path):
    base, cand = tmp_path / "b.jsonl", tmp_path / "c.jsonl"
    session = ReviewSession.open(base, cand, "s1", "s2", root=tmp_path)
    session.set_tag("q1", "flaky", seen=(1.0, 0.0))
    session.set_tag("q2", "acceptable", seen=(1.0, 0.0))
    session.close()
    again = ReviewSession.open(base, cand, "s1", "CHANGED", root=tmp_path)
    assert again.inputs_changed
    stale = again.stale_items({"q1": (1.0, 0.0), "q2": (1.0, 1.0)})
    assert stale == [("q2", (1.0, 0.0), (1.0, 1.0))]
    again.close()


def test_stale_tags_are_reported_by_signoff(tmp_path, write_jsonl, monkeypatch, capsys):
    from evaltui.cli.main import main

    monkeypatch.setenv("EVALTUI_STATE_DIR", str(tmp_path / "state"))
    base = write_jsonl("b.jsonl", [{"item_id": f"q{i}", "passed": True} for i in range(40)])
    cand_records = [{"item_id": f"q{i}", "passed": i >= 3} for i in range(40)]
    cand = write_jsonl("c.jsonl", cand_records)
    from evaltui.core.analysis.pair import item_values
    from evaltui.core.analysis.pipeline import compare_files

    analysis = compare_files(base, cand)
    session = ReviewSession.open(
        base, cand, analysis.paired.baseline.source.sha256,
        analysis.paired.candidate.source.sha256, root=tmp_path / "state",
    )  # fmt: skip
    for item in ("q0", "q1"):
        session.set_tag(item, "flaky", seen=item_values(analysis, [item])[item])
    session.close()
    cand_records[1]["passed"] = True  # the candidate file is regenerated: q1 now passes
    cand.write_text("".join(json.dumps(r) + "\n" for r in cand_records))
    code = main(
        [
            "signoff",
            str(base),
            str(cand),
            "--decision",
            "block",
            "--reviewer",
            "d",
            "--rationale",
            "r",
            "--output",
            str(tmp_path / "so"),
        ]
    )
    err = capsys.readouterr().err
    assert code == 0
    assert "candidate file changed since these tags were made" in err
    assert "1 tagged item(s) changed outcome since tagging: q1 (pass/fail -> pass/pass)" in err
    record = json.loads((tmp_path / "so.json").read_text())
    assert any("changed outcome" in n for n in record["review_notices"])


def test_transcripts_of_a_file_rewritten_after_loading_are_refused(tmp_path, write_jsonl):
    path = write_jsonl("run.jsonl", [{"item_id": "a", "passed": True, "output": "x"}])
    run = load_run(path)
    assert run.transcripts.read(0).output == "x"
    time.sleep(0.01)
    path.write_text(json.dumps({"item_id": "b", "passed": False, "output": "other"}) + "\n")
    with pytest.raises(EvalTuiError, match="changed on disk since it was loaded"):
        run.transcripts.read(0)
