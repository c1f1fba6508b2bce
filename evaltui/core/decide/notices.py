"""Notices: what the tool noticed about a review that the reviewer must read before signing.

A notice has a kind, so code can ask "did an input change?" without searching for a phrase in
its text, and a text in plain words for the screen, stderr and the record.
"""

from __future__ import annotations

from dataclasses import dataclass

JOURNAL_DAMAGED = "journal_damaged"  # a line of the journal could not be read
INPUTS_CHANGED = "inputs_changed"  # an input's sha256 differs from when the tags were made
STALE_TAGS = "stale_tags"  # tagged items whose outcome moved since they were tagged
POLICY_CHANGED = "policy_changed"  # the policy's rules differ from the review's first policy
NOTICE_KINDS = (JOURNAL_DAMAGED, INPUTS_CHANGED, STALE_TAGS, POLICY_CHANGED)


@dataclass(frozen=True)
class Notice:
    kind: str
    text: str

    def __post_init__(self) -> None:
        if self.kind not in NOTICE_KINDS:
            raise ValueError(f"notice kind must be one of {NOTICE_KINDS}, got {self.kind!r}")

    def __str__(self) -> str:
        return self.text
