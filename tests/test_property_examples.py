"""The property tests' example counts: a tenth in the default run, all of them in CI's second
stage, which finds them by the `properties` marker the suite's conftest puts on each."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, is_hypothesis_test
from hypothesis import strategies as st

from tests import conftest
from tests.conftest import ROOT


@given(count=st.integers(1, 100_000))
def test_the_default_run_draws_a_tenth_of_the_examples_at_least_ten(count: int) -> None:
    if conftest.ALL_EXAMPLES:  # CI's thorough stage: every example
        assert conftest.examples(count) == count
        return
    drawn = conftest.examples(count)
    assert drawn == min(count, max(10, count // 10))
    assert 1 <= drawn <= count


def test_every_property_test_carries_the_marker_ci_selects(request: pytest.FixtureRequest):
    properties = [i for i in request.session.items if is_hypothesis_test(getattr(i, "obj", None))]
    assert any(i.name.startswith("test_the_default_run_draws") for i in properties)
    unmarked = [i.nodeid for i in properties if i.get_closest_marker("properties") is None]
    assert not unmarked


def test_ci_runs_every_property_test_with_all_its_examples():
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert 'EVALTUI_ALL_EXAMPLES=1 .venv/bin/python -m pytest -q -m "slow or properties"' in ci


def test_no_property_test_states_a_bare_example_count():
    """A count written as a number would be drawn in full by the default run too: every
    `max_examples` goes through `examples` (the random key sessions count their own)."""
    bare = re.compile(r"max_examples=\d")
    found = [
        path.relative_to(ROOT).as_posix()
        for path in sorted((ROOT / "tests").rglob("*.py"))
        if bare.search(path.read_text(encoding="utf-8"))
    ]
    assert not found
