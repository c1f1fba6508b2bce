"""Number words: how every surface writes a count, a rate, a delta, an interval and a p-value.

The first line, the reports, the sign-off Markdown and the app all print numbers; written here
once, "+6.0 pts [-0.7, +12.4]" reads the same wherever it lands and a change of precision is one
edit. Pure string formatting: no statistics, no I/O.
"""

from __future__ import annotations

import math


def plural(count: int, noun: str) -> str:
    """ "1 regression", "2 regressions", "35,953 regressions"."""
    return f"{count:,} {noun}{'' if count == 1 else 's'}"


def points(value: float, digits: int = 1) -> str:
    """A rate difference in signed percentage points: 0.06 -> '+6.0'."""
    return f"{value * 100:+.{digits}f}"


def percent(value: float, digits: int = 1) -> str:
    return f"{value * 100:.{digits}f}%"


def signed(value: float, in_points: bool, digits: int | None = None) -> str:
    """A delta in the metric's own units: points for pass rates (one decimal), three decimals
    for scores, or `digits` decimals (see `interval_digits`)."""
    if in_points:
        return points(value, 1 if digits is None else digits)
    return f"{value:+.{3 if digits is None else digits}f}"


def interval_digits(lo: float, hi: float, in_points: bool) -> int:
    """Decimals enough to read an interval: one in points, three for scores, more when the
    interval is narrower (at a million items "+0.0 pts [-0.0, +0.0]" says nothing; two
    significant digits of its width always show)."""
    base = 1 if in_points else 3
    width = abs(hi - lo) * (100.0 if in_points else 1.0)
    if not math.isfinite(width) or width <= 0.0:
        return base
    return min(base + 4, max(base, 1 - math.floor(math.log10(width))))


def format_p(p: float | None) -> str:
    """p-values the way a reader expects: three decimals, small ones in scientific notation."""
    if p is None:
        return "undefined"
    if p < 0.001:
        return f"{p:.1e}"
    return f"{p:.3f}"
