"""Planning the graded, repeated-epoch, clustered and k-system designs.

References:
- R 4.2.2 Patched (2022-11-10 r83330), ``stats::power.t.test(type = "paired", tol = 1e-12)``:
  the values below, produced by tests/data/reference/power_designs_r.R (each test names its
  call). R's default tol (.Machine$double.eps^0.25) stops uniroot early: it prints 33.36720409
  for delta 0.5, sd 1, power 0.8, where the root is 33.3672039788.
- Kish (1965), Survey Sampling, section 5.4: the design effect 1 + (m - 1) ICC.
- Reading list 002 ("Is V2 actually better?"): 6 points at 15% disagreement; its 200 questions
  are the demo pair in sample_runs, whose report prints design_effect 1.339 over 31 clusters.
- Reading list 004 ("Paired vs Independent"): 469 paired items and 686 per arm at a 90% baseline.
scipy cross-checks (scipy.stats.nct, t) run live.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import special

from evaltui.core.stats.clusters import FEW_CLUSTERS, MIN_CLUSTERS
from evaltui.core.stats.epochs import epoch_summary
from evaltui.core.stats.graded import SMALL_N, paired_bootstrap
from evaltui.core.stats.multiplicity import adjust_pvalues
from evaltui.core.stats.power import PlanResult, paired_sample_size
from evaltui.core.stats.power_designs import (
    ClusteredPlan,
    SystemsPlan,
    clustered_plan,
    comparisons,
    systems_plan,
    warnings_of,
)
from evaltui.core.stats.power_graded import (
    EpochPlan,
    GradedPlan,
    epochs_plan,
    graded_sample_size,
    sd_between_from_pilot,
    sd_from_t_interval,
)

Z = 1.959963984540054 + 0.8416212335729143  # z_{0.975} + z_{0.80}

# ============================================================================================
# Graded: the paired t test's count against R's power.t.test
# ============================================================================================

# (delta, sd, power, alpha, R's n): power.t.test(delta=, sd=, power=, sig.level=,
# type = "paired", tol = 1e-12)$n, R 4.2.2.
R_PAIRED_T = [
    (0.5, 1.0, 0.8, 0.05, 33.3672039788038),
    (0.05, 0.2, 0.8, 0.05, 127.516137624264),
    (0.1, 1.0, 0.8, 0.05, 786.81086270566),
    (1.0, 1.0, 0.8, 0.05, 9.93786356625807),
    (2.0, 1.0, 0.8, 0.05, 4.2207194036814),
    (3.0, 1.0, 0.8, 0.05, 3.1440247080437),
    (0.3, 1.0, 0.9, 0.01, 168.657443374599),
    (0.01, 1.0, 0.8, 0.05, 78490.7180940022),
]


@pytest.mark.parametrize(("delta", "sd", "power", "alpha", "r_n"), R_PAIRED_T)
def test_graded_items_match_r_power_t_test_paired(delta, sd, power, alpha, r_n):
    plan = graded_sample_size(delta, sd, alpha=alpha, power=power)
    assert isinstance(plan, GradedPlan)
    assert plan.items_raw == pytest.approx(r_n, rel=1e-9)
    assert plan.items == math.ceil(r_n)
    assert plan.model_runs == 2 * plan.items


def test_graded_half_sd_effect_needs_34_items_as_r_and_32_by_the_normal_formula():
    # R: power.t.test(delta = 0.5, sd = 1, power = 0.8, type = "paired") -> n = 33.36720
    plan = graded_sample_size(0.5, 1.0)
    assert plan.items == 34
    # The normal count by hand: ((1.959964 + 0.841621) x 1 / 0.5)^2 = 31.3955.
    assert plan.normal_items_raw == pytest.approx((Z / 0.5) ** 2, rel=1e-12)
    assert plan.normal_items_raw == pytest.approx(31.3955, abs=1e-4)
    assert plan.normal_items == 32
    assert plan.z_alpha == pytest.approx(1.959964, abs=1e-6)


def test_graded_count_reaches_the_power_by_scipy_noncentral_t():
    from scipy import stats

    plan = graded_sample_size(0.05, 0.2)
    n = plan.items_raw
    critical = stats.t.ppf(0.975, n - 1)
    achieved = stats.nct.sf(critical, n - 1, math.sqrt(n) * 0.05 / 0.2)
    assert achieved == pytest.approx(0.80, abs=1e-9)
    below = stats.nct.sf(stats.t.ppf(0.975, n - 2), n - 2, math.sqrt(n - 1) * 0.25)
    assert below < 0.80  # one item fewer falls short


def test_graded_t_count_exceeds_the_normal_one_and_converges_to_it():
    small, large = graded_sample_size(0.5, 1.0), graded_sample_size(0.01, 1.0)
    assert small.items_raw > small.normal_items_raw + 1.5
    assert large.items_raw - large.normal_items_raw == pytest.approx(1.9, abs=0.2)
    assert large.items_raw / large.normal_items_raw == pytest.approx(1.0, abs=1e-4)


def test_graded_count_depends_on_the_effect_in_sd_units_and_not_its_sign():
    assert graded_sample_size(0.05, 0.2).items_raw == pytest.approx(
        graded_sample_size(-0.5, 2.0).items_raw, rel=1e-12
    )


def test_graded_huge_effect_needs_the_two_items_a_paired_t_test_can_run():
    # R: power.t.test(delta = 10, sd = 1, power = 0.8, type = "paired") -> n = 2.059; at
    # delta 20 R returns 1.83, which no t test can run on: we stop at 2.
    assert graded_sample_size(10.0, 1.0).items == 3
    plan = graded_sample_size(20.0, 1.0)
    assert plan.items_raw == 2.0 and plan.items == 2


def test_graded_plan_below_30_items_is_warned_no_verdict():
    plan = graded_sample_size(1.0, 1.0)
    assert plan.items == 10
    assert len(plan.warnings) == 1 and f"fewer than {SMALL_N}" in plan.warnings[0]
    assert graded_sample_size(0.05, 0.2).warnings == ()


@pytest.mark.parametrize(
    ("kwargs", "fragment"),
    [
        (dict(delta=0.0, sd=1.0), "delta must be a non-zero"),
        (dict(delta=0.1, sd=0.0), "sd must be a positive number, got 0.0"),
        (dict(delta=0.1, sd=-1.0), "sd must be a positive number"),
        (dict(delta=math.inf, sd=1.0), "delta must be a finite number"),
        (dict(delta=0.1, sd=1.0, alpha=1.0), "alpha must be strictly between 0 and 1"),
        (dict(delta=0.1, sd=1.0, power=0.4), "power must be at least 0.5"),
        (dict(delta="0.1", sd=1.0), "delta must be a number"),
    ],
)
def test_graded_sample_size_rejects_invalid_inputs(kwargs, fragment):
    with pytest.raises(ValueError, match=fragment):
        graded_sample_size(**kwargs)


# ============================================================================================
# Repeated epochs
# ============================================================================================

# power.t.test(delta = 0.1, sd = sqrt(0.2^2 + 2 * 0.3^2 / K), power = 0.8, type = "paired")$n
R_EPOCHS = [(1, 174.60581926392), (3, 80.4306682264429), (10, 47.4800494435972)]
R_FLOOR = 33.3672039788038  # power.t.test(delta = 0.1, sd = 0.2, ...)$n: the K -> inf limit


@pytest.mark.parametrize(("k", "r_n"), R_EPOCHS)
def test_epochs_items_match_r_with_the_per_item_delta_sd(k, r_n):
    plan = epochs_plan(0.1, 0.2, 0.3, epochs=k)
    assert isinstance(plan, EpochPlan)
    assert plan.solved == "items" and plan.epochs == k
    assert plan.sd_delta == pytest.approx(math.sqrt(0.04 + 0.18 / k), rel=1e-12)
    assert plan.items_raw == pytest.approx(r_n, rel=1e-9)
    assert plan.items == math.ceil(r_n)
    assert plan.model_runs == 2 * plan.items * k
    assert plan.items_floor_raw == pytest.approx(R_FLOOR, rel=1e-9)


def test_epochs_three_per_item_by_hand():
    # var of one item's delta = 0.2^2 + 2 x 0.3^2 / 3 = 0.04 + 0.06 = 0.10; normal count
    # (z_a + z_b)^2 x 0.10 / 0.1^2 = 78.49 -> 79; epoch noise is 0.06 / 0.10 = 60% of it.
    plan = epochs_plan(0.1, 0.2, 0.3, epochs=3)
    assert plan.normal_items_raw == pytest.approx(Z**2 * 0.10 / 0.01, rel=1e-12)
    assert plan.normal_items == 79
    assert plan.epoch_share == pytest.approx(0.6, rel=1e-12)
    assert plan.items == 81  # R: 80.43


def test_epochs_to_infinity_give_the_between_only_count():
    floor = graded_sample_size(0.1, 0.2)
    assert epochs_plan(0.1, 0.2, 0.3, epochs=10**9).items == floor.items == 34
    assert epochs_plan(0.1, 0.2, 0.3, epochs=10**9).epoch_share < 1e-6
    assert epochs_plan(0.1, 0.2, 0.3, epochs=1).items_floor == floor.items


def test_no_epoch_noise_plans_one_epoch_and_the_graded_count():
    plan = epochs_plan(0.1, 0.2, 0.0, items=200)
    assert plan.epochs == 1 and plan.epochs_saturation == 1 and plan.epoch_share == 0.0
    same = epochs_plan(0.1, 0.2, 0.0, epochs=5)
    assert same.items == graded_sample_size(0.1, 0.2).items
    assert same.sd_delta == 0.2


def test_one_epoch_is_the_graded_plan_with_the_observed_delta_sd():
    one = epochs_plan(0.1, 0.2, 0.3, epochs=1)
    assert one.items_raw == pytest.approx(
        graded_sample_size(0.1, math.sqrt(0.04 + 0.18)).items_raw, rel=1e-12
    )


# power.t.test(n = N, delta = 0.1, power = 0.8, sd = NULL, type = "paired")$sd, then
# K = ceiling(2 * 0.3^2 / (sd^2 - 0.2^2)) (R script, part 4)
R_EPOCHS_FOR_ITEMS = [
    (100, 0.35346557996923, 3),
    (60, 0.271957314597593, 6),
    (40, 0.220139464523401, 22),
]


@pytest.mark.parametrize(("n", "r_sd_max", "r_k"), R_EPOCHS_FOR_ITEMS)
def test_epochs_for_a_fixed_item_count_match_r(n, r_sd_max, r_k):
    plan = epochs_plan(0.1, 0.2, 0.3, items=n)
    assert plan.solved == "epochs" and plan.items == n
    assert plan.sd_delta_max == pytest.approx(r_sd_max, rel=1e-9)
    assert plan.epochs == r_k
    assert plan.items_raw <= n  # the solved epochs reach the power with these items ...
    assert epochs_plan(0.1, 0.2, 0.3, epochs=r_k - 1).items > n  # ... and one fewer does not
    assert plan.model_runs == 2 * n * r_k


def test_too_few_items_for_any_number_of_epochs_is_refused():
    # 30 items detect 0.1 only if the per-item delta SD is below ~0.19 < sd_between 0.2.
    with pytest.raises(ValueError, match=r"30 items cannot .* alone needs 34 items"):
        epochs_plan(0.1, 0.2, 0.3, items=30)


def test_more_epochs_stop_helping_where_one_saves_less_than_one_item():
    # c = ((z_a + z_b) / 0.1)^2 = 784.9; 2 c 0.3^2 = 141.3; 11 x 12 = 132 <= 141.3 < 12 x 13.
    plan = epochs_plan(0.1, 0.2, 0.3, epochs=3)
    assert plan.epochs_saturation == 12

    def normal(k: int) -> float:
        return epochs_plan(0.1, 0.2, 0.3, epochs=k).normal_items_raw

    assert normal(11) - normal(12) >= 1.0 > normal(12) - normal(13)


def test_per_model_run_another_epoch_never_beats_a_new_item():
    runs = [epochs_plan(0.1, 0.2, 0.3, epochs=k).model_runs for k in (1, 2, 3, 5, 10)]
    assert runs == sorted(runs)


def test_no_between_item_spread_floors_at_two_items():
    plan = epochs_plan(0.1, 0.0, 0.3, epochs=4)
    assert plan.items_floor == 2 and plan.epoch_share == 1.0


@pytest.mark.parametrize(
    ("kwargs", "fragment"),
    [
        (dict(epochs=3, items=100), "not both or neither"),
        (dict(), "not both or neither"),
        (dict(epochs=0), "epochs must be a whole number of at least 1, got 0"),
        (dict(epochs=2.5), "epochs must be a whole number"),
        (dict(items=1), "items must be a whole number of at least 2"),
    ],
)
def test_epochs_plan_rejects_invalid_counts(kwargs, fragment):
    with pytest.raises(ValueError, match=fragment):
        epochs_plan(0.1, 0.2, 0.3, **kwargs)


def test_epochs_plan_rejects_invalid_sds():
    with pytest.raises(ValueError, match="sd_within must be zero or positive"):
        epochs_plan(0.1, 0.2, -0.3, epochs=2)
    with pytest.raises(ValueError, match="both 0"):
        epochs_plan(0.1, 0.0, 0.0, epochs=2)


# ============================================================================================
# From a pilot's report to the inputs
# ============================================================================================


def test_sd_from_the_reports_t_interval_is_the_deltas_sd():
    deltas = np.random.default_rng(3).normal(0.02, 0.15, size=120)
    g = paired_bootstrap(deltas, resamples=200)
    assert sd_from_t_interval(g.t_ci, g.n, g.confidence) == pytest.approx(
        float(np.std(deltas, ddof=1)), rel=1e-9
    )


def test_sd_between_from_a_pilot_with_epochs_recovers_the_true_delta_sd():
    """The report's epoch summary (per-arm within_item_variance) and the observed delta SD."""
    rng = np.random.default_rng(11)
    items, k, sd_true_delta, sd_within = 4000, 4, 0.2, 0.3
    level = rng.normal(0.5, 0.3, items)  # item difficulty: cancels in the pairing
    delta = rng.normal(0.0, sd_true_delta, items)
    codes = np.repeat(np.arange(items), k)
    base = np.repeat(level, k) + rng.normal(0, sd_within, items * k)
    cand = np.repeat(level + delta, k) + rng.normal(0, sd_within, items * k)
    e_base, e_cand = epoch_summary(codes, base), epoch_summary(codes, cand)
    observed = cand.reshape(items, k).mean(1) - base.reshape(items, k).mean(1)
    sd_b = sd_between_from_pilot(
        float(np.std(observed, ddof=1)),
        (e_base.within_item_variance, e_cand.within_item_variance),
        (e_base.epochs_mean, e_cand.epochs_mean),
    )
    assert sd_b == pytest.approx(sd_true_delta, abs=0.01)
    assert math.sqrt(e_base.within_item_variance) == pytest.approx(sd_within, abs=0.005)
    # The per-arm between_item_variance is the spread of item difficulty, not of the deltas.
    assert math.sqrt(e_base.between_item_variance) == pytest.approx(0.3, abs=0.01)


