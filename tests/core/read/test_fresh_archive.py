"""`--fresh` sets the old journal aside under a name of its own, however quickly it is repeated."""

from __future__ import annotations

from evaltui.core.record.journal import ReviewSession


def test_two_fresh_opens_within_a_second_keep_both_old_journals(tmp_path):
    base, cand = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    for path in (base, cand):
        path.write_text('{"item_id": "q", "passed": true}\n', encoding="utf-8")
    state = tmp_path / "state"
    journals = []
    for round_ in range(3):
        session = ReviewSession.open(base, cand, "x", "y", root=state, fresh=True)
        session.set_note("q", f"round {round_}")
        journals.append(session.path.read_bytes())
        session.close()
    kept = sorted(session.path.parent.glob("journal.*.jsonl"))
    assert len(kept) == 2  # the first open had nothing to set aside
    assert {p.read_bytes() for p in kept} == set(journals[:2])
