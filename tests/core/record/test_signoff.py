"""The sign-off record: complete, hashed, and strict about approving untriaged regressions."""

from __future__ import annotations

import json

import pytest

from evaltui.core.analysis.pair import analyze
from evaltui.core.compare.pairing import pair_runs
from evaltui.core.errors import UsageError
from evaltui.core.read.formats import load_run
from evaltui.core.record.journal import ReviewSession
from evaltui.core.record.signoff import ReviewerDecision, build_record, record_hash_ok, write_record
from evaltui.core.record.signoff_markdown import decision_markdown


@pytest.fixture
def reviewed(sample_pair, tmp_path):
    base, cand = (load_run(p) for p in sample_pair)
    analysis = analyze(pair_runs(base, cand))
    session = ReviewSession.open(
        sample_pair[0],
        sample_pair[1],
        base.source.sha256,
        cand.source.sha256,
        root=tmp_path / "state",
    )
    return analysis, session


def test_record_holds_inputs_numbers_tags_and_notes(reviewed, tmp_path):
    analysis, session = reviewed
    first, second = analysis.regressions[:2]
    session.set_tag(first, "confirmed regression")
    session.set_note(first, "misses the warfarin interaction | <b>serious</b>")
    session.set_tag(second, "grader error")
    record = build_record(
        analysis, session, ReviewerDecision("dana", "block", "drug interactions regressed")
    )
    assert record["schema"] == "evaltui.signoff/2"
    assert record["results"]["table"] == {
        "both_pass": 141,
        "regressions": 9,
        "improvements": 21,
        "both_fail": 29,
    }
    assert record["results"]["mcnemar"]["exact_p"] == pytest.approx(0.0428, abs=5e-5)
    assert record["inputs"]["baseline"]["sha256"] == analysis.paired.baseline.source.sha256
    assert record["triage"] == {
        "regressions": 9,
        "triaged": 2,
        "untriaged": list(analysis.regressions[2:]),
        "by_tag": {"confirmed regression": 1, "grader error": 1},
        "tags": list(session.info.tags),
        "meanings": {
            "confirmed": ["confirmed regression"],
            "grader_error": ["grader error"],
            "open": ["needs investigation"],
        },
    }
    decision = record["decision"]
    assert decision["status"] == "blocked"  # one regression is tagged as confirmed
    assert decision["by_tag"] == {"confirmed regression": 1, "grader error": 1}
    assert decision["sensitivity"]["removed"] == [analysis.regressions[1]]
    items = {i["item_id"]: i for i in record["items"]}
    assert len(items) == 30
    assert items[first]["note"].startswith("misses the warfarin")
    assert record_hash_ok(record)

    json_path, md_path = write_record(record, analysis, tmp_path / "so")
    assert json.loads(json_path.read_text()) == record
    markdown = md_path.read_text()
    assert markdown.startswith("**BLOCKED** · 1 confirmed regression (drug\\_interactions) · ")
    assert markdown.splitlines()[0] == decision_markdown(record["decision"])
    assert "**Reviewer's decision: block** by dana" in markdown
    assert "\\<b\\>serious\\</b\\>" in markdown and "\\|" in markdown  # escaped, not HTML/table
    assert (
        "Regressions triaged: 2 of 9 (by tag: confirmed regression 1, grader error 1)" in markdown
    )


def test_approving_with_untriaged_regressions_needs_an_override_reason(reviewed):
    analysis, session = reviewed
    with pytest.raises(UsageError, match="9 of 9 regressions are untriaged"):
        build_record(analysis, session, ReviewerDecision("dana", "approve", "looks fine"))
    record = build_record(
        analysis,
        session,
        ReviewerDecision("dana", "approve", "looks fine", override_reason="hotfix"),
    )
    assert record["override"]["reason"] == "hotfix"
    assert len(record["override"]["untriaged_regressions"]) == 9


def test_approval_after_full_triage_needs_no_override(reviewed):
    analysis, session = reviewed
    for item in analysis.regressions:
        session.set_tag(item, "acceptable")
    record = build_record(analysis, session, ReviewerDecision("dana", "approve", "all acceptable"))
    assert record["override"] is None
    assert record["triage"]["triaged"] == 9


def test_any_edit_to_the_record_breaks_its_hash(reviewed):
    analysis, session = reviewed
    record = build_record(analysis, session, ReviewerDecision("dana", "block", "no"))
    record["results"]["table"]["regressions"] = 8
    assert not record_hash_ok(record)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"decision": "ship it"}, "decision must be one of"),
        ({"reviewer": " "}, "reviewer"),
        ({"rationale": ""}, "rationale"),
    ],
)
def test_incomplete_decisions_are_refused(kwargs, message):
    values = {"reviewer": "dana", "decision": "block", "rationale": "why", **kwargs}
    with pytest.raises(UsageError, match=message):
        ReviewerDecision(**values)


def test_writing_into_a_missing_folder_is_a_clear_error(reviewed, tmp_path):
    analysis, session = reviewed
    record = build_record(analysis, session, ReviewerDecision("dana", "block", "no"))
    with pytest.raises(UsageError, match="does not exist"):
        write_record(record, analysis, tmp_path / "nope" / "so")


def test_csv_beside_the_record_neutralises_formulas(reviewed, tmp_path):
    import csv

    analysis, session = reviewed
    first = analysis.regressions[0]
    session.set_note(first, '=HYPERLINK("http://evil","x")')
    session.set_tag(analysis.regressions[1], "flaky")
    session.set_note(analysis.regressions[1], "+1 more like this; @mention")
    record = build_record(analysis, session, ReviewerDecision("dana", "block", "no"))
    write_record(record, analysis, tmp_path / "so")
    rows = list(csv.DictReader((tmp_path / "so.csv").open()))
    assert len(rows) == 30
    notes = {r["item_id"]: r["note"] for r in rows}
    assert notes[first] == '\'=HYPERLINK("http://evil","x")'
    assert notes[analysis.regressions[1]] == "'+1 more like this; @mention"
    assert {r["direction"] for r in rows} == {"regression", "improvement"}