def test_sd_between_from_pilot_by_hand_and_floored_at_zero():
    # 0.3^2 - 0.09/3 - 0.09/3 = 0.03
    assert sd_between_from_pilot(0.3, (0.09, 0.09), (3, 3)) == pytest.approx(math.sqrt(0.03))
    assert sd_between_from_pilot(0.1, (0.09, 0.09), (3, 3)) == 0.0


# ============================================================================================
# Clustered
# ============================================================================================


def test_clustered_items_are_the_independent_count_times_kishs_design_effect():
    # 002's 6 points at 15% disagreement: 324.67 paired items; clusters of 6 with ICC 0.1 have
    # Deff = 1 + 5 x 0.1 = 1.5 (Kish 1965): 487.0 -> 488 items in ceil(487.0 / 6) = 82 clusters.
    base = paired_sample_size(0.06, 0.15)
    plan = clustered_plan(base, cluster_size=6, icc=0.1)
    assert isinstance(plan, ClusteredPlan)
    assert plan.design_effect == pytest.approx(1.5)
    assert plan.independent_items == 325
    assert plan.items_raw == pytest.approx(base.paired_n_raw * 1.5, rel=1e-12)
    assert plan.items_raw == pytest.approx(487.003, abs=1e-3)
    assert (plan.items, plan.clusters, plan.model_runs) == (488, 82, 976)
    assert plan.warnings == ()


