"""What a pair's analysis holds (`Analysis`): the comparison, the item lists, the verdict and
the interval it rests on. Apart from `pair.py`, which builds it, so the modules that read it
(the headline, the family, the reports) can name its type without importing its builder.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from evaltui.core.compare.direction import Direction, metric_direction
from evaltui.core.compare.options import AnalysisOptions
from evaltui.core.compare.pairing import PairedRuns
from evaltui.core.read.runs import CLUSTER, is_verdict_metric
from evaltui.core.stats.binary import BinaryComparison
from evaltui.core.stats.clusters import (
    ClusteredComparison,
)
from evaltui.core.stats.epochs import EpochSummary
from evaltui.core.stats.graded import GradedComparison
from evaltui.core.stats.mean_check import MeanCheck

if TYPE_CHECKING:  # breakdowns filled in after the analysis (pipeline.add_breakdowns)
    from evaltui.core.analysis.metric_row import MetricRow
    from evaltui.core.analysis.slices import SliceResult
    from evaltui.core.compare.spec import CompareSpec
    from evaltui.core.policy import Policy
    from evaltui.core.stats.categorical import CategoricalComparison


CI_METHOD_LABELS = {
    "newcombe": "Newcombe",
    "tango": "Tango",
    "wald": "Wald",
    "wald-cc": "Wald cc",
    "agresti-min": "Agresti-Min",
    "bonett-price": "Bonett-Price",
}


CLUSTER_METHOD_LABELS = {
    "wild-cluster-t": "wild cluster bootstrap-t",
    "cluster-t": "cluster-robust t",
    "exact": "exact (all deltas equal)",
}


@dataclass(frozen=True, eq=False)
class Analysis:
    """Everything shown about a pair: the comparison, item lists, headline, flags in words."""

    paired: PairedRuns
    options: AnalysisOptions
    metric: str  # the metric compared: "passed" or a score column
    binary: BinaryComparison | None  # single pass/fail per item
    graded: GradedComparison | None  # scores, or pass rates over epochs
    epochs: dict[str, EpochSummary] | None  # per arm, when any item ran more than once
    clusters: ClusteredComparison | None  # when the items carry a cluster column
    deltas: np.ndarray  # per item: candidate - baseline, in `paired.items` order
    regressions: tuple[str, ...]  # item ids
    improvements: tuple[str, ...]
    headline: str
    warnings: tuple[str, ...]  # flags and pairing problems in plain words
    # Filled in by compare.add_breakdowns: every metric (family table), every slice, the policy.
    metrics: tuple[MetricRow, ...] = ()
    slices: tuple[SliceResult, ...] = ()
    policy: Policy | None = None
    spec: CompareSpec | None = None  # the spec this analysis was made from (compare sets it)
    clusters_done: bool = False  # False while the app defers the cluster bootstrap
    # True while the app defers the metric family and the slices (`complete_analysis` adds
    # them): the family's adjusted p may change the verdict, so nothing is final before.
    breakdowns_pending: bool = False
    # The outcome categories' comparison (categories.outcome_comparison), set by
    # compare.breakdowns when both runs carry `outcome` with 3+ levels; None otherwise.
    categorical: CategoricalComparison | None = None
    # Graded: does a test of the mean hold its level on these deltas (stats.mean_check)? When
    # it does not (strongly skewed deltas for the sample size), there is no verdict.
    mean_check: MeanCheck | None = None
    # How many items each list of unchanged ones holds, (name, count) in list order: counted
    # once with the lists of changed items (`analysis.concordant`), so a list title counts none.
    concordant: tuple[tuple[str, int], ...] = ()

    @property
    def clusters_pending(self) -> bool:
        """A cluster column is there but its bootstrap has not run yet."""
        return not self.clusters_done and CLUSTER in self.paired.items.columns

    @property
    def kind(self) -> str:
        return "binary" if self.binary is not None else "graded"

    @property
    def graded_comparison(self) -> GradedComparison:
        """`graded`, for an analysis known not to be binary: every analysis carries exactly one
        of `binary` and `graded`, so this names the invariant once instead of at each use."""
        if self.graded is None:
            raise TypeError("a binary analysis has no graded comparison")
        return self.graded

    @property
    def flags(self) -> tuple[str, ...]:
        own = self.binary.flags if self.binary is not None else self.graded_comparison.flags
        mine = self.clusters.flags if self.clusters is not None else ()
        extra = tuple(f for f in ("few_clusters", "too_few_clusters") if f in mine)
        skewed = ("skewed_deltas",) if self.too_skewed else ()
        return own + extra + skewed + (("epochs_differ",) if self.epochs_differ else ())

    @property
    def too_skewed(self) -> bool:
        """Graded, item-level: the deltas are too skewed for any test of the mean at this n
        (Cochran's rule, `stats.mean_check`), so there is no verdict. Clustered items are
        judged by the cluster-aware interval, on cluster sums, and are not held to it."""
        g = self.graded
        return (
            g is not None
            and self.clusters is None
            and self.mean_check is not None
            and not self.mean_check.holds
            and "small_n" not in g.flags
            and "all_zero" not in g.flags
        )

    @property
    def epochs_differ(self) -> bool:
        """The arms ran items a different number of times: their per-item means carry
        different amounts of epoch noise."""
        if not self.epochs:
            return False
        base, cand = self.epochs["baseline"], self.epochs["candidate"]
        return (base.epochs_min, base.epochs_max) != (cand.epochs_min, cand.epochs_max)

    @property
    def direction(self) -> Direction:
        """Which way is better for the compared metric, and how that is known (the user's
        `--direction`, the log's declaration, the metric's name): `compare.direction`."""
        runs = (self.paired.baseline, self.paired.candidate)
        return metric_direction(
            self.metric,
            [r.metadata for r in runs],
            self.options.direction,
            self.options.policy_directions,
        )

    @property
    def lower_is_better(self) -> bool:
        """The compared score is a loss (mae, a distance): see `direction`."""
        return not is_verdict_metric(self.metric) and self.direction.lower_is_better

    @property
    def item_level_verdict(self) -> str:
        """The verdict the item-level interval gives, as if the items were independent."""
        if self.binary is not None:
            return self.binary.verdict
        g = self.graded_comparison
        if "small_n" in g.flags or "all_zero" in g.flags or self.too_skewed:
            return "insufficient_data"
        if not self.direction.known:  # no directional verdict until the user says
            return "insufficient_data"
        return _verdict_of(g.t_ci, self.lower_is_better)

    @property
    def clustered(self) -> bool:
        """The verdict rests on the cluster-aware interval (the items carry clusters)."""
        return self.clusters is not None

    @property
    def verdict(self) -> str:
        """improved / regressed / no_significant_difference / insufficient_data.

        With clusters, the cluster-aware interval decides (`decision_ci`); with too few
        clusters for any cluster interval to be trusted there is no verdict.
        """
        verdict = self.own_verdict
        row = self.family_row
        if verdict in ("improved", "regressed") and row is not None:
            return row.verdict  # "no_significant_difference" when the adjusted p is too big
        return verdict

    @property
    def own_verdict(self) -> str:
        """The verdict of this metric's interval alone, before any multiplicity adjustment."""
        own = self.item_level_verdict
        if own == "insufficient_data" or self.clusters is None:  # not `clustered`
            return own
        if "too_few_clusters" in self.clusters.flags:
            return "insufficient_data"
        return _verdict_of(self.clusters.verdict_ci, self.lower_is_better)

    @property
    def family_row(self) -> MetricRow | None:
        """This metric's row in the family table, when the family has other members (other
        metrics of the pair, or with k runs the other pairs: `MetricRow.family_size`)."""
        family = [r for r in self.metrics if r.in_family]
        row = next((r for r in family if r.metric == self.metric), None)
        if row is None or max(len(family), row.family_size) < 2:
            return None
        return row

    @property
    def decision_ci(self) -> tuple[float, float]:
        """The interval the verdict and the effect gates rest on, in the metric's units."""
        if self.clusters is not None:  # clustered
            return self.clusters.verdict_ci
        return _headline_ci(self)

    @property
    def decision_ci_label(self) -> str:
        """What `decision_ci` is, for a reader: "Tango 95%", "wild cluster bootstrap-t 95%"."""
        level = f"{self.options.confidence * 100:g}%"
        if self.clusters is not None:  # clustered
            method = CLUSTER_METHOD_LABELS.get(self.clusters.verdict_method, "no cluster interval")
            return f"{method} {level}, {self.clusters.labelled_clusters} clusters"
        if self.binary is not None:
            return f"{CI_METHOD_LABELS[self.binary.ci_method]} {level}"
        return f"paired t {level}"

    @property
    def in_points(self) -> bool:
        """Pass rates are read in percentage points; scores in their own units."""
        return is_verdict_metric(self.metric)


def _verdict_of(ci: tuple[float, float], lower_is_better: bool = False) -> str:
    """The verdict of an interval on candidate − baseline; for a loss a drop is the gain."""
    below, above = ("improved", "regressed") if lower_is_better else ("regressed", "improved")
    if ci[1] < 0:
        return below
    if ci[0] > 0:
        return above
    return "no_significant_difference"


def _headline_ci(a: Analysis) -> tuple[float, float]:
    if a.binary is not None:
        return (a.binary.delta_ci.lower, a.binary.delta_ci.upper)
    # Graded: the paired t interval, which holds its level where the BCa bootstrap does not
    # (10.4% false verdicts for t(3) deltas at 30 items; docs/statistics.md). The bootstrap
    # intervals are shown beside it for reference.
    return a.graded_comparison.t_ci
