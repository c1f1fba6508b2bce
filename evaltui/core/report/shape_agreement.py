"""The reviewers' agreement block declared (`report/agreement.py`'s `agreement_dict`): in the
report (`agreement`) and the sign-off record (`team_review.agreement`); its JSON Schema is
generated from these Structs with the rest of the report's and the record's."""

from __future__ import annotations

from typing import Annotated

from msgspec import Meta, Struct

Count = Annotated[int, Meta(ge=0)]


class AgreementStatisticBlock(Struct, kw_only=True):
    """One agreement statistic: its value and bootstrap interval, or null and the reason"""

    name: Annotated[
        str,
        Meta(description="raw_agreement, cohen_kappa, fleiss_kappa or krippendorff_alpha"),
    ]
    value: float | None
    ci: Annotated[list[float] | None, Meta(description="[lower, upper]; null: see reason")]
    applicable: bool
    reason: str
    undefined_resamples: Count


class TagAgreementBlock(AgreementStatisticBlock, kw_only=True):
    """One tag against the rest: the headline statistic of that dichotomy"""

    tag: str
    ratings: Count
    items: Count


class AgreementFlag(Struct, kw_only=True):
    flag: str
    text: str


class AgreementBlock(Struct, kw_only=True):
    """The reviewers' agreement on their tags over the items with two or more reviews
    (stats/agreement.py): Cohen's kappa with two reviewers, Krippendorff's alpha otherwise
    (the headline), with Fleiss' kappa and raw agreement; seeded percentile bootstrap over
    items"""

    line: Annotated[str, Meta(description="the one line every surface prints")]
    headline: str | None
    reviewers: list[str]
    tags: list[str]
    n_items: Annotated[Count, Meta(description="items with two or more reviews (counted)")]
    n_single: Annotated[Count, Meta(description="items with one review (left out)")]
    n_ratings: Count
    unanimous: Count
    raw_agreement: AgreementStatisticBlock
    cohen_kappa: AgreementStatisticBlock
    fleiss_kappa: AgreementStatisticBlock
    krippendorff_alpha: AgreementStatisticBlock
    per_tag: list[TagAgreementBlock]
    confidence: float
    resamples: Count
    seed: int
    flags: list[AgreementFlag]