def test_clustered_with_the_design_effect_the_demo_report_prints():
    # The demo pair (002's 200 questions) reports design_effect 1.3393 over 31 clusters of
    # about 6.45 items; planning with it and clusters of 6 implies an ICC of 0.3393 / 5.
    base = paired_sample_size(0.06, 0.15)
    plan = clustered_plan(base, design_effect=1.3393, cluster_size=6)
    assert plan.icc == pytest.approx(0.06786, abs=1e-5)
    assert plan.items == math.ceil(base.paired_n_raw * 1.3393) == 435
    assert plan.clusters == 73
    without_size = clustered_plan(base, design_effect=1.3393)
    assert without_size.clusters is None and without_size.icc is None


def test_clustered_graded_base_and_too_few_clusters_get_no_verdict_warning():
    plan = clustered_plan(graded_sample_size(0.5, 1.0), cluster_size=10, icc=0.1)
    assert plan.items_raw == pytest.approx(33.3672039788 * 1.9, rel=1e-9)
    assert (plan.items, plan.clusters) == (64, 7)
    assert plan.clusters < MIN_CLUSTERS
    no_verdict = f"fewer than {MIN_CLUSTERS}: the analysis gives no verdict"
    assert any(no_verdict in w for w in plan.warnings)


def test_clustered_between_10_and_20_clusters_is_warned_narrow():
    plan = clustered_plan(graded_sample_size(0.3, 1.0), cluster_size=10, icc=0.05)
    assert MIN_CLUSTERS <= plan.clusters < FEW_CLUSTERS
    assert any(f"fewer than {FEW_CLUSTERS}" in w for w in plan.warnings)


