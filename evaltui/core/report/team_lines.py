"""The report's `review` block (a team's review: `record/team_view.py` builds it) in words:
each reviewer's share as a Markdown table or plain lines, and how many items are disputed."""

from __future__ import annotations

from typing import Any

from evaltui.core.textsafe import md_cell


def _count(value: int | None) -> str:
    return "—" if value is None else f"{value:,}"


def _team_line(review: dict[str, Any]) -> str:
    team = review.get("team")
    disputed = sum(1 for item in review["items"] if item["disputed"])
    reviewed = len(review["items"])
    tail = f"{reviewed:,} regression(s) tagged, {disputed:,} disputed"
    if team is None:
        return f"Review by several reviewers (no assignment): {tail}"
    return (
        f"Review team: {len(team['reviewers'])} reviewer(s), {team['reviews_per_item']} "
        f"review(s) per regression (from {team['source']}); {tail}"
    )


def review_markdown(review: dict[str, Any] | None) -> list[str]:
    """The `review` block as a Markdown section (nothing without one)."""
    if review is None:
        return []
    lines = ["### Review", "", md_cell(_team_line(review)), ""]
    lines += ["| reviewer | assigned | tagged | open |", "|---|---:|---:|---:|"]
    for row in review["reviewers"]:
        lines.append(
            f"| {md_cell(row['reviewer'] or '?')} | {_count(row['assigned'])} | "
            f"{_count(row['tagged'])} | {_count(row['open'])} |"
        )
    return [*lines, ""]


def review_text(review: dict[str, Any] | None) -> list[str]:
    """The `review` block as plain lines (nothing without one); names are untrusted text,
    the caller makes them inert."""
    if review is None:
        return []
    lines = [_team_line(review)]
    for row in review["reviewers"]:
        lines.append(
            f"  {row['reviewer'] or '?'}: assigned {_count(row['assigned'])}, "
            f"tagged {_count(row['tagged'])}, open {_count(row['open'])}"
        )
    return lines
