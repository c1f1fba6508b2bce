"""Items needed for graded scores and for items repeated over epochs (``evaltui plan --design
graded`` and ``--design epochs``): the paired t test's sample size.

Each plan speaks the quantities the report prints, so a pilot run's report can be planned from:

- **graded** (R2 of the design chooser, reading list 004): the analysis tests the mean of the
  per-item deltas, so the plan needs that mean delta d and the SD sigma of the per-item deltas.
  The normal count is n = ((z_a + z_b) sigma / d)^2; the headline count is the paired t test's,
  n solving power(n) = 1 - beta with power(n) = P(T' > t_{1-alpha/2, n-1}), T' noncentral t on
  n - 1 df with noncentrality sqrt(n) d / sigma. That is R's ``power.t.test(type = "paired")``
  (``strict = FALSE``: the far tail is not counted) and matches it to ~1e-11. The t count is
  larger than the normal one because a small run also has to estimate sigma; iterating
  n = ((t_{1-alpha/2, n-1} + t_{power, n-1}) sigma / d)^2 instead only approximates it
  (33.38 against R's 33.37 at d = 0.5, sigma = 1).
- **repeated epochs**: an item's delta is the difference of its two K-epoch means, so over n
  items the variance of the mean delta is (sigma_b^2 + 2 sigma_w^2 / K) / n, with sigma_b the
  SD of the items' *true* deltas and sigma_w the within-item (epoch) SD of one record *per arm*:
  the square root of the report's ``within_item_variance`` (epoch summary, epochs.py), which is
  per arm; with two different arms use sqrt((w_baseline + w_candidate) / 2). The graded plan
  runs with sigma^2 = sigma_b^2 + 2 sigma_w^2 / K. Epochs remove only the 2 sigma_w^2 / K term,
  so the items never fall below the sigma_b-only count (the floor, K -> infinity); and per model
  run an extra epoch never beats an extra item (at a fixed power, runs = 2 K n grow with K), so
  epochs pay when the items, not the runs, are what is scarce.

Every count is rounded up (a fraction of an item cannot be run). Only ``scipy.special`` is
imported (ndtri, stdtrit and the noncentral t CDF nctdtr): see power.py for the start-up reason.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from evaltui.core.stats import special, validate
from evaltui.core.stats.graded import SMALL_N
from evaltui.core.stats.power import _ceil, _power, _z_alpha, _z_beta

__all__ = [
    "MIN_T_ITEMS",
    "EpochPlan",
    "GradedPlan",
    "epochs_plan",
    "graded_sample_size",
    "sd_between_from_pilot",
    "sd_from_t_interval",
]

MIN_T_ITEMS = 2
"""A paired t test needs two items (one degree of freedom); R's search starts there too."""

_BISECT_STEPS = 200


# --------------------------------------------------------------------------------------------
# Inputs
# --------------------------------------------------------------------------------------------


def _nonzero(name: str, value: object) -> float:
    number = validate.number(name, value)
    if number == 0.0:
        raise ValueError(f"{name} must be a non-zero difference worth detecting, got {value!r}")
    return number


def _small_n_warning(items: int) -> tuple[str, ...]:
    """The analysis gives fewer than SMALL_N items counts only, no verdict (graded.py)."""
    if items >= SMALL_N:
        return ()
    return (
        f"{items} items is fewer than {SMALL_N}: the analysis reports counts only and gives "
        f"no verdict on so few; run at least {SMALL_N}",
    )


# --------------------------------------------------------------------------------------------
# The paired t test's power (R's power.t.test, type = "paired", strict = FALSE)
# --------------------------------------------------------------------------------------------


def _t_power(n: float, ncp_per_item: float, alpha: float) -> float:
    """Power of the two-sided paired t test on n items (n - 1 df) at noncentrality
    sqrt(n) * ncp_per_item, counting only the rejections on the effect's side, as R does."""
    df = n - 1.0
    critical = float(special.stdtrit(df, 1.0 - alpha / 2.0))
    return 1.0 - float(special.nctdtr(df, math.sqrt(n) * ncp_per_item, critical))


