"""Corrections from an audit of the statistics: each pins what was wrong before."""

from __future__ import annotations

import numpy as np
import pytest

from evaltui.core.analysis.pipeline import compare_files
from evaltui.core.stats.binary import compare_binary
from evaltui.core.stats.graded import paired_bootstrap
from evaltui.core.stats.paired_table import PairedTable


def test_an_interval_and_a_test_at_different_levels_are_not_called_a_disagreement():
    """141/9/21/29: Newcombe 95% excludes zero and the exact p is 0.043 < 0.05, so they agree.
    A 90% interval with alpha 0.01 asks two different questions: no flag either way."""
    table = PairedTable(141, 9, 21, 29)
    assert "ci_test_disagree" not in compare_binary(table, confidence=0.95, alpha=0.05).flags
    assert "ci_test_disagree" not in compare_binary(table, confidence=0.90, alpha=0.01).flags
    # At the same level a real disagreement is still flagged: exact p 0.043 vs alpha 0.04,
    # while the 96% interval still excludes zero.
    same = compare_binary(table, confidence=0.96, alpha=0.04)
    assert same.delta_ci.lower > 0 and same.mcnemar.exact_p > 0.04
    assert "ci_test_disagree" in same.flags


def test_few_skewed_deltas_warn_that_bca_may_undercover():
    rng = np.random.default_rng(1)
    skewed = np.where(rng.random(30) < 0.1, -1.0, 0.05) + rng.normal(0, 0.01, 30)
    symmetric = rng.normal(0.0, 1.0, 30)
    assert "bca_small_skewed" in paired_bootstrap(skewed, resamples=500).flags
    assert "bca_small_skewed" not in paired_bootstrap(symmetric, resamples=500).flags
    many = np.where(rng.random(400) < 0.1, -1.0, 0.05)
    assert "bca_small_skewed" not in paired_bootstrap(many, resamples=500).flags
    assert (
        "bca_small_skewed" not in paired_bootstrap(skewed, resamples=500, method="percentile").flags
    )


def test_arms_with_different_epoch_counts_are_flagged(write_jsonl):
    """5 epochs against 2: the per-item means do not carry the same noise."""
    base = [
        {"item_id": f"e{i}", "epoch": k, "passed": (i + k) % 3 != 0}
        for i in range(40)
        for k in range(1, 6)
    ]
    cand = [
        {"item_id": f"e{i}", "epoch": k, "passed": (i + k) % 4 != 0}
        for i in range(40)
        for k in range(1, 3)
    ]
    analysis = compare_files(write_jsonl("b.jsonl", base), write_jsonl("c.jsonl", cand))
    assert "epochs_differ" in analysis.flags
    assert any(
        "different numbers of epochs (baseline 5, candidate 2)" in w for w in analysis.warnings
    )


def test_arms_with_the_same_epoch_counts_are_not_flagged(write_jsonl):
    rows = [
        {"item_id": f"e{i}", "epoch": k, "passed": (i + k) % 3 != 0}
        for i in range(40)
        for k in range(1, 4)
    ]
    analysis = compare_files(write_jsonl("b.jsonl", rows), write_jsonl("c.jsonl", rows))
    assert "epochs_differ" not in analysis.flags


def test_the_design_effect_is_kishs_variance_ratio(sample_pair):
    c = compare_files(*sample_pair).clusters
    assert c.design_effect == pytest.approx((c.clustered_se / c.naive_se) ** 2, rel=1e-12)
    assert c.se_ratio == pytest.approx(c.clustered_se / c.naive_se, rel=1e-12)
    assert c.n_items / c.design_effect < c.n_items  # the effective number of items
