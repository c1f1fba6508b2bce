"""Disputes settled, not averaged (issue 26, item 4): an adjudicator's journalled adjudication
or the policy's rule settles a disputed item; the decision says how many are disputed and
refuses approval while any is; the record lists every reviewer, review and adjudication, and
verify replays them (naming a changed one)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evaltui.cli.main import main
from evaltui.core.canonical import HASH_FIELD
from evaltui.core.errors import UsageError
from evaltui.core.record.adjudication import ANY_CONFIRMED_WINS, parse_adjudicators
from evaltui.core.record.journal import ReviewSession
from evaltui.core.stats.agreement import agreement_of_reviews
from tests.conftest import SAMPLE_RUNS

BASE, CAND = SAMPLE_RUNS / "baseline.jsonl", SAMPLE_RUNS / "candidate.jsonl"
CONFIRMED = ("confirmed regression",)


def open_as(reviewer: str, team: Path, tmp_path: Path, **kwargs) -> ReviewSession:
    return ReviewSession.open(
        tmp_path / "b.jsonl", tmp_path / "c.jsonl", "sha-b", "sha-c",
        root=tmp_path / f"state-{reviewer}", review_dir=team, reviewer=reviewer, **kwargs,
    )  # fmt: skip


def test_an_adjudication_settles_a_dispute_in_the_adjudicators_journal_and_replays(tmp_path):
    team = tmp_path / "team"
    ana, ben = open_as("ana", team, tmp_path), open_as("ben", team, tmp_path)
    ana.set_tag("q1", "acceptable")
    ben.set_tag("q1", "confirmed regression")
    ana.refresh_team()
    assert ana.review("q1").disputed and ana.review("q1").tag is None
    cy = open_as("cy", team, tmp_path)
    settled = cy.adjudicate("q1", "confirmed regression", "ben's reading of the transcript holds")
    assert settled.tag == "confirmed regression" and not settled.disputed
    assert settled.adjudication is not None and settled.adjudication.by == "cy"
    assert settled.settled == "settled by cy"
    # journalled in cy's own journal, an entry kind of its own
    lines = [json.loads(x) for x in cy.path.read_text().splitlines()]
    (entry,) = [x for x in lines if x["kind"] == "adjudication"]
    assert entry["item_id"] == "q1" and entry["tag"] == "confirmed regression"
    assert entry["by"] == "cy" and entry["reason"] and entry["time"]
    for session in (ana, ben, cy):
        session.close()
    replay = open_as("dee", team, tmp_path, read_only=True)  # everyone's journals, read anew
    merged = replay.review("q1")
    assert merged.tag == "confirmed regression" and not merged.disputed
    assert {r.reviewer: r.tag for r in merged.reviews} == {
        "ana": "acceptable",
        "ben": "confirmed regression",
    }
    assert merged.adjudication is not None and merged.adjudication.reason.startswith("ben's")


def test_a_later_adjudication_of_the_same_item_replaces_the_earlier(tmp_path):
    team = tmp_path / "team"
    ana, ben = open_as("ana", team, tmp_path), open_as("ben", team, tmp_path)
    ana.set_tag("q1", "acceptable")
    ben.set_tag("q1", "flaky")
    cy = open_as("cy", team, tmp_path)
    cy.adjudicate("q1", "flaky", "first look")
    assert cy.adjudicate("q1", "acceptable", "second look").tag == "acceptable"
    cy.close()
    replay = open_as("dee", team, tmp_path, read_only=True)
    assert replay.review("q1").tag == "acceptable"
    assert replay.review("q1").adjudication.reason == "second look"


def test_an_adjudication_needs_a_one_line_reason_a_known_tag_and_a_shared_review(tmp_path):
    team = tmp_path / "team"
    cy = open_as("cy", team, tmp_path)
    with pytest.raises(UsageError, match="needs a reason"):
        cy.adjudicate("q1", "flaky", "  ")
    with pytest.raises(UsageError, match="one line"):
        cy.adjudicate("q1", "flaky", "a\nb")
    with pytest.raises(UsageError, match="unknown tag"):
        cy.adjudicate("q1", "nope", "why")
    alone = ReviewSession.open(
        tmp_path / "b.jsonl", tmp_path / "c.jsonl", "sha-b", "sha-c", root=tmp_path / "solo"
    )
    with pytest.raises(UsageError, match="only a shared review"):
        alone.adjudicate("q1", "flaky", "why")
    assert parse_adjudicators(["ana, ben", "cy", "ana"]) == ("ana", "ben", "cy")


def test_any_confirmed_wins_settles_a_dispute_that_any_reviewer_confirmed(tmp_path):
    team = tmp_path / "team"
    ana, ben = open_as("ana", team, tmp_path), open_as("ben", team, tmp_path)
    ana.set_tag("q1", "acceptable")
    ben.set_tag("q1", "confirmed regression")
    ana.set_tag("q2", "acceptable")
    ben.set_tag("q2", "flaky")
    ana.refresh_team()
    ana.settle_disputes_by(ANY_CONFIRMED_WINS, CONFIRMED)
    q1, q2 = ana.review("q1"), ana.review("q2")
    assert q1.tag == "confirmed regression" and not q1.disputed
    assert q1.settled == "settled by the rule any_confirmed_wins" and q1.adjudication is None
    assert q2.disputed and q2.tag is None  # nobody confirmed it: still an adjudicator's
    ana.settle_disputes_by("adjudicator", CONFIRMED)
    assert ana.review("q1").disputed  # the default rule: only an adjudicator settles


def _demo_reviews(tmp_path: Path, team: Path) -> list[str]:
    """The demo pair's 9 regressions: ana and ben agree on 5, disagree on 4."""
    from evaltui.core.read.runs import sha256_of

    code = main(["report", str(BASE), str(CAND), "--format", "json"])
    assert code == 0
    return _tag_demo(tmp_path, team, sha256_of(BASE), sha256_of(CAND))


