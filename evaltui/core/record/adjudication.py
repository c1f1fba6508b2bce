"""Settling a disputed item: an adjudicator's journalled adjudication, or the policy's rule.

A shared review keeps every reviewer's tag; when the tags differ the item is "disputed" and
counts as untriaged (`shared.merge_reviews`). A dispute is settled, never averaged, in one of
two ways, which the policy's `[review]` table names (`dispute_rule`):

- ``"adjudicator"`` (the default): a named adjudicator (`--adjudicator NAME`, repeatable or a
  comma list, or the policy's `[review] adjudicators = [...]`) gives the settled tag and a
  one-line reason. It is one `adjudication` line in the adjudicator's own journal (item, tag,
  by, reason, time), so it merges in git like every other line. A later adjudication of the
  same item (by anyone's journal, compared by time; the same second: the later line of one
  journal, else the reviewer name that sorts last) replaces the earlier one. An adjudication
  is final: reviews changed after it do not reopen the item; a new adjudication does.
- ``"any_confirmed_wins"``: a disputed item any reviewer tagged with a confirmed-regression tag
  (the policy's `[tags] confirmed`) is settled as that tag (the most often given one when
  several confirmed tags were, then the first in name order): one reviewer's confirmation is
  enough to count the regression as confirmed. A disputed item no reviewer confirmed still
  needs an adjudicator, and an adjudication, when there is one, settles the item under this
  rule too (it is the adjudicator's word).

Who may adjudicate is checked when the adjudication is written (the app's key, `evaltui
adjudicate`), never when a journal is read: a journal says what was done, and the sign-off
record lists every adjudication with its author for the auditor.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from dataclasses import replace
from datetime import datetime
from typing import Any

from evaltui.core.errors import UsageError
from evaltui.core.record.review_item import Adjudication, ItemReview

ADJUDICATION = "adjudication"  # the journal entry's kind
ADJUDICATOR_RULE = "adjudicator"
ANY_CONFIRMED_WINS = "any_confirmed_wins"
DISPUTE_RULES = (ADJUDICATOR_RULE, ANY_CONFIRMED_WINS)
ADJUDICATORS_VARIABLE = "EVALTUI_ADJUDICATORS"  # --adjudicator, for every review a command opens
MAX_REASON = 500


def parse_adjudicators(values: Iterable[str]) -> tuple[str, ...]:
    """Names from `--adjudicator` (repeatable, each a comma list), stripped, in order, once."""
    names = (name.strip() for value in values for name in value.split(","))
    return tuple(dict.fromkeys(name for name in names if name))


def adjudicators_from_env() -> tuple[str, ...]:
    """The adjudicators the command line named ($EVALTUI_ADJUDICATORS, a comma list)."""
    return parse_adjudicators([os.environ.get(ADJUDICATORS_VARIABLE, "")])


def who_may_settle(adjudicators: Sequence[str]) -> str:
    """Who may settle a dispute, in words (the message a non-adjudicator is given)."""
    if not adjudicators:
        return (
            "no adjudicator is named: give --adjudicator NAME or the policy's [review] "
            "adjudicators = [...]"
        )
    return "only " + ", ".join(adjudicators) + " may settle a dispute (the adjudicators)"


def check_adjudicator(who: str, adjudicators: Sequence[str]) -> None:
    """Raise a UsageError, in one line, unless `who` is a named adjudicator."""
    if who.strip() not in adjudicators:
        raise UsageError(f"{who or 'you'} cannot settle this item: {who_may_settle(adjudicators)}")


def check_reason(reason: str) -> str:
    """The adjudication's reason: required, one line, at most MAX_REASON characters."""
    text = reason.strip()
    if not text:
        raise UsageError("an adjudication needs a reason: say why, in one line")
    if "\n" in text or "\r" in text:
        raise UsageError("an adjudication's reason is one line (no line breaks)")
    if len(text) > MAX_REASON:
        raise UsageError(f"an adjudication's reason is at most {MAX_REASON} characters")
    return text


def adjudication_entry(item_id: str, tag: str, by: str, reason: str) -> dict[str, Any]:
    """The journal line of an adjudication (the journal adds its time)."""
    return {"kind": ADJUDICATION, "item_id": item_id, "tag": tag, "by": by, "reason": reason}


def adjudication_of(entry: dict[str, Any], fallback_by: str = "") -> Adjudication | None:
    """An `adjudication` journal line read back; None for one without an item, a tag or a
    reason (edited by hand: the caller says so as damage, never settles on it)."""
    if not all(isinstance(entry.get(k), str) and entry[k] for k in ("item_id", "tag", "reason")):
        return None
    return Adjudication(
        item_id=str(entry.get("item_id", "")),
        tag=str(entry.get("tag", "")),
        by=str(entry.get("by") or fallback_by),
        reason=str(entry.get("reason", "")),
        time=str(entry.get("time", "")),
    )


def _when(text: str) -> datetime | None:
    try:
        return datetime.strptime(text, "%Y-%m-%dT%H:%M:%S%z")
    except ValueError:
        return None


def latest(adjudications: Iterable[Adjudication]) -> Adjudication | None:
    """The adjudication in force: the latest by time (see the module docstring for a tie;
    `adjudications` come in journal order, each journal's own lines oldest first)."""
    best: Adjudication | None = None
    best_key: tuple[float, str] | None = None
    for adjudication in adjudications:
        when = _when(adjudication.time)
        key = (when.timestamp() if when is not None else float("-inf"), adjudication.by)
        if best_key is None or key >= best_key:
            best, best_key = adjudication, key
    return best


def settle(
    merged: ItemReview,
    adjudication: Adjudication | None,
    rule: str = ADJUDICATOR_RULE,
    confirmed: Sequence[str] = (),
) -> ItemReview:
    """The merged item with its dispute settled, when an adjudication or the rule settles it
    (see the module docstring); as it was otherwise."""
    if adjudication is not None:
        return replace(
            merged,
            tag=adjudication.tag,
            disputed=False,
            adjudication=adjudication,
            settled=f"settled by {adjudication.by}",
            seen=None,
        )
    if not merged.disputed or rule != ANY_CONFIRMED_WINS:
        return merged
    given = [r.tag for r in merged.reviews if r.tag in confirmed]
    if not given:
        return merged
    tag = min(set(given), key=lambda t: (-given.count(t), t))
    return replace(merged, tag=tag, disputed=False, settled=f"settled by the rule {rule}")
