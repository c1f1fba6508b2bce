"""The one set of argument checks every statistic raises its ValueError from (stats/validate.py)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from evaltui.core.stats import validate
from evaltui.core.stats.paired_table import PairedTable


@pytest.mark.parametrize("bad", [True, np.bool_(False), "0.5", None, [0.5]])
def test_a_probability_must_be_a_number_and_bools_are_not_numbers(bad):
    with pytest.raises(ValueError, match=r"confidence must be a number strictly between 0 and 1"):
        validate.probability("confidence", bad)


@pytest.mark.parametrize("bad", [0.0, 1.0, -0.1, 1.5])
def test_an_open_probability_refuses_its_ends_and_names_the_value(bad):
    with pytest.raises(ValueError, match=rf"alpha must be strictly between 0 and 1, got {bad}"):
        validate.alpha(bad)


@pytest.mark.parametrize("bad", [math.nan, math.inf])
def test_a_probability_must_be_finite(bad):
    with pytest.raises(ValueError, match=rf"confidence must be a finite number, got {bad}"):
        validate.confidence(bad)


def test_a_closed_probability_keeps_zero_and_one_and_returns_plain_floats():
    assert validate.probability("p", 0, open_interval=False) == 0.0
    assert validate.probability("p", np.float32(1.0), open_interval=False) == 1.0
    assert type(validate.confidence(np.float64(0.9))) is float
    with pytest.raises(ValueError, match=r"p must be in \[0, 1\], got 1.5"):
        validate.probability("p", 1.5, open_interval=False)


def test_counts_are_non_negative_integers_and_numpy_integers_become_ints():
    assert validate.count("n", np.int64(3)) == 3 and type(validate.count("n", np.uint8(3))) is int
    assert validate.counts("cells", [1, np.int32(2)]) == (1, 2)
    for bad in (-1, 2.0, True, "3"):
        with pytest.raises(ValueError, match=r"n must be a non-negative integer count"):
            validate.count("n", bad)
    with pytest.raises(ValueError, match=r"cells\[1\] must be a non-negative integer count"):
        validate.counts("cells", [1, -2])


def test_a_whole_number_names_its_minimum():
    assert validate.integer("epochs", np.int64(2), minimum=1) == 2
    with pytest.raises(ValueError, match="epochs must be a whole number of at least 1, got 0"):
        validate.integer("epochs", 0, minimum=1)
    with pytest.raises(ValueError, match="seed must be a non-negative integer, got -1"):
        validate.integer("seed", -1, minimum=0)
    with pytest.raises(ValueError, match="got True"):
        validate.integer("resamples", True, minimum=1)


def test_numbers_positive_and_non_negative_refuse_by_value():
    assert validate.number("delta", -2) == -2.0
    with pytest.raises(ValueError, match="delta must be a number, got '0.1'"):
        validate.number("delta", "0.1")
    with pytest.raises(ValueError, match="sd must be a positive number, got 0"):
        validate.positive("sd", 0)
    with pytest.raises(ValueError, match="tolerance must be zero or positive, got -0.1"):
        validate.non_negative("tolerance", -0.1)


def test_a_choice_is_refused_by_name_with_the_choices():
    assert validate.one_of("tie rule", "drop", ("split", "drop")) == "drop"
    with pytest.raises(ValueError, match="unknown tie rule 'half'; choose one of split, drop"):
        validate.one_of("tie rule", "half", ("split", "drop"))


def test_an_instance_check_names_the_type_expected_and_given():
    table = PairedTable(1, 2, 3, 4)
    assert validate.instance("table", table, PairedTable) is table
    with pytest.raises(ValueError, match="table must be a PairedTable, got tuple"):
        validate.instance("table", (1, 2, 3, 4), PairedTable)
    with pytest.raises(ValueError, match=r"the table is empty \(n = 0\)"):
        validate.some_items(PairedTable(0, 0, 0, 0).n)


def test_aligned_codes_must_be_one_dimensional_and_as_long_as_what_they_label():
    assert validate.aligned("codes", [1, 2], "values", 2).tolist() == [1, 2]
    with pytest.raises(ValueError, match=r"codes must be one-dimensional, got shape \(2, 1\)"):
        validate.aligned("codes", [[1], [2]], "values", 2)
    with pytest.raises(ValueError, match="codes has 2 entries but values has 3"):
        validate.aligned("codes", [1, 2], "values", 3)


def test_a_sample_is_a_non_empty_finite_float_vector():
    assert validate.sample("deltas", [1, 2]).dtype == np.float64
    with pytest.raises(ValueError, match="deltas is empty"):
        validate.sample("deltas", [])
    with pytest.raises(ValueError, match=r"deltas\[1\] is nan"):
        validate.sample("deltas", [0.0, math.nan])
