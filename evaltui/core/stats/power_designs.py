"""Items needed when items come in clusters, and when k systems are compared (``evaltui plan
--design clustered`` and ``--systems K``), over the pass/fail and graded plans.

- **clustered**: items that share a source document are not independent. Kish (1965, Survey
  Sampling, section 5.4) multiplies the independent-items count by the design effect
  Deff = 1 + (m - 1) ICC for clusters of m items, the variance ratio the report prints as
  ``design_effect`` ((clustered SE / naive SE)^2, clusters.py); the ICC is that of the per-item
  deltas. The base count is inflated before it is rounded. Fewer than ``MIN_CLUSTERS`` clusters
  get no verdict from the analysis, so the plan says so; and below ``FEW_CLUSTERS`` it warns,
  because the cluster-aware interval's t has (clusters - 1) df, not the base plan's (items - 1):
  with few clusters the plan is optimistic.
- **k systems** (R5/R6 of 004): all k(k-1)/2 pairs, or the k-1 candidates against one baseline,
  each planned at the Bonferroni level alpha / m, m the size of the family the analysis adjusts
  the pair over: the k-1 baseline pairs are one family, the (k-1)(k-2)/2 candidate pairs
  another (``analysis.run_set``), so m = k-1 for the baseline pairs and the larger of the two
  for all pairs. alpha / m is the first (strictest) step of Holm's procedure, the analysis's
  default correction: planning every pair at it is the conservative choice, and the power it
  promises each pair is a lower bound under Holm (delivered in simulation:
  ``tests/core/stats/test_calibration.py``). Planning at alpha over all k(k-1)/2 pairs, as
  before, over-sized the plan, and the analysis then adjusted the baseline pairs over every
  pair and delivered 68-76% for a promised 80%. The omnibus test
  (Cochran's Q, Friedman) is not sized: the pairwise readings are the ones a decision rests on.
  Every system runs the same items, so every pair stays paired and the items are one pair's.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from evaltui.core.stats import validate
from evaltui.core.stats.clusters import FEW_CLUSTERS, MIN_CLUSTERS
from evaltui.core.stats.power import PlanResult, _ceil
from evaltui.core.stats.power_graded import EpochPlan, GradedPlan, _small_n_warning

__all__ = [
    "PAIRS",
    "ClusteredPlan",
    "Plan",
    "SystemsPlan",
    "clustered_plan",
    "comparisons",
    "family_size",
    "systems_plan",
    "warnings_of",
]

PAIRS: tuple[str, ...] = ("all", "baseline")
"""k-system families: every pair (k(k-1)/2) or each candidate against the baseline (k-1)."""


# --------------------------------------------------------------------------------------------
# Clustered items
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ClusteredPlan:
    """Items (and clusters) needed when items come in clusters: the base plan's count for
    independent items (``base``, pass/fail or graded) times the design effect.

    ``design_effect`` is 1 + (cluster_size - 1) icc (Kish 1965) or the one given (the report's
    ``design_effect``); with both a design effect and a cluster size, ``icc`` is the one they
    imply. ``clusters`` = ceil(items_raw / cluster_size), None without a cluster size.
    ``model_runs`` = 2 x items. ``warnings`` name a plan the analysis would give no verdict
    (fewer than ``MIN_CLUSTERS`` clusters) or only a warned one (fewer than ``FEW_CLUSTERS``).
    """

    base: PlanResult | GradedPlan
    independent_items_raw: float
    independent_items: int
    cluster_size: int | None
    icc: float | None
    design_effect: float
    items_raw: float
    items: int
    clusters: int | None
    model_runs: int
    min_clusters: int = MIN_CLUSTERS
    warnings: tuple[str, ...] = ()


def _base_raw(base: PlanResult | GradedPlan) -> float:
    if isinstance(base, PlanResult):
        return base.paired_n_raw
    if isinstance(base, GradedPlan):
        return base.items_raw
    raise ValueError(f"base must be a pass/fail (PlanResult) or graded plan, got {base!r}")


def clustered_plan(
    base: PlanResult | GradedPlan,
    *,
    cluster_size: int | None = None,
    icc: float | None = None,
    design_effect: float | None = None,
) -> ClusteredPlan:
    """The ``base`` plan's items inflated by the design effect: give ``cluster_size`` and
    ``icc`` (Deff = 1 + (m - 1) icc), or ``design_effect`` directly (optionally with the mean
    ``cluster_size``, for the clusters it implies)."""
    raw = _base_raw(base)
    m = None if cluster_size is None else validate.integer("cluster_size", cluster_size, minimum=1)
    if (icc is None) == (design_effect is None):
        raise ValueError(
            "give the intra-cluster correlation (with the cluster size) or the design effect, "
            "not both or neither"
        )
    warnings: list[str] = []
    rho: float | None
    if icc is not None:
        if m is None:
            raise ValueError("an ICC needs the cluster size m: Deff = 1 + (m - 1) x ICC")
        rho = validate.number("icc", icc)
        if not 0.0 <= rho <= 1.0:
            raise ValueError(
                f"icc must be between 0 and 1, got {icc!r} (a negative ICC, items less alike "
                "within a cluster than across, would plan fewer items: plan with 0)"
            )
        deff = 1.0 + (m - 1) * rho
    else:
        deff = validate.positive("design_effect", design_effect)
        rho = None if m is None or m == 1 else (deff - 1.0) / (m - 1)
        if deff < 1.0:
            warnings.append(
                f"a design effect of {deff:g} (below 1) plans fewer items than independent "
                "ones would need; a pilot's estimate below 1 is usually noise: plan with 1"
            )
    items_raw = raw * deff
    items = _ceil(items_raw)
    clusters = None if m is None else max(1, _ceil(items_raw / m))
    if clusters is not None and clusters < MIN_CLUSTERS:
        warnings.append(
            f"{clusters} clusters is fewer than {MIN_CLUSTERS}: the analysis gives no verdict "
            f"with so few; run at least {MIN_CLUSTERS} clusters (smaller ones, or more items)"
        )
    elif clusters is not None and clusters < FEW_CLUSTERS:
        warnings.append(
            f"{clusters} clusters is fewer than {FEW_CLUSTERS}: the report warns that cluster "
            "intervals run narrow with so few"
        )
    warnings.extend(_small_n_warning(items))
    return ClusteredPlan(
        base=base,
        independent_items_raw=raw,
        independent_items=_ceil(raw),
        cluster_size=m,
        icc=rho,
        design_effect=deff,
        items_raw=items_raw,
        items=items,
        clusters=clusters,
        model_runs=2 * items,
        warnings=tuple(warnings),
    )


# --------------------------------------------------------------------------------------------
# k systems
# --------------------------------------------------------------------------------------------

Plan = PlanResult | GradedPlan | EpochPlan | ClusteredPlan
"""Any two-system plan: what one pair of a k-system comparison needs."""


def _items_and_epochs(plan: Plan) -> tuple[int, int]:
    if isinstance(plan, PlanResult):
        return plan.paired_n, 1
    if isinstance(plan, EpochPlan):
        return plan.items, plan.epochs
    return plan.items, 1


def warnings_of(plan: Plan | SystemsPlan) -> tuple[str, ...]:
    """What the analysis would say about a run of this plan's size before any number: fewer
    than SMALL_N items (no verdict), too few clusters. PlanResult predates the warnings field,
    so its one warning is derived here."""
    if isinstance(plan, PlanResult):
        return _small_n_warning(plan.paired_n)
    return plan.warnings


@dataclass(frozen=True)
class SystemsPlan:
    """A k-system comparison: every pair planned at the Bonferroni level ``pair_alpha`` =
    alpha / ``family_size`` (Holm's first step: conservative, see the module docstring).

    ``pair`` is one pair's plan at ``pair_alpha``, ``uncorrected`` the same pair at ``alpha``
    (what the correction costs). Every system runs the same ``items`` (so every pair is
    paired): ``model_runs`` = items x systems (x epochs). ``independent_model_runs`` prices k
    independent arms (k x the per-arm count at ``pair_alpha``) when the pair plan has them.
    """

    systems: int
    pairs: str
    comparisons: int
    alpha: float
    pair_alpha: float
    correction: str
    pair: Plan
    uncorrected: Plan
    items: int
    epochs: int
    model_runs: int
    uncorrected_model_runs: int
    independent_model_runs: int | None = None
    warnings: tuple[str, ...] = ()

    @property
    def family(self) -> int:
        """The pairs in the largest family a planned pair is adjusted over (``family_size``)."""
        return family_size(self.systems, self.pairs)


def comparisons(systems: int, pairs: str = "all") -> int:
    """How many pairwise readings a k-system comparison makes: k(k-1)/2, or k-1 against one
    baseline."""
    k = validate.integer("systems", systems, minimum=2)
    validate.one_of("pairs", pairs, PAIRS)
    return k * (k - 1) // 2 if pairs == "all" else k - 1


def family_size(systems: int, pairs: str = "all") -> int:
    """The largest family a pair's p is adjusted over, as the run-set analysis adjusts them:
    the k-1 baseline pairs form one family and the (k-1)(k-2)/2 candidate pairs another, so
    a pair is planned at alpha over the larger of the families it may belong to."""
    k = validate.integer("systems", systems, minimum=2)
    validate.one_of("pairs", pairs, PAIRS)
    return k - 1 if pairs == "baseline" else max(k - 1, (k - 1) * (k - 2) // 2)


def systems_plan(
    systems: int,
    plan_at: Callable[[float], Plan],
    *,
    pairs: str = "all",
    alpha: float = 0.05,
) -> SystemsPlan:
    """Plan a k-system comparison: ``plan_at(level)`` plans one pair at a significance level
    (e.g. ``lambda a: graded_sample_size(0.05, 0.2, alpha=a)``); it is called at alpha / m and
    at alpha."""
    m = comparisons(systems, pairs)
    alpha = validate.probability("alpha", alpha)
    pair_alpha = alpha / family_size(systems, pairs)
    pair = plan_at(pair_alpha)
    uncorrected = plan_at(alpha)
    items, epochs = _items_and_epochs(pair)
    plain_items, plain_epochs = _items_and_epochs(uncorrected)
    independent = None
    if isinstance(pair, PlanResult) and pair.independent_n_per_arm is not None:
        independent = systems * pair.independent_n_per_arm
    return SystemsPlan(
        systems=systems,
        pairs=pairs,
        comparisons=m,
        alpha=alpha,
        pair_alpha=pair_alpha,
        correction="bonferroni (Holm's first step)",
        pair=pair,
        uncorrected=uncorrected,
        items=items,
        epochs=epochs,
        model_runs=items * epochs * systems,
        uncorrected_model_runs=plain_items * plain_epochs * systems,
        independent_model_runs=independent,
        warnings=warnings_of(pair),
    )
