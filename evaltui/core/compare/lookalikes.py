"""Item ids, slice and cluster labels that look alike, said as pairing warnings.

`q1` in one run and `q1<U+200B>` in the other are two items to the pairing (each missing from
the other run), and `dosage` beside `dоsage` (a Cyrillic о) two slices: nothing is wrong with
either file alone, so it is a warning naming both spellings (`evaltui.core.lookalike`), not a
refusal. Both runs' values are compared together.
"""

from __future__ import annotations

import polars as pl

from evaltui.core.lookalike import describe, lookalike_groups
from evaltui.core.read.runs import CLUSTER, ITEM_ID, SLICE, Run

CHECKED = ((ITEM_ID, "item ids"), (SLICE, "slice labels"), (CLUSTER, "cluster labels"))
# A character that is not ASCII, or is a capital letter (@ is 0x40, [ is 0x5B): ids without
# one are all ASCII with no capital letter, so no two of them look alike.
_NOT_LOWER_ASCII = r"[^\x00-@\[-\x7F]"


def lookalike_warnings(baseline: Run, candidate: Run) -> list[str]:
    """One warning per kind of label (ids, slices, clusters) that has look-alikes."""
    out = []
    for column, what in CHECKED:
        parts = [
            run.table.get_column(column).drop_nulls().cast(pl.Utf8)
            for run in (baseline, candidate)
            if column in run.table.columns
        ]
        # All ASCII, only case can make two alike (lookalike.py); with no capital letter at
        # all, nothing can: the common case, decided by one vectorised pass over each run's
        # column for a character outside ASCII-without-capitals (0.04 s CPU for two runs of a
        # million ids, where joining the columns and two passes took 0.06 s) without hashing
        # the ids (uniques took 1.9 s).
        if not any(part.str.contains(_NOT_LOWER_ASCII).any() for part in parts):
            continue
        every = pl.concat(parts)
        ascii_only = not (every.str.len_bytes() != every.str.len_chars()).any()
        values = every.unique()
        if ascii_only and values.str.to_lowercase().n_unique() == values.len():
            continue  # no two differ only in case: decided without a Python loop over 300k ids
        groups = lookalike_groups(values.sort().to_list())
        if groups:
            out.append(describe(groups, what))
    return out
