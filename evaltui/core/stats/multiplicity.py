"""Adjusted p-values for a family of tests: many slices or many metrics read at once.

Each test at level alpha has a one-in-twenty chance of a false alarm when nothing changed; read
twelve of them and the chance of at least one is about 46%. Adjusting the p-values keeps the
family honest:

- ``"holm"``: Holm (1979) step-down, controls the family-wise error rate (the chance of any false
  alarm) and is never less powerful than Bonferroni. The default, for gates and safety slices.
- ``"bh"``: Benjamini & Hochberg (1995) step-up, controls the false discovery rate (the expected
  share of false alarms among the flagged results); more power when several things really moved.
- ``"bonferroni"``: m * p, the simplest and most conservative family-wise control.
- ``"none"``: the raw p-values, for a reader who wants to see them side by side.

The arithmetic is R's ``stats::p.adjust`` operation for operation (R Core Team, file
src/library/stats/R/p.adjust.R), so the results agree with R to the last bit, not merely to a
tolerance: Bonferroni ``min(1, m p)``; Holm ``min(1, cummax((m - i + 1) p_(i)))`` over the
ascending order; BH ``min(1, cummin(m / i * p_(i)))`` over the descending order (``m / i`` is
divided first and then multiplied by p, as R does). Undefined p-values (``None``, e.g. McNemar
with no disagreements) are passed through as ``None`` and do not count in m, as R's default
``n = length(p)`` does after its NAs are removed.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from numbers import Real

from evaltui.core.stats import validate

__all__ = ["ADJUST_METHODS", "ADJUST_LABELS", "adjust_pvalues"]

ADJUST_METHODS: tuple[str, ...] = ("holm", "bh", "bonferroni", "none")
"""Accepted ``method`` values; the first is the default."""

ADJUST_LABELS: dict[str, str] = {
    "holm": "Holm",
    "bh": "Benjamini-Hochberg",
    "bonferroni": "Bonferroni",
    "none": "unadjusted",
}
"""How each method is named in a report."""


def _check_pvalue(index: int, value: object) -> float | None:
    """A p-value is None (undefined) or a real number in [0, 1]; NaN is refused, not guessed."""
    if value is None:
        return None
    if isinstance(value, Real) and math.isnan(value):
        raise ValueError(
            f"pvalues[{index}] is NaN; pass None for an undefined p-value so it is kept out of "
            "the family on purpose"
        )
    return validate.probability(f"pvalues[{index}]", value, open_interval=False)


def adjust_pvalues(
    pvalues: Sequence[float | None], method: str = "holm"
) -> tuple[float | None, ...]:
    """Adjust a family of p-values for multiplicity, in the input order.

    ``method`` is one of :data:`ADJUST_METHODS`. ``None`` entries stay ``None`` and are not
    counted in the family size m. Adjusted values never exceed 1, and for Holm and BH they keep
    the order of the raw p-values (the monotonicity step), exactly as R's ``p.adjust``. A family
    of one is returned unchanged.
    """
    method = validate.one_of("adjustment method", method, ADJUST_METHODS)
    if isinstance(pvalues, str | bytes) or not isinstance(pvalues, Sequence):
        raise ValueError(
            f"pvalues must be a sequence of numbers or None, got {type(pvalues).__name__}"
        )
    checked = [_check_pvalue(i, p) for i, p in enumerate(pvalues)]
    positions = [i for i, p in enumerate(checked) if p is not None]
    values = [p for p in checked if p is not None]
    m = len(values)
    out: list[float | None] = list(checked)
    if m <= 1 or method == "none":
        return tuple(out)

    adjusted: list[float] = [0.0] * m
    if method == "bonferroni":
        adjusted = [min(1.0, m * p) for p in values]
    elif method == "holm":
        # Ascending order; Python's sort is stable like R's order(), and ties end up equal anyway.
        order = sorted(range(m), key=lambda k: values[k])
        running = -math.inf
        for rank, k in enumerate(order, start=1):
            running = max(running, (m - rank + 1) * values[k])
            adjusted[k] = min(1.0, running)
    else:  # "bh"
        order = sorted(range(m), key=lambda k: values[k], reverse=True)
        running = math.inf
        for step, k in enumerate(order):
            rank = m - step  # the rank of this p-value in ascending order
            running = min(running, m / rank * values[k])
            adjusted[k] = min(1.0, running)

    for position, value in zip(positions, adjusted, strict=True):
        out[position] = value
    return tuple(out)
