"""The statistics of a pair report declared: the blocks a report and a record's results share.

Split from :mod:`evaltui.core.report.shape` (the report's own keys): the 2x2 table, the arms,
the delta, McNemar, the unpaired contrast, the graded, epoch and cluster blocks, the metric and
slice rows, the outcome categories and the independent comparison, each a msgspec Struct the
JSON Schemas of the report and the sign-off record are generated from.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from msgspec import UNSET, Meta, Struct, UnsetType

Count = Annotated[int, Meta(ge=0)]
"""A count: items, records, clusters."""
Unit = Annotated[float, Meta(ge=0, le=1)]
"""A number in [0, 1]: a p-value, a rate, a share."""
Level = Annotated[float, Meta(gt=0, lt=1)]
"""A level strictly between 0 and 1: a confidence, an alpha."""
Sha256 = Annotated[str, Meta(pattern="^[0-9a-f]{64}$")]
"""A file's sha256, bare hex."""
Ids = Annotated[list[str], Meta(extra_json_schema={"uniqueItems": True})]
"""Item ids, each once."""

Verdict = Annotated[
    Literal["improved", "regressed", "no_significant_difference", "insufficient_data"],
    Meta(
        description=(
            "improved / regressed: the delta interval lies entirely above / below zero; "
            "insufficient_data: small n, no discordant items or no score change; else "
            "no_significant_difference."
        )
    ),
]


Interval = Annotated[
    tuple[float | None, float | None],
    Meta(description="[lower, upper]; null where the bound is undefined (NaN)."),
]


Flags = Annotated[
    list[str],
    Meta(
        description=(
            "Machine-readable flags. Known values: no_discordant, few_discordant, nested, "
            "small_n, ci_test_disagree (binary); small_n, single_item, zero_variance, all_zero, "
            "bca_fallback, bca_extreme, exact_bootstrap (graded); unequal_epochs, single_epoch, "
            "single_item, no_variance (epochs); few_clusters, single_cluster, all_singletons, "
            "single_item, zero_variance (clusters). New flags may be added."
        )
    ),
]


EpochRange = Annotated[
    tuple[Count, Count],
    Meta(description="[min, max] epochs per item"),
]


Arm = Annotated[
    dict[str, Any],
    Meta(
        extra_json_schema={"anyOf": [{"$ref": "#/$defs/BinaryArm"}, {"$ref": "#/$defs/GradedArm"}]}
    ),
]
"""An arm of a pair: a BinaryArm or a GradedArm, as ``analysis`` says (:data:`ANALYSIS_SHAPES`)."""


class Table(Struct, kw_only=True):
    """the paired 2x2: regressions = baseline passed, candidate failed"""

    both_pass: Count
    regressions: Count
    improvements: Count
    both_fail: Count


class BinaryArm(Struct, kw_only=True):
    passes: Count
    rate: Unit
    ci: Interval
    ci_method: Literal["wilson"]


class GradedArm(Struct, kw_only=True):
    """the arm's mean of the compared metric"""

    mean: float | None


class Delta(Struct, kw_only=True):
    estimate: float | None
    ci: Interval
    method: Annotated[str, Meta(description="the binary CI method, or paired-t (graded)")]
    confidence: Level


class Mcnemar(Struct, kw_only=True):
    """all but discordant are null with no discordant items"""

    discordant: Count
    exact_p: Unit | None
    mid_p: Unit | None
    chi2: float | None
    chi2_p: Unit | None
    chi2_cc: float | None
    chi2_cc_p: Unit | None


class Unpaired(Struct, kw_only=True):
    """independent two-proportion Wald: the wrong test for paired runs, a contrast"""

    label: str | UnsetType = UNSET
    se: float | None
    ci: Interval


class SignTestShape(Struct, kw_only=True):
    """the exact sign test of the deltas' signs: answers whether more items went up than down,
    a different question from the mean's"""

    up: Count
    down: Count
    zero: Count
    p: Unit | None


class MeanCheckShape(Struct, kw_only=True):
    """does a test of the mean hold its level on these deltas (Cochran's rule: n > 25 g1^2)"""

    skewness: float | None
    items_needed: Count
    holds: bool
    sign_test: SignTestShape


class Graded(Struct, kw_only=True):
    n: Count
    mean_delta: float | None
    ci: Interval
    method: Literal["bca", "percentile"]
    confidence: Level
    resamples: Annotated[int, Meta(ge=1)]
    seed: Count
    percentile_ci: Interval
    bca_ci: Interval
    t_ci: Annotated[Interval, Meta(description="the paired t interval: the verdict reads it")]
    t_p: Unit | None | UnsetType = UNSET
    wilcoxon_p: Unit | None
    n_distinct: Count
    flags: Flags
    mean_check: MeanCheckShape | None | UnsetType = UNSET


class EpochArm(Struct, kw_only=True):
    min: Count
    max: Count
    mean: Annotated[float, Meta(ge=0)]
    unequal: bool
    items: Count
    within_item_variance: float | None
    between_item_variance: float | None
    within_share: Unit | None
    flags: Flags


class Epochs(Struct, kw_only=True):
    baseline: EpochArm
    candidate: EpochArm


class Clusters(Struct, kw_only=True):
    n_clusters: Count
    n_items: Count
    mean_delta: float | None
    clustered_se: float | None
    naive_se: float | None
    design_effect: Annotated[
        float | None, Meta(description="Kish's design effect: (clustered SE / naive SE)^2")
    ]
    ci: Interval
    ci_method: str | UnsetType = UNSET
    naive_ci: Interval
    naive_label: str | UnsetType = UNSET
    confidence: Level
    resamples: Annotated[int, Meta(ge=1)]
    seed: Count
    flags: Flags
    labelled_clusters: Count
    unlabelled_items: Count
    verdict_ci: Interval
    verdict_method: Literal["wild-cluster-t", "cluster-t", "exact", "none"]
    verdict_p: Unit | None
    se_ratio: (
        Annotated[
            float | None,
            Meta(description="clustered SE / naive SE; design_effect is its square (Kish)"),
        ]
        | UnsetType
    ) = UNSET


