"""A shared review folder (issue 26, item 1): each reviewer writes only their own append-only
journal, nobody locks anybody out, the merged view keeps every reviewer's review of an item, an
item counts as triaged only when its reviews agree (else it is disputed, and untriaged), and two
reviewers' work merges in git without a conflict.
"""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import subprocess
import threading
from pathlib import Path

import pytest

from evaltui.cli.main import main
from evaltui.core.errors import UsageError
from evaltui.core.record.journal import ReviewSession
from evaltui.core.record.lock import LOCK_NAME
from evaltui.core.record.shared import local_lock_folder, reviewer_file, shared_pair_key
from tests.conftest import SAMPLE_RUNS

TAGS = ("confirmed regression", "acceptable", "grader error", "flaky", "needs investigation")


def open_as(reviewer: str, team: Path, tmp_path: Path, **kwargs) -> ReviewSession:
    """`reviewer`'s session on a made-up pair in the shared folder `team`, each reviewer with a
    state folder of their own (their own machine)."""
    return ReviewSession.open(
        tmp_path / "b.jsonl", tmp_path / "c.jsonl", "sha-b", "sha-c",
        root=tmp_path / f"state-{reviewer}", review_dir=team, reviewer=reviewer, **kwargs,
    )  # fmt: skip


def test_two_writers_tagging_the_same_items_at_once_keep_every_acknowledged_tag(tmp_path):
    team = tmp_path / "team"
    ana, ben = open_as("ana", team, tmp_path), open_as("ben", team, tmp_path)
    items = [f"q{i}" for i in range(60)]
    acknowledged: dict[str, dict[str, str]] = {"ana": {}, "ben": {}}
    start = threading.Barrier(2)

    def tag_all(session: ReviewSession, name: str, shift: int) -> None:
        start.wait(10)
        for n, item in enumerate(items):
            tag = TAGS[(n + shift * (n % 3 == 0)) % len(TAGS)]  # every third item: another tag
            session.set_tag(item, tag)  # returns once the line is on disk
            acknowledged[name][item] = tag

    threads = [
        threading.Thread(target=tag_all, args=(ana, "ana", 0)),
        threading.Thread(target=tag_all, args=(ben, "ben", 1)),
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    ana.refresh_team()
    ben.refresh_team()
    reader = open_as("cy", team, tmp_path, read_only=True)
    for session in (ana, ben, reader):
        for item in items:
            merged = session.review(item)
            by = {r.reviewer: r.tag for r in merged.reviews}
            assert by == {"ana": acknowledged["ana"][item], "ben": acknowledged["ben"][item]}
            agree = acknowledged["ana"][item] == acknowledged["ben"][item]
            assert merged.disputed is (not agree)
            assert merged.tag == (acknowledged["ana"][item] if agree else None)
    assert sum(session.review(i).disputed for i in items) == 20  # the items of n % 3 == 0
    ana.close()
    ben.close()
    names = sorted(p.name for p in (team / str(shared_pair_key("sha-b", "sha-c"))).rglob("*"))
    assert names == ["ana.jsonl", "ben.jsonl", "journals"]  # journals only: no lock, no draft


def test_each_reviewer_writes_only_their_own_file_and_their_undo_restores_their_own_tag(tmp_path):
    team = tmp_path / "team"
    ana, ben = open_as("ana", team, tmp_path), open_as("ben", team, tmp_path)
    ana.set_tag("q1", "flaky")
    ben.set_tag("q1", "acceptable")
    assert ana.review("q1").tag == "flaky"  # her view is as of her last look at the others'
    assert ana.refresh_team() == {"q1"}
    assert ana.review("q1").disputed and ana.review("q1").tag is None
    assert ana.own_review("q1").tag == "flaky"
    ana.restore_tags([ana.own_review("q2")])  # an undo of an untagged item: still only hers
    ana.set_tag("q1", "acceptable")  # she changes her mind: they agree now
    assert ana.review("q1").tag == "acceptable" and not ana.review("q1").disputed
    lines = {
        name: [json.loads(x) for x in (ana.path.parent / name).read_text().splitlines()]
        for name in ("ana.jsonl", "ben.jsonl")
    }
    assert {e["by"] for e in lines["ana.jsonl"] if "by" in e} == {"ana"}
    assert {e["by"] for e in lines["ben.jsonl"] if "by" in e} == {"ben"}
    assert all("time" in e for e in lines["ana.jsonl"] + lines["ben.jsonl"])
    ana.close()
    ben.close()


def test_there_is_no_lock_between_reviewers_but_one_reviewer_has_one_writer(tmp_path):
    team = tmp_path / "team"
    ana = open_as("ana", team, tmp_path)
    ben = open_as("ben", team, tmp_path)  # opened while ana writes: no lock between them
    # ana's own file has a single writer: another process holding her lock refuses a second ana.
    folder = local_lock_folder(tmp_path / "state-ana2", team / "x")
    ana.close()
    lock_dir = local_lock_folder(tmp_path / "state-ana", ana.path)
    fd = os.open(lock_dir / LOCK_NAME, os.O_RDWR)
    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    try:
        with pytest.raises(UsageError, match="is reviewing this pair"):
            open_as("ana", team, tmp_path)
    finally:
        os.close(fd)
    ben.close()
    assert not folder.exists()


def test_a_reviewer_name_becomes_a_safe_file_name_and_none_is_refused(tmp_path):
    assert reviewer_file("Dana Smith") == "Dana_Smith.jsonl"
    assert reviewer_file("../../etc/passwd") == "etc_passwd.jsonl"
    with pytest.raises(UsageError, match="--reviewer NAME"):
        open_as("", tmp_path / "team", tmp_path)


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_two_reviewers_work_merges_in_git_without_a_conflict(tmp_path):
    team = tmp_path / "team"
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@x",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@x"}  # fmt: skip

    def git(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            ["git", "-C", str(team), *args], env=env, capture_output=True, text=True, check=False
        )

    team.mkdir()
    git("init", "-q", "-b", "main")
    ana = open_as("ana", team, tmp_path)
    ana.set_tag("q1", "flaky")
    git("add", "-A")
    git("commit", "-qm", "ana starts")
    git("checkout", "-qb", "ben")
    ben = open_as("ben", team, tmp_path)
    ben.set_tag("q1", "acceptable")
    ben.set_tag("q2", "flaky")
    ben.close()
    git("add", "-A")
    git("commit", "-qm", "ben")
    git("checkout", "-q", "main")
    ana.set_tag("q3", "grader error")  # the same file goes on growing on main
    ana.close()
    git("add", "-A")
    git("commit", "-qm", "ana again")
    merged = git("merge", "-q", "--no-edit", "ben")
    assert merged.returncode == 0, merged.stdout + merged.stderr
    view = open_as("cy", team, tmp_path, read_only=True)
    assert view.review("q1").disputed
    assert view.review("q2").tag == "flaky" and view.review("q3").tag == "grader error"