def _tag_demo(tmp_path: Path, team: Path, sha_b: str, sha_c: str) -> list[str]:
    from evaltui.core.analysis.pipeline import compare
    from evaltui.core.compare.spec import CompareSpec

    regs = list(compare(CompareSpec(BASE, CAND), complete=False).regressions)
    tags = {"ana": ["acceptable"] * 9, "ben": ["acceptable"] * 5 + ["confirmed regression"] * 4}
    for who, given in tags.items():
        session = ReviewSession.open(
            BASE, CAND, sha_b, sha_c, root=tmp_path / f"state-{who}", review_dir=team,
            reviewer=who,
        )  # fmt: skip
        session.set_tags(regs[:5], given[0])
        for item, tag in zip(regs[5:], given[5:], strict=True):
            session.set_tag(item, tag)
        session.close()
    return regs


def test_the_first_line_says_how_many_are_disputed_and_approval_is_refused(
    tmp_path, capsys, monkeypatch
):
    team = tmp_path / "team"
    regs = _demo_reviews(tmp_path, team)
    capsys.readouterr()
    code = main(["report", str(BASE), str(CAND), "--review-dir", str(team), "--format", "json"])
    out = json.loads(capsys.readouterr().out)
    line = out["decision"]["line"]
    assert line.startswith("NEEDS REVIEW · 4 disputed · 4 of 9 untriaged"), line
    (disputed,) = [r for r in out["decision"]["reasons"] if r["kind"] == "disputed"]
    assert disputed["item_ids"] == regs[5:] and code == 0
    monkeypatch.setenv("EVALTUI_STATE_DIR", str(tmp_path / "state-ana"))
    code = main(
        ["signoff", str(BASE), str(CAND), "--review-dir", str(team), "--reviewer", "ana",
         "--decision", "approve", "--rationale", "ship", "--override-reason", "trust me",
         "--output", str(tmp_path / "so")]
    )  # fmt: skip
    err = capsys.readouterr().err
    assert code == 2 and not (tmp_path / "so.json").exists()
    assert "cannot approve: 4 regressions disputed" in err and "settle it first" in err
    assert len(err.strip().splitlines()) == 1


