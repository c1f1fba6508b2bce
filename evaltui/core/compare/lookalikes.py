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


def lookalike_warnings(baseline: Run, candidate: Run) -> list[str]:
    """One warning per kind of label (ids, slices, clusters) that has look-alikes."""
    out = []
    for column, what in CHECKED:
        parts = [
            run.table.get_column(column).drop_nulls().cast(pl.Utf8)
            for run in (baseline, candidate)
            if column in run.table.columns
        ]
        if not parts:
            continue
        every = pl.concat(parts)
        # All ASCII, only case can make two alike (lookalike.py); with no capital letter at
        # all, nothing can: the common case, decided in two vectorised passes (0.1 s CPU for
        # two runs of a million ids) without hashing the ids (uniques took 1.9 s).
        ascii_only = not (every.str.len_bytes() != every.str.len_chars()).any()
        if ascii_only and not every.str.contains("[A-Z]").any():
            continue
        values = every.unique()
        if ascii_only and values.str.to_lowercase().n_unique() == values.len():
            continue  # no two differ only in case: decided without a Python loop over 300k ids
        groups = lookalike_groups(values.sort().to_list())
        if groups:
            out.append(describe(groups, what))
    return out