def _t_items_raw(effect: float, alpha: float, power: float) -> float:
    """The real n with power(n) = power for the standardised effect |d| / sigma, by bisection
    to float resolution; at least MIN_T_ITEMS (a huge effect can be "detected" by fewer, which
    no paired t test can run)."""
    if _t_power(MIN_T_ITEMS, effect, alpha) >= power:
        return float(MIN_T_ITEMS)
    normal = ((_z_alpha(alpha) + _z_beta(power)) / effect) ** 2
    lo, hi = float(MIN_T_ITEMS), max(2.0 * normal, 4.0)
    while _t_power(hi, effect, alpha) < power:  # the t count always exceeds the normal one
        lo, hi = hi, 2.0 * hi
    for _ in range(_BISECT_STEPS):
        mid = 0.5 * (lo + hi)
        if mid <= lo or mid >= hi:
            break
        if _t_power(mid, effect, alpha) < power:
            lo = mid
        else:
            hi = mid
    return hi


def _t_max_sd(delta: float, items: int, alpha: float, power: float) -> float:
    """The largest SD of the per-item deltas that ``items`` items still detect ``delta`` at
    (R's power.t.test(n = items, delta = delta, sd = NULL)): the root of the power in the
    noncentrality, which rises monotonically."""
    df = items - 1.0
    critical = float(special.stdtrit(df, 1.0 - alpha / 2.0))

    def reach(ncp: float) -> float:
        return 1.0 - float(special.nctdtr(df, ncp, critical))

    lo, hi = 0.0, _z_alpha(alpha) + _z_beta(power) + 1.0
    while reach(hi) < power:
        lo, hi = hi, 2.0 * hi
    for _ in range(_BISECT_STEPS):
        mid = 0.5 * (lo + hi)
        if mid <= lo or mid >= hi:
            break
        if reach(mid) < power:
            lo = mid
        else:
            hi = mid
    return math.sqrt(items) * abs(delta) / hi


# --------------------------------------------------------------------------------------------
# Graded
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class GradedPlan:
    """Items to detect a mean per-item delta ``delta`` when the per-item deltas have SD ``sd``.

    ``items`` is the paired t test's count (``items_raw``, R's power.t.test n, rounded up);
    ``normal_items`` the normal approximation's, ((z_a + z_b) sd / delta)^2 rounded up, which
    is what a large run converges to. ``model_runs`` = 2 items (each item under both systems).
    """

    delta: float
    sd: float
    alpha: float
    power: float
    z_alpha: float
    z_beta: float
    normal_items_raw: float
    normal_items: int
    items_raw: float
    items: int
    model_runs: int
    warnings: tuple[str, ...] = ()


def graded_sample_size(
    delta: float, sd: float, alpha: float = 0.05, power: float = 0.80
) -> GradedPlan:
    """Paired items needed to detect a mean delta ``delta`` (candidate minus baseline, in the
    score's units) when the per-item deltas have standard deviation ``sd`` (see the module
    docstring); the count depends on |delta| / sd only."""
    d = _nonzero("delta", delta)
    sigma = validate.positive("sd", sd)
    alpha = validate.probability("alpha", alpha)
    power = _power(power)
    za, zb = _z_alpha(alpha), _z_beta(power)
    normal_raw = ((za + zb) * sigma / d) ** 2
    raw = _t_items_raw(abs(d) / sigma, alpha, power)
    items = _ceil(raw)
    return GradedPlan(
        delta=d,
        sd=sigma,
        alpha=alpha,
        power=power,
        z_alpha=za,
        z_beta=zb,
        normal_items_raw=normal_raw,
        normal_items=_ceil(normal_raw),
        items_raw=raw,
        items=items,
        model_runs=2 * items,
        warnings=_small_n_warning(items),
    )


