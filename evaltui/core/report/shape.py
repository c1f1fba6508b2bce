"""The pair report (``evaltui.report/2``, the paired and the independent design) declared.

``report_dict`` (``core/report/pair.py``) builds the report as a dict; these msgspec Structs
describe it, key by key, and ``evaltui.core.schema_gen`` writes docs/schema/report.schema.json
from them (``--check`` says whether the committed one is current). The record declares its
``results`` with the same blocks (``core/record/shape.py``), so one change here reaches both
schemas. A key absent from some reports (older ones, or the independent design) is declared
``UnsetType``: not required, never null. The statistics blocks are in
:mod:`.shape_results`.

What the type of one key cannot say is written as JSON Schema beside it: the arms are a binary
or a graded arm (``shape_results.Arm``), and which of them, and which blocks are null, follows
from ``analysis`` (``shape_results.ANALYSIS_SHAPES``); the independent design has no paired
blocks (:data:`DESIGN_SHAPES`). The builder writes plain dicts, so the JSON and the content
hashes of records do not depend on these declarations.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from msgspec import UNSET, Meta, Struct, UnsetType

from evaltui.core.report.shape_agreement import AgreementBlock
from evaltui.core.report.shape_cost import CostReport
from evaltui.core.report.shape_results import (
    Arm,
    Categories,
    CategoriesField,
    Clusters,
    Count,
    Delta,
    EpochRange,
    Epochs,
    Flags,
    Graded,
    Ids,
    Independent,
    Interval,
    Level,
    Mcnemar,
    MetricRow,
    Sha256,
    SliceRow,
    Table,
    Unpaired,
    Verdict,
)
from evaltui.core.report.shape_review import ReviewBlock

__all__ = [
    "DESIGN_SHAPES",
    "Categories",
    "Decision",
    "Gate",
    "Inputs",
    "Options",
    "Pairing",
    "PolicyRules",
    "Report",
    "Spec",
    "Status",
    "Tool",
    "Verdict",
]


Status = Literal["not_comparable", "blocked", "not_enough_data", "needs_review", "ready"]


GateStatus = Annotated[
    Literal["passed", "failed", "pending", "undecided"],
    Meta(description="undecided: a margin the data cannot answer (too few items or clusters)"),
]


Spec = Annotated[
    dict[str, Any] | None,
    Meta(
        description=(
            "the comparison spec (input paths, format, load options, pairing and analysis "
            "options, policy path); optional, null or absent when not recorded"
        )
    ),
]


class Tool(Struct, kw_only=True):
    name: Literal["evaltui"]
    version: Annotated[str, Meta(min_length=1)]


class Input(Struct, kw_only=True):
    path: str
    sha256: Sha256
    size: Count
    format: Annotated[
        str,
        Meta(
            description=(
                "the detected or forced input format (jsonl, csv, parquet, inspect_eval, "
                "inspect_json, lm_eval, promptfoo, openai_evals, helm, ...)"
            )
        ),
    ]
    items: Count
    records: Count
    metadata: Annotated[
        dict[str, Any],
        Meta(description="run metadata as read (model, task, dataset, scorer, harness version...)"),
    ]
    described: Described | UnsetType = UNSET


class Described(Struct, kw_only=True):
    """What the run is, read from the log's own header (`read.describe.RunDescription`);
    "unknown" where the log does not say."""

    task: str
    model: str
    scorers: str
    dataset: str
    harness: Annotated[str, Meta(description="the harness and its version, as the log says")]
    date: Annotated[
        str,
        Meta(
            description=(
                "the run's date in UTC ('... UTC'), or as written with '(time zone not "
                "recorded)', or 'unknown'"
            )
        ),
    ]
    file: Annotated[
        str,
        Meta(description="the file relative to the working directory, else its name"),
    ]


class ItemDifference(Struct, kw_only=True):
    differ: Count
    of: Count
    by: Annotated[str, Meta(description="the hash compared: doc_hash, input_hash, prompt_hash")]


class Comparability(Struct, kw_only=True):
    """What the logs show about the runs being one task, and which items' texts differ
    (`compare.comparability`)."""

    same_task_shown_by: Literal["task name", "doc_hash"] | None
    inputs_differ: ItemDifference | None
    prompts_differ: ItemDifference | None


class MetricDirection(Struct, kw_only=True):
    """Which way is better for the compared metric, and how that is known."""

    higher_is_better: bool | None
    source: str
    inferred: bool


class Inputs(Struct, kw_only=True):
    baseline: Input
    candidate: Input


class PerArmCount(Struct, kw_only=True):
    baseline: Count
    candidate: Count


class Pairing(Struct, kw_only=True):
    paired: Count
    missing_in_baseline: Ids
    missing_in_candidate: Ids
    allow_missing: bool
    on_error: Literal["fail", "exclude"]
    excluded_errors: PerArmCount
    excluded_items: Ids
    errors_counted_as_failures: PerArmCount
    epochs: PairingEpochs
    problems: list[str]
    # Errored records a per-sample cost metric compares on what they recorded (limit hits,
    # retries, tokens, times), not as failures; absent from reports before it was written.
    errors_compared_as_recorded: PerArmCount | UnsetType = UNSET


class PairingEpochs(Struct, kw_only=True):
    baseline: EpochRange
    candidate: EpochRange


class Options(Struct, kw_only=True):
    metric: str
    ci_method: Annotated[
        str, Meta(description="tango, newcombe, wald, wald-cc, agresti-min, bonett-price")
    ]
    confidence: Level
    alpha: Level
    pass_threshold: float | None
    threshold_metric: str | None
    tolerance: Annotated[float, Meta(ge=0)]
    resamples: Annotated[int, Meta(ge=1)]
    seed: Count
    bootstrap: Literal["bca", "percentile"]


class Gate(Struct, kw_only=True):
    name: str
    kind: Annotated[
        str,
        Meta(
            description=(
                "no_regressions, min_pass_rate, no_tag, all_triaged, min_effect, "
                "max_cost_growth, max_limit_hits_growth; non_inferiority or equivalence for "
                "the policy's margin (the last entry)"
            )
        ),
    ]
    slice: str | None
    status: GateStatus
    detail: str
    item_ids: list[str]
    summary: (
        Annotated[
            str, Meta(description="margins only: the few words the decision's first line carries")
        ]
        | UnsetType
    ) = UNSET
    margin: GateMargin | None | UnsetType = UNSET


class GateMargin(Struct, kw_only=True):
    """the policy's margin answered (gates of kind non_inferiority or equivalence only; null while
    the cluster interval is pending): the two-sided 1 - 2 alpha interval of candidate - baseline
    against -margin/+margin, and the one-sided tests beside it
    """

    kind: Literal["non_inferiority", "equivalence"]
    margin: Annotated[
        float, Meta(description="in the metric's units (0.01 = 1 point of pass rate)", gt=0)
    ]
    alpha: Annotated[float, Meta(description="one-sided level of each test")]
    level: Annotated[float, Meta(description="the interval's level, 1 - 2 alpha")]
    estimate: float | None
    interval: Interval
    interval_method: str
    lower_is_better: bool
    test: Annotated[
        str,
        Meta(
            description=(
                "the one-sided tests: Tango score (pass/fail), paired t (graded), cluster-robust "
                "t (CR1) (clustered)"
            )
        ),
    ]
    p_below: Annotated[float | None, Meta(description="one-sided p of the null delta <= -margin")]
    p_above: Annotated[float | None, Meta(description="one-sided p of the null delta >= +margin")]
    p: Annotated[
        float | None,
        Meta(
            description="non-inferiority: the worse side's p; equivalence: the TOST p (the larger)"
        ),
    ]
    shown: Annotated[
        bool | None, Meta(description="the interval clears the margin; null: undecided")
    ]
    undecided: str | None
    flags: Annotated[
        list[str],
        Meta(
            description=(
                "interval_test_disagree: the interval and the test read the margin differently"
            )
        ),
    ]


class PolicyRules(Struct, kw_only=True):
    """the policy's canonical rules (what its hash is computed over)"""

    schema: Annotated[str, Meta(pattern="^evaltui\\.policy/")]
    gates: list[dict[str, Any]] | UnsetType = UNSET


