"""The decision vocabulary: one composer turns a first line's parts into the line every surface
prints, and one effect formatter writes every design's effect."""

from __future__ import annotations

import math

import pytest

from evaltui.core.decide.effect import effect_of, percent_effect
from evaltui.core.decide.vocabulary import (
    EXIT_CODES,
    SHOWN_REASONS,
    STATUS_WORDS,
    STATUSES,
    CandidateEffect,
    Effect,
    FirstLine,
    after_word,
    compose_line,
    shown_reasons,
    split_line,
    worst_status,
)


def test_every_status_has_its_words_and_exit_code_in_the_order_they_win():
    assert STATUSES == ("not_comparable", "blocked", "not_enough_data", "needs_review", "ready")
    assert set(STATUS_WORDS) == set(EXIT_CODES) == set(STATUSES)
    assert [EXIT_CODES[s] for s in STATUSES] == [4, 1, 4, 0, 0]
    assert worst_status(["ready", "blocked", "needs_review"]) == "blocked"


def test_the_pair_line_is_status_reasons_then_the_overall_effect():
    effect = Effect("+6.0 pts", "[-0.7, +12.4]", "(clusters)", "no significant difference")
    parts = FirstLine("needs_review", ("9 of 9 untriaged",), effect)
    line = compose_line(parts)
    assert line == (
        "NEEDS REVIEW · 9 of 9 untriaged · overall +6.0 pts [-0.7, +12.4] (clusters), "
        "no significant difference"
    )
    assert parts.word + after_word(parts) == line  # what a surface that styles the word prints
    assert split_line("needs_review", line) == (parts.word, line.split(" · ", 1)[1])


def test_a_graded_effect_says_what_it_measures_and_an_undefined_interval_is_left_out():
    assert Effect("+0.012", measure="mean Δ", verdict="no verdict").text == (
        "mean Δ +0.012, no verdict"
    )
    assert effect_of(0.06, math.nan, math.nan, True).text == "+6.0 pts"
    assert effect_of(0.0001, 0.00001, 0.0002, True).interval == "[+0.001, +0.020]"


def test_the_run_set_line_names_each_candidate_with_its_status_then_the_omnibus():
    cands = (
        CandidateEffect("c1", Effect("+6.0 pts", "[-0.7, +12.4]"), status="needs_review"),
        CandidateEffect("c2", Effect("+8.0 pts", "[+2.2, +13.7]"), status="ready"),
    )
    parts = FirstLine(
        "needs_review", context=("3 runs against b",), candidates=cands, notes=("Q p = 0.002",)
    )
    assert compose_line(parts) == (
        "NEEDS REVIEW · 3 runs against b · c1: needs review, +6.0 pts [-0.7, +12.4] · "
        "c2: ready to approve, +8.0 pts [+2.2, +13.7] · Q p = 0.002"
    )


def test_the_preference_line_reads_every_candidate_against_the_baseline():
    effect = percent_effect(
        0.575, 0.526, 0.623, subject="v2 wins", qualifier="(ties count half)", verdict="improved"
    )
    parts = FirstLine("ready", candidates=(CandidateEffect("v2", effect),), versus="v1")
    assert compose_line(parts) == (
        "READY TO APPROVE · vs v1: v2 wins 57.5% [52.6%, 62.3%] (ties count half), improved"
    )


@pytest.mark.parametrize("n", [SHOWN_REASONS, SHOWN_REASONS + 3])
def test_the_first_line_carries_at_most_the_shown_reasons_then_how_many_more(n):
    shorts = [f"r{i}" for i in range(n)]
    shown = shown_reasons(shorts)
    assert shown[:SHOWN_REASONS] == tuple(shorts[:SHOWN_REASONS])
    assert shown[SHOWN_REASONS:] == (() if n == SHOWN_REASONS else ("+3 more",))


def test_a_hand_edited_line_that_lost_its_status_word_reads_back_as_all_rest():
    assert split_line("blocked", "something else") == ("", "something else")