# --------------------------------------------------------------------------------------------
# Repeated epochs
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class EpochPlan:
    """Items and epochs for a paired comparison whose items each run ``epochs`` times per arm.

    ``solved`` says which was asked for: ``"items"`` (``epochs`` given) or ``"epochs"`` (the
    run's ``items`` given: the fewest epochs that reach the power with them). ``sd_delta`` =
    sqrt(sd_between^2 + 2 sd_within^2 / epochs), the SD of one item's epoch-averaged delta;
    ``items_raw``/``normal_items_raw`` are the t and normal counts at ``epochs`` (with items
    given, ``items_raw`` <= ``items`` shows the slack; ``sd_delta_max`` is the largest
    ``sd_delta`` those items detect). ``model_runs`` = 2 x items x epochs.

    Where more epochs stop helping: ``epoch_share`` is the share of ``sd_delta``^2 that is
    epoch noise, the most that more epochs could still remove; ``items_floor`` the items needed
    with infinitely many epochs (sd_between alone; ``MIN_T_ITEMS`` when that is 0), below which
    no number of epochs goes; ``epochs_saturation`` the epoch count beyond which one more epoch
    per item saves less than one item (normal counts: 2 c sd_within^2 / (K (K + 1)) < 1 with
    c = ((z_a + z_b) / delta)^2), 1 when sd_within is 0.
    """

    delta: float
    sd_between: float
    sd_within: float
    alpha: float
    power: float
    solved: str
    epochs: int
    items: int
    sd_delta: float
    items_raw: float
    normal_items_raw: float
    normal_items: int
    model_runs: int
    epoch_share: float
    items_floor_raw: float
    items_floor: int
    epochs_saturation: int
    sd_delta_max: float | None = None
    warnings: tuple[str, ...] = ()


def _saturation(c: float, sd_within: float) -> int:
    """The smallest K >= 1 with K (K + 1) > 2 c sd_within^2: one more epoch saves < 1 item."""
    x = 2.0 * c * sd_within * sd_within
    k = max(1, math.ceil((-1.0 + math.sqrt(1.0 + 4.0 * x)) / 2.0))
    while k > 1 and (k - 1) * k > x:
        k -= 1
    while k * (k + 1) <= x:
        k += 1
    return k


