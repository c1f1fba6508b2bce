"""The paired bootstrap's exact distribution, for deltas on a lattice: no resampling at all.

The bootstrap interval of a mean is read off the distribution of the mean of n items drawn with
replacement from the observed deltas. Resampling estimates that distribution from B draws, and
its cost is B x k binomial draws with k distinct deltas (10,000 x 1,760 = 17.6 million at a
million items, about 2 s: half of a report's time; issue 28). When every delta is
``origin + m * step`` for integers m (ratings, scores rounded to a grid, pass rates over a fixed
number of epochs), the resampled *sum* is origin * n + step * (sum of n draws of m), and the
distribution of a sum of n independent draws is the n-fold convolution of the one-draw
distribution: one real FFT of the one-draw probabilities, raised to the n-th power, and one
inverse FFT. That is the bootstrap distribution itself, the limit the resampled estimate
approaches as B grows, so the percentile and BCa intervals read off it carry no Monte Carlo
error; they differ from a seeded 10,000-resample estimate only by that estimate's own Monte
Carlo error (docs/statistics.md, "The exact bootstrap").

The FFT works modulo its length N, so the sum's distribution is folded onto N points. N covers
the window around the expected sum outside which Bernstein's inequality bounds the mass by
``TAIL_MASS``; the folding error in any probability read off is at most that mass. Memory and
time are O(N log N) with N ~ 15 sd(sum) / step: cheap while the lattice is coarse relative to
the spread of the sum, and ``plan`` refuses (the caller resamples instead) beyond ``MAX_POINTS``.

The intervals read the CDF through ``exact_cdf``, which usually evaluates it in closed form
over the ~100 frequencies that do not underflow (the same distribution, without the FFTs of the
whole window); ``sum_cdf`` is the route it falls back on, and its reference in the tests.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

__all__ = [
    "MAX_POINTS",
    "TAIL_MASS",
    "ExactPlan",
    "Lattice",
    "fast_length",
    "find_lattice",
    "plan",
    "sum_cdf",
]

TAIL_MASS = 1e-12
"""Bound on the probability outside the FFT window (Bernstein), hence on any folding error."""
MAX_POINTS = 1 << 24
"""Largest FFT (16M points: ~128 MiB per real array; 10M items of a 0.001 grid need 8.6M); beyond
it the caller resamples."""
LATTICE_TOLERANCE = 1e-9
"""A value is on the lattice when it is within this fraction of the step of a lattice point."""
_MAX_SPAN = 1 << 20
_UNDERFLOW = -800.0  # below log(smallest subnormal) = -744.4, with room for rounding
_DIVISORS = (1, 2, 3, 4, 5, 6, 8, 10, 12)


@dataclass(frozen=True)
class Lattice:
    """Distinct values as ``origin + offsets * step`` (offsets are non-negative integers)."""

    origin: float
    step: float
    offsets: np.ndarray


@dataclass(frozen=True)
class ExactPlan:
    """A lattice and the FFT length that holds the sum of n draws without folding."""

    lattice: Lattice
    points: int
    start: int  # the smallest sum (in lattice units) inside the window


def find_lattice(values: np.ndarray) -> Lattice | None:
    """The lattice the sorted distinct ``values`` lie on, or None.

    Tries the smallest gap and its divisors up to 12 as the step (values 0, 0.3 and 0.5 have
    smallest gap 0.2 and lie on the lattice of step 0.1). A value counts as on the lattice
    within ``LATTICE_TOLERANCE`` of the step, which absorbs the last-bit errors of differences
    of rounded scores (0.737 - 0.512 = 0.22499999999999998; near-duplicates share a lattice
    point) and nothing a printed interval can show.
    """
    if values.size < 2:
        return None
    origin = float(values[0])
    gaps = np.diff(values)
    # Differences of rounded scores that should be equal can differ in the last bit, so
    # np.unique keeps near-duplicates apart; gaps that small are not the lattice's step.
    gaps = gaps[gaps > LATTICE_TOLERANCE * float(values[-1] - origin)]
    if gaps.size == 0:
        return None
    gap = float(np.min(gaps))
    span = values - origin
    for divisor in _DIVISORS:
        m = np.rint(span / (gap / divisor))
        if m[-1] > _MAX_SPAN:
            return None
        # The gap carries the rounding error of one subtraction, which grows with the offset;
        # the step read off the whole span is as exact as one value.
        step = float(span[-1] / m[-1])
        if np.all(np.abs(span - m * step) <= LATTICE_TOLERANCE * step):
            return Lattice(origin=origin, step=step, offsets=m.astype(np.int64))
    return None


def plan(values: np.ndarray, counts: np.ndarray) -> ExactPlan | None:
    """The exact route for these distinct values and counts, or None when it does not apply
    (no lattice, or an FFT longer than ``MAX_POINTS``)."""
    lattice = find_lattice(values)
    if lattice is None:
        return None
    n = int(counts.sum())
    p = counts / n
    m = lattice.offsets.astype(np.float64)
    mu = float(p @ m)
    var = float(p @ (m - mu) ** 2)
    spread = float(m[-1])  # |m - mu| <= spread for every draw
    # Bernstein: P(|S - n mu| >= t) <= 2 exp(-t^2 / (2 (n var + spread t / 3))) <= TAIL_MASS.
    c = math.log(2.0 / TAIL_MASS)
    t = c * spread / 3.0 + math.sqrt((c * spread / 3.0) ** 2 + 2.0 * c * n * var)
    half = math.ceil(t) + 1
    points = fast_length(2 * half + 1)
    if points > MAX_POINTS:
        return None
    return ExactPlan(lattice=lattice, points=points, start=round(n * mu) - points // 2)


def fast_length(target: int) -> int:
    """The smallest 2^a 3^b 5^c >= target: ``scipy.fft.next_fast_len(target, real=True)``
    (the same length, tested), without importing ``scipy.fft``, which only the FFT route
    (``sum_cdf``) needs; the intervals usually read the CDF in closed form (``exact_cdf``)."""
    best = 1 << max(0, (target - 1).bit_length())
    p5 = 1
    while p5 < best:
        p35 = p5
        while p35 < best:
            length = p35
            if length < target:  # the least power of two that lifts it to the target
                length <<= (-(-target // length) - 1).bit_length()
            best = min(best, length)
            p35 *= 3
        p5 *= 5
    return best


def sum_cdf(exact: ExactPlan, counts: np.ndarray) -> np.ndarray:
    """P(sum of n draws of the offsets <= start + i) for i in range(points).

    The one-draw probabilities are placed at their offsets modulo ``points``; the n-th power of
    their transform is the transform of the n-fold convolution (folded modulo ``points``,
    which loses at most ``TAIL_MASS``). Round-off leaves tiny negative probabilities (of the
    order 1e-16 each); they are clipped before summing.
    """
    from scipy import fft as sp_fft  # (at first use: see stats/special.py)

    n = int(counts.sum())
    size = exact.points
    one = np.zeros(size, dtype=np.float64)
    np.add.at(one, exact.lattice.offsets % size, counts / n)
    spectrum = sp_fft.rfft(one)
    del one
    # |phi|^n underflows to exactly 0 wherever n log|phi| < -745 (the smallest subnormal is
    # e^-744.4): at a million items that is all but a few hundred of the ~10^6 frequencies.
    # Raising only the others to the n-th power gives the same spectrum bit for bit, at a
    # fraction of the cost of a complex power per frequency (0.12 s at 1M items). The test is
    # |phi| > e^(-800/n) (one temporary array, no logarithm); a frequency it classes otherwise
    # than n log|phi| > -800 does by rounding has |phi|^n near e^-800, which is 0 either way.
    alive = np.flatnonzero(np.abs(spectrum) > math.exp(_UNDERFLOW / n))
    kept = np.power(spectrum[alive], n)
    spectrum[:] = 0.0
    spectrum[alive] = kept
    folded = sp_fft.irfft(spectrum, n=size)
    del spectrum
    pmf = np.roll(folded, -(exact.start % size))
    np.clip(pmf, 0.0, None, out=pmf)
    cdf = np.cumsum(pmf, out=pmf)
    cdf /= cdf[-1]
    return cdf
