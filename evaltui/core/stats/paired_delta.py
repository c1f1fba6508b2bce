"""Intervals for the paired delta = rate(candidate) - rate(baseline): Newcombe, Tango, Wald,
Wald with continuity correction, Agresti-Min and Bonett-Price.

Every interval here is for delta in the orientation candidate minus baseline. The papers define
``p1 - p2 = (n12 - n21) / n``, n12 being "first variable positive, second negative"; the
candidate plays their first variable, so n12 is our ``c`` (improvements) and n21 our ``b``
(regressions). That mapping is written out at each method.

The one interval that needs a root finder (Tango's) uses the bisection below on a function whose
sign is known at both ends of the bracket: ``scipy.optimize`` costs start-up time (see
``interval``).
"""

from __future__ import annotations

import math
from collections.abc import Callable

from evaltui.core.stats import validate
from evaltui.core.stats.interval import Interval, two_sided_z, wilson_bounds
from evaltui.core.stats.paired_table import PairedTable

__all__ = ["CI_METHODS", "DEFAULT_CI_METHOD", "paired_delta_interval", "tango_parts"]

CI_METHODS: tuple[str, ...] = (
    "tango",
    "newcombe",
    "wald",
    "wald-cc",
    "agresti-min",
    "bonett-price",
)
"""Interval methods for the paired delta; the first is the default."""

DEFAULT_CI_METHOD = CI_METHODS[0]
"""Tango's score interval. Over an eval-like grid at n >= 30 (n 30-500, pass rates 0.5-0.98,
discordance 0.02-0.4) its worst exact coverage of a 95% interval is 93.6%, Newcombe's (the
default before issue 30) 91.2% (tests/core/stats/test_default_interval_coverage.py and
docs/statistics.md, "The default paired interval"; issue 30's grid gave 93.3% and 91.3%). It
is also the interval that inverts the score test the margins use, and it stays defined and
non-degenerate with no discordant pair (30 items, b = c = 0: -0.114 to +0.114)."""


def _newcombe_phi(table: PairedTable) -> float:
    """Newcombe's (1998) continuity-corrected phi for method 10.

    With A = ad - bc: phi = (A - n/2)/sqrt(margins) when A > n/2, 0 when 0 <= A <= n/2, and
    A/sqrt(margins) when A < 0; 0 when any margin is empty. The correction is what separates
    method 10 from method 8 in the paper's Table III (e.g. 20/12/2/16 gives 0.0562-0.3292 with
    it and 0.0618-0.3242 without) and keeps a = d, b = c = 0 from collapsing to a zero-width
    interval.
    """
    a, b, c, d = table.both_pass, table.regressions, table.improvements, table.both_fail
    margins = (a + b) * (c + d) * (a + c) * (b + d)
    if margins == 0:
        return 0.0
    cross = a * d - b * c
    half_n = table.n / 2.0
    if cross > half_n:
        numerator = cross - half_n
    elif cross >= 0:
        numerator = 0.0
    else:
        numerator = float(cross)
    return numerator / math.sqrt(margins)


def _newcombe(table: PairedTable, z: float) -> tuple[float, float]:
    """Newcombe (1998, Stat Med 17:2635) method 10: hybrid score interval with the two Wilson
    intervals of the marginal rates, joined through the corrected phi.

    Newcombe's theta = p1 - p2 with p1 = (e + f)/n; here p1 is the candidate rate (a + c)/n and
    p2 the baseline rate (a + b)/n, i.e. e = a, f = c (improvements), g = b (regressions), h = d.
    """
    n = table.n
    p1 = table.candidate_passes / n
    p2 = table.baseline_passes / n
    l1, u1 = wilson_bounds(table.candidate_passes, n, z)
    l2, u2 = wilson_bounds(table.baseline_passes, n, z)
    phi = _newcombe_phi(table)
    theta = table.delta
    down = (p1 - l1) ** 2 - 2.0 * phi * (p1 - l1) * (u2 - p2) + (u2 - p2) ** 2
    up = (u1 - p1) ** 2 - 2.0 * phi * (u1 - p1) * (p2 - l2) + (p2 - l2) ** 2
    return theta - math.sqrt(max(down, 0.0)), theta + math.sqrt(max(up, 0.0))


