"""The policy's ``[review]`` table checked: its keys one by one against their declaration
(``declaration.ReviewTable``), then across them: the reviewers must be distinct names, and no
more reviews per item may be asked for than there are reviewers (each review of an item is by a
different reviewer). Every problem is one line naming ``[review]`` and the key."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from evaltui.core.policy.checking import KeyProblem, convert
from evaltui.core.policy.declaration import ReviewTable

_UNKNOWN = "[review]: unknown key {key!r}; expected one of {keys}"


def review_table(value: object) -> ReviewTable | None:
    """The ``[review]`` table, checked (None when the file has none); a problem raises
    :class:`KeyProblem` on the key ``review`` (the reader places it at the table's line)."""
    if value is None:
        return None
    if not isinstance(value, dict):
        shown = type(value).__name__ if isinstance(value, list) else repr(value)
        raise KeyProblem("review", f"expected a [review] table, got {shown}")
    try:
        table: ReviewTable = convert(ReviewTable, value, _UNKNOWN, "")
    except KeyProblem as exc:
        raise KeyProblem("review", _placed(exc.key, exc.problem)) from None
    if "reviewers" in value:
        problem = team_problem(table.reviewers, table.reviews_per_item or 1)
        if problem is not None:
            raise KeyProblem("review", f"[review] reviewers: {problem}")
    elif table.reviews_per_item is not None:
        raise KeyProblem(
            "review",
            "[review] reviews_per_item needs reviewers = [...] in the same table",
        )
    return table


def review_canonical(table: ReviewTable | None) -> dict[str, Any] | None:
    """What the policy's rules hash holds of ``[review]``: its stated keys, or None (no table:
    the hash of every policy written before it existed stays the same)."""
    if table is None:
        return None
    out: dict[str, Any] = {}
    if table.reviewers:
        out["reviewers"] = list(table.reviewers)
    if table.reviews_per_item is not None:
        out["reviews_per_item"] = table.reviews_per_item
    if table.adjudicators:
        out["adjudicators"] = list(table.adjudicators)
    if table.dispute_rule is not None:
        out["dispute_rule"] = table.dispute_rule
    return out


def _placed(key: str, problem: str) -> str:
    return problem if problem.startswith("[review]") else f"[review] {key}: {problem}"


def team_problem(reviewers: Sequence[str], per_item: int) -> str | None:
    """What is wrong with a reviewer list and a count of reviews per item, in words (None: it
    deals). Both the command line and the policy's `[review]` table say it this way."""
    if not reviewers:
        return "expected one or more reviewer names, got an empty list"
    blank = [name for name in reviewers if not name.strip()]
    if blank:
        return f"expected reviewer names, got an empty name in {list(reviewers)!r}"
    seen: set[str] = set()
    for name in reviewers:
        if name in seen:
            return f"names the reviewer {name!r} twice; expected distinct names"
        seen.add(name)
    if isinstance(per_item, bool) or not isinstance(per_item, int) or per_item < 1:
        return f"expected a whole number of reviews per item of at least 1, got {per_item!r}"
    if per_item > len(reviewers):
        return (
            f"asks for {per_item} reviews per item from {len(reviewers)} reviewer(s) "
            f"({', '.join(reviewers)}); expected at most {len(reviewers)}: each review of an "
            "item is by a different reviewer"
        )
    return None