def epochs_plan(
    delta: float,
    sd_between: float,
    sd_within: float,
    *,
    epochs: int | None = None,
    items: int | None = None,
    alpha: float = 0.05,
    power: float = 0.80,
) -> EpochPlan:
    """Given ``epochs`` per item (each arm), the items needed; given ``items``, the epochs.

    ``sd_between`` is the SD of the items' true deltas, ``sd_within`` the SD of one record
    around its item's mean within one arm (the square root of the report's per-arm
    ``within_item_variance``; see :func:`sd_between_from_pilot` for sd_between). Exactly one of
    ``epochs`` and ``items`` is given. Raises ``ValueError`` when ``items`` cannot reach the
    power with any number of epochs (sd_between alone needs more items).
    """
    d = _nonzero("delta", delta)
    sb = validate.non_negative("sd_between", sd_between)
    sw = validate.non_negative("sd_within", sd_within)
    alpha = validate.probability("alpha", alpha)
    power = _power(power)
    if sb == 0.0 and sw == 0.0:
        raise ValueError(
            "sd_between and sd_within are both 0: the deltas would not vary at all and any "
            "run would detect any delta; give the SDs a pilot run measured"
        )
    if (epochs is None) == (items is None):
        raise ValueError(
            "give either the epochs per item (to plan the items) or the items (to plan the "
            "epochs), not both or neither"
        )
    za, zb = _z_alpha(alpha), _z_beta(power)
    c = ((za + zb) / d) ** 2
    # With infinitely many epochs only sd_between is left; with none of it, any MIN_T_ITEMS do.
    floor_raw = _t_items_raw(abs(d) / sb, alpha, power) if sb > 0.0 else float(MIN_T_ITEMS)
    sd_max: float | None = None
    if epochs is not None:
        k = validate.integer("epochs", epochs, minimum=1)
        solved = "items"
        sd_delta = math.sqrt(sb * sb + 2.0 * sw * sw / k)
        raw = _t_items_raw(abs(d) / sd_delta, alpha, power)
        n = _ceil(raw)
    else:
        n = validate.integer("items", items, minimum=MIN_T_ITEMS)
        solved = "epochs"
        sd_max = _t_max_sd(d, n, alpha, power)
        room = sd_max * sd_max - sb * sb  # what the epoch noise 2 sd_within^2 / K may take up
        if room <= 0.0:
            raise ValueError(
                f"{n:,} items cannot detect {d:+g} at {power:.0%} power with any number of "
                f"epochs: the between-item SD {sb:g} alone needs {_ceil(floor_raw):,} items "
                f"(epochs only shrink the within-item noise)"
            )
        k = 1 if sw == 0.0 else max(1, _ceil(2.0 * sw * sw / room))
        sd_delta = math.sqrt(sb * sb + 2.0 * sw * sw / k)
        raw = _t_items_raw(abs(d) / sd_delta, alpha, power)
    noise = 2.0 * sw * sw / k
    normal_raw = c * sd_delta * sd_delta
    warnings = _small_n_warning(n)
    return EpochPlan(
        delta=d,
        sd_between=sb,
        sd_within=sw,
        alpha=alpha,
        power=power,
        solved=solved,
        epochs=k,
        items=n,
        sd_delta=sd_delta,
        items_raw=raw,
        normal_items_raw=normal_raw,
        normal_items=_ceil(normal_raw),
        model_runs=2 * n * k,
        epoch_share=noise / (sd_delta * sd_delta),
        items_floor_raw=floor_raw,
        items_floor=_ceil(floor_raw),
        epochs_saturation=_saturation(c, sw),
        sd_delta_max=sd_max,
        warnings=warnings,
    )


# --------------------------------------------------------------------------------------------
# From a pilot run's report to the plan's inputs
# --------------------------------------------------------------------------------------------


def sd_from_t_interval(ci: tuple[float, float], n: int, confidence: float = 0.95) -> float:
    """The SD of the per-item deltas behind a report's paired t interval (``graded.t_ci``):
    the interval is mean +- t_{(1+confidence)/2, n-1} sd / sqrt(n), so
    sd = sqrt(n) (hi - lo) / (2 t)."""
    n = validate.integer("n", n, minimum=2)
    confidence = validate.probability("confidence", confidence)
    lo, hi = validate.number("ci lower", ci[0]), validate.number("ci upper", ci[1])
    if hi < lo:
        raise ValueError(f"the interval's upper end {hi!r} is below its lower end {lo!r}")
    t = float(special.stdtrit(n - 1, (1.0 + confidence) / 2.0))
    return math.sqrt(n) * (hi - lo) / (2.0 * t)


def sd_between_from_pilot(
    sd_delta: float,
    within_variance: tuple[float, float],
    epochs: tuple[float, float],
) -> float:
    """sd_between from a pilot run with epochs: its per-item deltas (epoch means) have variance
    sd_between^2 + w_A / K_A + w_B / K_B, with w the arms' ``within_item_variance`` and K their
    epochs per item (the report's epoch summary), so sd_between is what is left after the epoch
    noise (floored at 0, as the report's own between-item variance is).

    Not the report's per-arm ``between_item_variance``: that is the spread of the items' true
    *scores* (item difficulty), which pairing cancels; the plan needs the spread of their
    true *deltas*.
    """
    s = validate.non_negative("sd_delta", sd_delta)
    w_a = validate.non_negative("within_variance (baseline)", within_variance[0])
    w_b = validate.non_negative("within_variance (candidate)", within_variance[1])
    k_a = validate.positive("epochs (baseline)", epochs[0])
    k_b = validate.positive("epochs (candidate)", epochs[1])
    return math.sqrt(max(0.0, s * s - w_a / k_a - w_b / k_b))
