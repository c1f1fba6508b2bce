"""Splitting regressions among reviewers: each item to `per_item` distinct reviewers, loads
even to within one, the same split whatever order the items and reviewers are given in."""

from __future__ import annotations

import random

import pytest

from evaltui.core.record.assignment import assign


@pytest.mark.parametrize(
    ("n", "reviewers", "per_item"),
    [(2500, 3, 2), (10, 4, 1), (7, 3, 3), (1, 5, 2), (0, 2, 1), (101, 6, 4)],
)
def test_each_item_gets_distinct_reviewers_and_the_loads_differ_by_at_most_one(
    n, reviewers, per_item
):
    items = [f"item-{i}" for i in range(n)]
    names = [f"r{j}" for j in range(reviewers)]
    done = assign(items, names, per_item)
    assert set(done.by_item) == set(items)
    assert all(len(set(r)) == per_item for r in done.by_item.values())
    loads = done.loads()
    assert sum(loads.values()) == n * per_item
    assert max(loads.values()) - min(loads.values()) <= 1
    assert sorted(i for name in names for i in done.of(name)) == sorted(
        i for i in items for _ in range(per_item)
    )


def test_the_split_does_not_depend_on_the_order_items_and_reviewers_are_listed_in():
    items = [f"q{i}" for i in range(50)]
    first = assign(items, ["ana", "ben", "cy"], 2)
    shuffled = items[:]
    random.Random(7).shuffle(shuffled)
    again = assign(shuffled, ["cy", "ana", "ben"], 2)
    assert dict(first.by_item) == dict(again.by_item)


def test_items_are_not_dealt_in_file_order():
    """A file sorted by slice must not give one reviewer one slice: the first half of the
    items (in file order) is spread over both reviewers."""
    items = [f"q{i:03d}" for i in range(100)]
    done = assign(items, ["ana", "ben"], 1)
    first_half = {done.by_item[i][0] for i in items[:50]}
    assert first_half == {"ana", "ben"}
    assert 15 < sum(done.by_item[i] == ("ana",) for i in items[:50]) < 35


@pytest.mark.parametrize(
    ("reviewers", "per_item", "message"),
    [
        ([], 1, "one or more"),
        (["a", "a"], 1, "distinct"),
        (["a", "b"], 3, "between 1 and"),
        (["a", ""], 1, "non-empty"),
        (["a"], 0, "between 1 and"),
    ],
)
def test_a_bad_team_is_refused_naming_the_value(reviewers, per_item, message):
    with pytest.raises(ValueError, match=message):
        assign(["q1"], reviewers, per_item)
