"""The sign-off record (``evaltui.signoff/2``) and the run-set record
(``evaltui.signoff-runset/1``) declared.

``signoff.build_record`` and ``run_set_signoff`` build records as dicts (their canonical JSON is
hashed, so the builders, not these declarations, fix the bytes); these msgspec Structs describe
them key by key. ``evaltui.core.schema_gen`` writes docs/schema/signoff.schema.json and
signoff-runset.schema.json from them, and ``verify`` checks a record's form with
:func:`form_problem`, ``msgspec.convert`` against the declaration, before anything it says.
The results blocks are the report's own (``core/report/shape_results.py``).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from msgspec import UNSET, Meta, Struct, UnsetType

from evaltui.core.report.shape import (
    Decision,
    Gate,
    Inputs,
    Options,
    Pairing,
    PolicyRules,
    Spec,
    Status,
    Tool,
)
from evaltui.core.report.shape_agreement import AgreementBlock
from evaltui.core.report.shape_cost import CostReport
from evaltui.core.report.shape_results import (
    ANALYSIS_SHAPES,
    Arm,
    CategoriesField,
    Clusters,
    Count,
    Delta,
    Epochs,
    Flags,
    Graded,
    Ids,
    Mcnemar,
    MetricRow,
    Sha256,
    SliceRow,
    Table,
    Unit,
    Unpaired,
    Verdict,
)


class PolicyFileUsed(Struct, kw_only=True):
    """the record's policy with --policy: the file, its rules and the options used"""

    path: str | None
    sha256: Sha256
    rules: PolicyRules
    options: Options
    on_error: Literal["fail", "exclude"]
    allow_missing: bool


class PolicyOptionsUsed(Options, kw_only=True):
    """the record's policy without --policy: the options used, and no gates"""

    on_error: Literal["fail", "exclude"]
    allow_missing: bool
    gates: Annotated[list[Any], Meta(max_length=0)]


RecordPolicy = Annotated[
    dict[str, Any],
    Meta(
        description=(
            "with --policy: its path, file sha256, rules and the options used; without: the "
            "options used (and an empty gate list)"
        ),
        extra_json_schema={
            "anyOf": [{"$ref": "#/$defs/PolicyFileUsed"}, {"$ref": "#/$defs/PolicyOptionsUsed"}]
        },
    ),
]
"""PolicyFileUsed or PolicyOptionsUsed: two objects no key tells apart, so JSON Schema says it."""


class Results(Struct, kw_only=True):
    """the report's results, as in the report"""

    analysis: Literal["binary", "graded"]
    metric: Annotated[str, Meta(description="passed, score or score:<name>")]
    n_paired: Count
    table: Table | None
    baseline: Arm
    candidate: Arm
    delta: Delta
    mcnemar: Mcnemar | None
    unpaired: Unpaired | None
    graded: Graded | None
    epochs: Epochs | None
    clusters: Clusters | None
    metrics: list[MetricRow]
    slices: list[SliceRow]
    flags: Flags
    warnings: list[str]
    verdict: Verdict
    headline: Annotated[str, Meta(min_length=1)]
    categories: CategoriesField | UnsetType = UNSET
    cost: Annotated[
        CostReport | UnsetType,
        Meta(
            description=(
                "agent runs whose logs record what each sample cost: the report's cost block "
                "(absent otherwise, and in records made before it was recorded)"
            )
        ),
    ] = UNSET


class Item(Struct, kw_only=True):
    item_id: str
    direction: Literal["regression", "improvement"]
    slice: str | None
    cluster: str | None
    tag: str | None
    note: str
    tagged_by: str | None
    tagged_at: str | None


class Override(Struct, kw_only=True):
    reason: Annotated[str, Meta(min_length=1)]
    untriaged_regressions: Ids
    failed_gates: list[str]
    overrides: Annotated[list[str], Meta(min_length=1)]
    confirmed_regressions: list[str]
    regressed: bool
    regressed_metrics: Annotated[
        list[str],
        Meta(description="other metrics (scorers) that regressed and block, overridden by name"),
    ] = []
    regressed_scorer: (
        Annotated[
            str,
            Meta(description="the compared scorer, when it regressed and the pair has several"),
        ]
        | UnsetType
    ) = UNSET


class Triage(Struct, kw_only=True):
    regressions: Count
    triaged: Count
    untriaged: Ids
    by_tag: dict[str, Count]
    tags: list[str]
    meanings: Meanings


class Meanings(Struct, kw_only=True):
    confirmed: list[str]
    grader_error: list[str]
    open: list[str]


class TeamReviewEntry(Struct, kw_only=True):
    """one reviewer's review of one discordant item"""

    item_id: str
    reviewer: str
    tag: str | None
    note: str
    time: str | None


class AdjudicationEntry(Struct, kw_only=True):
    """an adjudicator's settling of a disputed item (the one in force: a later one replaces
    an earlier one)"""

    item_id: str
    tag: str
    by: str
    reason: Annotated[str, Meta(min_length=1)]
    time: str


