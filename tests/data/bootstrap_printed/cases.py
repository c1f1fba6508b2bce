"""The inputs of the printed-interval fixture, rebuilt from numpy seeds (see make_fixture.py).

Small n, 1k, 100k and 1M (the issue's workload: scores in [0, 1] on a 0.001 grid, about 1,760
distinct deltas), heavy tails (Student t with 2 and 3 df, log-normal), few-valued ratings, a
pass rate over epochs shown in points, and clustered deltas. ``slow`` cases (the costly
resampled ones, whose code did not change) run only under ``-m slow``.
"""

from __future__ import annotations

from functools import cache

import numpy as np


def _scores(n: int, seed: int, grid: float) -> np.ndarray:
    rng = np.random.default_rng(seed)
    a = np.clip(rng.beta(5, 2, size=n), 0, 1)
    b = np.clip(a + rng.normal(0.004, 0.12, size=n), 0, 1)
    return np.round(b / grid) * grid - np.round(a / grid) * grid


_GRADED = {
    "n40_normal": (lambda: np.random.default_rng(1).normal(0.05, 0.3, 40), False, False),
    "n200_grid": (lambda: _scores(200, 2, 0.01), False, False),
    "n1k_grid": (lambda: _scores(1_000, 3, 0.01), False, True),
    "n5k_ratings": (lambda: _ratings()[0], False, False),
    "n2k_epochs_points": (lambda: _ratings()[1], True, False),
    "n5k_t2_heavy": (lambda: np.random.default_rng(4).standard_t(2, 5_000) * 0.1, False, True),
    "n20k_t3_grid": (
        lambda: np.round(np.random.default_rng(5).standard_t(3, 20_000), 2),
        False,
        False,
    ),
    "n10k_lognormal": (
        lambda: np.random.default_rng(6).lognormal(0, 1.5, 10_000) - 4.0,
        False,
        True,
    ),
    "n100k_grid": (lambda: _scores(100_000, 7, 0.001), False, False),
    "n100k_skewed_grid": (
        lambda: np.round(np.random.default_rng(8).exponential(0.05, 100_000) - 0.04, 3),
        False,
        False,
    ),
    "n1m_grid": (lambda: _scores(1_000_000, 9, 0.001), False, True),
    "n1m_t3_grid": (
        lambda: np.round(np.random.default_rng(10).standard_t(3, 1_000_000) * 0.05, 3),
        False,
        True,
    ),
}


def _ratings() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(28)
    ratings = rng.integers(1, 6, size=(2, 5_000))
    epochs = rng.binomial(4, 0.6, size=(2, 2_000)) / 4
    return (ratings[1] - ratings[0]).astype(float), (epochs[1] - epochs[0]).astype(float)


def graded_names() -> dict[str, bool]:
    """name -> slow, without building the inputs."""
    return {name: slow for name, (_, _, slow) in _GRADED.items()}


@cache
def graded_case(name: str) -> tuple[np.ndarray, bool]:
    """(deltas, shown in points)."""
    build, in_points, _ = _GRADED[name]
    return build(), in_points


@cache
def clustered_cases() -> dict[str, tuple[np.ndarray, np.ndarray, bool]]:
    """name -> (deltas, cluster codes, slow)."""
    rng = np.random.default_rng(11)
    out = {}
    sizes = (("clusters_2k_by_200", 2_000, 200), ("clusters_100k_by_10k", 100_000, 10_000))
    for name, n, g in sizes:
        codes = rng.integers(0, g, size=n)
        effect = rng.normal(0, 0.05, size=g)[codes]
        deltas = np.round(np.clip(rng.normal(0.01, 0.2, size=n) + effect, -1, 1), 2)
        out[name] = (deltas, codes, n > 1_000)
    binary = rng.choice([-1.0, 0.0, 1.0], p=[0.05, 0.85, 0.10], size=50_000)
    out["clusters_50k_binary"] = (binary, rng.integers(0, 5_000, size=50_000), False)
    return out
