"""Which scorer's regressions a reviewer is shown first (`metric_that_blocks`): the app opens
on it when the compared scorer did not regress but another blocks.

On the real two-scorer Inspect logs (tests/data/inspect_ai/two_scorers): `answered` has no
change, `safe_advice` 15 regressions of 60."""

from __future__ import annotations

from dataclasses import replace

from evaltui.core.analysis.pipeline import add_breakdowns, compare_files
from evaltui.core.decide.other_metrics import metric_that_blocks
from evaltui.core.policy.schema import loads_policy
from tests.conftest import DATA

PAIR = DATA / "inspect_ai" / "two_scorers"


def analysis(**choices):
    return compare_files(PAIR / "baseline.eval", PAIR / "candidate.eval", **choices)


def test_the_scorer_that_blocks_is_named_when_the_compared_one_did_not_regress():
    assert metric_that_blocks(analysis()) == "passed:safe_advice"


def test_none_when_the_compared_scorer_regressed_itself():
    assert metric_that_blocks(analysis(metric="safe_advice")) is None


def test_none_for_a_policys_secondary_scorer_which_does_not_block():
    policy = loads_policy('primary_metric = "answered"\nsecondary = ["safe_advice"]\n')
    secondary = add_breakdowns(analysis(), policy)
    assert [r.role for r in secondary.metrics if r.name == "safe_advice"] == ["secondary"]
    assert metric_that_blocks(secondary) is None


def test_none_before_the_family_is_computed():
    assert metric_that_blocks(replace(analysis(), metrics=[])) is None