def test_no_clustering_changes_nothing():
    base = paired_sample_size(-0.05, 0.15, baseline_rate=0.9)
    for plan in (
        clustered_plan(base, cluster_size=1, icc=0.7),
        clustered_plan(base, cluster_size=8, icc=0.0),
        clustered_plan(base, design_effect=1.0),
    ):
        assert plan.design_effect == 1.0 and plan.items == base.paired_n == 469


def test_a_design_effect_below_one_is_planned_but_warned():
    plan = clustered_plan(paired_sample_size(0.06, 0.15), design_effect=0.8)
    assert plan.items == math.ceil(324.66876412741664 * 0.8)
    assert "below 1" in plan.warnings[0]


@pytest.mark.parametrize(
    ("kwargs", "fragment"),
    [
        (dict(cluster_size=6), "not both or neither"),
        (dict(cluster_size=6, icc=0.1, design_effect=1.5), "not both or neither"),
        (dict(icc=0.1), "an ICC needs the cluster size"),
        (dict(cluster_size=6, icc=1.5), "icc must be between 0 and 1, got 1.5"),
        (dict(cluster_size=6, icc=-0.1), "negative ICC"),
        (dict(cluster_size=0, icc=0.1), "cluster_size must be a whole number of at least 1"),
        (dict(design_effect=0.0), "design_effect must be a positive number"),
        (dict(design_effect=math.nan), "design_effect must be a finite number"),
    ],
)
def test_clustered_plan_rejects_invalid_inputs(kwargs, fragment):
    with pytest.raises(ValueError, match=fragment):
        clustered_plan(paired_sample_size(0.06, 0.15), **kwargs)


