"""What the compared metric does with the errored (error/timeout) records `--on-error fail`
keeps, in words and as a word the report's JSON carries.

A verdict or a score counts an errored record as a failure (no pass, score 0), and the
pairing report says "errors/timeouts counted as failures". A per-sample cost chosen by
`--metric` does not: `--metric limit_hits` passes a sample unless a limit stopped it, so an
errored sample counts as not stopped; `--metric retries` or a cost figure (`working_time`,
tokens) compares the value the errored sample recorded. Saying "counted as failures" there
would misstate the comparison, so the line follows the metric.
"""

from __future__ import annotations

from typing import Literal

from evaltui.core.read.runs import SCORE_PREFIX
from evaltui.core.read.turns import LIMIT_VERDICT, NUMERIC_COSTS

ErroredAs = Literal["failures", "recorded"]  # the report's `pairing.errors_counted_as`


def errored_counted_as(metric: str | None) -> ErroredAs:
    """'recorded' when `metric` is a per-sample cost (`passed:no_limit_hit`,
    `score:<figure>`): an errored sample is compared on what it recorded; else 'failures'."""
    return "failures" if _cost_figure(metric) is None else "recorded"


def errored_treatment(metric: str | None) -> str:
    """What happens to errored records under `metric`, to follow "errors/timeouts "."""
    figure = _cost_figure(metric)
    if figure is None:
        return "counted as failures"
    if figure == "limit_hits":
        return "counted as not stopped by a limit (only a recorded limit is a hit)"
    return f"compared on the {figure.replace('_', ' ')} they recorded, not as failures"


def _cost_figure(metric: str | None) -> str | None:
    if metric == LIMIT_VERDICT:
        return "limit_hits"
    if metric is not None and metric.startswith(SCORE_PREFIX):
        figure = metric[len(SCORE_PREFIX) :]
        return figure if figure in NUMERIC_COSTS else None
    return None
