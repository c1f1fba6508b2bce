"""The run-set report (``evaltui.report-runset/1``, three or more runs) declared.

``run_set_report_dict`` (``core/report/run_set.py``) builds it as a dict; these msgspec Structs
describe it, and ``evaltui.core.schema_gen`` writes docs/schema/report-runset.schema.json from
them. Each baseline pair carries its own two-run report, declared by ``shape.Report``.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from msgspec import UNSET, Meta, Struct, UnsetType

from evaltui.core.report.shape import Described, IdsCut, Report, Status, Tool
from evaltui.core.report.shape_results import Count, MetricRow, Sha256, Unit, Verdict


class RunSetReport(Struct, kw_only=True):
    """The output of `evaltui report BASE CAND CAND2 ... --format json` (three or more runs), built
    by evaltui.core.report.run_set.run_set_report_dict. Keys are documented in docs/report.md,
    'Three or more runs'. Each baseline pair carries its full two-run report (evaltui.report/2,
    docs/schema/report.schema.json) under pairs[].report. Additional keys may appear in later
    versions of the same schema.
    """

    schema: Literal["evaltui.report-runset/1"]
    tool: Tool
    decision: RunSetDecision
    runs: Annotated[list[RunSetRun], Meta(min_length=3)]
    run_set: RunSetSpec
    metric: str
    scorer: (
        Annotated[
            str,
            Meta(description="the name a reader knows `metric` by: the scorer the matrix compares"),
        ]
        | UnsetType
    ) = UNSET
    analysis: Literal["binary", "graded"]
    omnibus: Omnibus | None
    common_items: Count
    multiplicity: Multiplicity
    pairs: Annotated[list[RunSetPair], Meta(min_length=3)]
    ids_cut: Annotated[
        IdsCut | UnsetType,
        Meta(description="only when a list of item ids in a pair's report was cut (`--ids N`)"),
    ] = UNSET


class RunSetDecision(Struct, kw_only=True):
    status: Status
    line: str
    exit_code: Literal[0, 1, 4]
    pairs: list[RunSetPairDecision]
    regressed: (
        Annotated[
            list[ScorerRegression],
            Meta(
                description="every (candidate, scorer) that regressed and blocks, the worst first"
            ),
        ]
        | UnsetType
    ) = UNSET


class ScorerRegression(Struct, kw_only=True):
    candidate: Annotated[int, Meta(ge=1)]
    name: str
    metric: str
    scorer: str


class RunSetPairDecision(Struct, kw_only=True):
    baseline: Count
    candidate: Annotated[int, Meta(ge=1)]
    status: Status
    line: str


class RunSetRun(Struct, kw_only=True):
    name: str
    path: str
    sha256: Sha256
    format: str
    described: Described | UnsetType = UNSET


class RunSetSpec(Struct, kw_only=True):
    schema: Literal["evaltui.runset/1"]
    runs: Annotated[list[str], Meta(min_length=3)]
    spec: dict[str, Any]


class Omnibus(Struct, kw_only=True):
    test: Literal["cochran_q", "friedman"]
    label: str
    statistic: Annotated[float, Meta(ge=0)] | None
    df: Annotated[int, Meta(ge=1)]
    p: Unit | None
    n: Count
    k: Annotated[int, Meta(ge=2)]
    informative: Count
    flags: list[str]


class Multiplicity(Struct, kw_only=True):
    method: Literal["holm", "bh", "bonferroni", "none"]
    family_size: Count
    family: str


class RunSetPair(Struct, kw_only=True):
    baseline: Count
    candidate: Annotated[int, Meta(ge=1)]
    n: Count
    effect: str
    delta: float | None
    ci: Annotated[list[float | None], Meta(min_length=2, max_length=2)]
    ci_label: str
    p_raw: Unit | None
    p_test: str
    p_adjusted: Unit | None
    p_rank: Unit | None
    p_rank_adjusted: Unit | None
    own_verdict: Verdict
    verdict: Verdict
    regressions: Count
    improvements: Count
    report: Report | None
    p_outcome: Unit | None
    p_outcome_adjusted: Unit | None
    metrics: (
        Annotated[
            list[MetricRow],
            Meta(description="every scorer of the pair, p adjusted over the set's family"),
        ]
        | UnsetType
    ) = UNSET
