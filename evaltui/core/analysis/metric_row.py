"""One metric's comparison as the family table shows it: a plain row, apart from the family's
code so the analysis can name its type without importing the code that fills it.
"""

from __future__ import annotations

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
