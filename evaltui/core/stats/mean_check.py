"""Does any test of the mean hold its level on these per-item deltas? And, when none does, the
test of a different question that still answers: the sign test.

Why a rule at all: the graded verdict reads the paired t interval of the mean delta, which holds
its level (at most ~5.5% false verdicts at alpha 0.05) for normal, heavy-tailed symmetric (t(3)),
bounded and moderately skewed deltas from 30 items on (docs/statistics.md, the calibration
table). Strongly skewed deltas at small n defeat every test of the mean: lognormal deltas at 30
items give 11-12% false verdicts with the t test, the BCa bootstrap and the sign-flip test
alike, and still 6.5% at 300 items (Bowyer, Aitchison and Ivanova 2025 make the same point for
LLM evals). No interval rescues the mean there; the tool must say so instead of giving a
verdict.

The rule is Cochran's (1977, *Sampling Techniques*, 3rd ed., section 2.15): the normal
approximation to a mean is adequate when n > 25 G1², G1 the skewness. We apply it with the
sample skewness g1 (``scipy.stats.skew``'s default), so the check is made on the data in hand.
In the seeded simulation (``tests/core/stats/test_calibration.py``, table in
docs/statistics.md) the t test behind the rule keeps every cell at or below 6% false verdicts:
exponential deltas at 30 items fall from 7.4% (t alone) to 2.8%, lognormal from 11.6% to 2.8%.
The price is refusals where the t test was in fact fine (a third of t(3) samples at 30 items,
whose sample skewness is large by chance); a refusal is "not enough data", never a false verdict.

The sign test (exact binomial on the items that went up against those that went down, zeros
dropped) answers another question: did more items improve than regress? It is offered beside
a refusal, labelled as such, never as the verdict on the mean.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from evaltui.core.stats import validate
from evaltui.core.stats.paired_table import PairedTable, mcnemar

__all__ = ["COCHRAN_FACTOR", "MeanCheck", "SignTest", "check_mean", "sample_skewness", "sign_test"]

COCHRAN_FACTOR = 25.0
"""Cochran's rule: a mean's normal approximation needs n > COCHRAN_FACTOR x skewness²."""


@dataclass(frozen=True)
class SignTest:
    """The exact sign test on per-item deltas: how many went up, down, not at all, and the
    two-sided binomial p of up against down (R's ``binom.test(up, up + down)``; None when no
    item moved). It tests whether more items improved than regressed, not the mean."""

    up: int
    down: int
    zero: int
    p: float | None


@dataclass(frozen=True)
class MeanCheck:
    """Whether a test of the mean delta holds its level on these deltas (Cochran's rule on the
    sample skewness), echoing what the rule read; ``sign`` is the different question's answer."""

    n: int
    skewness: float  # the sample skewness g1 (0 for a constant sample)
    items_needed: int  # the smallest n Cochran's rule accepts at this skewness
    holds: bool
    sign: SignTest

    @property
    def reason(self) -> str:
        """Why no test of the mean holds, in words (empty when one does)."""
        if self.holds:
            return ""
        return (
            f"{self.n:,} items with strongly skewed score changes (skewness {self.skewness:+.2f}): "
            "no test of the mean holds its level here (Cochran's rule asks for more than "
            f"25 x skewness², {self.items_needed:,} items); collect more items or compare medians"
        )


def sample_skewness(deltas: np.ndarray) -> float:
    """The sample skewness g1 = m3 / m2^1.5 (``scipy.stats.skew(x)``, bias=True); 0 for a
    constant sample, where the skewness is undefined and nothing is skewed."""
    x = validate.sample("deltas", deltas)
    e = x - float(np.mean(x))
    power = e * e
    m2 = float(np.mean(power))
    largest = max(float(np.max(x)), -float(np.min(x)))  # max |x|, without an |x| array
    if m2 <= 0.0 or m2 < (np.finfo(np.float64).eps * largest) ** 2:
        return 0.0
    np.multiply(power, e, out=power)  # e * e * e, in the same array: the same floats
    return float(np.mean(power)) / m2**1.5


def sign_test(deltas: np.ndarray) -> SignTest:
    """The exact two-sided sign test of the deltas' signs (zeros dropped): the exact McNemar
    p of the table with the risers and the fallers as its discordant cells."""
    x = validate.sample("deltas", deltas)
    up, down = int(np.count_nonzero(x > 0)), int(np.count_nonzero(x < 0))
    zero = x.size - up - down
    p = mcnemar(PairedTable(both_pass=zero, regressions=down, improvements=up, both_fail=0)).exact_p
    return SignTest(up, down, zero, p)


def check_mean(deltas: np.ndarray, factor: float = COCHRAN_FACTOR) -> MeanCheck:
    """Cochran's rule on the deltas: does a test of their mean hold its level at this n?"""
    x = validate.sample("deltas", deltas)
    factor = validate.positive("factor", factor)
    g1 = sample_skewness(x)
    needed = max(1, math.floor(factor * g1 * g1) + 1)
    return MeanCheck(x.size, g1, needed, x.size >= needed, sign_test(x))
