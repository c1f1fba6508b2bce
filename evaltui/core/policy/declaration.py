"""The policy file declared: every setting and every gate kind's keys as msgspec Structs.

Each key is declared once, here, with its type, its default (or none: required), its range and
a one-line meaning (``Meta.description``); what an error says was expected is the key's
``Meta.extra["expected"]`` where the type alone does not say it in a reviewer's words.
:func:`checking.convert` checks a TOML table against a declaration with ``msgspec.convert``
(strict: no string is taken for a number, no boolean for a count) and turns msgspec's answer into
a ``KeyProblem`` naming the key and what was expected, which the reader places at the file's
line. A typo in a safety gate must never turn it into a gate that always passes, so unknown keys
are refused.

Why msgspec rather than pydantic: the policy, the report and the sign-off record are plain data
read and written as JSON or TOML; msgspec Structs declare them, ``msgspec.convert`` checks them
and ``msgspec.json.schema_components`` writes their JSON Schemas, in one small package with no
dependencies. The app's start-up is mostly imports, and msgspec imports in about half the time
of pydantic v2 (60 ms against 113 ms for ``BaseModel`` here, on a loaded machine), which also
brings pydantic-core, typing-extensions and annotated-types; pydantic's extra features
(coercion modes, serialisers, settings) are not needed for data that is only checked.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

import msgspec
from msgspec import Meta, Struct

from evaltui.core.read.runs import PASSED
from evaltui.core.read.turns import COST_FIGURES
from evaltui.core.stats.paired_delta import CI_METHODS, DEFAULT_CI_METHOD

__all__ = [
    "ARMS",
    "GATE_KINDS",
    "GATE_KIND_DECLARATIONS",
    "MARGIN_EXPECTED",
    "MARGIN_KEYS",
    "MULTIPLICITY_METHODS",
    "AllTriagedGate",
    "GateDeclaration",
    "Margin",
    "MinEffectGate",
    "MinPassRateGate",
    "NoRegressionsGate",
    "NoTagGate",
    "PassRate",
    "Probability",
    "RateDifference",
    "ReviewTable",
    "Settings",
    "TagLists",
    "TAG_TABLE_EXPECTED",
    "TagNames",
    "Text",
    "declared_field",
    "declared_keys",
    "gate_declaration",
    "gate_keys",
    "meaning",
    "struct_info",
]

MULTIPLICITY_METHODS: tuple[str, ...] = ("holm", "bh", "bonferroni")
ARMS: tuple[str, ...] = ("candidate", "baseline")
MARGIN_KEYS: tuple[str, ...] = ("non_inferiority_margin", "equivalence_margin")
"""The margin settings: each enters the rules' hash only when the file states it."""

_PROBABILITY = "a number strictly between 0 and 1"
TAG_TABLE_EXPECTED = "a table of tag lists (confirmed, grader_error, open)"
MARGIN_EXPECTED = "a positive number in the metric's units (0.01 = 1 point of pass rate)"


_NUMBER = {"a_number": "a number"}
Text = Annotated[str, Meta(pattern=r"\S", extra={"expected": "a non-empty string"})]
"""A non-empty string (blank names and slices would match nothing, silently)."""
Probability = Annotated[float, Meta(gt=0.0, lt=1.0, extra={**_NUMBER, "expected": _PROBABILITY})]
Margin = Annotated[float, Meta(gt=0.0, extra={**_NUMBER, "expected": MARGIN_EXPECTED})]
"""Finite too: msgspec bounds are finite, so the reader refuses an infinite margin itself."""
RateDifference = Annotated[
    float,
    Meta(
        gt=-1.0,
        lt=1.0,
        extra={**_NUMBER, "expected": "a rate difference between -1 and 1 (0.02 = 2 points)"},
    ),
]
PassRate = Annotated[
    float,
    Meta(
        ge=0.0,
        le=1.0,
        extra={
            "expected": "a pass rate between 0 and 1 (0.9 = 90%)",
            "a_number": "a pass rate between 0 and 1 (0.9 = 90%)",
        },
    ),
]
TagNames = tuple[Annotated[str, Meta(min_length=1)], ...]
Growth = Annotated[
    float,
    Meta(
        ge=-1.0,
        le=100.0,
        extra={**_NUMBER, "expected": "a share of the baseline's mean (0.2 = 20% more)"},
    ),
]
# The same bound on a count: `max_limit_hits_growth` compares items stopped by a limit, not means.
LimitHitsGrowth = Annotated[
    float,
    Meta(
        ge=-1.0,
        le=100.0,
        extra={
            **_NUMBER,
            "expected": "a share of the baseline's count of items stopped by a limit "
            "(0 = no more than the baseline)",
        },
    ),
]


