"""While the analysis that decides still runs, the first line says so and nothing else that
could change (issue 24, item 2): no status word, no verdict, no interval; a record is refused.

The app's first screen comes from `compare(complete=False)`: on the clustered demo its
item-level interval says improved, [+0.6, +11.5], and the cluster-aware one no significant
difference, [-0.7, +12.4]."""

from __future__ import annotations

from dataclasses import replace

import pytest

from evaltui.core.analysis.pipeline import COMPLETING_STEPS, compare_files, complete_analysis
from evaltui.core.decide.deciding import waiting_for
from evaltui.core.decide.pair import decide_unreviewed
from evaltui.core.decide.vocabulary import (
    DECIDING,
    STATUS_WORDS,
    VERDICT_SHORT,
    Effect,
    FirstLine,
    compose_line,
)
from evaltui.core.errors import UsageError
from evaltui.core.record.journal import ReviewSession
from evaltui.core.record.signoff import ReviewerDecision, build_record
from tests.conftest import SAMPLE_RUNS

BASE, CAND = SAMPLE_RUNS / "baseline.jsonl", SAMPLE_RUNS / "candidate.jsonl"


@pytest.fixture(scope="module")
def first_screen():
    """The demo as the app's first screen has it: clusters and the family still to come."""
    return compare_files(BASE, CAND, complete=False)


def _says_nothing_final(line: str) -> None:
    assert not any(word in line for word in STATUS_WORDS.values()), line
    assert not any(f", {word}" in line for word in VERDICT_SHORT.values()), line
    assert "[" not in line  # no interval: the interval is what is pending


def test_the_first_screens_line_says_deciding_with_what_it_waits_for(first_screen):
    assert first_screen.verdict == "improved"  # the item-level verdict it must not show
    assert waiting_for(first_screen) == ("clusters", "metric family")
    decided = decide_unreviewed(first_screen)
    assert decided.status == DECIDING and not decided.final
    assert decided.line == (
        "DECIDING… (clusters, step 1 of 2) · 9 of 9 untriaged · overall +6.0 pts (interval pending)"
    )
    _says_nothing_final(decided.line)
    with pytest.raises(ValueError, match="no exit code"):
        decided.exit_code  # noqa: B018 - nothing may exit on a decision still being made


def test_once_complete_the_line_is_the_decision_the_report_prints(first_screen):
    done = complete_analysis(first_screen)
    assert waiting_for(done) == ()
    decided = decide_unreviewed(done)
    assert decided.final
    assert decided.line == decide_unreviewed(compare_files(BASE, CAND)).line
    assert decided.line.startswith(
        "NEEDS REVIEW · 9 of 9 untriaged · overall +6.0 pts [-0.7, +12.4]"
    )


def test_without_clusters_the_metric_family_still_decides(first_screen):
    """An unclustered pair waits for the family only: its adjusted p may change the verdict."""
    unclustered = replace(first_screen, clusters_done=True)
    assert waiting_for(unclustered) == ("metric family",)
    assert decide_unreviewed(unclustered).line.startswith(
        "DECIDING… (metric family, step 2 of 2) · "
    )


def test_complete_analysis_reports_each_part_before_it_starts(first_screen):
    heard: list[tuple[str, int, int]] = []
    complete_analysis(first_screen, lambda what, step, steps: heard.append((what, step, steps)))
    assert heard == [(COMPLETING_STEPS[0], 1, 2), (COMPLETING_STEPS[1], 2, 2)]


def test_progress_shows_in_the_status_slot_and_never_overwrites_a_final_line():
    effect = Effect("+6.0 pts", qualifier="(interval pending)")
    deciding = FirstLine.deciding("clusters", ("9 of 9 untriaged",), effect)
    later = deciding.progressed("metric family", 2, 2)
    assert later.word == "DECIDING… (metric family, step 2 of 2)"
    assert compose_line(later) == (
        "DECIDING… (metric family, step 2 of 2) · 9 of 9 untriaged · overall +6.0 pts "
        "(interval pending)"
    )
    final = FirstLine("needs_review", ("9 of 9 untriaged",), Effect("+6.0 pts", "[-0.7, +12.4]"))
    assert final.progressed("clusters", 1, 2) is final


def test_a_record_is_refused_while_the_decision_is_still_being_made(first_screen, tmp_path):
    paired = first_screen.paired
    session = ReviewSession.open(
        BASE, CAND, paired.baseline.source.sha256, paired.candidate.source.sha256, root=tmp_path
    )
    try:
        decision = ReviewerDecision("Rita", "block", "not ready")
        with pytest.raises(UsageError, match="still being made .*clusters and metric family"):
            build_record(first_screen, session, decision)
        record = build_record(complete_analysis(first_screen), session, decision)
        assert record["decision"]["line"].startswith("NEEDS REVIEW · ")
    finally:
        session.close()