def test_the_report_reads_every_reviewers_tags_and_counts_a_disputed_item_untriaged(
    tmp_path, capsys
):
    """The demo pair's 9 regressions: ana and ben agree on 5, disagree on 3, ana alone tags 1;
    the report (a read-only open of the shared folder) counts 6 triaged, 3 untriaged."""
    from evaltui.core.analysis.pipeline import compare
    from evaltui.core.compare.spec import CompareSpec

    base, cand = SAMPLE_RUNS / "baseline.jsonl", SAMPLE_RUNS / "candidate.jsonl"
    analysis = compare(CompareSpec(base, cand), complete=False)
    paired = analysis.paired
    team = tmp_path / "team"
    regs = list(analysis.regressions)
    assert len(regs) == 9

    def session(reviewer: str) -> ReviewSession:
        return ReviewSession.open(
            base, cand, paired.baseline.source.sha256, paired.candidate.source.sha256,
            root=tmp_path / f"state-{reviewer}", review_dir=team, reviewer=reviewer,
        )  # fmt: skip

    ana, ben = session("ana"), session("ben")
    ana.set_tags(regs[:9], "acceptable")
    ben.set_tags(regs[:5], "acceptable")
    ben.set_tags(regs[5:8], "confirmed regression")
    ana.close()
    ben.close()
    code = main(["report", str(base), str(cand), "--review-dir", str(team), "--format", "json"])
    out = json.loads(capsys.readouterr().out)
    assert code in (0, 1), out
    assert "3 of 9 untriaged" in out["decision"]["line"], out["decision"]["line"]
    assert out["decision"]["untriaged_regressions"] == 3
    (untriaged,) = [r for r in out["decision"]["reasons"] if r["kind"] == "untriaged"]
    assert untriaged["item_ids"] == sorted(regs[5:8])  # the disputed ones
    assert out["decision"]["by_tag"] == {"acceptable": 6}