class TagLists(Struct, forbid_unknown_fields=True, kw_only=True):
    """The ``[tags]`` table: for each meaning (see ``policy/tags.py``), a list of tag names; a
    meaning not given keeps its default tags."""

    confirmed: Annotated[TagNames, Meta(description="tags of confirmed regressions")] = (
        "confirmed regression",
    )
    grader_error: Annotated[TagNames, Meta(description="tags of grader errors")] = ("grader error",)
    open: Annotated[TagNames, Meta(description="tags that leave an item untriaged")] = (
        "needs investigation",
    )


class _Gate(Struct, tag_field="kind", forbid_unknown_fields=True, kw_only=True):
    name: (
        Annotated[Text, Meta(description="the gate's name in reports; made from its settings")]
        | None
    ) = None
    slice: (
        Annotated[Text, Meta(description="the slice the gate applies to; all items if not given")]
        | None
    ) = None


class NoRegressionsGate(_Gate, tag="no_regressions", kw_only=True):
    """fails when any item regressed (baseline passed, candidate failed)"""


class MinPassRateGate(_Gate, tag="min_pass_rate", kw_only=True):
    """fails when that arm's pass rate is below rate"""

    arm: Annotated[
        Literal[ARMS],  # type: ignore[valid-type]
        Meta(description="the run whose pass rate is checked"),
    ] = "candidate"
    rate: Annotated[PassRate, Meta(description="the lowest acceptable pass rate")]


class NoTagGate(_Gate, tag="no_tag", kw_only=True):
    """fails when a regression carries the tag; pending without a review session"""

    tag: Annotated[Text, Meta(description="the review tag no regression may carry")]


class AllTriagedGate(_Gate, tag="all_triaged", kw_only=True):
    """pending while any regression is untagged, passed once all are"""


class MinEffectGate(_Gate, tag="min_effect", kw_only=True):
    """fails unless the delta interval's lower bound is at least the min_effect setting"""


class MaxCostGrowthGate(_Gate, tag="max_cost_growth", kw_only=True):
    """fails when the candidate's mean cost per item exceeds the baseline's by more than growth"""

    figure: Annotated[
        Literal[COST_FIGURES],  # type: ignore[valid-type]
        Meta(description="the cost figure compared"),
    ] = "working_time"
    growth: Annotated[Growth, Meta(description="the largest acceptable growth (0.2 = 20%)")]


class MaxLimitHitsGrowthGate(_Gate, tag="max_limit_hits_growth", kw_only=True):
    """fails when the candidate has more items stopped by a limit than growth allows"""

    growth: Annotated[
        LimitHitsGrowth,
        Meta(description="the largest acceptable growth in items stopped (0 = no more than)"),
    ]


GATE_KIND_DECLARATIONS: tuple[type[_Gate], ...] = (
    NoRegressionsGate,
    MinPassRateGate,
    NoTagGate,
    AllTriagedGate,
    MinEffectGate,
    MaxCostGrowthGate,
    MaxLimitHitsGrowthGate,
)
GateDeclaration = (
    NoRegressionsGate
    | MinPassRateGate
    | NoTagGate
    | AllTriagedGate
    | MinEffectGate
    | MaxCostGrowthGate
    | MaxLimitHitsGrowthGate
)
_BY_KIND: dict[str, type[_Gate]] = {
    str(kind.__struct_config__.tag): kind for kind in GATE_KIND_DECLARATIONS
}
GATE_KINDS: tuple[str, ...] = tuple(_BY_KIND)


class MetricDeclaration(Struct, forbid_unknown_fields=True, kw_only=True):
    """What the policy says of one metric: which way is better (a loss, a latency, a
    distance: lower). Used where the log does not declare it and `--direction` is not given."""

    direction: Annotated[
        Literal["higher", "lower"],
        Meta(description="which way is better: higher or lower"),
    ]


class ReviewTable(Struct, forbid_unknown_fields=True, kw_only=True):
    """The ``[review]`` table: how a team splits the regressions (``core/record/assignment.py``)
    and how a shared review's disputes are settled (``core/record/adjudication.py`` says each
    rule's exact meaning). One key per line."""

    reviewers: Annotated[
        tuple[str, ...],
        Meta(
            description="the reviewers the regressions are split among (distinct names)",
            extra={"expected": "a list of reviewer names"},
        ),
    ] = ()
    reviews_per_item: (
        Annotated[
            int,
            Meta(
                ge=1,
                description="how many different reviewers review each regression (default 1)",
                extra={"expected": "a whole number of reviews per item, at least 1"},
            ),
        ]
        | None
    ) = None
    adjudicators: Annotated[
        tuple[Annotated[str, Meta(min_length=1)], ...],
        Meta(
            description="the reviewers who may settle a disputed item (with --adjudicator)",
            extra={"expected": "a list of reviewer names"},
        ),
    ] = ()
    # None: not stated (the rule is then "adjudicator", and the rules' hash does not hold it).
    dispute_rule: (
        Annotated[
            Literal["adjudicator", "any_confirmed_wins"],
            Meta(
                description=(
                    "how a disputed item is settled: by an adjudicator (the default), or any "
                    "reviewer's confirmed-regression tag settles it as confirmed"
                )
            ),
        ]
        | None
    ) = None


