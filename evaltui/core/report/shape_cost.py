"""The report's `cost` block declared (`analysis.cost`, agent runs whose logs record what each
sample cost): its JSON Schema is generated from these Structs with the rest of the report's."""

from __future__ import annotations

from typing import Annotated

from msgspec import Meta, Struct

Count = Annotated[int, Meta(ge=0)]


class CostDifference(Struct, kw_only=True):
    """candidate - baseline per item, paired: the mean and its seeded percentile bootstrap
    interval; relative: mean(candidate) / mean(baseline) - 1, its interval from the same
    paired resampling with the ratio recomputed per resample (null bound: unbounded, a
    resample whose baseline cost nothing)"""

    mean: float
    ci: list[float | None]
    confidence: float
    resamples: Count
    seed: int
    relative: float | None
    relative_ci: list[float | None] | None


class CostFigureRow(Struct, kw_only=True):
    """One cost figure over the items both runs record it for"""

    figure: Annotated[
        str,
        Meta(
            description="total_tokens, input_tokens, output_tokens, reasoning_tokens, total_time, "
            "working_time (seconds) or retries"
        ),
    ]
    n: Count
    missing: Annotated[Count, Meta(description="paired items without it in one run")]
    median: Annotated[list[float], Meta(description="per item, [baseline, candidate]")]
    mean: Annotated[list[float], Meta(description="per item, [baseline, candidate]")]
    total: Annotated[list[float], Meta(description="over every sample, [baseline, candidate]")]
    difference: CostDifference | None


class CostLimits(Struct, kw_only=True):
    """Items a limit stopped (in any epoch), per run, and the exact McNemar p over the items
    only one run was stopped on (null: none)"""

    items: list[Count]
    samples: list[Count]
    by_type: list[dict[str, Count]]
    exact_p: float | None


class CostReport(Struct, kw_only=True):
    """What the runs cost and how often a limit stopped them, paired (docs/report.md)"""

    n_items: Count
    figures: list[CostFigureRow]
    limits: CostLimits | None
    errors: Annotated[list[Count], Meta(description="samples ended by an error, per run")]
