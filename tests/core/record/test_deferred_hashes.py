"""A review started while the inputs' sha256 were deferred (the app opens a large Inspect log
before hashing it) still tells a changed file on its next open, and a team's folder is named by
the sha256 whichever way the pair was opened."""

from __future__ import annotations

import json
import shutil
import zipfile
from pathlib import Path

import pytest

from evaltui.core.analysis.pipeline import compare
from evaltui.core.compare.spec import CompareSpec
from evaltui.core.decide.notices import INPUTS_CHANGED
from evaltui.core.record.journal import INPUTS, ReviewSession
from evaltui.core.record.session import start_review
from tests.conftest import DATA

LOGS = DATA / "inspect_ai"
BASE = LOGS / "2025-09-15T15-04-34-04-00_popularity_CuCFPdqnwXupUkxp69nJ2a.eval"
CAND = LOGS / "2025-09-15T15-04-34-04-00_popularity_jKN69eAYYpZFAZhRgMAztp.eval"


def open_session(tmp_path: Path, shas: tuple[str, str], **kw) -> ReviewSession:
    return ReviewSession.open(
        tmp_path / "b.eval", tmp_path / "c.eval", *shas, root=tmp_path / "state", **kw
    )


def lines(session: ReviewSession) -> list[dict]:
    return [json.loads(line) for line in session.path.read_text().splitlines()]


def test_a_session_started_without_hashes_journals_them_once_known(tmp_path):
    session = open_session(tmp_path, ("", ""))
    session.set_tag("q1", "flaky")
    assert session.record_inputs("s1", "s2") is None
    assert session.record_inputs("s1", "s2") is None  # (known now: not journalled twice)
    kinds = [line["kind"] for line in lines(session)]
    assert kinds.count(INPUTS) == 1
    again = open_session(tmp_path, ("s1", "CHANGED"))
    assert again.inputs_changed
    assert any("candidate file changed" in n.text for n in again.notices)
    assert again.review("q1").tag == "flaky"


def test_an_unknown_hash_is_not_a_changed_file(tmp_path):
    open_session(tmp_path, ("s1", "s2")).set_tag("q1", "flaky")
    assert not open_session(tmp_path, ("", "")).inputs_changed  # (deferred: unknown yet)
    old = open_session(tmp_path / "old", ("", ""))  # a journal an older app left without them
    old.set_tag("q1", "flaky")
    again = open_session(tmp_path / "old", ("s1", "s2"))
    assert not again.inputs_changed
    assert (again.info.baseline_sha256, again.info.candidate_sha256) == ("s1", "s2")
    assert lines(again)[-1]["kind"] == INPUTS  # recorded by this open, for the next


def test_a_read_only_open_records_nothing(tmp_path):
    open_session(tmp_path, ("", "")).set_tag("q1", "flaky")
    before = (tmp_path / "state").rglob("journal.jsonl").__next__().read_bytes()
    look = open_session(tmp_path, ("s1", "s2"), read_only=True)
    assert not look.inputs_changed
    assert next((tmp_path / "state").rglob("journal.jsonl")).read_bytes() == before


def test_the_record_names_the_changed_side_once_known(tmp_path):
    open_session(tmp_path, ("s1", "s2")).set_tag("q1", "flaky")
    session = open_session(tmp_path, ("", ""))
    notice = session.record_inputs("s1", "NEW")
    assert notice is not None and notice.kind == INPUTS_CHANGED
    assert "candidate file changed" in notice.text
    assert [n.kind for n in session.notices].count(INPUTS_CHANGED) == 1


def deferred_analysis(base: Path, cand: Path):
    """The pair as the app reads it: the Inspect logs' sha256 deferred past the first screen."""
    spec = CompareSpec.create(str(base), str(cand))
    analysis = compare(spec, defer_hash_check=True)
    assert analysis.paired.candidate.source.sha256 == ""  # (deferred, as in the app)
    return analysis


@pytest.fixture
def pair(tmp_path: Path) -> tuple[Path, Path]:
    base, cand = tmp_path / "b.eval", tmp_path / "c.eval"
    shutil.copy(BASE, base)
    shutil.copy(CAND, cand)
    return base, cand


def test_a_reopen_with_deferred_hashes_says_at_once_that_a_tagged_file_changed(tmp_path, pair):
    base, cand = pair
    state = tmp_path / "state"
    first = start_review(deferred_analysis(base, cand), state_root=state)
    assert first.info.candidate_sha256 == ""  # a first open does not wait for the hash
    first.set_tag("x", "flaky")
    first.record_inputs(_sha(base), _sha(cand))  # (the app, once its re-hash is done)
    first.close()
    with zipfile.ZipFile(cand, "a") as archive:  # the candidate's bytes change
        archive.comment = b"rewritten"
    again = start_review(deferred_analysis(base, cand), state_root=state)
    assert again.inputs_changed  # before any decision is shown: the hash was taken now
    assert again.review("x").tag == "flaky"
    again.close()
    same = start_review(deferred_analysis(base, cand), state_root=state)
    assert same.inputs_changed  # (the journal keeps the hashes the tags were made on)
    same.close()


def test_a_team_folder_is_named_by_the_sha256_even_when_the_app_deferred_them(tmp_path, pair):
    base, cand = pair
    team = tmp_path / "team"
    deferred = start_review(
        deferred_analysis(base, cand), state_root=tmp_path / "s1", review_dir=team, reviewer="a"
    )
    deferred.set_tag("x", "flaky")
    deferred.close()
    hashed = compare(CompareSpec.create(str(base), str(cand)))  # (a headless command's read)
    look = start_review(hashed, read_only=True, state_root=tmp_path / "s2", review_dir=team)
    assert look.review("x").tag == "flaky"
    assert len(list(team.iterdir())) == 1


def _sha(path: Path) -> str:
    import hashlib

    return hashlib.sha256(path.read_bytes()).hexdigest()
