"""Splitting a pair's regressions among a team of reviewers (issue 26, item 2; core only so far).

Each item goes to `per_item` different reviewers, and every reviewer gets the same number of
items give or take one. The split is deterministic: the same items and reviewers give the same
assignment on every machine and in any order they are listed, so a team need not share a file
to know who reviews what. Items are dealt in the order of their ids' sha256, not file order, so
one reviewer does not get all of one slice or one stretch of the run (files are often sorted by
category).

Who the team is comes from the command line (`--reviewers a,b,c`, `--reviews-per-item K`) or
the policy's `[review]` table (`reviewers`, `reviews_per_item`); the command line wins
(`team_of`). Every surface deals the same way from it: the app's "assigned to you", the
report's per-reviewer counts (`workloads`).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from evaltui.core.errors import UsageError
from evaltui.core.policy.reviewers import team_problem


@dataclass(frozen=True)
class Assignment:
    """Who reviews which item: `by_item` maps each item to its reviewers (in name order)."""

    reviewers: tuple[str, ...]  # sorted
    per_item: int
    by_item: Mapping[str, tuple[str, ...]]

    def of(self, reviewer: str) -> tuple[str, ...]:
        """The items assigned to `reviewer`, in the dealing order."""
        return tuple(item for item, names in self.by_item.items() if reviewer in names)

    def loads(self) -> dict[str, int]:
        """How many items each reviewer has."""
        counts = dict.fromkeys(self.reviewers, 0)
        for names in self.by_item.values():
            for name in names:
                counts[name] += 1
        return counts


def assign(item_ids: Sequence[str], reviewers: Sequence[str], per_item: int) -> Assignment:
    """Deal `item_ids` to `reviewers`, `per_item` distinct reviewers each (see the module).

    Slot s of the n * per_item slots (item s // per_item) goes to reviewer s mod R: consecutive
    slots of one item are distinct reviewers because per_item <= R, and the slots go round the
    reviewers, so the loads differ by at most one.
    """
    names = tuple(sorted(reviewers))
    if not names or any(not n.strip() for n in names):
        raise ValueError(f"reviewers must be one or more non-empty names, got {list(reviewers)!r}")
    if len(set(names)) != len(names):
        raise ValueError(f"reviewers must be distinct, got {list(reviewers)!r}")
    if not 1 <= per_item <= len(names):
        raise ValueError(
            f"per_item must be between 1 and the number of reviewers ({len(names)}), "
            f"got {per_item!r}"
        )
    order = sorted(dict.fromkeys(item_ids), key=_dealing_key)
    # Item i's reviewers depend only on (i * per_item) mod R: each such group made once.
    count = len(names)
    groups = [tuple(sorted(names[(r + j) % count] for j in range(per_item))) for r in range(count)]
    by_item = {item: groups[(i * per_item) % count] for i, item in enumerate(order)}
    return Assignment(names, per_item, by_item)


def _dealing_key(item_id: str) -> tuple[bytes, str]:
    """The sha256 digest (bytes sort as their hex does) and the id (a tie-break)."""
    return hashlib.sha256(item_id.encode("utf-8")).digest(), item_id


@dataclass(frozen=True)
class Team:
    """The reviewers a pair's regressions are split among and how many reviews each needs, as
    stated (`source`: "the command line", or the policy file that said it)."""

    reviewers: tuple[str, ...]
    per_item: int
    source: str

    def deal(self, item_ids: Sequence[str]) -> Assignment:
        return assign(item_ids, self.reviewers, self.per_item)


def parse_reviewers(text: str) -> tuple[str, ...]:
    """`--reviewers a,b,c` as names (spaces around a name are not part of it)."""
    return tuple(name.strip() for name in text.split(","))


def team_of(
    reviewers_option: str | None, per_item_option: int | None, policy: Any = None
) -> Team | None:
    """The team in force: the command line's `--reviewers` / `--reviews-per-item`, each
    winning over the policy's `[review]` table (`policy.reviewers`, `policy.reviews_per_item`);
    None when neither names reviewers. A bad list or count is a one-line UsageError naming
    where it was stated."""
    stated: tuple[str, ...] = tuple(getattr(policy, "reviewers", ()) or ())
    policy_count = getattr(policy, "reviews_per_item", None)
    policy_path = str(getattr(policy, "source_path", "the policy"))
    if reviewers_option is not None:
        names = parse_reviewers(reviewers_option)
        names = () if names == ("",) else names
        where = f"--reviewers {reviewers_option!r}"
    elif stated:
        names, where = stated, f"{policy_path}: [review] reviewers"
    elif per_item_option is not None:
        raise UsageError(
            "--reviews-per-item needs a reviewer list: --reviewers a,b,c or the policy's "
            "[review] reviewers"
        )
    else:
        return None
    if per_item_option is not None:
        per_item, where = per_item_option, f"{where} with --reviews-per-item {per_item_option}"
    elif policy_count is not None:
        per_item, where = policy_count, f"{where} with the policy's reviews_per_item"
    else:
        per_item = 1
    problem = team_problem(names, per_item)
    if problem is not None:
        raise UsageError(f"{where}: {problem}")
    told = reviewers_option is not None or per_item_option is not None
    return Team(names, per_item, "the command line" if told else f"the policy {policy_path}")


@dataclass(frozen=True)
class Workload:
    """One reviewer's share: items assigned, how many of them they have tagged, how many are
    still open to them (assigned and not yet tagged by them). A reviewer outside the team (or
    any reviewer, with no team) has `assigned` None and `tagged` counts every item they tagged."""

    reviewer: str
    assigned: int | None
    tagged: int

    @property
    def open(self) -> int | None:
        return None if self.assigned is None else self.assigned - self.tagged

    def to_dict(self) -> dict[str, Any]:
        return {
            "reviewer": self.reviewer,
            "assigned": self.assigned,
            "tagged": self.tagged,
            "open": self.open,
        }


def workloads(
    assignment: Assignment, tagged_by: Mapping[str, Iterable[str]]
) -> tuple[Workload, ...]:
    """Each reviewer's share, in name order; `tagged_by` maps a reviewer to the items they
    tagged themselves (a tag of another reviewer does not close theirs)."""
    out = []
    for name in assignment.reviewers:
        mine = set(assignment.of(name))
        done = mine & set(tagged_by.get(name, ()))
        out.append(Workload(name, len(mine), len(done)))
    return tuple(out)
