"""A team's review as one reviewer sees it (the others' tags hidden until they tag the item
themselves: the second judgment stays independent) and as the report shows it (each
reviewer's assigned, tagged and open; every reviewed regression with each reviewer's tag)."""

from __future__ import annotations

from pathlib import Path

from evaltui.core.record.assignment import Team
from evaltui.core.record.journal import ReviewSession
from evaltui.core.record.team_view import shown_review, team_review


def open_as(reviewer: str, team: Path, tmp_path: Path) -> ReviewSession:
    return ReviewSession.open(
        tmp_path / "b.jsonl", tmp_path / "c.jsonl", "sha-b", "sha-c",
        root=tmp_path / f"state-{reviewer}", review_dir=team, reviewer=reviewer,
    )  # fmt: skip


def test_another_reviewers_tag_is_hidden_until_you_tag_the_item_then_shown_with_who(tmp_path):
    team = tmp_path / "team"
    ben = open_as("ben", team, tmp_path)
    ben.set_tag("q1", "flaky")
    ben.set_note("q1", "looks like a timeout")
    ben.close()
    ana = open_as("ana", team, tmp_path)
    shown, hidden = shown_review(ana.review("q1"), "ana")
    assert (shown.tag, shown.note, hidden) == (None, "", 1)  # neither ben's tag nor his note
    assert ana.review("q1").tag == "flaky"  # the merged view (the decision's) still has it
    ana.set_tag("q1", "acceptable")
    shown, hidden = shown_review(ana.review("q1"), "ana")
    assert hidden == 0 and shown.disputed
    assert {(r.reviewer, r.tag) for r in shown.reviews} == {("ana", "acceptable"), ("ben", "flaky")}
    ana.close()


def test_an_item_nobody_else_reviewed_shows_your_own_review(tmp_path):
    ana = open_as("ana", tmp_path / "team", tmp_path)
    ana.set_note("q2", "mine")
    shown, hidden = shown_review(ana.review("q2"), "ana")
    assert (shown.note, hidden) == ("mine", 0)
    ana.close()


def test_the_report_block_gives_each_reviewers_share_and_every_reviewers_tag(tmp_path):
    team = tmp_path / "team"
    items = [f"q{i}" for i in range(6)]
    stated = Team(("ana", "ben", "cy"), 2, "the command line")
    dealt = stated.deal(items)
    ana, ben = open_as("ana", team, tmp_path), open_as("ben", team, tmp_path)
    for item in dealt.of("ana")[:2]:
        ana.set_tag(item, "acceptable")
    for item in dealt.of("ben"):
        ben.set_tag(item, "acceptable")
    ben.set_tag("q-unlisted", "flaky")  # not a regression: not counted
    ben.close()
    ana.refresh_team()
    block = team_review(items, ana, stated)
    ana.close()
    assert block is not None
    assert block["team"] == {
        "reviewers": ["ana", "ben", "cy"], "reviews_per_item": 2, "source": "the command line",
    }  # fmt: skip
    shares = {row["reviewer"]: row for row in block["reviewers"]}
    assert shares["ana"] == {"reviewer": "ana", "assigned": 4, "tagged": 2, "open": 2}
    assert shares["ben"] == {"reviewer": "ben", "assigned": 4, "tagged": 4, "open": 0}
    assert shares["cy"] == {"reviewer": "cy", "assigned": 4, "tagged": 0, "open": 4}
    reviewed = {item["item_id"]: item for item in block["items"]}
    assert set(reviewed) == set(dealt.of("ana")[:2]) | set(dealt.of("ben"))
    for item in dealt.of("ana")[:2]:
        assert {r["reviewer"] for r in reviewed[item]["reviews"]} >= {"ana"}
        assert reviewed[item]["assigned"] == list(dealt.by_item[item])


def test_a_single_reviewer_with_no_team_has_no_review_block(tmp_path):
    alone = ReviewSession.open(tmp_path / "b", tmp_path / "c", "x", "y", root=tmp_path / "s")
    assert team_review(["q1"], alone, None) is None
    alone.close()
