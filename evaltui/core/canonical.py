"""Canonical JSON and its sha256: the one way evaltui fingerprints a structure.

A policy's rules, the options a record was made with and a sign-off record's own content are
all identified by the sha256 of the same canonical form (sorted keys, no whitespace, UTF-8 kept
as is), so two places can never disagree about whether two structures are "the same".
"""

from __future__ import annotations

import hashlib
import json
import math
from typing import Any

HASH_FIELD = "content_hash"  # where a record keeps the hash of its own other keys


def canonical_json(obj: Any) -> str:
    """`obj` as JSON with sorted keys and no whitespace; a non-JSON value is a TypeError."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def canonical_sha256(obj: Any) -> str:
    """The hex sha256 of `canonical_json(obj)`."""
    return hashlib.sha256(canonical_json(obj).encode("utf-8")).hexdigest()


def json_number(value: float | None) -> float | None:
    """A finite float, or None: JSON has no NaN or infinity, so an undefined number is null
    (every report and record writes its numbers through this)."""
    if value is None or not math.isfinite(value):
        return None
    return float(value)
