"""The agreement interval's coverage (issue 26): a seeded simulation under a known agreement
model shows the bootstrap percentile interval of Cohen's kappa and Krippendorff's alpha covering
the true value about as often as its level says.

The model: each item has a true tag drawn from shares PI; each review gives the true tag with
probability theta and otherwise a tag drawn from PI, independently. Every review's tag then has
the distribution PI, two reviews of an item agree with probability theta^2 + (1 - theta^2) *
sum(PI^2), and chance agreement is sum(PI^2), so the population kappa (Cohen's, Fleiss' and, as
items grow, Krippendorff's alpha) is exactly theta^2.

REPLICATES replicates a cell: the Monte Carlo standard error of a 95% coverage is
sqrt(0.95 * 0.05 / 1000) = 0.7 points, so the band [92.5%, 97.5%] is about 3.5 standard errors
either side. The seeds are fixed, so the numbers are the same on every run;
`python -m tests.core.stats.test_agreement_coverage` prints the table docs/statistics.md shows.

Slow (about a minute of CPU): `.ci/run` runs it with `-m slow`.
"""

from __future__ import annotations

import numpy as np
import pytest

from evaltui.core.stats.agreement import agreement
from evaltui.core.stats.agreement_table import MISSING, Ratings

PI = np.array([0.5, 0.3, 0.15, 0.05])  # a skewed tag mix, one rare tag
TRUE_KAPPA = 0.5
REPLICATES = 1_000
RESAMPLES = 1_000
CONFIDENCE = 0.95
BAND = (0.925, 0.975)
# (name, items, reviewers, reviews per item (lowest, highest)): Cohen's kappa with two
# reviewers; Krippendorff's alpha with three reviewers, each item reviewed by two or three.
CELLS = [
    ("cohen", 30, 2, (2, 2)),
    ("cohen", 100, 2, (2, 2)),
    ("alpha", 30, 3, (2, 3)),
    ("alpha", 100, 3, (2, 3)),
]


def draw(rng: np.random.Generator, n: int, reviewers: int, per_item: tuple[int, int]) -> Ratings:
    theta = np.sqrt(TRUE_KAPPA)
    truth = rng.choice(PI.size, size=n, p=PI)
    honest = rng.random((n, reviewers)) < theta
    codes = np.where(honest, truth[:, None], rng.choice(PI.size, size=(n, reviewers), p=PI))
    m = rng.integers(per_item[0], per_item[1] + 1, size=n)
    kept = np.argsort(rng.random((n, reviewers)), axis=1) < m[:, None]
    codes = np.where(kept, codes, MISSING)
    return Ratings(
        tuple(f"i{i}" for i in range(n)),
        tuple(f"r{j}" for j in range(reviewers)),
        ("a", "b", "c", "d"),
        tuple(tuple(int(c) for c in row) for row in codes),
    )


def coverage(name: str, n: int, reviewers: int, per_item: tuple[int, int]) -> tuple[float, int]:
    """The share of replicates whose interval holds the true value, and how many gave none."""
    rng = np.random.default_rng(2026 + n + reviewers)
    hits = none = 0
    for replicate in range(REPLICATES):
        summary = agreement(
            draw(rng, n, reviewers, per_item),
            resamples=RESAMPLES,
            confidence=CONFIDENCE,
            seed=replicate,
        )
        statistic = summary.cohen if name == "cohen" else summary.alpha
        assert statistic is summary.headline
        if statistic.ci is None:
            none += 1
            continue
        hits += statistic.ci.lower <= TRUE_KAPPA <= statistic.ci.upper
    return hits / REPLICATES, none


@pytest.mark.slow
@pytest.mark.parametrize(("name", "n", "reviewers", "per_item"), CELLS)
def test_the_agreement_interval_covers_the_true_value_near_its_level(name, n, reviewers, per_item):
    rate, none = coverage(name, n, reviewers, per_item)
    print(f"{name} n={n}: coverage {rate:.1%}, {none} without an interval")
    assert none == 0
    assert BAND[0] <= rate <= BAND[1], f"{name} at n = {n} covered {rate:.1%}"


if __name__ == "__main__":
    for cell in CELLS:
        rate, none = coverage(*cell)
        print(f"| {cell[0]} | {cell[1]} | {rate:.1%} | {none} |")
