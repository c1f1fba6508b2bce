"""Verdicts respect the family: an adjusted p above alpha is never "improved" or "regressed",
and a graded metric's p tests the mean its interval describes."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from evaltui.core.analysis.pipeline import compare_files
from evaltui.core.stats.graded_reference import paired_t_p


def _family_pair(write_jsonl):
    """Three metrics: passed (p ~ 0.09), score:a (a clear gain) and score:b, whose own
    interval lies above zero (paired t p ~ 0.027) while Holm over the three gives 0.055."""
    rng = np.random.default_rng(11)
    base, cand = [], []
    for i in range(400):
        b_pass = bool(i % 4 != 0)
        c_pass = b_pass or (i % 13 == 0 and i % 4 == 0) or (i % 29 == 0)
        if i % 97 == 0:
            c_pass = False
        score_a = float(rng.normal(0.5, 0.2))
        score_b = float(rng.normal(0.5, 0.2))
        base.append({"item_id": f"q{i}", "passed": b_pass, "score:a": score_a, "score:b": score_b})
        cand.append(
            {
                "item_id": f"q{i}",
                "passed": c_pass,
                "score:a": score_a + float(rng.normal(0.018, 0.15)),
                "score:b": score_b + float(rng.normal(0.018, 0.15)),
            }
        )
    return write_jsonl("base.jsonl", base), write_jsonl("cand.jsonl", cand)


def test_a_metric_whose_adjusted_p_is_above_alpha_is_not_called_improved(write_jsonl):
    analysis = compare_files(*_family_pair(write_jsonl), resamples=2_000, metric="score:b")
    rows = {r.metric: r for r in analysis.metrics}
    primary = rows["score:b"]
    assert primary.unadjusted_verdict == "improved"  # its own interval lies above zero
    assert primary.ci[0] > 0
    assert primary.p_raw < 0.05 <= primary.p_adjusted
    assert primary.verdict == "no_significant_difference"
    assert rows["score:a"].verdict == "improved"  # clear enough to survive the adjustment
    assert analysis.verdict == "no_significant_difference"  # the headline follows it
    assert analysis.own_verdict == "improved"
    assert any("adjusted over the 3 metrics" in w for w in analysis.warnings)
    for row in analysis.metrics:  # the rule, for every member of the family
        if row.p_adjusted is None or row.p_adjusted >= 0.05:
            assert row.verdict not in ("improved", "regressed")


def test_a_single_metric_is_its_own_family_and_keeps_its_verdict(write_jsonl, sample_pair):
    analysis = compare_files(*sample_pair)
    assert [r.metric for r in analysis.metrics] == ["passed"]
    assert analysis.metrics[0].verdict == analysis.metrics[0].unadjusted_verdict


def test_a_graded_mean_delta_of_zero_gets_the_p_of_a_test_of_the_mean(write_jsonl):
    """Forty items in sixty gain 0.1 and four lose 1.0: the mean delta is exactly zero, yet Wilcoxon
    (which tests another location) rejects at p < 0.001. The table's p is the paired t test's,
    1.0 here; Wilcoxon stays as the labelled reference."""
    base, cand = [], []
    for i in range(300):  # five times 60: enough items at skewness -3.3 (Cochran's rule: 277)
        delta = 0.1 if i % 60 < 40 else (-1.0 if i % 60 < 44 else 0.0)
        base.append({"item_id": f"g{i}", "score": 1.0, "score:other": 0.5})
        cand.append({"item_id": f"g{i}", "score": 1.0 + delta, "score:other": 0.5 + delta})
    analysis = compare_files(
        write_jsonl("b.jsonl", base), write_jsonl("c.jsonl", cand), resamples=2_000
    )
    rows = {r.metric: r for r in analysis.metrics}
    row = rows["score"]
    assert row.delta == pytest.approx(0.0, abs=1e-12)
    assert row.p_test == "paired t"
    assert row.p_raw == pytest.approx(1.0)
    assert row.p_reference_test == "Wilcoxon signed-rank" and row.p_reference < 0.001
    assert row.p_adjusted == pytest.approx(1.0)
    assert row.verdict == "no_significant_difference"


@pytest.mark.parametrize("seed", range(5))
def test_paired_t_p_equals_scipy(seed):
    x = np.random.default_rng(seed).normal(0.05 * seed, 1.0, size=25 + seed)
    assert paired_t_p(x) == pytest.approx(stats.ttest_1samp(x, 0.0).pvalue, rel=1e-12)


def test_paired_t_p_of_a_constant_sample_says_what_is_known():
    assert paired_t_p(np.zeros(10)) == 1.0
    assert paired_t_p(np.full(10, 0.2)) == 0.0
    assert paired_t_p(np.array([0.3])) is None


def test_slice_verdicts_follow_the_adjusted_p(sample_pair):
    analysis = compare_files(*sample_pair)
    assert analysis.slices
    for result in analysis.slices:
        if result.is_overall:
            assert result.verdict == result.comparison.verdict
        elif result.p_adjusted is None or result.p_adjusted >= result.alpha:
            assert result.verdict not in ("improved", "regressed")


def test_the_familys_rows_are_those_of_each_metrics_full_analysis(write_jsonl):
    """The family analyses its other metrics for their rows only (`row_only`: the
    improvements' ids are not listed); each row is the one a full analysis of the metric gives
    (the metric's own regressions named), with only the family's adjustment applied."""
    from dataclasses import replace

    from evaltui.core.analysis.family import metric_row
    from evaltui.core.analysis.pair import analyze

    analysis = compare_files(*_family_pair(write_jsonl), resamples=2_000)
    assert [r.metric for r in analysis.metrics] == ["passed", "score:a", "score:b"]
    for row in analysis.metrics[1:]:
        options = replace(analysis.options, metric=row.metric)
        full = analyze(analysis.paired, options)
        assert full.improvements and full.regressions
        assert analyze(analysis.paired, options, row_only=True).improvements == ()
        alone = metric_row(full, in_family=True)
        adjusted = ("p_adjusted", "verdict")
        assert replace(row, **{k: getattr(alone, k) for k in adjusted}) == alone
        assert row.regressions == full.regressions
