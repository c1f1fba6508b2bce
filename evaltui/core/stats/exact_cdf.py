"""The exact bootstrap's CDF read at the few points an interval needs, from its live frequencies.

``exact_bootstrap.sum_cdf`` builds the whole CDF of the resampled sum over the FFT window: a
forward FFT of the one-draw distribution, the n-th power of the few frequencies that do not
underflow, an inverse FFT, a roll and a cumulative sum, over N points (2.7 million at a million
items on a 0.001 grid: 0.13-0.2 s and ~90 MB of arrays, the score's largest own cost in a 1M
report; issue 28). The intervals read that array at about a hundred places (four binary
searches and the two values around the observed sum), and only ~100 frequencies carry the
distribution: every other |phi(f)|^n underflows to exactly 0, so it is zeroed there too.

So this module finds the live frequencies without the forward FFT, computes phi(f)^n there
directly, and evaluates the CDF at any index as a closed form over them: the window's sum
``sum_{y<=i} omega^{f (y + s)}`` is a geometric series. It is the same folded distribution
(the same N, window start and live set), with no Monte Carlo error either way; the values differ
from the FFT's by round-off only (both ~1e-11 or less; tests/core/stats/test_exact_cdf.py
compares them on many lattices, and the intervals read off them index for index).

Finding the live set without the FFT: |phi| is sampled on a coarse grid of L angles (one small
FFT of the one-draw distribution folded modulo L, and one of its first moment, which gives the
derivative), and between grid points a Taylor bound holds: for |h| <= pi / L,
``|phi(theta0 + h)| <= |phi(theta0)| + h |phi'(theta0)| + h^2 var / 2`` (var the one-draw
variance in lattice units bounds |phi''| once phi is centred). Every grid cell whose bound
clears the underflow threshold has its integer frequencies evaluated exactly; no live frequency
can lie elsewhere. When that costs more than the FFT route (many candidates times many distinct
offsets), ``reader`` returns the FFT route's array instead.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from evaltui.core.stats import exact_bootstrap

__all__ = ["ArrayCdf", "ClosedFormCdf", "SumCdf", "reader"]

_UNDERFLOW = -800.0  # as exact_bootstrap: n log|phi| below it is 0 after the power
_CHUNK = 1 << 20  # (frequency, offset) pairs evaluated per block
_DIRECT_PER_FFT_POINT = 1.0  # one (frequency, offset) pair costs about one FFT point


@dataclass(frozen=True)
class ArrayCdf:
    """The FFT route's whole CDF array (``exact_bootstrap.sum_cdf``), read as ``ClosedFormCdf``."""

    cdf: np.ndarray

    @property
    def points(self) -> int:
        return int(self.cdf.size)

    def value(self, i: int) -> float:
        return float(self.cdf[i])

    def first_reaching(self, level: float) -> int:
        """The smallest index whose CDF reaches ``level`` (``points`` when none does)."""
        return int(np.searchsorted(self.cdf, level, side="left"))


@dataclass(frozen=True)
class ClosedFormCdf:
    """P(sum of n draws <= start + i) as a closed form over the live frequencies.

    ``freqs`` are the live frequencies in (0, N/2]; ``coeffs`` each one's U_f / (1 - omega^f),
    with U_f = phi(f)^n omega^(f s) (s the window's start modulo N), doubled for f < N/2 (its
    conjugate frequency N - f); so the CDF at i is
    ``(i + 1) / N + Re sum_f coeffs_f (1 - omega^(f (i + 1))) / N``.
    """

    points: int
    freqs: np.ndarray
    coeffs: np.ndarray

    def value(self, i: int) -> float:
        """The CDF at index i, clipped to [0, 1] (round-off can step outside it in the tails,
        where the FFT route clips its negative probabilities)."""
        size = self.points
        turns = (self.freqs * (i + 1)) % size
        angle = (2.0 * math.pi / size) * turns
        oscillating = float(np.sum(self.coeffs.real * (1.0 - np.cos(angle))))
        oscillating -= float(np.sum(self.coeffs.imag * -np.sin(angle)))
        return min(1.0, max(0.0, ((i + 1) + oscillating) / size))

    def first_reaching(self, level: float) -> int:
        """The smallest index whose CDF reaches ``level`` (``points`` when none does): a binary
        search, the CDF being non-decreasing wherever its steps exceed the round-off."""
        lo, hi = 0, self.points  # the answer lies in [lo, hi]
        while lo < hi:
            mid = (lo + hi) // 2
            if self.value(mid) >= level:
                hi = mid
            else:
                lo = mid + 1
        return lo


SumCdf = ArrayCdf | ClosedFormCdf


def reader(exact: exact_bootstrap.ExactPlan, counts: np.ndarray) -> SumCdf:
    """The CDF of the resampled sum over ``exact``'s window: in closed form when finding and
    evaluating the live frequencies costs less than the FFT route, else the FFT route's array."""
    closed = closed_form(exact, counts)
    if closed is not None:
        return closed
    return ArrayCdf(exact_bootstrap.sum_cdf(exact, counts))


