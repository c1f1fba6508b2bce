"""The results of the agreement statistics (``agreement``): frozen, echoing their inputs.

Kept apart from the computation so that the surfaces that show agreement (header, report,
sign-off record) can import the shapes without the arithmetic. A statistic that cannot be
computed carries ``value`` None and its reason in words, never a number standing in for one.
"""

from __future__ import annotations

from dataclasses import dataclass

from evaltui.core.stats.interval import Interval

__all__ = [
    "ALPHA",
    "COHEN",
    "FLAG_TEXT",
    "FLEISS",
    "NAMES",
    "RAW",
    "SMALL_N",
    "AgreementStatistic",
    "AgreementSummary",
    "TagAgreement",
]

COHEN, FLEISS, ALPHA, RAW = "cohen_kappa", "fleiss_kappa", "krippendorff_alpha", "raw_agreement"
NAMES = {
    COHEN: "Cohen's kappa",
    FLEISS: "Fleiss' kappa",
    ALPHA: "Krippendorff's alpha",
    RAW: "raw agreement",
}

SMALL_N = 30
"""Below this many items with two or more reviews the summary carries the ``few_items`` flag: in
the coverage simulation (tests/core/stats/test_agreement_coverage.py's model) a 95% interval
covered 89-92% at 10 items, 91-94% at 20, 94-94.4% at 30."""

FLAG_TEXT: dict[str, str] = {
    "few_items": (
        f"fewer than {SMALL_N} items have two or more reviews: the interval may cover less "
        "than its level (about 90% for a 95% interval at 10 items)"
    ),
}
"""Plain-words explanation of each flag an :class:`AgreementSummary` can carry."""


@dataclass(frozen=True)
class AgreementStatistic:
    """One statistic: its value and interval, or None and the reason in words.

    ``applicable`` is False when the statistic does not fit the design (Cohen's kappa with three
    reviewers); ``value`` is None then, and also when it fits but is undefined on these data.
    ``undefined_resamples`` counts the bootstrap resamples on which it was undefined.
    """

    name: str
    value: float | None
    ci: Interval | None
    applicable: bool
    reason: str
    undefined_resamples: int

    @property
    def label(self) -> str:
        """The statistic's name in words ("Cohen's kappa")."""
        return NAMES[self.name]


@dataclass(frozen=True)
class TagAgreement:
    """One tag: how often it was given, and the headline statistic of tag-vs-rest."""

    tag: str
    ratings: int  # reviews that gave this tag (counted items only)
    items: int  # counted items on which at least one review gave it
    statistic: AgreementStatistic


@dataclass(frozen=True)
class AgreementSummary:
    """The agreement of the reviewers over the items with two or more reviews.

    Echoes its inputs: the reviewers and tags, the bootstrap's resamples, seed and confidence,
    so a sign-off record can be recomputed exactly.
    """

    reviewers: tuple[str, ...]  # who reviewed at least one counted item
    labels: tuple[str, ...]
    n_items: int  # items with two or more reviews: the ones counted
    n_single: int  # items with exactly one review, left out
    n_ratings: int  # reviews on counted items
    unanimous: int  # counted items on which every review gave the same tag
    raw: AgreementStatistic
    cohen: AgreementStatistic
    fleiss: AgreementStatistic
    alpha: AgreementStatistic
    tags: tuple[TagAgreement, ...]  # in ``labels`` order
    confidence: float
    resamples: int
    seed: int
    flags: tuple[str, ...]

    @property
    def n_reviewers(self) -> int:
        return len(self.reviewers)

    @property
    def disagreed(self) -> int:
        """Counted items whose reviews do not all give the same tag."""
        return self.n_items - self.unanimous

    @property
    def headline(self) -> AgreementStatistic:
        """Cohen's kappa with two reviewers, Krippendorff's alpha otherwise."""
        return self.cohen if self.cohen.applicable else self.alpha
