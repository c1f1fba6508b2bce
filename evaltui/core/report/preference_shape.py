"""The preference report (``evaltui.prefer/1``) declared.

``preference_report_dict`` (``core/report/preference.py``) builds it as a dict; these msgspec
Structs describe it, and ``evaltui.core.schema_gen`` writes docs/schema/prefer.schema.json
from them.
"""

from __future__ import annotations

from typing import Annotated, Literal

from msgspec import Meta, Struct

from evaltui.core.report.shape import Tool
from evaltui.core.report.shape_results import Count, Level, Sha256, Unit, Verdict

TieRule = Literal["split", "drop"]


Interval01 = Annotated[list[Unit], Meta(min_length=2, max_length=2)]


class PreferenceReport(Struct, kw_only=True):
    """The output of `evaltui prefer FILE --format json`, built by
    evaltui.core.report.preference.preference_report_dict. Keys are documented in
    docs/preferences.md. Additional keys may appear in later versions of the same schema; readers
    ignore what they do not know.
    """

    schema: Literal["evaltui.prefer/1"]
    tool: Tool
    decision: PreferenceDecision
    input: PreferenceInput
    options: PreferenceOptions
    systems: Annotated[list[str], Meta(min_length=2)]
    baseline: str
    candidates: Annotated[list[str], Meta(min_length=1)]
    head_to_head: list[HeadToHead]
    pairs: list[PreferencePair]
    matrix: PreferenceMatrix
    bradley_terry: BradleyTerry | None


class PreferenceDecision(Struct, kw_only=True):
    status: Literal["blocked", "not_enough_data", "needs_review", "ready"]
    line: Annotated[str, Meta(min_length=1)]
    exit_code: Literal[0, 1, 4]
    effect: str
    verdicts: dict[str, Verdict]
    reasons: list[PreferenceReason]


class PreferenceReason(Struct, kw_only=True):
    kind: Literal["regressed", "no_verdict", "on_the_line"]
    text: str
    blocking: bool


class PreferenceInput(Struct, kw_only=True):
    path: str
    format: Literal["jsonl", "csv"]
    size: Count
    sha256: Sha256
    judgments: Annotated[int, Meta(ge=1)]
    items: Annotated[int, Meta(ge=1)]
    named_systems: bool


class PreferenceOptions(Struct, kw_only=True):
    ties: TieRule
    confidence: Level
    alpha: Level
    multiplicity: Literal["holm", "bh", "bonferroni", "none"]
    baseline: str | None
    candidate: str | None


class HeadToHead(Struct, kw_only=True):
    candidate: str
    verdict: Verdict
    pair: PreferencePair | None


class PreferenceMatrix(Struct, kw_only=True):
    systems: list[str]
    rule: TieRule
    win_rate: list[list[Unit | None]]


class PreferencePair(Struct, kw_only=True):
    system_a: str
    system_b: str
    a_better: Count
    b_better: Count
    ties: Count
    n: Annotated[int, Meta(ge=1)]
    primary: TieRule
    win_rate: WinRates
    sign_test_p: Unit | None
    p_adjusted: Unit | None
    flags: list[Literal["no_decisive", "few_decisive", "one_sided", "small_n", "ci_test_disagree"]]
    own_verdict: Verdict
    verdict: Verdict


class WinRates(Struct, kw_only=True):
    split: WinRate
    drop: WinRate


class WinRate(Struct, kw_only=True):
    estimate: Unit | None
    ci: Interval01 | None
    method: Literal["tango", "wilson"] | None
    items: Count


class BradleyTerry(Struct, kw_only=True):
    baseline: str
    confidence: Level
    ties: str
    method: str
    log_likelihood: Annotated[float, Meta(le=0)]
    iterations: Count
    flags: list[Literal["infinite_strength", "not_identified"]]
    strengths: list[Strength]
    covariance: Covariance


class Strength(Struct, kw_only=True):
    system: str
    status: Literal["baseline", "estimated", "plus_infinity", "minus_infinity", "not_identified"]
    log_strength: float | None
    se: Annotated[float, Meta(ge=0)] | None
    ci: Annotated[list[float], Meta(min_length=2, max_length=2)] | None
    win_probability: Unit | None
    win_probability_ci: Interval01 | None
    wins: Annotated[float, Meta(ge=0)]
    comparisons: Count


class Covariance(Struct, kw_only=True):
    systems: list[str]
    matrix: list[list[float]]
