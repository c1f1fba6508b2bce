"""Two trajectories aligned by content: a retry's failed first attempt is a gap, not paired
with the other run's result of a different call; the final answers share a row; the first
divergence is the first row that differs; the counts say "9 vs 7 messages"."""

from __future__ import annotations

from evaltui.core.compare import trajectory
from evaltui.core.compare.trajectory import align
from evaltui.core.read.runs import Message
from tests.core.agent_fixtures import transcripts


def test_drug_2_the_tool_error_and_its_retry_against_one_call():
    base, cand = transcripts("drug-2")
    alignment = align(base.messages, cand.messages)
    pairs = [(r.base, r.cand) for r in alignment.rows]
    assert pairs == [(0, 0), (1, 1), (2, None), (3, None), (4, 2), (5, 3), (6, 4), (7, 5), (8, 6)]
    assert alignment.first_divergence == 2  # the baseline's malformed call
    assert alignment.final_row == 8  # both final answers on one row
    same = [r.same for r in alignment.rows]
    assert same == [True, True, False, False, True, True, True, True, False]
    assert alignment.counts.words() == "9 vs 7 messages, 3 vs 2 tool calls, 1 vs 0 tool errors"


def test_identical_runs_never_diverge():
    base, _ = transcripts("drug-1")
    alignment = align(base.messages, base.messages)
    assert alignment.first_divergence is None
    assert all(r.same for r in alignment.rows) and len(alignment.rows) == len(base.messages)


def m(role: str, content: str = "", calls: tuple[str, ...] = ()) -> Message:
    return Message(role, content, calls=calls)


def test_a_repeated_call_pairs_the_retry_not_the_failed_attempt():
    call = ("f(1)",)
    base = [
        m("user", "q"),
        m("assistant", calls=call),
        m("tool", "boom", call),
        m("assistant", calls=call),
        m("tool", "ok", call),
        m("assistant", "A"),
    ]
    cand = [m("user", "q"), m("assistant", calls=call), m("tool", "ok", call), m("assistant", "B")]
    rows = [(r.base, r.cand) for r in align(base, cand).rows]
    assert rows == [(0, 0), (1, None), (2, None), (3, 1), (4, 2), (5, 3)]


def test_turns_only_one_side_has_are_paired_by_role_between_matches():
    base = [m("user", "q"), m("assistant", "thinking aloud"), m("assistant", "final A")]
    cand = [m("user", "q"), m("assistant", "other words"), m("assistant", "final B")]
    alignment = align(base, cand)
    assert [(r.base, r.cand, r.same) for r in alignment.rows] == [
        (0, 0, True), (1, 1, False), (2, 2, False)
    ]  # fmt: skip
    assert alignment.first_divergence == 1


def test_the_final_answers_share_a_row_even_when_the_turns_before_differ():
    base = [
        m("user", "q"),
        m("assistant", calls=("a()",)),
        m("tool", "1", ("a()",)),
        m("assistant", "answer A"),
    ]
    cand = [
        m("user", "q"),
        m("assistant", calls=("b()",)),
        m("tool", "2", ("b()",)),
        m("assistant", calls=("c()",)),
        m("tool", "3", ("c()",)),
        m("assistant", "answer B"),
    ]
    alignment = align(base, cand)
    final = alignment.rows[alignment.final_row]
    assert (final.base, final.cand) == (3, 5)
    assert alignment.rows[-1] is final


def test_a_run_stopped_mid_call_has_no_final_answer_to_pin():
    base = [m("user", "q"), m("assistant", calls=("a()",)), m("tool", "1", ("a()",))]
    cand = [m("user", "q"), m("assistant", "done")]
    alignment = align(base, cand)
    final = alignment.rows[alignment.final_row]
    assert final.cand == 1 and alignment.counts.words() == "3 vs 2 messages, 1 vs 0 tool calls"


def test_empty_and_one_sided_trajectories():
    assert align([], []).rows == () and align([], []).first_divergence is None
    alignment = align([m("user", "q")], [])
    assert [(r.base, r.cand) for r in alignment.rows] == [(0, None)]
    assert alignment.first_divergence == 0 and alignment.final_row is None


def test_very_long_trajectories_fall_back_to_position(monkeypatch):
    monkeypatch.setattr(trajectory, "MAX_CELLS", 4)
    base = [m("user", str(i)) for i in range(3)]
    alignment = align(base, base[:2])
    assert alignment.by_position
    assert [(r.base, r.cand) for r in alignment.rows] == [(0, 0), (1, 1), (2, None)]
