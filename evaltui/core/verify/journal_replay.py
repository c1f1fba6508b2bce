"""The review a record was made from: the session journal it names, replayed up to the moment
the record was written, when the journal is on this machine and belongs to this review; else a
review rebuilt from the record's own items, tags and notices."""

from __future__ import annotations

import re
from datetime import datetime
from pathlib import Path
from typing import Any

from evaltui.core.decide.notices import (
    INPUTS_CHANGED,
    JOURNAL_DAMAGED,
    POLICY_CHANGED,
    STALE_TAGS,
    Notice,
)
from evaltui.core.record.journal import inputs_changed_notice, journal_entries
from evaltui.core.record.shared import JOURNALS, TeamJournals

__all__ = ["review_of_record"]


def review_of_record(record: dict[str, Any], analysis: Any) -> tuple[Any, str | None]:
    """The review the record was made from: the session journal it names, as it stood when
    the record was written, when the journal is here and belongs to this review; else one
    rebuilt from the record's own items, tag set and notices. Returns it and the journal used
    (None: the record's own)."""
    from evaltui.core.record.journal import ReviewSession, SessionInfo

    inputs = record["inputs"]
    info = SessionInfo(
        str(inputs["baseline"].get("path", "")), str(inputs["candidate"].get("path", "")),
        inputs["baseline"]["sha256"], inputs["candidate"]["sha256"],
        tuple(record["triage"]["tags"]), "",
    )  # fmt: skip
    path = Path(record["session_journal"])
    session = ReviewSession(path=path, info=info, read_only=True)
    if path.parent.name == JOURNALS:  # a shared review folder: every reviewer's journal counts
        session.team = TeamJournals(path.parent, path.name)
    if _replay_until(session, path, record["created"], analysis):
        return session, str(path)
    session = ReviewSession(path=path, info=info, read_only=True)
    from evaltui.core.record.journal import ItemReview

    for item in record["items"]:
        session.items[item["item_id"]] = ItemReview(
            item["item_id"], item["tag"], item.get("note") or "",
            item.get("tagged_at") or "", item.get("tagged_by") or "",
        )  # fmt: skip
    team = record.get("team_review")
    if isinstance(team, dict):
        _team_of_record(session, team)
    session.notices.extend(_notice(text) for text in record["review_notices"])
    return session, None


def _team_of_record(session: Any, team: dict[str, Any]) -> None:
    """The record's own team review put back on its items: every reviewer's review, the
    disputes open, the adjudications and the settled ones (`record.team_review.team_block`
    reads them back the same way)."""
    from dataclasses import replace

    from evaltui.core.record.journal import ItemReview
    from evaltui.core.record.review_item import Adjudication

    session.dispute_rule = str(team.get("dispute_rule", session.dispute_rule))
    reviews: dict[str, list[Any]] = {}
    for r in team.get("reviews", []):
        reviews.setdefault(r["item_id"], []).append(
            ItemReview(r["item_id"], r["tag"], r.get("note") or "", r.get("time") or "",
                       r["reviewer"])
        )  # fmt: skip
    settled = {s["item_id"]: s["how"] for s in team.get("disputes_settled", [])}
    adjudications = {a["item_id"]: Adjudication(**a) for a in team.get("adjudications", [])}
    for item_id, review in list(session.items.items()):
        session.items[item_id] = replace(
            review,
            reviews=tuple(reviews.get(item_id, ())),
            disputed=item_id in team.get("disputes_open", []),
            adjudication=adjudications.get(item_id),
            settled=settled.get(item_id, ""),
        )


_NOTICE_WORDS = (
    (INPUTS_CHANGED, re.compile(r"^the (baseline|candidate)( and candidate)? file changed since")),
    (STALE_TAGS, re.compile(r"^\d+ tagged item\(s\) changed outcome since tagging")),
    (POLICY_CHANGED, re.compile(r"^the policy changed since this review started")),
)


def _notice(text: Any) -> Notice:
    """A recorded notice with its kind, told by its words (the record keeps the text only)."""
    text = str(text)
    kind = next((k for k, words in _NOTICE_WORDS if words.match(text)), JOURNAL_DAMAGED)
    return Notice(kind, text)


def _replay_until(session: Any, path: Path, created: str, analysis: Any) -> bool:
    """Replay the journal's lines written up to `created` into `session`, with the notices
    `workflow.start_review` would have raised then; False when there is no journal here, or
    it is another review's (a later `--fresh` one, or another pair's)."""
    try:
        raw = path.read_bytes()
    except OSError:
        return False
    until = _when(created)
    first = True
    for entry in journal_entries(path, raw, session.notices):
        when = _when(entry.get("time"))
        if first:
            first = False
            if entry.get("kind") != "session" or (until and when and when > until):
                return False  # not this review's journal (or one started after the record)
        if until and when and when > until:
            continue  # written after the record: not what it was made from
        session._apply(entry)
    if first:
        return False
    session.refresh_team(
        lambda entry: not (until and (w := _when(entry.get("time"))) and w > until)
    )
    paired = analysis.paired
    hashes = (paired.baseline.source.sha256, paired.candidate.source.sha256)
    changed = inputs_changed_notice(
        (session.info.baseline_sha256, session.info.candidate_sha256), hashes
    )
    if changed is not None:
        session.notices.append(changed)
    from evaltui.core.record.session import add_review_notices, settle_by_policy

    settle_by_policy(analysis, session)
    add_review_notices(analysis, session)
    return True


def _when(text: Any) -> datetime | None:
    try:
        return datetime.strptime(str(text), "%Y-%m-%dT%H:%M:%S%z")
    except ValueError:
        return None
