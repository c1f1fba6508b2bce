"""The report's `review` block declared (a team's review: `record/team_view.team_review`): its
JSON Schema is generated from these Structs with the rest of the report's."""

from __future__ import annotations

from typing import Annotated

from msgspec import Meta, Struct

Count = Annotated[int, Meta(ge=0)]


class ReviewTeam(Struct, kw_only=True):
    """The team the regressions are split among (`--reviewers` or the policy's [review])"""

    reviewers: list[str]
    reviews_per_item: Annotated[int, Meta(ge=1)]
    source: Annotated[str, Meta(description='"the command line" or "the policy PATH"')]


class ReviewerShare(Struct, kw_only=True):
    """One reviewer's share of the regressions"""

    reviewer: str
    assigned: Annotated[Count | None, Meta(description="null: not in the team (or no team stated)")]
    tagged: Annotated[
        Count, Meta(description="assigned items they tagged (no team: every item they tagged)")
    ]
    open: Annotated[Count | None, Meta(description="assigned items they have not tagged")]


class ReviewOfItem(Struct, kw_only=True):
    reviewer: str
    tag: str


class ReviewedItem(Struct, kw_only=True):
    """A regression with at least one reviewer's tag: the merged tag (null when the reviews
    disagree: disputed, untriaged) and every reviewer's"""

    item_id: str
    tag: str | None
    disputed: bool
    reviews: list[ReviewOfItem]
    assigned: list[str] | None = None


class ReviewBlock(Struct, kw_only=True):
    """A team's review (several reviewers' journals in a shared review folder, or a team
    stated): each reviewer's share and the merged view of every reviewed regression"""

    team: ReviewTeam | None
    reviewers: list[ReviewerShare]
    items: list[ReviewedItem]