def _tango_p21(delta: float, x12: int, x21: int, n: int) -> float:
    """Restricted MLE of p21 given delta = p12 - p21 (Tango 1998, eq. for the score test).

    The positive root of 2n p^2 + B p + C = 0 with B = -x12 - x21 + (2n - x12 + x21) delta and
    C = -x21 delta (1 - delta). When B > 0 the textbook root cancels catastrophically, so the
    algebraically equal form -2C / (sqrt(disc) + B) is used there.
    """
    a = 2.0 * n
    b = -x12 - x21 + (2.0 * n - x12 + x21) * delta
    c = -x21 * delta * (1.0 - delta)
    root = math.sqrt(max(b * b - 4.0 * a * c, 0.0))
    if b <= 0.0:
        return (root - b) / (2.0 * a)
    return (-2.0 * c) / (root + b)


def tango_parts(delta0: float, x12: int, x21: int, n: int) -> tuple[float, float]:
    """Numerator and standard deviation of Tango's score statistic at delta0."""
    p21 = _tango_p21(delta0, x12, x21, n)
    variance = n * (2.0 * p21 + delta0 * (1.0 - delta0))
    return x12 - x21 - n * delta0, math.sqrt(max(variance, 0.0))


def _bisect(func: Callable[[float], float], lo: float, hi: float) -> float:
    """Root of ``func`` on [lo, hi] given func(lo) >= 0 >= func(hi), to float resolution.

    Bisection rather than Brent: it needs only the sign, so it is immune to the 0/0 that
    Tango's statistic has at a vanishing variance, and 1100 halvings can never be needed
    because the loop stops when the midpoint no longer moves (about 60 steps on [-1, 1]).
    """
    for _ in range(1100):
        mid = 0.5 * (lo + hi)
        if mid <= lo or mid >= hi:
            break
        if func(mid) > 0.0:
            lo = mid
        else:
            hi = mid
    return 0.5 * (lo + hi)


def _tango(table: PairedTable, z: float) -> tuple[float, float]:
    """Tango (1998, Stat Med 17:891) asymptotic score interval, inverted numerically.

    Tango's delta = p12 - p21 with x12 the "first only" cell; the candidate is the first variable,
    so x12 = c (improvements) and x21 = b (regressions), which makes his delta our delta.
    The limits are the two solutions of Z(delta) = +z (lower) and Z(delta) = -z (upper). Rather
    than dividing by a standard deviation that can vanish, each is found as a sign change of
    numerator -/+ z * sd, which has the same roots wherever the statistic is defined: the lower
    one on [-1, estimate] (value n + x12 - x21 >= 0 at -1, -z sd <= 0 at the estimate), the upper
    one on [estimate, 1] likewise.
    """
    n = table.n
    x12 = table.improvements
    x21 = table.regressions
    estimate = table.delta

    def lower_gap(delta0: float) -> float:
        numerator, sd = tango_parts(delta0, x12, x21, n)
        return numerator - z * sd

    def upper_gap(delta0: float) -> float:
        numerator, sd = tango_parts(delta0, x12, x21, n)
        return numerator + z * sd

    lower = -1.0 if x21 == n else _bisect(lower_gap, -1.0, estimate)
    upper = 1.0 if x12 == n else _bisect(upper_gap, estimate, 1.0)
    return lower, upper


def _wald(table: PairedTable, z: float) -> tuple[float, float]:
    """delta +/- z sqrt(b + c - (c - b)^2 / n) / n: the textbook paired Wald interval."""
    n = table.n
    b, c = table.regressions, table.improvements
    se = math.sqrt(max(b + c - (c - b) ** 2 / n, 0.0)) / n
    return table.delta - z * se, table.delta + z * se


