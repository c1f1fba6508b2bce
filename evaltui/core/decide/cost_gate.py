"""The `max_cost_growth` gate: "working time may not grow by more than 20%".

Read on the paired cost comparison (`analysis.cost`): the candidate's mean of the figure per
item against the baseline's, over the items both runs record it for. It fails when the point
estimate of the growth is above the bound, and says the interval beside it; runs that do not
record the figure (every format but Inspect's) leave it undecided, never passed.
"""

from __future__ import annotations

from evaltui.core.analysis.cost import cost_comparison
from evaltui.core.compare.pairing import PairedRuns


def cost_gate_outcome(figure: str, growth: float, paired: PairedRuns) -> tuple[str, str]:
    """(status, detail) of the gate: passed, failed, or undecided when not recorded."""
    label = figure.replace("_", " ")
    cost = cost_comparison(paired)
    found = cost.figure(figure) if cost is not None else None
    if found is None or found.relative is None or found.relative_ci is None:
        return "undecided", f"the runs record no {label} to compare"
    low, high = found.relative_ci
    words = (
        f"{label} {found.relative:+.1%} per item (95% CI [{low:+.1%}, {high:+.1%}], "
        f"{found.n:,} items), bound {growth:+.0%}"
    )
    return ("failed" if found.relative > growth else "passed"), words