class SettledDispute(Struct, kw_only=True):
    item_id: str
    tag: str | None
    how: Annotated[str, Meta(description="settled by NAME, or settled by the rule RULE")]


class TeamReview(Struct, kw_only=True):
    """every reviewer, every review and every adjudication of the discordant items, the
    disputes open and settled, and the reviewers' agreement (core/record/team_review.py)"""

    reviewers: list[str]
    reviews: list[TeamReviewEntry]
    adjudications: list[AdjudicationEntry]
    dispute_rule: Literal["adjudicator", "any_confirmed_wins"]
    disputes_open: Ids
    disputes_settled: list[SettledDispute]
    agreement: AgreementBlock


class SignOffRecord(Struct, kw_only=True):
    """PREFIX.json written by `evaltui signoff` or the app's sign-off screen, built by
    evaltui.core.record.signoff.build_record. Keys are documented in docs/signoff.md. Additional
    keys may appear in later versions of the same schema.
    """

    schema: Literal["evaltui.signoff/2"]
    tool: Tool
    created: Annotated[
        str,
        Meta(
            description="local time, %Y-%m-%dT%H:%M:%S%z",
            pattern=(
                "^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}([+-][0-9]{2}:?[0-9]{2}|Z)?$"
            ),
        ),
    ]
    reviewer: Annotated[str, Meta(min_length=1)]
    decision: Decision
    rationale: Annotated[str, Meta(min_length=1)]
    override: Override | None
    inputs: Inputs
    pairing: Pairing
    spec: Spec | UnsetType = UNSET
    policy: RecordPolicy
    policy_hash: Annotated[
        str,
        Meta(
            description=(
                "the hash of the policy's rules (bare hex), or without a policy sha256:<hex> of "
                "the options used"
            ),
            pattern="^(sha256:)?[0-9a-f]{64}$",
        ),
    ]
    results: Annotated[Results, Meta(extra_json_schema={"allOf": ANALYSIS_SHAPES})]
    triage: Triage
    items: list[Item]
    gates: list[Gate]
    review_notices: list[str]
    session_journal: str
    team_review: Annotated[
        TeamReview | UnsetType,
        Meta(description="absent in records made before a review could be a team's"),
    ] = UNSET
    content_hash: Annotated[
        str,
        Meta(
            description="sha256: over the canonical JSON of every other key",
            pattern="^sha256:[0-9a-f]{64}$",
        ),
    ]
    reviewer_decision: Annotated[
        Literal["approve", "block", "needs-more-data"],
        Meta(description="what the reviewer decided"),
    ]


class RunSetSignOffRecord(Struct, kw_only=True):
    """PREFIX.json written by `evaltui signoff BASE CAND CAND2 ...`, built by
    evaltui.core.record.run_set_signoff.build_run_set_record. It names every baseline pair it
    covers, each with its complete two-run record (evaltui.signoff/2,
    docs/schema/signoff.schema.json) under pairs[].record. Documented in docs/signoff.md, 'Three
    or more runs'.
    """

    schema: Literal["evaltui.signoff-runset/1"]
    tool: Annotated[dict[str, Any], Meta(extra_json_schema={"required": ["name", "version"]})]
    created: str
    decision: RunSetRecordDecision
    reviewer: str
    reviewer_decision: Literal["approve", "block", "needs-more-data"]
    rationale: str
    run_set: RunSetRecordSpec
    runs: Annotated[list[RunSetRecordRun], Meta(min_length=3)]
    omnibus: RunSetRecordOmnibus | None
    family: RunSetRecordFamily
    pairs: Annotated[list[RunSetRecordPair], Meta(min_length=2)]
    content_hash: Annotated[str, Meta(pattern="^sha256:[0-9a-f]{64}$")]


class RunSetRecordDecision(Struct, kw_only=True):
    status: Status
    line: str
    exit_code: Literal[0, 1, 4]
    pairs: list[Any]


class RunSetRecordSpec(Struct, kw_only=True):
    schema: Literal["evaltui.runset/1"]


class RunSetRecordRun(Struct, kw_only=True):
    name: str
    path: str
    sha256: Sha256


class RunSetRecordOmnibus(Struct, kw_only=True):
    test: Literal["cochran_q", "friedman"]
    statistic: float | None
    df: int
    p: Unit | None
    n: int


class RunSetRecordFamily(Struct, kw_only=True):
    method: str
    size: Count
    label: str
    pairs: list[
        Annotated[
            dict[str, Any],
            Meta(
                extra_json_schema={
                    "required": [
                        "baseline",
                        "candidate",
                        "effect",
                        "p_raw",
                        "p_adjusted",
                        "verdict",
                    ]
                }
            ),
        ]
    ]


class RunSetRecordPair(Struct, kw_only=True):
    """a baseline pair of the set, with its complete two-run record"""

    baseline: Literal[0]
    candidate: Annotated[int, Meta(ge=1)]
    record: SignOffRecord