def _wald_cc(table: PairedTable, z: float) -> tuple[float, float]:
    """Wald with continuity correction, the correction inside the standard error.

    Fagerland, Lydersen & Laake (2014, Stat Med 33:2850), "Wald interval with continuity
    correction": delta +/- z * sqrt(b + c - (|c - b| - 1)^2 / n) / n, i.e. the 1 is subtracted
    from |c - b| inside the variance, not added to the limits as +/- 1/n. This is the formula in
    the authors' companion R package (contingencytables::Wald_CI_diff_CC_paired_2x2, Fagerland,
    Lydersen & Laake, "Statistical Analysis of Contingency Tables", 2017, ch. 8); the paper's own
    text was not available to check the printed equation. With b = c = 0 the radicand is -1/n;
    like that package we take the standard error as 0, giving the zero-width interval [0, 0].
    """
    n = table.n
    b, c = table.regressions, table.improvements
    se = math.sqrt(max(b + c - (abs(c - b) - 1) ** 2 / n, 0.0)) / n
    return table.delta - z * se, table.delta + z * se


def _agresti_min(table: PairedTable, z: float) -> tuple[float, float]:
    """Agresti & Min (2005, Stat Med 24:729) "Wald+2": add 0.5 to every cell, then Wald.

    With n~ = n + 2: centre (c - b)/n~ and se = sqrt((b + c + 1) - (c - b)^2/n~)/n~ (the same
    formula as Agresti's own diffpropci R function, with his b, c in our orientation).
    The centre is shrunk toward 0, so at low confidence the interval need not contain delta.
    """
    n_adj = table.n + 2.0
    b, c = table.regressions, table.improvements
    centre = (c - b) / n_adj
    se = math.sqrt(max(b + c + 1.0 - (c - b) ** 2 / n_adj, 0.0)) / n_adj
    return centre - z * se, centre + z * se


def _bonett_price(table: PairedTable, z: float) -> tuple[float, float]:
    """Bonett & Price (2012, J Educ Behav Stat 37:479) adjusted Wald with Laplace estimates.

    p12~ = (c + 1)/(n + 2), p21~ = (b + 1)/(n + 2); limits
    p12~ - p21~ +/- z sqrt((p12~ + p21~ - (p12~ - p21~)^2) / (n + 2)).
    Like Agresti-Min the centre is shrunk toward 0.
    """
    n_adj = table.n + 2.0
    p12 = (table.improvements + 1.0) / n_adj
    p21 = (table.regressions + 1.0) / n_adj
    centre = p12 - p21
    se = math.sqrt(max((p12 + p21 - centre * centre) / n_adj, 0.0))
    return centre - z * se, centre + z * se


_DELTA_METHODS: dict[str, Callable[[PairedTable, float], tuple[float, float]]] = {
    "newcombe": _newcombe,
    "tango": _tango,
    "wald": _wald,
    "wald-cc": _wald_cc,
    "agresti-min": _agresti_min,
    "bonett-price": _bonett_price,
}


def paired_delta_interval(
    table: PairedTable, method: str = DEFAULT_CI_METHOD, confidence: float = 0.95
) -> Interval:
    """Confidence interval for delta = rate(candidate) - rate(baseline) from paired data.

    Tango's score interval (the default) and Newcombe's method 10 never leave [-1, 1]; neither
    is near-nominal everywhere at small b + c: over an eval-like grid at n >= 30 Tango's worst
    exact coverage of a 95% interval is 93.6% and Newcombe's 91.2%, which is why Tango's is the
    default (tests/core/stats/test_default_interval_coverage.py; the Wald interval's is far
    lower). Newcombe's stays selectable, with its published values as tests. The Wald family is
    there for comparison with other tools. All limits are clipped to [-1, 1].
    """
    method = validate.one_of("interval method", method, CI_METHODS)
    confidence = validate.confidence(confidence)
    validate.some_items(validate.instance("table", table, PairedTable).n)
    lower, upper = _DELTA_METHODS[method](table, two_sided_z(confidence))
    return Interval(max(-1.0, lower), min(1.0, upper), method, confidence)