def test_the_report_json_agreement_block_is_the_core_call(tmp_path, capsys, monkeypatch):
    from evaltui.core.read.runs import sha256_of as block_sha

    team = tmp_path / "team"
    regs = _demo_reviews(tmp_path, team)
    capsys.readouterr()
    main(["report", str(BASE), str(CAND), "--review-dir", str(team), "--format", "json"])
    block = json.loads(capsys.readouterr().out)["agreement"]
    given = {i: {"ana": "acceptable", "ben": "acceptable"} for i in regs[:5]}
    given |= {i: {"ana": "acceptable", "ben": "confirmed regression"} for i in regs[5:]}
    core = agreement_of_reviews(
        given,
        labels=("confirmed regression", "acceptable", "grader error", "flaky",
                "needs investigation"),
        resamples=block["resamples"], seed=block["seed"], confidence=block["confidence"],
    )  # fmt: skip
    assert block["n_items"] == core.n_items == 9 and block["reviewers"] == ["ana", "ben"]
    assert block["cohen_kappa"]["value"] == core.cohen.value
    assert block["raw_agreement"]["value"] == pytest.approx(5 / 9)
    ci = core.cohen.ci
    assert block["cohen_kappa"]["ci"] == (None if ci is None else [ci.lower, ci.upper])
    assert block["krippendorff_alpha"]["value"] == core.alpha.value
    assert block["seed"] == 0 and block["resamples"] == 10_000
    assert (
        block["line"].startswith("agreement: kappa ")
        and "raw 56%, 2 reviewers, 9 items" in (block["line"])
    )
    capsys.readouterr()
    main(["report", str(BASE), str(CAND), "--review-dir", str(team)])  # the text report
    assert block["line"] in capsys.readouterr().out
    main(["report", str(BASE), str(CAND), "--format", "markdown"])  # nobody's reviews
    assert "agreement" not in capsys.readouterr().out  # (said in the JSON only)
    main(["report", str(BASE), str(CAND), "--format", "json"])
    assert json.loads(capsys.readouterr().out)["agreement"]["n_items"] == 0
    ana = ReviewSession.open(
        BASE, CAND, block_sha(BASE), block_sha(CAND), root=tmp_path / "solo", reviewer="ana"
    )
    ana.set_tag(regs[0], "flaky")
    ana.close()
    monkeypatch.setenv("EVALTUI_STATE_DIR", str(tmp_path / "solo"))
    main(["report", str(BASE), str(CAND), "--format", "markdown"])  # one reviewer's review
    assert "agreement: no items with two reviews" in capsys.readouterr().out


@pytest.mark.slow
def test_the_record_lists_reviews_and_adjudications_and_verify_names_a_changed_one(
    tmp_path, capsys, monkeypatch
):
    team = tmp_path / "team"
    regs = _demo_reviews(tmp_path, team)
    capsys.readouterr()
    monkeypatch.setenv("EVALTUI_STATE_DIR", str(tmp_path / "state-cy"))
    for item in regs[5:]:
        code = main(
            ["adjudicate", str(BASE), str(CAND), item, "--review-dir", str(team),
             "--reviewer", "cy", "--adjudicator", "cy", "--tag", "acceptable",
             "--reason", f"grader was strict on {item}"]
        )  # fmt: skip
        assert code == 0, capsys.readouterr().err
    prefix = tmp_path / "so"
    code = main(
        ["signoff", str(BASE), str(CAND), "--review-dir", str(team), "--reviewer", "cy",
         "--decision", "approve", "--rationale", "all settled", "--output", str(prefix)]
    )  # fmt: skip
    assert code == 0, capsys.readouterr().err
    record = json.loads(prefix.with_suffix(".json").read_text())
    teamed = record["team_review"]
    assert teamed["reviewers"] == ["ana", "ben", "cy"]
    assert len(teamed["reviews"]) == 18  # 9 regressions x 2 reviewers
    assert {(r["item_id"], r["reviewer"]) for r in teamed["reviews"]} == {
        (i, who) for i in regs for who in ("ana", "ben")
    }
    assert [a["item_id"] for a in teamed["adjudications"]] == regs[5:]
    assert {a["by"] for a in teamed["adjudications"]} == {"cy"}
    assert teamed["disputes_open"] == [] and len(teamed["disputes_settled"]) == 4
    assert record["triage"]["triaged"] == 9
    assert teamed["agreement"]["n_items"] == 9
    markdown = prefix.with_suffix(".md").read_text()
    assert "Reviewers: ana, ben, cy (18 reviews); disputes: 4 settled, 0 open" in markdown
    assert "grader was strict on" in markdown
    capsys.readouterr()
    assert main(["verify", str(prefix.with_suffix(".json")), str(BASE), str(CAND)]) == 0, (
        capsys.readouterr()
    )
    # a changed adjudication (re-hashed, so only the replay can tell) is named by verify
    from evaltui.core.record.signoff import _hash

    tampered = dict(record)
    tampered["team_review"] = json.loads(json.dumps(record["team_review"]))
    tampered["team_review"]["adjudications"][0]["reason"] = "someone else's reason"
    del tampered[HASH_FIELD]
    tampered[HASH_FIELD] = _hash(tampered)
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(tampered))
    capsys.readouterr()
    assert main(["verify", str(bad), str(BASE), str(CAND)]) == 1
    out = capsys.readouterr()
    said = out.out + out.err
    assert "team_review.adjudications[0].reason" in said, said
    # an adjudication changed in the adjudicator's journal after the record: verify names it
    (cy_journal,) = team.glob("*/journals/cy.jsonl")
    original = cy_journal.read_text()
    cy_journal.write_text(original.replace("grader was strict on", "grader was lenient on", 1))
    capsys.readouterr()
    assert main(["verify", str(prefix.with_suffix(".json")), str(BASE), str(CAND)]) == 1
    assert "team_review.adjudications[0].reason" in capsys.readouterr().err
    cy_journal.write_text(original)
    # without the journals here, the record's own reviews and adjudications are replayed
    import shutil

    shutil.move(team, tmp_path / "elsewhere")
    capsys.readouterr()
    assert main(["verify", str(prefix.with_suffix(".json")), str(BASE), str(CAND)]) == 0, (
        capsys.readouterr()
    )
    # an approval over an open dispute (the record edited, re-hashed) is caught by its claims
    opened = json.loads(json.dumps(record))
    opened["team_review"]["disputes_open"] = [regs[5]]
    del opened[HASH_FIELD]
    opened[HASH_FIELD] = _hash(opened)
    (tmp_path / "opened.json").write_text(json.dumps(opened))
    capsys.readouterr()
    assert main(["verify", str(tmp_path / "opened.json")]) == 1
    assert "approves while 1 regression(s) are disputed" in capsys.readouterr().err
    # a record written before team reviews (no team_review key) still verifies
    old = {k: v for k, v in record.items() if k not in ("team_review", HASH_FIELD)}
    old[HASH_FIELD] = _hash(old)
    (tmp_path / "old.json").write_text(json.dumps(old))
    capsys.readouterr()
    assert main(["verify", str(tmp_path / "old.json"), str(BASE), str(CAND)]) == 0, (
        capsys.readouterr()
    )