# ============================================================================================
# k systems
# ============================================================================================


def test_comparisons_all_pairs_or_against_the_baseline():
    assert [comparisons(k) for k in (2, 3, 4, 5)] == [1, 3, 6, 10]
    assert [comparisons(k, "baseline") for k in (2, 3, 4, 5)] == [1, 2, 3, 4]
    with pytest.raises(ValueError, match="systems must be a whole number of at least 2"):
        comparisons(1)
    with pytest.raises(ValueError, match="unknown pairs 'some'"):
        comparisons(3, "some")


@pytest.mark.parametrize(
    ("systems", "pairs", "m", "family", "r_n"),
    [
        # power.t.test(delta = 0.05, sd = 0.2, power = 0.8, sig.level = 0.05 / family,
        # "paired")$n. The family is what the run-set analysis adjusts a pair over: the K-1
        # baseline pairs, or the (K-1)(K-2)/2 candidate pairs when that family is larger.
        (4, "baseline", 3, 3, 170.381902627107),
        (4, "all", 6, 3, 170.381902627107),
        (5, "all", 10, 6, 197.241033287079),
    ],
)
def test_graded_k_systems_plan_each_pair_at_the_level_of_its_family_as_r(
    systems, pairs, m, family, r_n
):
    plan = systems_plan(systems, lambda a: graded_sample_size(0.05, 0.2, alpha=a), pairs=pairs)
    assert isinstance(plan, SystemsPlan)
    assert plan.comparisons == m and plan.family == family
    assert plan.pair_alpha == pytest.approx(0.05 / family, rel=1e-15)
    assert plan.pair.items_raw == pytest.approx(r_n, rel=1e-9)
    assert plan.items == math.ceil(r_n)
    assert plan.model_runs == plan.items * systems
    assert plan.uncorrected.items == 128 and plan.uncorrected_model_runs == 128 * systems


