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


# -- the team in force: the command line over the policy's [review] -----------------------------


def _policy(reviewers=(), per_item=None, path="team.toml"):
    from evaltui.core.policy.schema import loads_policy

    lines = ["[review]"] if reviewers or per_item else []
    if reviewers:
        lines.append("reviewers = [" + ", ".join(f'"{n}"' for n in reviewers) + "]")
    if per_item is not None:
        lines.append(f"reviews_per_item = {per_item}")
    return loads_policy("\n".join(lines) + "\n", path)


def test_a_reviewer_list_on_the_command_line_deals_one_review_per_item_by_default():
    from evaltui.core.record.assignment import team_of

    team = team_of("ana, ben,cy", None)
    assert team is not None
    assert team.reviewers == ("ana", "ben", "cy") and team.per_item == 1
    assert team.source == "the command line"
    assert team.deal([f"q{i}" for i in range(9)]).loads() == {"ana": 3, "ben": 3, "cy": 3}


def test_the_policys_review_table_states_the_team_and_the_command_line_wins():
    from evaltui.core.record.assignment import team_of

    policy = _policy(("ana", "ben", "cy"), 2)
    from_policy = team_of(None, None, policy)
    assert from_policy is not None
    assert (from_policy.reviewers, from_policy.per_item) == (("ana", "ben", "cy"), 2)
    assert from_policy.source == "the policy team.toml"
    over = team_of("dee,eve", None, policy)  # the list from the command line, K from the policy
    assert over is not None and (over.reviewers, over.per_item) == (("dee", "eve"), 2)
    count = team_of(None, 3, policy)  # K from the command line, the list from the policy
    assert count is not None and (count.reviewers, count.per_item) == (("ana", "ben", "cy"), 3)
    assert team_of(None, None, _policy()) is None  # no [review]: no team


@pytest.mark.parametrize(
    ("reviewers", "per_item", "words"),
    [
        ("", None, "--reviewers '': expected one or more reviewer names, got an empty list"),
        ("ana,,ben", None, "got an empty name in ['ana', '', 'ben']"),
        ("ana,ben,ana", None, "names the reviewer 'ana' twice; expected distinct names"),
        (
            "ana,ben",
            3,
            "--reviewers 'ana,ben' with --reviews-per-item 3: asks for 3 reviews per item from "
            "2 reviewer(s) (ana, ben); expected at most 2",
        ),
        ("ana", 0, "expected a whole number of reviews per item of at least 1, got 0"),
        (None, 2, "--reviews-per-item needs a reviewer list"),
    ],
)
def test_a_bad_team_on_the_command_line_is_one_line_naming_the_option(reviewers, per_item, words):
    from evaltui.core.errors import UsageError
    from evaltui.core.record.assignment import team_of

    with pytest.raises(UsageError) as raised:
        team_of(reviewers, per_item)
    assert words in str(raised.value) and "\n" not in str(raised.value)


def test_the_command_line_list_against_the_policys_count_is_refused_naming_both():
    from evaltui.core.errors import UsageError
    from evaltui.core.record.assignment import team_of

    with pytest.raises(UsageError, match=r"--reviewers 'ana' with the policy's reviews_per_item"):
        team_of("ana", None, _policy(("ana", "ben"), 2))


def test_each_reviewers_share_counts_only_their_own_tags_on_their_own_items():
    from evaltui.core.record.assignment import workloads

    done = assign(["a", "b", "c", "d"], ["ana", "ben"], 2)  # every item to both
    shares = workloads(done, {"ana": {"a", "b", "zz"}, "ben": set()})
    by_name = {s.reviewer: s for s in shares}
    assert (by_name["ana"].assigned, by_name["ana"].tagged, by_name["ana"].open) == (4, 2, 2)
    assert (by_name["ben"].assigned, by_name["ben"].tagged, by_name["ben"].open) == (4, 0, 4)
