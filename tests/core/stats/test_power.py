"""Sample sizes against the reading list's worked numbers, and the inverse (detectable delta).

Sources:
- 002_4e8fed74ddc977de.txt ("Is V2 actually better?"): the rough paired formula
  n = (z_{a/2} + z_b)^2 psi / delta^2 with delta = 0.06, psi = 0.15, alpha = 0.05, power 0.80:
  "(1.96 + 0.84)^2 x 0.15 / 0.06^2 ~ 327"; and "with 200 questions it detects a real 6-point
  gain only about 52% of the time" (so 200 items cannot detect 6 points at 80% power).
- 004_21730a73f39b8fde.txt ("Paired vs Independent"): at a 90% baseline, 5-point difference,
  5% significance and 80% power, independent "685.6, so 686 per arm: 1,372 cases and 1,372
  model runs"; paired at 15% disagreement "468.6, so 469 cases ... 938 model runs: 66% fewer
  cases and 32% fewer runs"; at 30% "940 cases and 1,880 runs, which is 31% fewer cases but 37%
  MORE runs"; run-parity disagreement "about 21.9%", case-parity "about 44%".
"""

from __future__ import annotations

import math

import pytest

from evaltui.core.stats.power import (
    DetectableDelta,
    PlanResult,
    detectable_delta,
    independent_sample_size,
    paired_sample_size,
)

# ============================================================================================
# 002: the rough formula
# ============================================================================================


def test_simple_formula_reproduces_002_about_327():
    plan = paired_sample_size(0.06, 0.15, formula="simple")
    # 002 rounds the critical values to 1.96 and 0.84 and gets 326.7 ("~ 327"); with the exact
    # z_{0.975} = 1.95996 and z_{0.80} = 0.84162 the same formula gives 327.04, rounded up 328.
    assert round(plan.paired_n_raw) == 327
    assert plan.paired_n_raw == pytest.approx(327.04, abs=0.01)
    assert plan.paired_n == 328
    assert plan.paired_model_runs == 656
    assert plan.formula == "simple"
    # 002's own arithmetic, with its rounded critical values:
    by_hand = (1.96 + 0.84) ** 2 * 0.15 / 0.06**2
    assert by_hand == pytest.approx(326.67, abs=0.01)


def test_exact_psi_formula_needs_a_few_more_than_the_rough_one_at_002s_inputs():
    # The rough formula drops the -delta^2 term; at delta = 0.06 that term is small but real.
    exact = paired_sample_size(0.06, 0.15)
    rough = paired_sample_size(0.06, 0.15, formula="simple")
    assert exact.paired_n < rough.paired_n
    assert 300 < exact.paired_n < 330


def test_z_values_echoed():
    plan = paired_sample_size(0.06, 0.15)
    assert plan.z_alpha == pytest.approx(1.959964, abs=1e-6)
    assert plan.z_beta == pytest.approx(0.841621, abs=1e-6)
    assert (plan.delta, plan.discordance, plan.alpha, plan.power) == (0.06, 0.15, 0.05, 0.8)


# ============================================================================================
# 004: paired versus independent
# ============================================================================================


def test_paired_469_and_independent_686_per_arm_at_15_percent_disagreement():
    # 004's worked example catches a 5-point drop: the candidate at 85% (delta = -0.05).
    plan = paired_sample_size(-0.05, 0.15, baseline_rate=0.90)
    assert isinstance(plan, PlanResult)
    assert round(plan.paired_n_raw, 1) == 468.6
    assert plan.paired_n == 469
    assert plan.paired_model_runs == 938
    assert round(plan.independent_n_per_arm_raw, 1) == 685.6
    assert plan.independent_n_per_arm == 686
    assert plan.independent_total == 1372
    assert plan.independent_model_runs == 1372
    # "66% fewer cases and 32% fewer runs", from the rounded counts.
    assert round(plan.case_saving * 100) == 66
    assert round(plan.run_saving * 100) == 32