def test_the_review_table_of_a_policy_is_read_checked_and_hashed_only_when_stated(tmp_path):
    from evaltui.core.errors import InputError
    from evaltui.core.policy.schema import load_policy

    plain = tmp_path / "plain.toml"
    plain.write_text("alpha = 0.05\n")
    stated = tmp_path / "stated.toml"
    stated.write_text(
        'alpha = 0.05\n[review]\nadjudicators = ["ana", "ben"]\n'
        'dispute_rule = "any_confirmed_wins"\n'
    )
    p, s = load_policy(plain), load_policy(stated)
    assert p.adjudicators == () and p.dispute_rule == "adjudicator"
    assert "review" not in p.canonical()  # policies without it keep the hash records cite
    assert s.adjudicators == ("ana", "ben") and s.dispute_rule == ANY_CONFIRMED_WINS
    assert s.canonical()["review"] == {
        "adjudicators": ["ana", "ben"],
        "dispute_rule": "any_confirmed_wins",
    }
    assert p.hash != s.hash
    bad = tmp_path / "bad.toml"
    bad.write_text('[review]\ndispute_rule = "vote"\n')
    with pytest.raises(InputError) as caught:
        load_policy(bad)
    said = str(caught.value)
    assert "bad.toml:1" in said and "[review] dispute_rule" in said
    assert "'adjudicator' or 'any_confirmed_wins', got 'vote'" in said
    assert "\n" not in said


def test_evaltui_adjudicate_refuses_in_one_line(tmp_path, capsys, monkeypatch):
    team = tmp_path / "team"
    regs = _demo_reviews(tmp_path, team)
    monkeypatch.setenv("EVALTUI_STATE_DIR", str(tmp_path / "state-cy"))
    monkeypatch.delenv("EVALTUI_REVIEW_DIR", raising=False)
    cases = [
        ([regs[5], "--review-dir", str(team), "--adjudicator", "dee"],
         "cy cannot settle this item: only dee may settle a dispute"),
        ([regs[5], "--review-dir", str(team)], "no adjudicator is named"),
        ([regs[0], "--review-dir", str(team), "--adjudicator", "cy"], "is not disputed"),
        (["nope", "--review-dir", str(team), "--adjudicator", "cy"], "is not a regression"),
        ([regs[5], "--adjudicator", "cy"], "give --review-dir DIR"),
    ]  # fmt: skip
    for extra, words in cases:
        capsys.readouterr()
        code = main(
            ["adjudicate", str(BASE), str(CAND), *extra, "--reviewer", "cy", "--tag",
             "acceptable", "--reason", "why"]
        )  # fmt: skip
        err = capsys.readouterr().err
        assert code == 2 and words in err and len(err.strip().splitlines()) == 1, (extra, err)
    assert not (team / next(team.iterdir()).name / "journals" / "cy.jsonl").exists()