class Decision(Struct, kw_only=True):
    """The decision the tool computed from everything it knows (core/decide/pair.py); not the
    reviewer's own choice, which the sign-off record holds in reviewer_decision.
    """

    status: Status
    line: Annotated[str, Meta(description="the first line of every surface", min_length=1)]
    exit_code: Literal[0, 1, 4]
    verdict: Verdict
    effect: str
    reasons: list[Reason]
    by_tag: dict[str, Count]
    confirmed_by_slice: dict[str, Count]
    untriaged_regressions: Count
    sensitivity: Sensitivity | None


class Reason(Struct, kw_only=True):
    kind: str
    text: str
    blocking: bool
    item_ids: list[str]


class Sensitivity(Struct, kw_only=True):
    removed: list[str]
    line: str
    verdict: Verdict | None


class DesignChoice(Struct, kw_only=True):
    """which design the comparison has and why (evaltui.core.compare.choose_design): design the
    analysis that ran, requested what was asked (--design), rule the design chooser's rule (D1:
    no shared ids; D1-accidental: ids that coincide by accident; requested; D4; D2/D3), reason
    in words (why the paired analysis was impossible or not used)
    """

    design: Literal["paired", "independent"]
    requested: Literal["paired", "independent", "auto"]
    rule: str
    reason: str
    shared_ids: Count


