"""The review journal: every tag and note on disk before it counts, replayed on reopen."""

from __future__ import annotations

import json

import pytest

from evaltui.core.decide.notices import INPUTS_CHANGED, JOURNAL_DAMAGED
from evaltui.core.errors import UsageError
from evaltui.core.record.journal import DEFAULT_TAGS, ReviewSession, parse_tags, session_key


def open_session(tmp_path, base="b.jsonl", cand="c.jsonl", shas=("s1", "s2"), **kw):
    return ReviewSession.open(
        tmp_path / base, tmp_path / cand, *shas, root=tmp_path / "state", **kw
    )


def test_tags_and_notes_survive_reopening_the_same_pair(tmp_path):
    session = open_session(tmp_path)
    session.set_tag("q1", "flaky")
    session.set_tag("q2", "acceptable")
    session.set_tag("q2", "grader error")
    session.set_note("q1", "times out on the retriever, not the model")
    again = open_session(tmp_path)
    assert again.review("q1").tag == "flaky"
    assert again.review("q1").note == "times out on the retriever, not the model"
    assert again.review("q2").tag == "grader error"
    assert again.triaged_count(["q1", "q2", "q3"]) == 2
    assert again.notices == []


def test_each_action_is_one_journal_line_written_before_returning(tmp_path):
    session = open_session(tmp_path)
    before = session.path.read_text().count("\n")
    session.set_tag("q1", "flaky")
    lines = session.path.read_text().splitlines()
    assert len(lines) == before + 1
    assert json.loads(lines[-1])["tag"] == "flaky"


def test_a_different_pair_gets_a_different_session(tmp_path):
    open_session(tmp_path).set_tag("q1", "flaky")
    other = open_session(tmp_path, cand="other.jsonl")
    assert other.review("q1").tag is None
    assert session_key(tmp_path / "b", tmp_path / "c") != session_key(
        tmp_path / "c", tmp_path / "b"
    )


def test_unknown_tag_is_refused(tmp_path):
    with pytest.raises(UsageError, match="unknown tag 'great'"):
        open_session(tmp_path).set_tag("q1", "great")


def test_clearing_a_tag_makes_the_item_untriaged(tmp_path):
    session = open_session(tmp_path)
    session.set_tag("q1", "flaky")
    session.set_tag("q1", None)
    assert not open_session(tmp_path).review("q1").triaged


def test_torn_last_line_is_reported_and_earlier_work_kept(tmp_path):
    session = open_session(tmp_path)
    session.set_tag("q1", "flaky")
    with session.path.open("ab") as handle:
        handle.write(b'{"kind":"tag","item_id":"q2","ta')  # killed mid-write
    again = open_session(tmp_path)
    assert again.review("q1").tag == "flaky"
    assert any(
        n.kind == JOURNAL_DAMAGED and "unfinished last write" in n.text for n in again.notices
    )
    again.set_tag("q3", "acceptable")  # the next write starts on a fresh line
    assert open_session(tmp_path).review("q3").tag == "acceptable"


def test_changed_input_file_is_noticed_on_reopen(tmp_path):
    open_session(tmp_path).set_tag("q1", "flaky")
    again = open_session(tmp_path, shas=("s1", "CHANGED"))
    assert any(
        n.kind == INPUTS_CHANGED and "candidate file changed" in n.text for n in again.notices
    )
    assert again.inputs_changed
    assert again.review("q1").tag == "flaky"


def test_fresh_sets_the_old_journal_aside_without_deleting_it(tmp_path):
    session = open_session(tmp_path)
    session.set_tag("q1", "flaky")
    fresh = open_session(tmp_path, fresh=True)
    assert fresh.review("q1").tag is None
    kept = list(session.path.parent.glob("journal.*.jsonl"))
    assert len(kept) == 1 and "flaky" in kept[0].read_text()


def test_custom_tag_set_is_journaled_and_kept(tmp_path):
    session = open_session(tmp_path, tags=("bug", "fine"))
    assert session.info.tags == ("bug", "fine")
    session.set_tag("q1", "bug")
    assert open_session(tmp_path).info.tags == ("bug", "fine")
    assert open_session(tmp_path / "x").info.tags == DEFAULT_TAGS


def test_parse_tags_refuses_empty_repeated_and_too_many():
    assert parse_tags(" a, b ,c") == ("a", "b", "c")
    for bad in ("", " , ", "a,a", ",".join(str(i) for i in range(10))):
        with pytest.raises(UsageError):
            parse_tags(bad)
