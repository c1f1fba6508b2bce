"""How many items a comparison needs, and what a run of a given size can detect.

A release plan fixes, before anything runs: the smallest difference worth shipping (delta), the
significance level alpha (two-sided), the power 1 - beta, and for a paired design the expected
discordance psi, the share of items on which the two runs will disagree. Only those items carry
information about which run is better, so the paired count turns on psi, not on the pass rate.

Formulas (z_a = z_{1 - alpha/2}, z_b = z_{power}; every count is rounded up, because a fraction
of an item cannot be run):

- paired, ``formula="exact-psi"`` (the reading list's design page, 004, after Connor 1987)::

      n = (z_a sqrt(psi) + z_b sqrt(psi - delta^2))^2 / delta^2

- paired, ``formula="simple"`` (the reading list's release walk-through, 002, a rough planning
  number that ignores the delta^2 term)::

      n = (z_a + z_b)^2 psi / delta^2

- independent arms, per arm (004), with p0 the baseline rate, p1 = p0 - delta and
  pbar = (p0 + p1) / 2::

      n = (z_a sqrt(2 pbar (1 - pbar)) + z_b sqrt(p0 (1 - p0) + p1 (1 - p1)))^2 / delta^2

A paired design runs every item under both systems, so it costs 2n model runs against the
independent design's 2 x per-arm cases; :class:`PlanResult` prices both.

Only ``scipy.special`` is imported (for ``ndtri``), for the start-up reason given in interval.py.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from evaltui.core.stats import special, validate

__all__ = [
    "PLAN_FORMULAS",
    "DetectableDelta",
    "PlanResult",
    "detectable_delta",
    "independent_sample_size",
    "paired_sample_size",
]

PLAN_FORMULAS: tuple[str, ...] = ("exact-psi", "simple")
"""Paired sample-size formulas; the first is the default."""


# --------------------------------------------------------------------------------------------
# Inputs
# --------------------------------------------------------------------------------------------


def _power(value: object) -> float:
    """Power below one half makes z_b negative and the formulas stop meaning a plan."""
    number = validate.number("power", value)
    if not (0.5 <= number < 1.0):
        raise ValueError(f"power must be at least 0.5 and below 1, got {value!r}")
    return number


def _delta(value: object) -> float:
    number = validate.number("delta", value)
    if number == 0.0 or not (-1.0 < number < 1.0):
        raise ValueError(
            f"delta must be a non-zero rate difference between -1 and 1 (0.05 = 5 points), "
            f"got {value!r}"
        )
    return number


def _discordance(value: object, delta: float | None = None) -> float:
    """psi in (0, 1]; and |delta| <= psi, since delta = (c - b)/n can never exceed (b + c)/n.

    That bound is stricter than the formula's own psi >= delta^2, which it implies.
    """
    number = validate.number("discordance", value)
    if not (0.0 < number <= 1.0):
        raise ValueError(
            f"discordance (psi, the share of items the runs disagree on) must be in (0, 1], "
            f"got {value!r}"
        )
    if delta is not None and abs(delta) > number:
        raise ValueError(
            f"discordance {value!r} is smaller than |delta| = {abs(delta)!r}: the runs cannot "
            "differ by more than the share of items they disagree on (psi >= |delta| >= "
            "delta^2 is required)"
        )
    return number


def _z_alpha(alpha: float) -> float:
    return float(special.ndtri(1.0 - alpha / 2.0))


def _z_beta(power: float) -> float:
    return float(special.ndtri(power))


# --------------------------------------------------------------------------------------------
# Raw (unrounded) counts
# --------------------------------------------------------------------------------------------


def _paired_raw(delta: float, psi: float, za: float, zb: float, formula: str) -> float:
    d2 = delta * delta
    if formula == "simple":
        return (za + zb) ** 2 * psi / d2
    return (za * math.sqrt(psi) + zb * math.sqrt(max(psi - d2, 0.0))) ** 2 / d2


def _independent_raw(p0: float, delta: float, za: float, zb: float) -> float:
    p1 = p0 + delta  # the candidate's rate: delta is candidate minus baseline
    pbar = (p0 + p1) / 2.0
    spread = za * math.sqrt(2.0 * pbar * (1.0 - pbar))
    alternative = zb * math.sqrt(p0 * (1.0 - p0) + p1 * (1.0 - p1))
    return (spread + alternative) ** 2 / (delta * delta)


def _check_feasible(p0: float, delta: float, psi: float) -> None:
    """With a baseline rate, the disagreements must fit: regressions come out of the baseline's
    passes and improvements out of its failures. As shares of the items, improvements are
    (psi + delta) / 2 and regressions (psi - delta) / 2."""
    improvements, regressions = (psi + delta) / 2.0, (psi - delta) / 2.0
    if improvements > 1.0 - p0 + 1e-12:
        raise ValueError(
            f"at a {p0:.1%} baseline only {1.0 - p0:.1%} of items fail, but {delta * 100:+.1f} "
            f"pts with {psi:.1%} disagreement needs {improvements:.1%} of items to improve "
            f"((discordance + delta) / 2): impossible; the discordance can be at most "
            f"{2.0 * (1.0 - p0) - delta:.4g} here"
        )
    if regressions > p0 + 1e-12:
        raise ValueError(
            f"at a {p0:.1%} baseline only {p0:.1%} of items pass, but {delta * 100:+.1f} pts with "
            f"{psi:.1%} disagreement needs {regressions:.1%} of items to regress "
            f"((discordance - delta) / 2): impossible; the discordance can be at most "
            f"{2.0 * p0 + delta:.4g} here"
        )


def _ceil(value: float) -> int:
    """Round a count up, forgiving float noise a hair above an integer (469.0000000001 -> 469)."""
    nearest = round(value)
    if abs(value - nearest) <= 1e-9 * max(1.0, abs(value)):
        return int(nearest)
    return math.ceil(value)


# --------------------------------------------------------------------------------------------
# Results
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class PlanResult:
    """A sample-size plan for a paired comparison, with the independent design priced beside it.

    ``paired_n`` items (each run under both systems: ``paired_model_runs`` = 2n). The independent
    fields are None unless a ``baseline_rate`` was given. The ``*_raw`` fields are the formulas'
    unrounded values; every count is the raw value rounded up.
    """

    delta: float
    discordance: float
    alpha: float
    power: float
    formula: str
    baseline_rate: float | None
    z_alpha: float
    z_beta: float
    paired_n_raw: float
    paired_n: int
    paired_model_runs: int
    independent_n_per_arm_raw: float | None
    independent_n_per_arm: int | None
    independent_total: int | None
    independent_model_runs: int | None

    @property
    def case_saving(self) -> float | None:
        """Share of items the paired design saves: 1 - paired_n / independent_total.

        Negative when pairing needs more items. Computed from the rounded counts, as 004 does.
        """
        if self.independent_total is None:
            return None
        return 1.0 - self.paired_n / self.independent_total

    @property
    def run_saving(self) -> float | None:
        """Share of model runs the paired design saves (negative: pairing costs more runs)."""
        if self.independent_model_runs is None:
            return None
        return 1.0 - self.paired_model_runs / self.independent_model_runs


@dataclass(frozen=True)
class DetectableDelta:
    """The smallest |delta| a paired run of ``n`` items detects with the given power.

    ``delta`` is None when even the largest difference the discordance allows (|delta| = psi:
    every disagreement going the same way) would need more than ``n`` items: the run is too small
    to detect anything at that power. ``max_delta`` is that largest difference.
    """

    n: int
    discordance: float
    alpha: float
    power: float
    formula: str
    delta: float | None
    max_delta: float

    @property
    def detectable(self) -> bool:
        return self.delta is not None


# --------------------------------------------------------------------------------------------
# Public functions
# --------------------------------------------------------------------------------------------


def independent_sample_size(
    baseline_rate: float, delta: float, alpha: float = 0.05, power: float = 0.80
) -> int:
    """Items per arm for two independent arms (004), rounded up. ``delta`` is candidate minus
    baseline, as everywhere in evaltui, so the candidate's rate is p1 = baseline_rate + delta:
    +5 pts from 90% is a rise to 95% (435 per arm), -5 pts a drop to 85% (686, the reading
    list's worked example, which speaks of "the baseline minus the difference").

    Both ``baseline_rate`` and ``p1`` must lie strictly inside (0, 1).
    """
    p0 = validate.probability("baseline_rate", baseline_rate)
    d = _delta(delta)
    alpha = validate.probability("alpha", alpha)
    power = _power(power)
    p1 = p0 + d
    if not (0.0 < p1 < 1.0):
        raise ValueError(
            f"baseline_rate + delta = {p1!r} (the candidate's rate) must be strictly between "
            f"0 and 1 (baseline_rate {baseline_rate!r}, delta {delta!r})"
        )
    return _ceil(_independent_raw(p0, d, _z_alpha(alpha), _z_beta(power)))


def paired_sample_size(
    delta: float,
    discordance: float,
    alpha: float = 0.05,
    power: float = 0.80,
    formula: str = "exact-psi",
    baseline_rate: float | None = None,
) -> PlanResult:
    """Paired items needed to detect ``delta`` with the given power (see the module docstring).

    ``discordance`` is psi, the expected share of items on which the runs disagree; it must be at
    least |delta| (hence at least delta^2). Pass ``baseline_rate`` to price the independent
    design beside it.
    """
    d = _delta(delta)
    psi = _discordance(discordance, d)
    alpha = validate.probability("alpha", alpha)
    power = _power(power)
    formula = validate.one_of("formula", formula, PLAN_FORMULAS)
    za, zb = _z_alpha(alpha), _z_beta(power)
    raw = _paired_raw(d, psi, za, zb, formula)
    paired_n = _ceil(raw)
    ind_raw: float | None = None
    per_arm: int | None = None
    total: int | None = None
    base: float | None = None
    if baseline_rate is not None:
        base = validate.probability("baseline_rate", baseline_rate)
        _check_feasible(base, d, psi)
        per_arm = independent_sample_size(base, d, alpha, power)
        ind_raw = _independent_raw(base, d, za, zb)
        total = 2 * per_arm
    return PlanResult(
        delta=d,
        discordance=psi,
        alpha=alpha,
        power=power,
        formula=formula,
        baseline_rate=base,
        z_alpha=za,
        z_beta=zb,
        paired_n_raw=raw,
        paired_n=paired_n,
        paired_model_runs=2 * paired_n,
        independent_n_per_arm_raw=ind_raw,
        independent_n_per_arm=per_arm,
        independent_total=total,
        independent_model_runs=total,
    )


def detectable_delta(
    n: int,
    discordance: float,
    alpha: float = 0.05,
    power: float = 0.80,
    formula: str = "exact-psi",
) -> DetectableDelta:
    """The smallest |delta| that ``n`` paired items detect at this power: the paired formula
    solved for delta with n given (for "this run could only detect +/-X pts at 80% power").

    The required n falls strictly as |delta| grows on (0, psi], so the answer is the root of
    n_required(delta) = n on that range, found by bisection to float resolution (closed form for
    the simple formula). With the observed discordance of a run, plug in its b + c over n.
    """
    n = validate.integer("n", n, minimum=1)
    psi = _discordance(discordance)
    alpha = validate.probability("alpha", alpha)
    power = _power(power)
    formula = validate.one_of("formula", formula, PLAN_FORMULAS)
    za, zb = _z_alpha(alpha), _z_beta(power)

    def required(d: float) -> float:
        return _paired_raw(d, psi, za, zb, formula)

    max_delta = psi
    if required(max_delta) > n:
        return DetectableDelta(n, psi, alpha, power, formula, None, max_delta)
    if formula == "simple":
        delta = (za + zb) * math.sqrt(psi / n)
    else:
        lo, hi = 0.0, max_delta  # required(lo) = +inf > n >= required(hi)
        for _ in range(200):
            mid = 0.5 * (lo + hi)
            if mid <= lo or mid >= hi:
                break
            if required(mid) > n:
                lo = mid
            else:
                hi = mid
        delta = hi  # the smallest delta found with required(delta) <= n
    return DetectableDelta(n, psi, alpha, power, formula, min(delta, max_delta), max_delta)