def test_paired_940_at_30_percent_disagreement_costs_more_runs():
    plan = paired_sample_size(-0.05, 0.30)
    assert plan.paired_n == 940
    assert plan.paired_model_runs == 1880
    # "31% fewer cases but 37% MORE runs", against 004's 686 per arm.
    independent = 2 * independent_sample_size(0.90, -0.05)
    assert round((1 - plan.paired_n / independent) * 100) == 31
    assert round((1 - plan.paired_model_runs / independent) * 100) == -37
    # 004 pairs that figure with a 90% baseline, where 30% disagreement cannot happen: only 10%
    # of items fail, and a 5-point drop with 30% disagreement needs 12.5% to improve.
    with pytest.raises(ValueError, match=r"only 10\.0% of items fail.*needs 12\.5%"):
        paired_sample_size(-0.05, 0.30, baseline_rate=0.90)


def test_independent_sample_size_alone():
    assert independent_sample_size(0.90, -0.05) == 686  # a drop to 85%
    assert independent_sample_size(0.90, -0.05, alpha=0.05, power=0.80) == 686


def test_delta_is_candidate_minus_baseline_in_the_independent_design_too():
    """+5 pts from 90% is a rise to 95%: 435 per arm (434.4 raw), not the 686 of a drop."""
    assert independent_sample_size(0.90, 0.05) == 435
    plan = paired_sample_size(0.05, 0.15, baseline_rate=0.90)
    assert round(plan.independent_n_per_arm_raw, 1) == 434.4
    assert plan.paired_n == 469  # the paired count depends on |delta| only


def test_a_drop_from_a_high_baseline_is_a_valid_plan():
    plan = paired_sample_size(-0.05, 0.10, baseline_rate=0.97)
    assert plan.independent_n_per_arm == independent_sample_size(0.97, -0.05)


def test_disagreements_that_cannot_fit_the_baseline_are_refused():
    """At 97% only 3% of items fail: +2 pts with 15% disagreement needs 8.5% to improve."""
    with pytest.raises(ValueError, match=r"only 3\.0% of items fail.*needs 8\.5% of items"):
        paired_sample_size(0.02, 0.15, baseline_rate=0.97)
    with pytest.raises(ValueError, match=r"only 5\.0% of items pass.*needs 15\.0% of items"):
        paired_sample_size(-0.05, 0.25, baseline_rate=0.05)
    assert paired_sample_size(0.02, 0.04, baseline_rate=0.97).paired_n > 0  # it fits


def _parity(target: float) -> float:
    """Disagreement rate at which the paired raw count equals ``target`` (bisection)."""
    lo, hi = 0.05, 1.0
    for _ in range(100):
        mid = (lo + hi) / 2
        if paired_sample_size(0.05, mid).paired_n_raw < target:
            lo = mid
        else:
            hi = mid
    return lo


def test_crossover_rates_match_004():
    plan = paired_sample_size(-0.05, 0.15, baseline_rate=0.90)
    per_arm = plan.independent_n_per_arm_raw
    # run parity: paired n (2n runs) = independent total runs (2 x per arm) -> about 21.9%
    assert round(_parity(per_arm), 3) == 0.219
    # case parity: paired n = independent total cases -> about 44%
    assert round(_parity(2 * per_arm), 2) == 0.44


def test_without_baseline_rate_the_independent_fields_are_none():
    plan = paired_sample_size(0.05, 0.15)
    assert plan.baseline_rate is None
    assert plan.independent_n_per_arm is None
    assert plan.independent_total is None
    assert plan.case_saving is None and plan.run_saving is None


def test_paired_count_depends_on_delta_magnitude_only():
    assert paired_sample_size(-0.05, 0.15).paired_n == paired_sample_size(0.05, 0.15).paired_n


def test_more_power_or_smaller_alpha_needs_more_items():
    base = paired_sample_size(0.05, 0.15).paired_n
    assert paired_sample_size(0.05, 0.15, power=0.90).paired_n > base
    assert paired_sample_size(0.05, 0.15, alpha=0.01).paired_n > base


# ============================================================================================
# detectable_delta: the paired formula inverted
# ============================================================================================


def test_detectable_delta_inverts_the_paired_formula():
    # 469 items detect 5 points (they need 468.6); one item fewer than the raw need does not.
    result = detectable_delta(469, 0.15)
    assert isinstance(result, DetectableDelta)
    assert result.detectable
    assert 0.0499 < result.delta < 0.05
    assert paired_sample_size(result.delta, 0.15).paired_n_raw == pytest.approx(469, rel=1e-9)
    assert detectable_delta(468, 0.15).delta > 0.05


