"""Where a record and the same record rebuilt (or recomputed) differ, as a dotted place
(`results.delta.ci[0]`, `items[3].tag`): floats agree within a relative tolerance, since numbers
written to JSON and read back, or computed with another BLAS, differ in their last bits."""

from __future__ import annotations

import json
import math
import re
from typing import Any

from evaltui.core.verify.result import shown

__all__ = ["TOLERANCE", "first_difference", "value_at"]

TOLERANCE = 1e-9  # relative: floats written to JSON and read back, or a different BLAS


def first_difference(
    recorded: Any,
    recomputed: Any,
    where: str,
    strict: bool = True,
    skip: frozenset[str] | set[str] = frozenset(),
) -> str | None:
    """The first place the two differ (`skip`: dotted places not compared). Not `strict` (an
    older record): keys the record does not have are not claims it made, so only its own keys
    are compared. Two lists of different lengths differ at the first item one lacks."""
    if where in skip:
        return None
    if isinstance(recorded, dict) and isinstance(recomputed, dict):
        keys = set(recorded) | set(recomputed) if strict else set(recorded)
        for key in sorted(keys):
            found = first_difference(
                recorded.get(key), recomputed.get(key), f"{where}.{key}", strict, skip
            )
            if found:
                return found
        return None
    if isinstance(recorded, list) and isinstance(recomputed, list):
        for i, (a, b) in enumerate(zip(recorded, recomputed, strict=False)):
            found = first_difference(a, b, f"{where}[{i}]", strict, skip)
            if found:
                return found
        if len(recorded) != len(recomputed):
            return f"{where}[{min(len(recorded), len(recomputed))}]"
        return None
    if isinstance(recorded, float) or isinstance(recomputed, float):
        if recorded is None or recomputed is None:
            return where
        if math.isclose(float(recorded), float(recomputed), rel_tol=TOLERANCE, abs_tol=1e-12):
            return None
        return where
    return None if recorded == recomputed else where


def value_at(record: dict[str, Any], where: str) -> str:
    """The value at a dotted path (`items[3].tag`), shortened, for a message."""
    value: Any = record
    for part in re.findall(r"[^.\[\]]+|\[\d+\]", where):
        try:
            value = value[int(part[1:-1])] if part.startswith("[") else value[part]
        except (KeyError, IndexError, TypeError, ValueError):
            return "nothing"
    return shown(json.dumps(value, ensure_ascii=False, default=str))