class MetricRow(Struct, kw_only=True):
    metric: Annotated[str, Meta(description="the metric's column: passed, passed:<scorer>, score…")]
    label: Annotated[str, Meta(description="the name a reader knows it by (the scorer)")]
    role: Annotated[
        Literal["decides", "secondary", "monitor"],
        Meta(description="decides: its regression blocks; secondary/monitor: the policy's"),
    ]
    in_points: Annotated[bool, Meta(description="a pass rate (points), not a score")]
    kind: Literal["binary", "graded"]
    n: Count
    delta: float | None
    ci: Interval
    ci_method: str
    p_raw: Unit | None
    p_test: str
    p_adjusted: Unit | None
    in_family: bool
    verdict: Verdict
    unadjusted_verdict: Verdict
    p_reference: Unit | None
    p_reference_test: str | None


class SliceRow(Struct, kw_only=True):
    name: str
    overall: bool
    n: Count
    table: Table
    baseline_rate: Unit | None
    candidate_rate: Unit | None
    delta: float | None
    ci: Interval
    p_raw: Unit | None
    p_adjusted: Unit | None
    adjust: Annotated[str, Meta(description="holm, bh or bonferroni")]
    flags: Flags
    verdict: Verdict


class IndependentArm(Struct, kw_only=True):
    n: Annotated[int, Meta(ge=1)]
    passes: Count | None
    rate: Unit | None
    mean: float | None
    sd: float | None
    ci: Interval
    ci_method: Literal["wilson", "t"]


class IndependentTest(Struct, kw_only=True):
    name: Literal["z_pooled", "fisher_exact", "welch_t", "permutation_welch_t"]
    label: str
    statistic: float | None
    df: float | None
    p: Unit | None


class Independent(Struct, kw_only=True):
    """the independent comparison (evaltui.core.stats.independent): the verdict rests on test at
    alpha
    """

    kind: Literal["binary", "graded"]
    baseline: IndependentArm
    candidate: IndependentArm
    delta: IndependentDelta
    alpha: Level
    test: IndependentTest
    other_test: IndependentTest | None
    small_arm: bool
    min_expected: Annotated[float, Meta(ge=0)] | None
    small_arm_rule: str | None
    lower_is_better: bool
    flags: Flags
    verdict: Verdict


class IndependentDelta(Struct, kw_only=True):
    estimate: float | None
    ci: Interval
    method: Literal["newcombe", "welch"]
    confidence: Level


class Categories(Struct, kw_only=True):
    """Paired L x L table of outcome categories (rows: baseline, columns: candidate), the Stuart-
    Maxwell test of marginal homogeneity and each category's change.
    """

    levels: Annotated[list[str], Meta(min_length=1)]
    table: list[list[Count]]
    n: Count
    moved: Annotated[
        int, Meta(description="items whose category changed (off-diagonal total)", ge=0)
    ]
    stuart_maxwell: StuartMaxwell
    alpha: Level
    rejects: Annotated[
        bool, Meta(description="Stuart-Maxwell p < alpha: the mix of outcomes changed")
    ]
    ci_method: str
    confidence: Level
    adjust: Annotated[
        str,
        Meta(
            description="how the per-category p-values are adjusted: holm, bh, bonferroni or none"
        ),
    ]
    changes: list[CategoryChange]
    flags: list[Literal["single_level", "no_moves", "dropped_levels", "few_moves"]]


class StuartMaxwell(Struct, kw_only=True):
    statistic: Annotated[float, Meta(ge=0)] | None
    df: Count
    p: Unit | None
    tested_levels: list[str]
    dropped_levels: Annotated[
        list[str], Meta(description="levels no item moved into or out of, left out of the test")
    ]
    groups: Count
    note: str


class CategoryChange(Struct, kw_only=True):
    level: str
    baseline_count: Count
    candidate_count: Count
    baseline_share: Unit
    candidate_share: Unit
    delta: Annotated[float, Meta(description="candidate share - baseline share", ge=-1, le=1)]
    ci: Interval
    exact_p: Unit | None
    p_adjusted: Unit | None


def _analysis_shape(analysis: str, shape: dict[str, Any]) -> dict[str, Any]:
    properties = {
        key: {"type": "null"} if ref is None else {"$ref": f"#/$defs/{ref}"}
        for key, ref in shape.items()
    }
    return {
        "if": {"properties": {"analysis": {"const": analysis}}, "required": ["analysis"]},
        "then": {"properties": properties},
    }


ANALYSIS_SHAPES: list[dict[str, Any]] = [
    _analysis_shape(
        "binary",
        {
            "table": "Table",
            "baseline": "BinaryArm",
            "candidate": "BinaryArm",
            "mcnemar": "Mcnemar",
            "unpaired": "Unpaired",
            "graded": None,
        },
    ),
    _analysis_shape(
        "graded",
        {
            "table": None,
            "baseline": "GradedArm",
            "candidate": "GradedArm",
            "mcnemar": None,
            "unpaired": None,
            "graded": "Graded",
        },
    ),
]
"""Which blocks a binary and a graded report hold (JSON Schema ``if``/``then``)."""


# The `categories` key of the pair report's results and of the record's: one declaration.
CategoriesField = Annotated[
    Categories | None,
    Meta(
        description=(
            "The outcome categories' comparison (both runs carry `outcome` with 3+ "
            "levels, one record per item), else null. See docs/report.md."
        )
    ),
]
