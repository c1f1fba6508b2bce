"""An Inspect `.eval` log whose sample summaries disagree with its own results is read from its
sample members, and says so (`read.formats.inspect_consistency`, issue 24)."""

from __future__ import annotations

import math
import statistics
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from evaltui.core.read.formats import load_run
from evaltui.core.read.formats.inspect_common import SampleFacts
from evaltui.core.read.formats.inspect_consistency import facts_mean
from evaltui.core.read.formats.inspect_scores import SCORE_WORDS
from tests.conftest import DATA, examples


def test_an_inspect_log_whose_summaries_disagree_is_read_from_its_samples():
    """The real gpt-5 log with sample 5's summaries edited to "C" (README in variants/): the
    scores are the samples' ("I" five times), and the run says why."""
    run = load_run(DATA / "inspect_ai" / "variants" / "gpt5_summaries_disagree.eval")
    five = run.table.filter(run.table["item_id"] == "5")
    assert five["passed"].to_list() == [False] * 5
    assert (
        "accuracy 0.6 in the header's results, 0.7 from the summaries"
        in (run.metadata["inconsistent_scores"])
    )
    assert run.metadata["sample_source"].startswith("samples")
    plain = load_run(
        DATA / "inspect_ai" / "2025-09-15T15-04-34-04-00_popularity_CuCFPdqnwXupUkxp69nJ2a.eval"
    )
    assert "inconsistent_scores" not in plain.metadata
    assert plain.metadata["sample_source"] == "summaries.json"  # the fast path stays


_VALUES = st.one_of(
    st.sampled_from(["C", "I", "P", "N", "maybe"]),
    st.booleans(),
    st.integers(-3, 3),
    st.floats(allow_nan=True, allow_infinity=True, width=32),
    st.none(),
    st.dictionaries(st.sampled_from(["a", "b"]), st.integers(0, 1), max_size=2),
)


@given(
    values=st.lists(_VALUES, min_size=0, max_size=30),
    shared=st.booleans(),
    repeat=st.booleans(),
    error=st.booleans(),
)
@settings(max_examples=examples(300), deadline=None)
def test_the_header_check_mean_is_the_mean_of_item_means(
    values: list[Any], shared: bool, repeat: bool, error: bool
) -> None:
    """`facts_mean` (its one-epoch path and its loop) is the mean over items of each item's
    mean over its epochs (`statistics.fmean`, exact sums), None when a value is one Inspect's
    metrics read their own way (null among them): on facts with shared or own scores objects,
    repeated items and errors."""
    objects: dict[Any, Any] = {}
    facts = []
    for i, value in enumerate(values):
        key = repr(value)
        scores = {"match": {"value": value}}
        if shared:
            scores = objects.setdefault(key, scores)
        item = str(i // 2 if repeat else i)
        failed = "boom" if error and i % 3 == 0 else None
        facts.append(SampleFacts(item, 1 + i % 2 if repeat else 1, scores, failed, f"r{i}"))
    per_item: dict[str, list[float]] = {}
    unchecked = False
    for fact in facts:
        if fact.error is not None:
            continue
        value = fact.scores["match"]["value"]
        if isinstance(value, bool):
            number = float(value)
        elif isinstance(value, str) and value in SCORE_WORDS:
            number = SCORE_WORDS[value]
        elif isinstance(value, int | float) and math.isfinite(value):
            number = float(value)
        else:
            unchecked = True
            continue
        per_item.setdefault(fact.item_id, []).append(number)
    if unchecked:
        expected = None
    elif per_item:
        expected = statistics.fmean(math.fsum(v) / len(v) for v in per_item.values())
    else:
        expected = None
    found = facts_mean(facts, "match")
    assert found == expected  # exactly: both sums are exact (fsum), then one division
