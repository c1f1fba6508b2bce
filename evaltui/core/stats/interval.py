"""A confidence interval, the normal critical value, and Wilson's interval for one pass rate.

Every interval a statistic returns is an :class:`Interval` that names its method and level, so a
report never has to guess which interval it prints. Wilson's score interval is the building
block of the rates' intervals and of both Newcombe intervals (paired in ``paired_delta``,
independent in ``independent``).

Only ``scipy.special`` is imported from SciPy: ``scipy.stats`` and ``scipy.optimize`` cost about
two seconds of start-up, which a terminal tool cannot afford for a handful of closed formulas.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from evaltui.core.stats import special, validate

__all__ = ["Interval", "two_sided_z", "wilson_bounds", "wilson_interval"]


def two_sided_z(confidence: float) -> float:
    """Two-sided standard normal critical value: ndtri(1 - (1 - confidence) / 2)."""
    return float(special.ndtri(1.0 - (1.0 - confidence) / 2.0))


@dataclass(frozen=True)
class Interval:
    """A two-sided confidence interval, with the method and level that produced it."""

    lower: float
    upper: float
    method: str
    confidence: float

    @property
    def width(self) -> float:
        """upper - lower."""
        return self.upper - self.lower

    def excludes(self, value: float = 0.0) -> bool:
        """True when ``value`` lies strictly outside the interval (the usual significance read)."""
        return value < self.lower or value > self.upper


def wilson_bounds(successes: int, n: int, z: float) -> tuple[float, float]:
    """Wilson (1927) score bounds; exact 0 and 1 at the edges instead of rounding noise."""
    p = successes / n
    z2 = z * z
    denom = 1.0 + z2 / n
    centre = (p + z2 / (2.0 * n)) / denom
    half = z * math.sqrt(p * (1.0 - p) / n + z2 / (4.0 * n * n)) / denom
    lower = 0.0 if successes == 0 else max(0.0, centre - half)
    upper = 1.0 if successes == n else min(1.0, centre + half)
    return lower, upper


def wilson_interval(successes: int, n: int, confidence: float = 0.95) -> Interval:
    """Wilson score interval for one pass rate (method ``"wilson"``).

    Used for the marginal rates because, unlike the Wald interval, it stays inside [0, 1] and
    keeps close to nominal coverage near 0 and 1, where eval pass rates often live.
    """
    successes = validate.count("successes", successes)
    n = validate.count("n", n)
    confidence = validate.confidence(confidence)
    if n == 0:
        raise ValueError("n must be at least 1 for a pass-rate interval, got 0")
    if successes > n:
        raise ValueError(f"successes must be at most n = {n}, got {successes}")
    lower, upper = wilson_bounds(successes, n, two_sided_z(confidence))
    return Interval(lower, upper, "wilson", confidence)
