"""Number words: how every surface writes a count, a rate, a delta, an interval and a p-value.

The first line, the reports, the sign-off Markdown and the app all print numbers; written here
once, "+6.0 pts [-0.7, +12.4]" reads the same wherever it lands and a change of precision is one
edit. The one-line text charts (histogram, forest bar) live here too, so the text report and
the app draw them alike. Pure string formatting: no statistics, no I/O.
"""

from __future__ import annotations

import math

import numpy as np


def plural(count: int, noun: str) -> str:
    """ "1 regression", "2 regressions", "35,953 regressions"."""
    return f"{count:,} {noun}{'' if count == 1 else 's'}"


STILL_SECONDS = 2.0  # a progress line unchanged this long says how long it has stood


def still_for(seconds: float) -> str:
    """What a progress line unchanged for `seconds` adds (" · 6 s"), or nothing before
    `STILL_SECONDS`: a long step without a count (the costs' bootstraps, a polars parse) must
    not look like a hung program. The headless commands' line and the app's loading say it
    alike."""
    return f" · {int(seconds)} s" if seconds >= STILL_SECONDS else ""


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


P_FLOOR = 1e-300
"""The smallest p-value printed as a number. Below it a p-value is an underflow, not a
measurement: scipy's t and normal tails reach 0.0 at a million items, and "p = 0.0e+00" would
say the difference is certain. It is printed as "<1e-300", which is true whatever the exact
value (the JSON keeps the float as computed)."""


def format_p(p: float | None) -> str:
    """p-values the way a reader expects: three decimals, small ones in scientific notation,
    an underflow as "<1e-300" (`P_FLOOR`)."""
    if p is None:
        return "undefined"
    if p < P_FLOOR:
        return "<1e-300"
    if p < 0.001:
        return f"{p:.1e}"
    return f"{p:.3f}"


def p_is(p: float | None) -> str:
    """ "= 0.043", "= 3.5e-12" or "< 1e-300": what follows "p" in a sentence."""
    if p is not None and p < P_FLOOR:
        return "< 1e-300"
    return f"= {format_p(p)}"


def estimate_and_interval(
    estimate: float, lo: float, hi: float, in_points: bool
) -> tuple[str, str]:
    """("+6.0 pts", "[-0.7, +12.4]"): an estimate with its unit and its interval, with
    decimals enough to read the interval; an undefined interval (NaN) is "" and leaves the
    estimate its default decimals."""
    unit = " pts" if in_points else ""
    if math.isnan(lo) or math.isnan(hi):
        return signed(estimate, in_points) + unit, ""
    k = interval_digits(lo, hi, in_points)
    return (
        signed(estimate, in_points, k) + unit,
        f"[{signed(lo, in_points, k)}, {signed(hi, in_points, k)}]",
    )


def percent_and_interval(
    estimate: float | None, lo: float | None, hi: float | None
) -> tuple[str, str]:
    """("57.5%", "[52.6%, 62.3%]"): a rate in percent with decimals enough to read its
    interval's width; ("undefined", "") without an estimate, "" for a missing interval."""
    if estimate is None:
        return "undefined", ""
    if lo is None or hi is None:
        return f"{estimate * 100:.1f}%", ""
    k = interval_digits(lo, hi, True)
    return f"{estimate * 100:.{k}f}%", f"[{lo * 100:.{k}f}%, {hi * 100:.{k}f}%]"


def percent_interval(estimate: float | None, lo: float | None, hi: float | None) -> str:
    """``57.5% [52.6%, 62.3%]`` (`percent_and_interval` as one string)."""
    value, interval = percent_and_interval(estimate, lo, hi)
    return f"{value} {interval}".rstrip()


# -- text charts: the report's and the app's one-line plots -----------------------------------

HISTOGRAM_BINS = 11
HISTOGRAM_BLOCKS = " ▁▂▃▄▅▆▇█"


def delta_histogram(deltas: np.ndarray, bins: int = HISTOGRAM_BINS) -> tuple[list[int], float]:
    """Counts of per-item deltas in `bins` equal bins over [-m, m], m = max |delta|; returns m."""
    finite = deltas[np.isfinite(deltas)]
    m = float(np.max(np.abs(finite))) if finite.size else 0.0
    if m == 0.0:
        counts = [0] * bins
        counts[bins // 2] = int(finite.size)
        return counts, 0.0
    hist, _ = np.histogram(finite, bins=bins, range=(-m, m))
    return [int(x) for x in hist], m


def _bars(counts: list[int]) -> str:
    top = max(counts) or 1
    return "".join(HISTOGRAM_BLOCKS[0 if c == 0 else max(1, round(c / top * 8))] for c in counts)


def delta_histogram_line(deltas: np.ndarray) -> str:
    """A one-line text histogram (▁▂▃…█) of per-item deltas with zero in the middle."""
    counts, m = delta_histogram(deltas)
    bars = _bars(counts)
    mid = len(bars) // 2
    return f"−{m:.3g} {bars[:mid]}│{bars[mid]}│{bars[mid + 1 :]} +{m:.3g}"


def histogram_line(deltas: np.ndarray, in_points: bool) -> str:
    """The histogram of the per-item deltas as one line of blocks, zero in the middle, its
    ends in the metric's units like every other delta on screen (`delta_histogram_line`
    writes proportions: −0.6 … +0.6 beside intervals in points)."""
    counts, m = delta_histogram(deltas)
    bars = _bars(counts)
    mid = len(bars) // 2
    low, high = signed(-m, in_points), signed(m, in_points)
    unit = " pts" if in_points else ""
    return f"{low.replace('-', '−')} {bars[:mid]}│{bars[mid]}│{bars[mid + 1 :]} {high}{unit}"


def forest_bar(lower: float, estimate: float, upper: float, span: float, width: int) -> str:
    """One row of a text forest plot: the interval against a zero line, scale [-span, span]."""
    width = max(width, 5)
    span = span if span > 0 else 1.0

    def at(x: float) -> int:
        x = min(max(x, -span), span)
        return round((x + span) / (2 * span) * (width - 1))

    cells = [" "] * width
    for i in range(at(lower), at(upper) + 1):
        cells[i] = "─"
    zero = at(0.0)
    if cells[zero] == " ":
        cells[zero] = "┆"
    else:
        cells[zero] = "┼"
    cells[at(estimate)] = "●"
    return "".join(cells)
