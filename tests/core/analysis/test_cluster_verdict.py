"""With clustered items the verdict rests on a cluster-aware interval, and says so.

Under a true null with clustered items the item-level interval calls 14-42% of runs
"regressed" or "improved"; the verdict interval (the wild cluster bootstrap-t, Cameron,
Gelbach and Miller 2008) must keep that near the nominal 5%. Too few clusters: no verdict.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from evaltui.cli.main import main
from evaltui.core.analysis.pipeline import compare_files
from evaltui.core.stats.clusters import (
    MIN_CLUSTERS,
    clustered_delta,
    rademacher_weights,
    wild_cluster_p,
)


def null_table(rng: np.random.Generator, n_clusters: int) -> tuple[np.ndarray, np.ndarray]:
    """Per-item deltas (-1, 0, +1) of a paired binary comparison with no true difference, in
    clusters of uneven size (geometric, mean 8) whose items share a difficulty and a drift of
    one arm against the other (the drift, not the difficulty, is what clusters the deltas)."""
    sizes = rng.geometric(1 / 8, size=n_clusters)
    codes = np.repeat(np.arange(n_clusters), sizes)
    difficulty = rng.beta(2, 2, size=n_clusters)[codes]
    drift = rng.normal(0.0, 0.25, size=n_clusters)[codes]
    drifted = np.clip(difficulty + drift, 0.0, 1.0)
    swap = (rng.random(n_clusters) < 0.5)[codes]  # which arm drifts: symmetric, so a null
    p_base = np.where(swap, drifted, difficulty)
    p_cand = np.where(swap, difficulty, drifted)
    base = rng.random(codes.size) < p_base
    cand = rng.random(codes.size) < p_cand
    return cand.astype(float) - base.astype(float), codes


@pytest.mark.slow
def test_false_verdicts_under_a_clustered_null_stay_near_five_percent():
    """2,000 null tables with 10 to 49 clusters (the "few clusters" range where the cluster
    bootstrap and the CR1 t interval reject 8-10% here): the verdict's test rejects at most 6%,
    while the item-level interval rejects far more. Counts only, fixed seed."""
    rng = np.random.default_rng(20261201)
    tables = 2_000
    false_verdicts = item_level_false = 0
    for index in range(tables):
        n_clusters = 10 + index % 40
        deltas, codes = null_table(rng, n_clusters)
        sums = np.bincount(codes, weights=deltas)
        sizes = np.bincount(codes).astype(float)
        weights = rademacher_weights(n_clusters, seed=index, resamples=999)
        if wild_cluster_p(sums, sizes, 0.0, weights) <= 0.05:
            false_verdicts += 1
        se = deltas.std(ddof=1) / math.sqrt(deltas.size)
        if se > 0 and abs(deltas.mean()) > 1.96 * se:
            item_level_false += 1
    assert false_verdicts / tables <= 0.06
    assert item_level_false / tables >= 0.12  # the problem this guards against is real here


def test_the_interval_excludes_zero_exactly_when_the_test_rejects_zero():
    """The verdict interval is the inverted test, so the two never disagree."""
    rng = np.random.default_rng(7)
    for index in range(12):
        deltas, codes = null_table(rng, 12 + index * 3)
        deltas = deltas + (0.15 if index % 2 else 0.0) * (rng.random(deltas.size) < 0.5)
        result = clustered_delta(deltas, codes, resamples=999, seed=index)
        sums = np.bincount(codes, weights=deltas)
        sizes = np.bincount(codes).astype(float)
        weights = rademacher_weights(sizes.size, seed=index, resamples=9_999)
        rejects = wild_cluster_p(sums, sizes, 0.0, weights) <= 0.05
        lo, hi = result.verdict_ci
        assert result.verdict_method == "wild-cluster-t"
        assert lo <= result.mean_delta <= hi
        assert (not lo <= 0.0 <= hi) == rejects


def _clustered_pair(write_jsonl, n_clusters: int, unlabelled: int = 0):
    """Pairs where the candidate's failures bunch in a few clusters: the item-level interval
    calls it a regression, the clusters do not (the issue's example: item-level Newcombe
    entirely below zero while the cluster interval includes it)."""
    rng = np.random.default_rng(3)
    base, cand = [], []
    item = 0
    for cluster in range(n_clusters):
        size = 12
        bad = cluster % 5 == 0  # every fifth cluster broke badly; the others barely moved
        for _ in range(size):
            label = f"doc{cluster}"
            passed_before = bool(rng.random() < 0.8)
            passed_after = passed_before and not (bad and rng.random() < 0.7)
            if not bad and not passed_before and rng.random() < 0.25:
                passed_after = True
            row = {"item_id": f"i{item}", "cluster": label}
            base.append({**row, "passed": passed_before})
            cand.append({**row, "passed": passed_after})
            item += 1
    for extra in range(unlabelled):
        base.append({"item_id": f"u{extra}", "passed": True})
        cand.append({"item_id": f"u{extra}", "passed": True})
    return write_jsonl("base.jsonl", base), write_jsonl("cand.jsonl", cand)


def test_clustered_runs_get_the_cluster_verdict_and_the_item_level_one_as_contrast(write_jsonl):
    base, cand = _clustered_pair(write_jsonl, n_clusters=25)
    analysis = compare_files(base, cand)
    assert analysis.item_level_verdict == "regressed"
    assert analysis.verdict == "no_significant_difference"
    lo, hi = analysis.decision_ci
    assert lo < 0 < hi
    assert "wild cluster bootstrap-t 95%, 25 clusters" in analysis.headline
    assert "ignore the clusters" in analysis.headline
    assert any("verdict follows the cluster-aware interval" in w for w in analysis.warnings)


def test_report_exit_code_follows_the_cluster_verdict(write_jsonl, capsys, tmp_path, monkeypatch):
    monkeypatch.setenv("EVALTUI_STATE_DIR", str(tmp_path / "state"))
    base, cand = _clustered_pair(write_jsonl, n_clusters=25)
    assert main(["report", str(base), str(cand), "--format", "json"]) != 1
    capsys.readouterr()


@pytest.mark.parametrize("n_clusters", [2, MIN_CLUSTERS - 1])
def test_too_few_clusters_give_no_verdict(write_jsonl, n_clusters):
    base, cand = _clustered_pair(write_jsonl, n_clusters=n_clusters)
    analysis = compare_files(base, cand)
    assert analysis.verdict == "insufficient_data"
    assert "too_few_clusters" in analysis.flags
    assert f"only {n_clusters} clusters" in " ".join(analysis.warnings)
    assert "no verdict" in analysis.headline


def test_unlabelled_items_are_counted_apart_from_the_real_clusters(write_jsonl):
    """15 real clusters and 60 unlabelled items are 15 clusters for the warning, not 75."""
    base, cand = _clustered_pair(write_jsonl, n_clusters=15, unlabelled=60)
    clusters = compare_files(base, cand).clusters
    assert clusters.n_clusters == 75
    assert clusters.unlabelled_items == 60
    assert clusters.labelled_clusters == 15
    assert "few_clusters" in clusters.flags and "too_few_clusters" not in clusters.flags
    analysis = compare_files(base, cand)
    text = " ".join(analysis.warnings)
    assert "only 15 clusters (fewer than 20)" in text
    assert "60 item(s) carry no cluster label" in text