class Settings(Struct, forbid_unknown_fields=True, kw_only=True):
    """The top-level keys of a policy file, all optional."""

    primary_metric: Annotated[Text, Meta(description="the metric the decision rests on")] = PASSED
    alpha: Annotated[Probability, Meta(description="two-sided significance level of the tests")] = (
        0.05
    )
    ci_method: Annotated[
        Literal[CI_METHODS],  # type: ignore[valid-type]
        Meta(description="interval method for the paired difference in pass rate"),
    ] = DEFAULT_CI_METHOD
    confidence: (
        Annotated[
            Probability, Meta(description="level of the delta interval; 1 - alpha when not given")
        ]
        | None
    ) = None
    multiplicity: Annotated[
        Literal[MULTIPLICITY_METHODS],  # type: ignore[valid-type]
        Meta(description="correction of the slices' p-values for reading them all at once"),
    ] = "holm"
    min_effect: (
        Annotated[
            RateDifference,
            Meta(description="smallest gain worth shipping in rate units; negative: a margin"),
        ]
        | None
    ) = None
    non_inferiority_margin: (
        Annotated[
            Margin, Meta(description="how much worse the candidate may be, in the metric's units")
        ]
        | None
    ) = None
    equivalence_margin: (
        Annotated[Margin, Meta(description="the band +-margin the candidate must stay within")]
        | None
    ) = None
    monitor: Annotated[
        tuple[str, ...],
        Meta(
            description="metrics shown but kept out of the multiplicity family",
            extra={"expected": "a list of metric names"},
        ),
    ] = ()
    secondary: Annotated[
        tuple[str, ...],
        Meta(
            description=(
                "metrics (scorers) compared, shown and adjusted with the family, whose "
                "regression does not block the release (every other metric's does)"
            ),
            extra={"expected": "a list of metric names"},
        ),
    ] = ()
    metrics: Annotated[
        dict[str, MetricDeclaration],
        Meta(
            description=(
                "per metric (its name, as --metric takes it): which way is better, for a "
                "metric whose log does not declare it"
            ),
            extra={"expected": "[metrics.NAME] tables"},
        ),
    ] = {}
    gates: Annotated[
        tuple[GateDeclaration, ...],
        Meta(
            description="the rules, evaluated in file order",
            extra={"expected": "[[gates]] tables (an array of tables)"},
        ),
    ] = ()
    review: (
        Annotated[
            ReviewTable,
            Meta(
                description=(
                    "the review team and its disputes: reviewers, reviews per item, "
                    "adjudicators, dispute rule"
                ),
                extra={
                    "expected": (
                        "a [review] table (reviewers, reviews_per_item, adjudicators, dispute_rule)"
                    )
                },
            ),
        ]
        | None
    ) = None
    tags: (
        Annotated[
            TagLists,
            Meta(
                description="what the review's tags mean: confirmed, grader errors, still open",
                extra={"expected": TAG_TABLE_EXPECTED},
            ),
        ]
        | None
    ) = None


# --------------------------------------------------------------------------------------------
# Looking a declaration up (checking a table against one: `checking.py`)
# --------------------------------------------------------------------------------------------


def struct_info(declaration: type[Struct]) -> msgspec.inspect.StructType:
    """msgspec's description of a Struct class (``type_info`` is typed for any type)."""
    info = msgspec.inspect.type_info(declaration)
    if not isinstance(info, msgspec.inspect.StructType):
        raise TypeError(f"{declaration!r} is not a msgspec Struct")
    return info


def declared_keys(declaration: type[Struct]) -> tuple[str, ...]:
    """The keys a table may hold, in declared order (a gate's ``kind`` first)."""
    info = struct_info(declaration)
    names = tuple(field.encode_name for field in info.fields)
    return (info.tag_field, *names) if info.tag_field else names


def gate_keys(kind: str) -> tuple[str, ...]:
    """A gate kind's own keys (beyond ``kind`` and ``name``), in declared order: what the rules'
    hash holds of it."""
    return tuple(key for key in declared_keys(_BY_KIND[kind]) if key not in ("kind", "name"))


def gate_declaration(kind: str) -> type[_Gate] | None:
    return _BY_KIND.get(kind)


def meaning(declaration: type[Struct], key: str) -> str:
    """The declared one-line meaning of ``key``."""
    field = declared_field(declaration, key)
    if field is None:
        return ""
    info = field.type
    if isinstance(info, msgspec.inspect.UnionType):
        info = next(t for t in info.types if not isinstance(t, msgspec.inspect.NoneType))
    schema = getattr(info, "extra_json_schema", None) or {}
    return str(schema.get("description", ""))


def declared_field(declaration: type[Struct], key: str) -> Any:
    info = struct_info(declaration)
    return next((f for f in info.fields if f.encode_name == key), None)
