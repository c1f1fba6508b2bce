"""The policy's [review] table (issue 26, item 2): who the regressions are split among and how
many reviews each needs; checked in one line naming the table and key; in the rules' hash only
when the file states it, and read back from a record's rules by verify."""

from __future__ import annotations

import pytest

from evaltui.core.errors import InputError
from evaltui.core.policy.schema import loads_policy
from evaltui.core.verify.spec_and_policy import policy_from_record

TEAM = '[review]\nreviewers = ["ana", "ben", "cy"]\nreviews_per_item = 2\n'


def test_the_review_table_names_the_team_and_the_reviews_each_regression_needs():
    policy = loads_policy("alpha = 0.05\n\n" + TEAM)
    assert policy.reviewers == ("ana", "ben", "cy")
    assert policy.reviews_per_item == 2
    assert policy.canonical()["review"] == {
        "reviewers": ["ana", "ben", "cy"],
        "reviews_per_item": 2,
    }


def test_a_policy_without_a_review_table_keeps_the_hash_it_had():
    plain = loads_policy("alpha = 0.05\n")
    assert "review" not in plain.canonical()
    assert plain.reviewers == () and plain.reviews_per_item is None
    with_team = loads_policy("alpha = 0.05\n" + TEAM)
    assert with_team.hash != plain.hash  # the team is part of the stated rules
    other = loads_policy("alpha = 0.05\n" + TEAM.replace("= 2", "= 1"))
    assert other.hash != with_team.hash


def test_verify_reads_the_review_table_back_from_a_records_rules():
    policy = loads_policy("alpha = 0.05\n" + TEAM, "team.toml")
    record = {"policy": {"path": "team.toml", "rules": policy.canonical()}}
    again = policy_from_record(record)
    assert again.hash == policy.hash
    assert (again.reviewers, again.reviews_per_item) == (policy.reviewers, 2)


@pytest.mark.parametrize(
    ("table", "words"),
    [
        ("reviewers = []", "[review] reviewers: expected one or more reviewer names, got an empty"),
        ('reviewers = ["ana", "ana"]', "[review] reviewers: names the reviewer 'ana' twice"),
        (
            'reviewers = ["ana", "ben"]\nreviews_per_item = 3',
            "asks for 3 reviews per item from 2 reviewer(s) (ana, ben); expected at most 2",
        ),
        ('reviewers = "ana"', "[review] reviewers: expected a list of reviewer names, got 'ana'"),
        (
            'reviewers = ["ana"]\nreviews_per_item = 0',
            "[review] reviews_per_item: expected a whole number of reviews per item, at least 1",
        ),
        ("reviews_per_item = 2", "[review] reviews_per_item needs reviewers = [...]"),
        ('reviewer = ["ana"]', "[review]: unknown key 'reviewer'; expected one of reviewers"),
    ],
)
def test_a_bad_review_table_is_one_line_naming_the_file_the_line_and_the_key(table, words):
    with pytest.raises(InputError) as raised:
        loads_policy(f"alpha = 0.05\n\n[review]\n{table}\n", "team.toml")
    text = str(raised.value)
    assert text.startswith("team.toml:3:") and words in text and "\n" not in text
