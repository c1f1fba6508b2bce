"""The cost gates: `max_cost_growth` ("working time may not grow by more than 20%") and
`max_limit_hits_growth` ("no more items stopped by a limit than the baseline").

Read on the paired cost comparison (`analysis.cost`): the candidate's mean of the figure per
item against the baseline's, over the items both runs record it for. It fails when the point
estimate of the growth is above the bound, and says the interval beside it. Runs that do not
record the figure (every format but Inspect's) cannot be held to it: that is an error naming
the policy file and the gate, as an unknown slice is, never a gate that silently passes or a
rule the decision leaves out.
"""

from __future__ import annotations

from evaltui.core.analysis.cost import cost_comparison
from evaltui.core.compare.pairing import PairedRuns
from evaltui.core.errors import InputError
from evaltui.core.policy.schema import Gate, Policy


def cost_gate_outcome(gate: Gate, policy: Policy, paired: PairedRuns) -> tuple[str, str]:
    """(status, detail) of the gate: passed or failed."""
    figure, growth = gate.figure or "working_time", gate.growth or 0.0
    label = figure.replace("_", " ")
    cost = cost_comparison(paired, compared=(figure,))
    found = cost.figure(figure) if cost is not None else None
    if found is None or found.difference is None:
        raise InputError(
            policy.source_path,
            f"[[gates]] entry {gate.index}: cannot be evaluated on this pair: the runs record "
            f"no {label} per sample (Inspect logs do: model usage, times)",
            line=gate.line,
            field="figure",
        )
    if found.relative is None or found.relative_ci is None:  # the baseline's mean is 0
        grew = found.mean[1] > 0
        return ("failed" if grew else "passed"), f"{label}: the baseline's mean is 0"
    low, high = found.relative_ci
    words = (
        f"{label} {found.relative:+.1%} per item (95% CI [{low:+.1%}, {high:+.1%}], "
        f"{found.n:,} items), bound {growth:+.0%}"
    )
    return ("failed" if found.relative > growth else "passed"), words


def limit_gate_outcome(gate: Gate, policy: Policy, paired: PairedRuns) -> tuple[str, str]:
    """(status, detail) of `max_limit_hits_growth`: it fails when the candidate's items
    stopped by a limit (in any epoch) exceed the baseline's by more than `growth` (0: any more
    than the baseline; from none, any). Counts, as `no_regressions` reads counts: a rule on
    limits must fire on a small run too; the exact McNemar p is said beside them."""
    growth = gate.growth or 0.0
    cost = cost_comparison(paired, compared=())
    limits = cost.limits if cost is not None else None
    if limits is None:
        raise InputError(
            policy.source_path,
            f"[[gates]] entry {gate.index}: cannot be evaluated on this pair: the runs record "
            "no limits per sample (Inspect logs do)",
            line=gate.line,
            field="kind",
        )
    base, cand = limits.items
    bound = base * (1.0 + growth)
    grew = f"{cand / base - 1:+.0%}" if base else ("none before" if cand else "none")
    test = (
        f"exact McNemar p {limits.exact_p:.3g}"
        if limits.exact_p is not None
        else "no item stopped in one run only"
    )
    words = f"items stopped by a limit {base:,} → {cand:,} ({grew}; {test}), bound {growth:+.0%}"
    return ("failed" if cand > bound else "passed"), words