@pytest.mark.slow  # a sign-off and a verify of the demo pair (seconds): CI runs it
def test_a_signoff_from_a_shared_review_records_the_merged_tags_and_verifies(
    tmp_path, capsys, monkeypatch
):
    from evaltui.core.read.runs import sha256_of

    base, cand = SAMPLE_RUNS / "baseline.jsonl", SAMPLE_RUNS / "candidate.jsonl"
    team = tmp_path / "team"
    code = main(["report", str(base), str(cand), "--format", "json"])
    regs = json.loads(capsys.readouterr().out)["regressions"]
    assert code == 0 and len(regs) == 9
    for who, tags in (("ana", ["acceptable"] * 9), ("ben", ["acceptable"] * 5 + ["flaky"] * 4)):
        session = ReviewSession.open(
            base, cand, sha256_of(base), sha256_of(cand),
            root=tmp_path / f"state-{who}", review_dir=team, reviewer=who,
        )  # fmt: skip
        for item, tag in zip(regs, tags, strict=True):
            session.set_tag(item, tag)
        session.close()
    monkeypatch.setenv("EVALTUI_STATE_DIR", str(tmp_path / "state-ana"))
    prefix = tmp_path / "so"
    code = main(
        ["signoff", str(base), str(cand), "--review-dir", str(team), "--reviewer", "ana",
         "--decision", "block", "--rationale", "disputes open", "--output", str(prefix)]
    )  # fmt: skip
    assert code == 0, capsys.readouterr().err
    record = json.loads(prefix.with_suffix(".json").read_text())
    assert record["triage"]["triaged"] == 5
    assert record["triage"]["untriaged"] == regs[5:]  # the disputed four
    # verify replays every reviewer's journal up to the record's time, not only ana's
    capsys.readouterr()
    assert main(["verify", str(prefix.with_suffix(".json")), str(base), str(cand)]) == 0, (
        capsys.readouterr()
    )


def test_another_reviewers_fresh_start_and_damaged_line_are_followed_not_dropped(tmp_path):
    team = tmp_path / "team"
    ana, ben = open_as("ana", team, tmp_path), open_as("ben", team, tmp_path)
    ben.set_tag("q1", "flaky")
    ben.set_tag("q2", "acceptable")
    ben.close()
    assert ana.refresh_team() == {"q1", "q2"}
    ben = open_as("ben", team, tmp_path, fresh=True)  # his old journal set aside, not *.jsonl
    ben.set_tag("q2", "grader error")
    ben.close()
    assert ana.refresh_team() == {"q1", "q2"}
    assert ana.review("q1").reviews == () and ana.review("q2").tag == "grader error"
    with open(ben.path, "ab") as journal:
        journal.write(b'{"kind": "tag", "item_id": "q3", "tag": \n')
    ana.refresh_team()
    (damaged,) = [n.text for n in ana.notices if "damaged" in n.text]
    assert damaged.startswith(f"journal {ben.path}: the line ending at byte ")
    ana.close()


def test_what_a_tag_here_read_of_the_others_is_still_handed_to_the_screen(tmp_path):
    """A tag here looks at the other journals too (to merge its own item): the others' items
    it read must still reach the screen's next look, not be swallowed by the tag."""
    team = tmp_path / "team"
    ana, ben = open_as("ana", team, tmp_path), open_as("ben", team, tmp_path)
    ana.take_team_changes()
    ben.set_tag("q1", "flaky")
    ana.set_tag("q2", "acceptable")  # reads ben's line on the way
    assert ana.refresh_team() == set()  # the next look finds nothing new ...
    assert "q1" in ana.take_team_changes()  # ... but q1 is still handed over, once
    assert ana.take_team_changes() == set()
    ana.close()
    ben.close()