class IndependentArmCounts(Struct, kw_only=True):
    items: Annotated[int, Meta(ge=1)]
    records: Count
    errored_records: Count
    excluded_records: Count
    epochs: EpochRange


class ReportPolicy(Struct, kw_only=True):
    path: str | None
    sha256: Sha256
    hash: Sha256
    rules: PolicyRules


class ReportArms(Struct, kw_only=True):
    baseline: IndependentArmCounts
    candidate: IndependentArmCounts


class CutList(Struct, kw_only=True):
    path: Annotated[str, Meta(description="the cut list's JSON Pointer (RFC 6901)")]
    total: Count
    shown: Count


class IdsCut(Struct, kw_only=True):
    """Which lists of item ids the printed report cut (`evaltui report --ids N`, default
    10,000; `--ids all` cuts none): docs/report.md#lists-of-item-ids."""

    limit: Count
    lists: Annotated[list[CutList], Meta(min_length=1)]
    note: str


class Report(Struct, kw_only=True):
    """The output of `evaltui report --format json`, built by evaltui.core.report.pair.report_dict.
    Keys are documented in docs/report.md. Additional keys may appear in later versions of the
    same schema; readers ignore what they do not know.
    """

    schema: Literal["evaltui.report/2"]
    tool: Tool
    inputs: Inputs
    comparability: Comparability | UnsetType = UNSET
    direction: MetricDirection | UnsetType = UNSET
    pairing: Pairing | UnsetType = UNSET
    options: Options
    spec: Spec | UnsetType = UNSET
    analysis: Literal["binary", "graded"]
    metric: Annotated[str, Meta(description="passed, score or score:<name>")]
    n_paired: Count | UnsetType = UNSET
    table: Table | None | UnsetType = UNSET
    baseline: Arm | UnsetType = UNSET
    candidate: Arm | UnsetType = UNSET
    delta: Delta | UnsetType = UNSET
    mcnemar: Mcnemar | None | UnsetType = UNSET
    unpaired: Unpaired | None | UnsetType = UNSET
    graded: Graded | None | UnsetType = UNSET
    epochs: Epochs | None | UnsetType = UNSET
    clusters: Clusters | None | UnsetType = UNSET
    metrics: list[MetricRow] | UnsetType = UNSET
    slices: list[SliceRow] | UnsetType = UNSET
    categories: CategoriesField | UnsetType = UNSET
    cost: CostReport | UnsetType = UNSET
    review: ReviewBlock | UnsetType = UNSET
    flags: Flags
    warnings: list[str]
    verdict: Verdict
    headline: Annotated[str, Meta(min_length=1)]
    policy: ReportPolicy | None
    gates: list[Gate] | None
    regressions: Ids | UnsetType = UNSET
    improvements: Ids | UnsetType = UNSET
    decision: Decision
    design: (
        Annotated[
            Literal["paired", "independent"],
            Meta(
                description=(
                    "paired (item by item; absent in reports before issue 17) or independent (two"
                    " runs of different items, docs/report.md#independent)"
                )
            ),
        ]
        | UnsetType
    ) = UNSET
    design_label: str | UnsetType = UNSET
    design_choice: DesignChoice | UnsetType = UNSET
    independent: Independent | UnsetType = UNSET
    arms: ReportArms | UnsetType = UNSET
    on_error: Literal["fail", "exclude"] | UnsetType = UNSET
    agreement: Annotated[
        AgreementBlock | UnsetType,
        Meta(description="the reviewers' agreement on their tags (a pair's report)"),
    ] = UNSET
    ids_cut: Annotated[
        IdsCut | UnsetType,
        Meta(description="only when a list of item ids was cut (`--ids N`)"),
    ] = UNSET


PAIRED_KEYS: tuple[str, ...] = (
    "pairing",
    "n_paired",
    "table",
    "baseline",
    "candidate",
    "delta",
    "mcnemar",
    "unpaired",
    "graded",
    "epochs",
    "clusters",
    "metrics",
    "slices",
    "regressions",
    "improvements",
)


INDEPENDENT_KEYS: tuple[str, ...] = (
    "design",
    "design_label",
    "design_choice",
    "arms",
    "on_error",
    "independent",
)


DESIGN_SHAPES: list[dict[str, Any]] = [
    {
        "if": {"properties": {"design": {"const": "independent"}}, "required": ["design"]},
        "then": {"required": list(INDEPENDENT_KEYS), "properties": {"gates": {"type": "null"}}},
        "else": {"required": list(PAIRED_KEYS)},
    }
]
"""The independent design's keys, and the paired blocks every other report holds."""
