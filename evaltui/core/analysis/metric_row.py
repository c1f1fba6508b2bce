"""One metric's comparison as the family table shows it: a plain row, apart from the family's
code so the analysis can name its type without importing the code that fills it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass


@dataclass(frozen=True)
class MetricRow:
    """One metric's comparison, as the family table shows it."""

    metric: str
    kind: str  # binary | graded
    n: int
    delta: float
    ci: tuple[float, float]
    ci_method: str
    p_raw: float | None
    p_test: str  # which test gave p_raw
    p_adjusted: float | None  # None outside the family, or when p is undefined
    in_family: bool
    verdict: str  # after the adjustment (see the module docstring)
    unadjusted_verdict: str = ""  # what the row's own interval says
    p_reference: float | None = None  # graded: Wilcoxon signed-rank, for reference only
    p_reference_test: str | None = None
    # How many p-values the adjustment ran over, and what they were, when that is more than
    # this pair's metrics (k runs adjust every pair's metrics together: `multirun`).
    family_size: int = 0
    family_label: str = ""
    label: str = ""  # the name a reader knows it by: the scorer, not the column ("safe_advice")
    role: str = "decides"  # decides (its regression blocks) | secondary | monitor (policy)
    in_points: bool = False  # a pass rate, read in points; a score in its own units
    regressions: tuple[str, ...] = ()  # the items this metric calls regressions

    @property
    def name(self) -> str:
        """What every surface calls this metric."""
        return self.label or self.metric

    @property
    def blocks(self) -> bool:
        """A regression of this metric blocks the release (every metric but the policy's
        `secondary` and `monitor` ones)."""
        return self.role == "decides"


def metric_label(metric: str, metadata: Mapping[str, str]) -> str:
    """The name a reader knows a metric column by: the run's scorer (or metric) for the plain
    `passed`/`score` column, the name after the prefix for `passed:<x>`/`score:<x>`."""
    if metric in ("passed", "score"):
        return metadata.get("scorer") or metadata.get("metric") or metric
    prefix, colon, rest = metric.partition(":")
    return rest if colon and prefix in ("passed", "score") else metric


def names_metric(names: tuple[str, ...], metric: str, label: str) -> bool:
    """A policy list (`monitor`, `secondary`) names this metric, by column or by label."""
    return metric in names or label in names