def test_pass_fail_k_systems_by_hand_with_the_independent_arms_priced():
    # 4 systems against the baseline: m = 3, z_{1 - 0.05/6} = 2.39398;
    # n = (2.39398 sqrt(0.15) + 0.84162 sqrt(0.15 - 0.0025))^2 / 0.0025 = 625.4 -> 626.
    plan = systems_plan(
        4,
        lambda a: paired_sample_size(-0.05, 0.15, alpha=a, baseline_rate=0.9),
        pairs="baseline",
    )
    za = float(special.ndtri(1 - 0.05 / 6))
    assert za == pytest.approx(2.39398, abs=1e-5)
    by_hand = (za * math.sqrt(0.15) + 0.8416212335729143 * math.sqrt(0.1475)) ** 2 / 0.0025
    assert isinstance(plan.pair, PlanResult)
    assert plan.pair.paired_n_raw == pytest.approx(by_hand, rel=1e-12)
    assert (plan.items, plan.model_runs) == (626, 2504)
    assert plan.uncorrected.paired_n == 469  # 004's pair, uncorrected
    assert plan.independent_model_runs == 4 * plan.pair.independent_n_per_arm


def test_two_systems_are_the_plain_plan():
    plan = systems_plan(2, lambda a: graded_sample_size(0.05, 0.2, alpha=a))
    assert plan.comparisons == 1 and plan.pair == plan.uncorrected == graded_sample_size(0.05, 0.2)
    assert plan.model_runs == 2 * 128


def test_the_pair_level_is_holms_first_step_so_bonferroni_planning_is_conservative():
    # A smallest p-value exactly at alpha / m is adjusted to alpha by Holm as by Bonferroni; the
    # later Holm steps compare against larger levels, so each pair's power is at least planned.
    for m in (3, 6):
        p = [0.05 / m] + [0.5] * (m - 1)
        assert adjust_pvalues(p, "holm")[0] == pytest.approx(0.05)
        assert adjust_pvalues(p, "bonferroni")[0] == pytest.approx(0.05)


def test_k_systems_with_epochs_count_every_epoch_of_every_system():
    plan = systems_plan(3, lambda a: epochs_plan(0.1, 0.2, 0.3, epochs=3, alpha=a))
    assert plan.epochs == 3
    assert plan.model_runs == plan.items * 3 * 3


def test_k_systems_carry_the_pairs_warnings():
    def clustered_at(level: float) -> ClusteredPlan:
        return clustered_plan(graded_sample_size(0.5, 1.0, alpha=level), cluster_size=10, icc=0.1)

    plan = systems_plan(3, clustered_at)
    assert plan.warnings == plan.pair.warnings and plan.warnings
    (small,) = warnings_of(paired_sample_size(0.5, 0.6))  # 17 pass/fail items
    assert small.startswith("17 items is fewer than 30")