def test_any_confirmed_wins_from_the_policy_settles_the_report_the_record_and_verify(
    tmp_path, capsys, monkeypatch
):
    team = tmp_path / "team"
    regs = _demo_reviews(tmp_path, team)
    policy = tmp_path / "policy.toml"
    policy.write_text('[review]\ndispute_rule = "any_confirmed_wins"\n')
    capsys.readouterr()
    main(["report", str(BASE), str(CAND), "--review-dir", str(team), "--policy", str(policy),
          "--format", "json"])  # fmt: skip
    decision = json.loads(capsys.readouterr().out)["decision"]
    assert "disputed" not in decision["line"] and decision["untriaged_regressions"] == 0
    assert decision["by_tag"] == {"acceptable": 5, "confirmed regression": 4}
    assert decision["status"] == "blocked"  # the confirmed regressions block
    monkeypatch.setenv("EVALTUI_STATE_DIR", str(tmp_path / "state-ana"))
    prefix = tmp_path / "so"
    code = main(
        ["signoff", str(BASE), str(CAND), "--review-dir", str(team), "--reviewer", "ana",
         "--policy", str(policy), "--decision", "block", "--rationale", "4 confirmed",
         "--output", str(prefix)]
    )  # fmt: skip
    assert code == 0, capsys.readouterr().err
    record = json.loads(prefix.with_suffix(".json").read_text())
    settled = record["team_review"]["disputes_settled"]
    assert [s["item_id"] for s in settled] == regs[5:]
    assert {s["how"] for s in settled} == {"settled by the rule any_confirmed_wins"}
    assert record["team_review"]["dispute_rule"] == ANY_CONFIRMED_WINS
    capsys.readouterr()
    assert main(["verify", str(prefix.with_suffix(".json")), str(BASE), str(CAND)]) == 0, (
        capsys.readouterr()
    )


def test_a_disputed_improvement_does_not_block_approval_and_the_record_verifies(
    tmp_path, capsys, monkeypatch
):
    from evaltui.core.analysis.pipeline import compare
    from evaltui.core.compare.spec import CompareSpec
    from evaltui.core.read.runs import sha256_of

    analysis = compare(CompareSpec(BASE, CAND), complete=False)
    regs, better = list(analysis.regressions), analysis.improvements[0]
    team = tmp_path / "team"
    for who, tag in (("ana", "acceptable"), ("ben", "flaky")):
        session = ReviewSession.open(
            BASE, CAND, sha256_of(BASE), sha256_of(CAND), root=tmp_path / f"state-{who}",
            review_dir=team, reviewer=who,
        )  # fmt: skip
        session.set_tags(regs, "acceptable")
        session.set_tag(better, tag)  # an improvement the two disagree on
        session.close()
    monkeypatch.setenv("EVALTUI_STATE_DIR", str(tmp_path / "state-ana"))
    prefix = tmp_path / "so"
    code = main(
        ["signoff", str(BASE), str(CAND), "--review-dir", str(team), "--reviewer", "ana",
         "--decision", "approve", "--rationale", "all triaged", "--output", str(prefix)]
    )  # fmt: skip
    assert code == 0, capsys.readouterr().err
    record = json.loads(prefix.with_suffix(".json").read_text())
    assert record["team_review"]["disputes_open"] == [better]
    capsys.readouterr()
    assert main(["verify", str(prefix.with_suffix(".json")), str(BASE), str(CAND)]) == 0, (
        capsys.readouterr()
    )


def test_an_adjudication_line_without_a_tag_or_reason_is_named_as_damage_never_settles(tmp_path):
    team = tmp_path / "team"
    ana, ben = open_as("ana", team, tmp_path), open_as("ben", team, tmp_path)
    ana.set_tag("q1", "acceptable")
    ben.set_tag("q1", "flaky")
    ana.close()
    with open(ben.path, "a") as handle:  # edited by hand: no reason
        handle.write(json.dumps({"kind": "adjudication", "item_id": "q1", "tag": "flaky"}) + "\n")
    ben.close()
    for reader in (open_as("cy", team, tmp_path, read_only=True), open_as("ben", team, tmp_path)):
        assert reader.review("q1").disputed and reader.review("q1").tag is None
        assert any("names no item, tag or reason" in n.text for n in reader.notices)
        reader.close()
