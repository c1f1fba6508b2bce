"""The exact bootstrap's closed-form CDF against the binomial, the FFT route, and the intervals
the FFT route prints (``exact_bootstrap.sum_cdf``, unchanged since issue 28's fifth round)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import fft, stats

from evaltui.core.stats import exact_bootstrap, exact_cdf, graded
from evaltui.core.stats.graded import paired_bootstrap
from evaltui.core.words import estimate_and_interval


def _plan(deltas: np.ndarray) -> tuple[exact_bootstrap.ExactPlan, np.ndarray]:
    values, counts = np.unique(deltas, return_counts=True)
    exact = exact_bootstrap.plan(values, counts)
    assert exact is not None
    return exact, counts


def _lattices() -> dict[str, np.ndarray]:
    """Deltas on lattices of many shapes: rounded score differences, ratings, skewed grids,
    pass rates over epochs, nearly one parity or one residue mod 3 (live frequencies at N/2
    and N/3), two values, a lopsided few."""
    rng = np.random.default_rng(28)
    out: dict[str, np.ndarray] = {}
    for n in (5_000, 30_000, 200_000):
        out[f"grid_{n}"] = np.round(rng.random(n), 3) - np.round(rng.random(n), 3)
        out[f"grid_shifted_{n}"] = np.round(rng.beta(5, 2, n), 3) - np.round(rng.beta(2, 5, n), 3)
        out[f"ratings_{n}"] = rng.integers(-4, 5, n).astype(float)
        out[f"skewed_{n}"] = np.round(rng.exponential(0.05, n) - 0.04, 3)
        out[f"epochs5_{n}"] = (rng.binomial(5, 0.6, n) - rng.binomial(5, 0.55, n)) / 5
        even = rng.integers(-50, 50, n) * 2.0
        even[:3] += 1.0
        out[f"parity_{n}"] = even * 0.01
        thirds = rng.integers(-20, 20, n) * 3.0
        thirds[:5] += 1.0
        out[f"thirds_{n}"] = thirds * 0.5
        out[f"two_valued_{n}"] = (rng.random(n) < 0.3).astype(float)
        few = rng.choice([-1.0, 0.0, 0.25, 3.0], n, p=[0.05, 0.9, 0.04, 0.01])
        out[f"lopsided_{n}"] = few
        out[f"t3_grid_{n}"] = np.round(rng.standard_t(3, n) * 0.1, 2)
    return out


LATTICES = _lattices()


@pytest.mark.parametrize(("n", "ones"), [(100_000, 30_000), (1_000_000, 300_000)])
def test_two_valued_closed_form_is_the_binomial_cdf(n, ones):
    exact, counts = _plan(np.repeat([0.0, 1.0], [n - ones, ones]))
    cdf = exact_cdf.closed_form(exact, counts)
    assert cdf is not None
    k = exact.start + np.arange(exact.points)
    inside = np.flatnonzero((k >= 0) & (k <= n))
    picked = inside[np.linspace(0, inside.size - 1, 300).astype(int)]
    want = stats.binom.cdf(k[picked], n, ones / n)
    got = np.array([cdf.value(int(i)) for i in picked])
    assert np.max(np.abs(got - want)) < 1e-12  # (the FFT route's own error here: ~2e-11)


@pytest.mark.parametrize(
    "name",
    [n if i % 3 == 0 else pytest.param(n, marks=pytest.mark.slow) for i, n in enumerate(LATTICES)],
)
def test_closed_form_equals_the_fft_route_on_many_lattices(name):
    exact, counts = _plan(LATTICES[name])
    fft = exact_cdf.ArrayCdf(exact_bootstrap.sum_cdf(exact, counts))
    closed = exact_cdf.closed_form(exact, counts)
    if closed is None:  # the window is too small for a grid: the FFT route is used
        read = exact_cdf.reader(exact, counts)
        assert isinstance(read, exact_cdf.ArrayCdf) and np.array_equal(read.cdf, fft.cdf)
        return
    at = np.random.default_rng(1).integers(0, exact.points, 100)
    assert max(abs(fft.value(int(i)) - closed.value(int(i))) for i in at) < 1e-9
    for level in (0.0005, 0.005, 0.025, 0.05, 0.1, 0.5, 0.9, 0.95, 0.975, 0.995, 0.9995):
        assert closed.first_reaching(level) == fft.first_reaching(level), level


@pytest.mark.parametrize("name", list(LATTICES))
def test_live_frequencies_are_those_the_fft_keeps(name):
    """The grid's bound misses no frequency the FFT route keeps (nor keeps a dead one), the
    peaks away from 0 (N/2 for one parity, N/3 for one residue) included."""
    exact, counts = _plan(LATTICES[name])
    closed = exact_cdf.closed_form(exact, counts)
    if closed is None:
        return
    n = int(counts.sum())
    one = np.zeros(exact.points)
    np.add.at(one, exact.lattice.offsets % exact.points, counts / n)
    spectrum = np.abs(np.fft.rfft(one))
    kept = set(np.flatnonzero(spectrum > math.exp(-800.0 / n)).tolist()) - {0}
    found = set(closed.freqs.tolist())
    # a frequency at the threshold itself (|phi|^n ~ e^-800: 0 either way) may fall either side
    edge = {f for f in kept ^ found if abs(n * math.log(spectrum[f]) + 800.0) > 1e-3}
    assert not edge
    if name.startswith("parity"):
        assert exact.points % 2 == 1 or exact.points // 2 in found
    if name.startswith("thirds"):
        assert any(abs(f - exact.points / 3) < 50 for f in found)


def _printed(est: float, ci: tuple[float, float]) -> str:
    value, interval = estimate_and_interval(est, ci[0], ci[1], False)
    return f"{value} {interval}"


def _intervals(deltas: np.ndarray, confidence: float) -> tuple[tuple, tuple, list]:
    """Both intervals read off the exact distribution, as ``paired_bootstrap`` reads them on
    its exact route (which it takes only when resampling would be slow)."""
    values, counts = np.unique(deltas, return_counts=True)
    exact = exact_bootstrap.plan(values, counts)
    assert exact is not None
    mean = float(counts.astype(np.float64) @ values / deltas.size)
    return graded._exact_intervals(exact, values, counts, mean, 1.0 - confidence)


# (the default run checks the 95% level; CI's slow stage the 90% and 99% too: the suite's budget)
@pytest.mark.parametrize(
    "confidence",
    [pytest.param(0.9, marks=pytest.mark.slow), 0.95, pytest.param(0.99, marks=pytest.mark.slow)],
)
@pytest.mark.parametrize("name", [n for n in LATTICES if not n.endswith("_5000")])
def test_intervals_print_as_the_fft_route_printed_them(monkeypatch, name, confidence):
    deltas = LATTICES[name]
    closed = _intervals(deltas, confidence)
    monkeypatch.setattr(exact_cdf, "closed_form", lambda exact, counts: None)
    fft = _intervals(deltas, confidence)
    assert closed == fft  # the same floats (lattice points), so the same printed intervals
    mean = float(np.mean(deltas))
    for now, before in zip(closed[:2], fft[:2], strict=True):
        assert _printed(mean, now) == _printed(mean, before)


def test_the_reports_route_prints_as_the_fft_route_on_a_score_grid(monkeypatch):
    deltas = LATTICES["grid_200000"]
    closed = paired_bootstrap(deltas)
    assert "exact_bootstrap" in closed.flags
    monkeypatch.setattr(exact_cdf, "closed_form", lambda exact, counts: None)
    assert paired_bootstrap(deltas) == closed


def test_a_window_too_small_for_a_grid_reads_the_fft_array():
    exact, counts = _plan(np.repeat([0.0, 1.0], [700, 300]))
    assert exact_cdf.closed_form(exact, counts) is None
    assert isinstance(exact_cdf.reader(exact, counts), exact_cdf.ArrayCdf)


def test_fast_length_is_scipys_next_fast_len_for_real_input():
    targets = [*range(1, 3_000), *np.random.default_rng(2).integers(1, 1 << 25, 3_000).tolist()]
    got = [exact_bootstrap.fast_length(int(t)) for t in targets]
    assert got == [fft.next_fast_len(int(t), real=True) for t in targets]