def test_002s_200_items_cannot_detect_6_points_at_80_percent_power():
    # 002: 200 questions detect a real 6-point gain only ~52% of the time.
    result = detectable_delta(200, 0.15)
    assert result.delta > 0.06
    assert result.delta == pytest.approx(0.0763, abs=5e-4)


def test_detectable_delta_simple_formula_closed_form():
    result = detectable_delta(327, 0.15, formula="simple")
    z = 1.959963984540054 + 0.8416212335729143
    assert result.delta == pytest.approx(z * math.sqrt(0.15 / 327), rel=1e-12)
    assert result.delta == pytest.approx(0.06, abs=1e-4)


def test_too_few_items_detect_nothing_at_that_power():
    result = detectable_delta(10, 0.15)
    assert result.delta is None
    assert not result.detectable
    assert result.max_delta == 0.15


@pytest.mark.parametrize("n", [20, 50, 200, 1000, 10_000])
@pytest.mark.parametrize("psi", [0.05, 0.15, 0.3])
def test_detectable_delta_round_trip(n, psi):
    result = detectable_delta(n, psi)
    if result.delta is None:
        assert paired_sample_size(psi, psi).paired_n_raw > n
        return
    assert 0 < result.delta <= psi
    assert paired_sample_size(result.delta, psi).paired_n_raw == pytest.approx(n, rel=1e-9)


# ============================================================================================
# Invalid inputs
# ============================================================================================


@pytest.mark.parametrize(
    "kwargs, fragment",
    [
        (dict(delta=0.5, discordance=0.2), "discordance 0.2 is smaller than |delta| = 0.5"),
        (dict(delta=0.05, discordance=0.0), "discordance .* must be in \\(0, 1\\], got 0.0"),
        (dict(delta=0.05, discordance=1.2), "got 1.2"),
        (dict(delta=0.0, discordance=0.15), "delta must be a non-zero"),
        (dict(delta=1.0, discordance=1.0), "delta must be a non-zero .* got 1.0"),
        (dict(delta=0.05, discordance=0.15, alpha=0.0), "alpha must be strictly between"),
        (dict(delta=0.05, discordance=0.15, power=1.0), "power must be at least 0.5"),
        (dict(delta=0.05, discordance=0.15, power=0.3), "got 0.3"),
        (dict(delta=0.05, discordance=0.15, formula="exact"), "unknown formula 'exact'"),
        (dict(delta="0.05", discordance=0.15), "delta must be a number, got '0.05'"),
        (dict(delta=0.05, discordance=math.nan), "discordance must be a finite number"),
        (dict(delta=0.05, discordance=0.15, baseline_rate=1.0), "baseline_rate .* got 1.0"),
    ],
)
def test_paired_sample_size_rejects_invalid_inputs(kwargs, fragment):
    with pytest.raises(ValueError, match=fragment):
        paired_sample_size(**kwargs)


def test_psi_below_delta_squared_is_refused():
    # The formula's own condition psi >= delta^2 (here 0.04 < 0.0625) is implied by |delta| <= psi.
    with pytest.raises(ValueError, match="discordance 0.04"):
        paired_sample_size(0.25, 0.04)


@pytest.mark.parametrize(
    "args, fragment",
    [
        ((0.0, 0.05), "baseline_rate must be strictly between 0 and 1, got 0.0"),
        ((1.0, 0.05), "baseline_rate must be strictly between 0 and 1, got 1.0"),
        ((0.03, -0.05), "baseline_rate \\+ delta = .* must be strictly between 0 and 1"),
        ((0.98, 0.05), "baseline_rate \\+ delta = .* must be strictly between 0 and 1"),
        ((0.9, 0.0), "delta must be a non-zero"),
    ],
)
def test_independent_sample_size_rejects_rates_outside_the_unit_interval(args, fragment):
    with pytest.raises(ValueError, match=fragment):
        independent_sample_size(*args)


@pytest.mark.parametrize(
    "n, fragment", [(0, "got 0"), (-3, "got -3"), (2.5, "got 2.5"), (True, "got True")]
)
def test_detectable_delta_rejects_bad_n(n, fragment):
    with pytest.raises(ValueError, match=f"n must be a whole number of at least 1, {fragment}"):
        detectable_delta(n, 0.15)