def closed_form(exact: exact_bootstrap.ExactPlan, counts: np.ndarray) -> ClosedFormCdf | None:
    """The closed-form CDF, or None when it would cost more than the FFT route."""
    size = exact.points
    n = int(counts.sum())
    # one weight per distinct lattice offset (near-duplicate deltas share a point)
    offsets, inverse = np.unique(exact.lattice.offsets, return_inverse=True)
    weights = np.bincount(inverse, weights=counts.astype(np.float64)) / n
    total = float(weights.sum())  # phi(0): 1 up to round-off; the CDF is normalised by it
    mean = float(weights @ offsets) / total
    var = float(weights @ (offsets - mean) ** 2) / total
    candidates = _candidates(offsets, weights / total, mean, var, n, size)
    if candidates is None or candidates.size * offsets.size > _DIRECT_PER_FFT_POINT * size:
        return None
    centre = int(round(mean))
    log_abs, arg = _log_phi(candidates, offsets - centre, weights, total, size)
    live = n * log_abs > _UNDERFLOW
    live[candidates == 0] = False  # f = 0 is the (i + 1) / N term
    freqs = candidates[live]
    # phi(f)^n omega^(f s) = g(f)^n omega^(f (s - centre n)), g the centred transform
    shift = (exact.start % size - centre * n) % size
    turns = (freqs * shift) % size
    phase = n * arg[live] + (2.0 * math.pi / size) * turns
    u = np.exp(n * log_abs[live]) * (np.cos(phase) + 1j * np.sin(phase))
    half_turn = (math.pi / size) * freqs
    one_minus_omega = 2.0 * np.sin(half_turn) ** 2 - 1j * np.sin(2.0 * half_turn)
    doubled = np.where(2 * freqs == size, 1.0, 2.0)
    return ClosedFormCdf(points=size, freqs=freqs, coeffs=doubled * u / one_minus_omega)


def _candidates(
    offsets: np.ndarray, p: np.ndarray, mean: float, var: float, n: int, size: int
) -> np.ndarray | None:
    """Every frequency in [0, N/2] at which |phi| can exceed the underflow threshold, found on
    a grid of L angles with the Taylor bound of the module's docstring; None when the grid
    would be as fine as the window itself."""
    threshold = math.exp(_UNDERFLOW / n)
    gap = 1.0 - threshold  # how far below 1 a live |phi| may fall
    # h^2 var / 2 <= gap / 8 with h = pi / L
    grid = 1 << max(4, math.ceil(math.log2(math.pi * math.sqrt(4.0 * var / gap))))
    if grid >= size // 4:
        return None
    folded = offsets % grid
    g0 = np.abs(np.fft.rfft(np.bincount(folded, weights=p, minlength=grid)))
    g1 = np.abs(np.fft.rfft(np.bincount(folded, weights=p * (offsets - mean), minlength=grid)))
    h = math.pi / grid
    spread = float(p @ np.abs(offsets - mean))
    bound = g0 + h * g1 + h * h * var / 2.0 + 1e-9 * (1.0 + h * spread)  # (+ FFT round-off)
    cells = np.flatnonzero(bound > threshold).astype(np.int64)
    # cell l holds the frequencies f with |f L / N - l| <= 1/2
    lows = np.maximum(0, -((-(2 * cells - 1) * size) // (2 * grid)))
    highs = np.minimum(size // 2, ((2 * cells + 1) * size) // (2 * grid))
    ranges = [np.arange(lo, hi + 1, dtype=np.int64) for lo, hi in zip(lows, highs, strict=True)]
    if not ranges:
        return np.zeros(1, dtype=np.int64)
    return np.unique(np.concatenate(ranges))


def _log_phi(
    freqs: np.ndarray, centred: np.ndarray, weights: np.ndarray, total: float, size: int
) -> tuple[np.ndarray, np.ndarray]:
    """log|g(f)| and arg g(f) of the normalised centred transform g(f) = sum_j w_j
    omega^(-f d_j) / total, d_j the offsets less the centre: angles reduced exactly in integers,
    and 1 - g summed as 2 sin^2 (no cancellation near f = 0, where |g| is within 1e-4 of 1)."""
    log_abs = np.empty(freqs.size)
    arg = np.empty(freqs.size)
    per_block = max(1, _CHUNK // max(1, centred.size))
    for start in range(0, freqs.size, per_block):
        block = freqs[start : start + per_block]
        turns = np.multiply.outer(block, centred) % size
        turns = np.where(2 * turns > size, turns - size, turns)  # into (-N/2, N/2]
        angle = (2.0 * math.pi / size) * turns
        a = (2.0 * np.sin(angle / 2.0) ** 2) @ weights / total  # 1 - Re g
        b = np.sin(angle) @ weights / total  # -Im g
        log_abs[start : start + block.size] = 0.5 * np.log1p(a * a + b * b - 2.0 * a)
        arg[start : start + block.size] = np.arctan2(-b, 1.0 - a)
    return log_abs, arg
