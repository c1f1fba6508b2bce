"""What the reviewer's tags mean for the decision: confirmed, grader error, still open.

A tag is a word to the reviewer; to the decision it is one of three things. A confirmed
regression blocks (per slice too). A grader error says the item's verdict is not to be trusted:
the decision shows the analysis without those items beside the headline, never instead of it.
An open tag ("needs investigation") does not close the item: it stays untriaged. Any other tag
(acceptable, flaky…) closes the item without blocking. A policy's `[tags]` table may rename
them; without one the defaults below hold.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

CONFIRMED = "confirmed"
GRADER_ERROR = "grader_error"
OPEN = "open"
MEANINGS = (CONFIRMED, GRADER_ERROR, OPEN)


@dataclass(frozen=True)
class TagMeanings:
    """Which tags count as confirmed regressions, grader errors, and not yet triaged."""

    confirmed: tuple[str, ...] = ("confirmed regression",)
    grader_error: tuple[str, ...] = ("grader error",)
    open: tuple[str, ...] = ("needs investigation",)

    def __post_init__(self) -> None:
        seen: dict[str, str] = {}
        for meaning in MEANINGS:
            for tag in getattr(self, meaning):
                if tag in seen:
                    raise ValueError(
                        f"tag {tag!r} is listed as both {seen[tag]} and {meaning}; "
                        "give each tag one meaning"
                    )
                seen[tag] = meaning

    def meaning(self, tag: str | None) -> str | None:
        """CONFIRMED, GRADER_ERROR or OPEN for a tag that has one; None otherwise."""
        if tag is None:
            return None
        return next((m for m in MEANINGS if tag in getattr(self, m)), None)

    def triaged(self, tag: str | None) -> bool:
        """A tag closes the item unless it is an open one."""
        return tag is not None and tag not in self.open

    def named(self) -> tuple[str, ...]:
        return (*self.confirmed, *self.grader_error, *self.open)

    def canonical(self) -> dict[str, Any]:
        return {meaning: list(getattr(self, meaning)) for meaning in MEANINGS}


DEFAULT_MEANINGS = TagMeanings()
