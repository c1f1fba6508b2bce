"""The bootstrap prints what it printed before issue 28's exact route, on the same seeds.

tests/data/bootstrap_printed/before.json holds the intervals the resampling engine printed (and
their floats) for a fixed set of inputs, recorded before the exact route existed. Inputs that
stay on the resampling route must print identically (same code, same seed). Inputs that take
the exact route (``exact_bootstrap``: the distribution the 10,000 resamples estimated) may differ
only by the old estimate's Monte Carlo error: each endpoint within 4 Monte Carlo standard
deviations of the recorded one, the sd of a sample quantile, sqrt(p (1 - p) / B) / density,
with the density of the resampled mean at that quantile read off a normal of the bootstrap's
standard error (the only approximation, and only in the tolerance).
"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from evaltui.core.stats.clusters import clustered_delta
from evaltui.core.stats.graded import paired_bootstrap
from evaltui.core.words import estimate_and_interval

DATA = Path(__file__).resolve().parents[2] / "data" / "bootstrap_printed"
sys.path.insert(0, str(DATA))
from cases import clustered_cases, graded_case, graded_names  # noqa: E402

BEFORE = json.loads((DATA / "before.json").read_text())
B = 10_000


def _printed(est: float, ci: tuple[float, float], in_points: bool) -> str:
    value, interval = estimate_and_interval(est, ci[0], ci[1], in_points)
    return f"{value} {interval}"


def _mc_sd(deltas: np.ndarray, level: float) -> float:
    se = float(np.std(deltas)) / math.sqrt(deltas.size)
    z = float(stats.norm.ppf(level))
    return math.sqrt(level * (1 - level) / B) * se / float(stats.norm.pdf(z))


def _graded_params():
    for name, slow in graded_names().items():
        marks = [pytest.mark.slow] if slow else []
        yield pytest.param(name, marks=marks, id=name)


@pytest.mark.parametrize("name", list(_graded_params()))
def test_graded_interval_prints_as_before_or_within_the_old_monte_carlo_error(name):
    deltas, in_points = graded_case(name)
    before = BEFORE[name]
    g = paired_bootstrap(deltas, seed=0)
    now = {
        "percentile": _printed(g.mean_delta, g.percentile_ci, in_points),
        "bca": _printed(g.mean_delta, g.bca_ci, in_points),
    }
    if "exact_bootstrap" not in g.flags:
        assert now == {k: before[k] for k in now}
        assert list(g.bca_ci) == before["bca_ci"]
        return
    for which in ("percentile_ci", "bca_ci"):
        for side, level in ((0, 0.025), (1, 0.975)):
            moved = abs(getattr(g, which)[side] - before[which][side])
            assert moved <= 4 * _mc_sd(deltas, level), (name, which, side, moved)


def test_large_lattice_inputs_take_the_exact_route_and_small_ones_resample():
    assert "exact_bootstrap" in paired_bootstrap(graded_case("n100k_skewed_grid")[0]).flags
    assert "exact_bootstrap" not in paired_bootstrap(graded_case("n200_grid")[0]).flags
    # no lattice: resampled whatever the size
    heavy = np.random.default_rng(0).standard_t(2, 50_000)
    assert "exact_bootstrap" not in paired_bootstrap(heavy, resamples=200).flags


def _cluster_params():
    for name, (_, _, slow) in clustered_cases().items():
        yield pytest.param(name, marks=[pytest.mark.slow] if slow else [], id=name)


@pytest.mark.parametrize("name", list(_cluster_params()))
def test_cluster_bootstrap_prints_as_before(name):
    deltas, codes, _ = clustered_cases()[name]
    c = clustered_delta(deltas, codes, seed=0)
    assert _printed(c.mean_delta, c.ci, False) == BEFORE[name]["cluster"]
    assert list(c.ci) == BEFORE[name]["ci"]
