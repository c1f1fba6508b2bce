"""The shared per-field checks of the harness loaders: what they refuse and how they say it."""

from __future__ import annotations

from pathlib import Path

import pytest

from evaltui.core.errors import InputError
from evaltui.core.read.formats.fields import (
    Where,
    dotted,
    element,
    identifier,
    is_finite,
    metric_value,
    optional_number,
    require_bool,
    require_int,
    require_str,
)

HERE = Where(Path("run.jsonl"), line=7)


def test_a_wrong_value_names_file_line_field_expectation_and_the_value():
    with pytest.raises(InputError) as caught:
        require_bool({"correct": "yes"}, "correct", HERE.inside("data"))
    expected = "run.jsonl:7: field 'data.correct': expected true or false, got \"yes\""
    assert str(caught.value) == expected
    assert (caught.value.line, caught.value.field) == (7, "data.correct")


def test_a_record_label_and_a_longer_quote_are_the_places_choice():
    where = Where(Path("log.json"), record=element("samples", 3), quote=80)
    with pytest.raises(InputError) as caught:
        require_str({"name": 5}, "name", where)
    expected = "log.json (record samples[3]): field 'name': expected a string, got 5"
    assert str(caught.value) == expected
    assert len(where.quoted("y" * 200)) == 80


@pytest.mark.parametrize("value", [None, True, False, "", 1.5, [1], {}])
def test_an_identifier_is_an_integer_or_a_non_empty_string_only(value):
    with pytest.raises(InputError, match="expected the id, got"):
        identifier({"id": value}, "id", HERE, "the id")


def test_an_identifier_comes_back_as_a_string():
    assert identifier({"id": 12}, "id", HERE, "the id") == "12"
    assert identifier({"id": "a"}, "id", HERE, "the id") == "a"


def test_an_integer_field_holds_its_bounds_and_its_default():
    assert require_int({}, "trial", HERE, "an integer >= 0", minimum=0, default=0) == 0
    for value in (-1, True, 2.0, 2**63):
        with pytest.raises(InputError, match="expected an integer >= 0"):
            require_int({"trial": value}, "trial", HERE, "an integer >= 0", minimum=0)


def test_finite_numbers_exclude_booleans_nan_infinity_and_integers_too_large_for_a_float():
    assert is_finite(1) and is_finite(0.5)
    assert not any(is_finite(v) for v in (True, float("nan"), float("inf"), 10**400, "1"))
    assert optional_number({}, "score", HERE) is None
    with pytest.raises(InputError, match="field 'score': expected a finite number"):
        optional_number({"score": float("nan")}, "score", HERE)


def test_a_metric_value_is_a_verdict_or_a_finite_number():
    assert metric_value(True, "acc", HERE, "acc") is True
    assert metric_value(0.25, "acc", HERE, "acc") == 0.25
    with pytest.raises(InputError, match=r"field 'acc': cannot read the value \"x\" of metric"):
        metric_value("x", "acc", HERE, "acc")


def test_dotted_names_leave_out_an_unchosen_part():
    assert dotted("stats", "exact_match") == "stats.exact_match"
    assert dotted("scores", None) == "scores"
