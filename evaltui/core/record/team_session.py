"""A review session's shared side: joining a shared review folder, reading the other
reviewers' journals into the merged view, settling disputes (the policy's rule, an
adjudication journalled in this reviewer's own journal), this reviewer's own reviews and the
local folder of their drafts. A mixin of `journal.ReviewSession`, kept apart so the journal's
own module stays about one journal."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from evaltui.core.errors import UsageError
from evaltui.core.record.adjudication import adjudication_entry, check_reason, latest
from evaltui.core.record.review_item import Adjudication, ItemReview
from evaltui.core.record.shared import TeamJournals, merge_reviews


class TeamSide:
    """The shared-folder methods of `ReviewSession` (its fields are declared there)."""

    if TYPE_CHECKING:  # (the dataclass `ReviewSession` declares them)
        path: Path
        info: Any
        items: dict[str, ItemReview]
        notices: list[Any]
        reviewer: str
        team: TeamJournals | None
        own: dict[str, ItemReview]
        own_adjudications: dict[str, Adjudication]
        team_changes: set[str]
        dispute_rule: str
        confirmed_tags: tuple[str, ...]
        local: Path | None

        def _append(self, entry: dict[str, Any]) -> None: ...
        def _apply(self, entry: dict[str, Any]) -> None: ...
        def review(self, item_id: str) -> ItemReview: ...

    def _join_team(self, review_dir: Path | None, local: Path) -> None:
        if review_dir is not None:
            self.team = TeamJournals(self.path.parent, self.path.name)
            self.local = local

    def refresh_team(self, keep: Any = None) -> set[str]:
        """Read what the other reviewers of a shared review wrote since the last look (the
        lines `keep` keeps), merged into `items`; the ids that changed (none when unshared)."""
        if self.team is None:
            return set()
        changed = self.team.refresh(keep)
        self.notices.extend(self.team.take_notices())
        for item_id in changed:
            self._merge(item_id)
        self.team_changes |= changed
        return changed

    def take_team_changes(self) -> set[str]:
        """The items the other reviewers changed since the last call, whichever look read them."""
        changed, self.team_changes = self.team_changes, set()
        return changed

    def _merge(self, item_id: str) -> None:
        assert self.team is not None
        mine = [self.own[item_id]] if item_id in self.own else []
        adjudications = self.team.adjudications_of(item_id)
        if item_id in self.own_adjudications:
            adjudications.append(self.own_adjudications[item_id])
        self.items[item_id] = merge_reviews(
            item_id,
            mine + self.team.reviews_of(item_id),
            latest(adjudications),
            self.dispute_rule,
            self.confirmed_tags,
        )

    def settle_disputes_by(self, rule: str, confirmed: tuple[str, ...]) -> None:
        """How this review's disputes are settled (the policy's `[review] dispute_rule` and
        its confirmed tags): every item merged again under it."""
        self.dispute_rule, self.confirmed_tags = rule, confirmed
        if self.team is not None:
            for item_id in set(self.own) | set(self.own_adjudications) | set(self.items):
                self._merge(item_id)

    def adjudicate(self, item_id: str, tag: str, reason: str) -> ItemReview:
        """Settle a disputed item as `tag`, for `reason` (one line), in this reviewer's own
        journal; returns once the line is on disk. Whether this reviewer may is the caller's
        check (`adjudication.check_adjudicator`)."""
        if self.team is None:
            raise UsageError(
                "only a shared review (--review-dir) has disputes to settle: a review of "
                "one's own has one tag per item"
            )
        if tag not in self.info.tags:
            raise UsageError(f"unknown tag {tag!r}; expected one of {', '.join(self.info.tags)}")
        entry = adjudication_entry(item_id, tag, self.reviewer, check_reason(reason))
        self._append(entry)
        self._apply(entry)
        self.refresh_team()
        return self.items[item_id]

    def own_review(self, item_id: str) -> ItemReview:
        """This reviewer's own review of the item (in a shared review, `review` is the team's
        merged one): what an undo restores and the note editor edits."""
        if self.team is None:
            return self.review(item_id)
        return self.own.get(item_id, ItemReview(item_id))

    @property
    def local_folder(self) -> Path:
        """Where this reviewer's drafts and place are kept: the journal's folder, or the local
        state folder of a shared review (the shared folder holds nothing but journals)."""
        return self.local if self.local is not None else self.path.parent
