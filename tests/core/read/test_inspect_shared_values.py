"""Scores read once per distinct value, not once per sample, give what one at a time gave.

A 200,000-sample Inspect log's samples share a few scores objects: the summaries' scores are
made shared by columns (`inspect_summaries.shared_column`) and the table reads each shared
object once (`inspect_rows._read_values`). Both are held here to the one-at-a-time reading
they replaced (`inspect_common.shared_scores` per summary; a loop over the rows, written out
below as the reference), the same objects shared, the same table, the same refusal at the
same sample.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal

from evaltui.core.errors import InputError
from evaltui.core.read.formats.inspect_common import SampleFacts, shared_scores
from evaltui.core.read.formats.inspect_rows import scored_table
from evaltui.core.read.formats.inspect_scores import (
    score_as_float,
    score_as_verdict,
    score_value,
    value_kind,
)
from evaltui.core.read.formats.inspect_summaries import shared_column
from evaltui.core.read.runs import OUTCOME, stats_table
from tests.conftest import examples

_VALUE = st.sampled_from(["C", "I", "P", "N", True, False, 1, 0.5, None, "maybe", [1]])
_SCORE = st.one_of(
    st.fixed_dictionaries({"value": _VALUE}, optional={"answer": st.just("x")}),
    st.just({}),  # no value
    st.just("C"),  # no object
)
_SCORES = st.one_of(
    st.dictionaries(st.sampled_from(["m", "n"]), _SCORE, max_size=2),
    st.none(),
    st.just(7),
)
# mostly one scorer's words, as a large log holds them, so the column path is taken often
_COMMON = st.builds(lambda v: {"m": {"value": v, "answer": "a"}}, st.sampled_from(["C", "I"]))
_COLUMN = st.lists(st.one_of(_COMMON, _COMMON, _COMMON, _SCORES), max_size=8)


@settings(max_examples=examples(300), deadline=None)
@given(_COLUMN, _COLUMN)
def test_scores_shared_by_columns_are_the_objects_shared_one_at_a_time(first, second):
    ours: dict = {}  # one per load, kept across the batches
    theirs: dict = {}
    got = shared_column(first, ours) + shared_column(second, ours)
    expected = [shared_scores(s, theirs) for s in first + second]
    assert got == expected
    assert [[a is b for b in got] for a in got] == [[a is b for b in expected] for a in expected]
    assert [a is s for a, s in zip(got, first + second, strict=True)] == [
        a is s for a, s in zip(expected, first + second, strict=True)
    ]  # kept as written exactly where one at a time kept it
    assert ours == theirs


def _reference_table(path: Path, facts: list[SampleFacts], scorer: str) -> pl.DataFrame:
    """The loop over the rows `_read_values` replaced, as it was written."""
    kinds: list[str] = []
    values: list[Any] = []
    read: dict[int, tuple[Any, str]] = {}
    for fact in facts:
        if fact.error is not None:
            kinds.append("error")
            values.append(None)
            continue
        found = read.get(id(fact.scores))
        if found is None:
            value = score_value(path, fact, scorer)
            found = read[id(fact.scores)] = (value, value_kind(path, fact, scorer, value))
        values.append(found[0])
        kinds.append(found[1])
    ids = [f.item_id for f in facts]
    epochs = [f.epoch for f in facts]
    statuses = ["error" if kind == "error" else "ok" for kind in kinds]
    pairs = list(zip(kinds, values, strict=True))
    if any(kind in ("partial", "number") for kind in kinds):
        scores = [None if kind == "error" else score_as_float(value) for kind, value in pairs]
        table = stats_table(ids, epochs, statuses, score=scores)
    else:
        passed = [False if kind == "error" else score_as_verdict(value) for kind, value in pairs]
        table = stats_table(ids, epochs, statuses, passed=passed)
    if all(kind == "error" or value in {"C", "I", "P", "N"} for kind, value in pairs):
        outcomes = ["error" if kind == "error" else value for kind, value in pairs]
        table = table.with_columns(pl.Series(OUTCOME, outcomes, dtype=pl.String))
    return table


_SHARED = [{"m": {"value": v}} for v in ("C", "I", "P", True, 0.0, -0.0, 1, 2.5, "maybe")]
_ROW = st.tuples(
    st.one_of(
        st.tuples(st.just("shared"), st.integers(0, len(_SHARED) - 1)),
        st.tuples(st.just("own"), st.sampled_from(["C", "N", 0, -0.0, None])),
    ),
    st.sampled_from([None, None, None, "boom"]),
)


@settings(max_examples=examples(300), deadline=None)
@given(st.lists(_ROW, min_size=1, max_size=10))
def test_the_table_reads_each_shared_scores_object_once_to_the_same_table(rows):
    path = Path("x.eval")
    facts = [
        SampleFacts(
            str(i),
            1,
            _SHARED[which] if kind == "shared" else {"m": {"value": which}},
            error,
            f"s[{i}]",
        )
        for i, ((kind, which), error) in enumerate(rows)
    ]
    try:
        expected = _reference_table(path, facts, "m")
    except InputError as refused:
        with pytest.raises(InputError) as ours:
            scored_table(path, facts, "m")
        assert str(ours.value) == str(refused)  # the same words, the same sample
        return
    got = scored_table(path, facts, "m")
    assert_frame_equal(got, expected)
    for column in got.columns:  # -0.0 stays itself, 1 and 1.0 and True each read as written
        assert got[column].to_list().__repr__() == expected[column].to_list().__repr__()


def _reference_costs(table: pl.DataFrame, facts: list[SampleFacts]) -> pl.DataFrame:
    """`with_costs` as it was written before its columns were taken by C loops."""
    from evaltui.core.read.formats.inspect_rows import COST_FIELDS
    from evaltui.core.read.turns import NUMERIC_COSTS, cost_column

    nothing = (None,) * len(COST_FIELDS)
    costs = [f.cost or nothing for f in facts]
    if all(c is nothing for c in costs):
        return table
    by_field = dict(zip(COST_FIELDS, zip(*costs, strict=True), strict=True))
    columns = [
        pl.Series(cost_column(name), by_field[name], dtype=pl.Float64) for name in NUMERIC_COSTS
    ]
    limits = [limit.split(" (")[0] if limit else None for limit in by_field["limit"]]
    columns.append(pl.Series(cost_column("limit"), limits, dtype=pl.String))
    return table.with_columns(columns)


_COST = st.one_of(
    st.none(),
    st.tuples(
        *[st.one_of(st.none(), st.integers(0, 9))] * 4,
        *[st.one_of(st.none(), st.floats(0, 9))] * 2,
        st.integers(0, 3),
        st.sampled_from([None, "", "message (3)", "time", "token (10) (x)"]),
        st.none(),
    ),
)


@settings(max_examples=examples(300), deadline=None)
@given(st.lists(_COST, max_size=8))
def test_the_cost_columns_are_the_ones_built_sample_by_sample(costs):
    from evaltui.core.read.formats.inspect_rows import with_costs

    facts = [
        SampleFacts(str(i), 1, {"m": {"value": "C"}}, None, f"s[{i}]", None, cost)
        for i, cost in enumerate(costs)
    ]
    table = stats_table([f.item_id for f in facts], [1] * len(facts), ["ok"] * len(facts))
    assert_frame_equal(with_costs(table, facts), _reference_costs(table, facts))
