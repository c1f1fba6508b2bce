"""The paired L x L table of outcome categories: item i's category in the baseline (row) and in
the candidate (column), counted from two aligned label arrays.

An eval item often ends in one of several outcomes, not just pass or fail: correct, incorrect,
refused, error (Inspect's C / I / P / N). Rows are the baseline's level, columns the
candidate's (n_ij: baseline i, candidate j), as in the paired 2x2 table; "is this level" in
each arm is such a 2x2 table (:meth:`CategoricalTable.level_table`). The statistics on the table
are in ``categorical``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from evaltui.core.stats import validate
from evaltui.core.stats.paired_table import PairedTable

__all__ = ["CategoricalTable", "labels_array"]


def labels_array(name: str, values: object) -> np.ndarray:
    """One arm's labels as a 1-D array of non-empty strings; anything else is refused.

    A numpy string array is checked at once; anything else element by element (a None or a
    number among the labels is a loading bug, not a category)."""
    # numpy would turn ["a", 3] into two strings: only a real string array skips the loop
    fast = isinstance(values, np.ndarray) and values.dtype.kind == "U"
    array = values if isinstance(values, np.ndarray) and fast else np.asarray(values, dtype=object)
    if array.ndim != 1:
        raise ValueError(f"{name} labels must be one-dimensional, got shape {array.shape}")
    if fast:
        empty = np.flatnonzero(array == "")
        if empty.size:
            raise ValueError(
                f"{name} label {int(empty[0])} must be a non-empty string (an outcome "
                "category), got ''"
            )
        return array
    for i, value in enumerate(array):
        if not isinstance(value, str) or value == "":
            raise ValueError(
                f"{name} label {i} must be a non-empty string (an outcome category), got {value!r}"
            )
    return array.astype(str) if array.size else np.array([], dtype="U1")


@dataclass(frozen=True)
class CategoricalTable:
    """The paired L x L table: `counts[i][j]` items the baseline put in `levels[i]` and the
    candidate in `levels[j]`. Validated, because every statistic assumes counts >= 0."""

    levels: tuple[str, ...]
    counts: tuple[tuple[int, ...], ...]

    def __post_init__(self) -> None:
        levels = tuple(self.levels)
        if not levels or any(not isinstance(x, str) or x == "" for x in levels):
            raise ValueError(f"levels must be non-empty strings, got {self.levels!r}")
        if len(set(levels)) != len(levels):
            raise ValueError(f"levels must be distinct, got {self.levels!r}")
        rows = tuple(tuple(row) for row in self.counts)
        if len(rows) != len(levels) or any(len(row) != len(levels) for row in rows):
            raise ValueError(
                f"counts must be a {len(levels)} x {len(levels)} table (one row and column per "
                f"level), got {[len(r) for r in rows]}"
            )
        checked = tuple(validate.counts(f"counts[{i}]", row) for i, row in enumerate(rows))
        object.__setattr__(self, "levels", levels)
        object.__setattr__(self, "counts", checked)

    @classmethod
    def from_labels(
        cls,
        baseline: Sequence[str] | np.ndarray,
        candidate: Sequence[str] | np.ndarray,
        levels: Sequence[str] | None = None,
    ) -> CategoricalTable:
        """Count the table from two aligned label arrays (item i in both).

        `levels` fixes the order (and may name levels nobody used); by default the levels are
        the sorted union of both arms' labels, so the table reads the same on every run. A
        label outside `levels`, or arms of different lengths, is refused: the runs were not
        paired, or a category would be dropped silently.
        """
        base = labels_array("baseline", baseline)
        cand = labels_array("candidate", candidate)
        if base.shape != cand.shape:
            raise ValueError(
                f"baseline has {base.shape[0]} labels but candidate has {cand.shape[0]}: "
                "pair the runs item by item first"
            )
        seen, codes = np.unique(np.concatenate([base, cand]), return_inverse=True)
        if levels is None:
            levels = seen.tolist()
        levels = tuple(levels)
        index = {level: i for i, level in enumerate(levels)}
        unknown = [x for x in seen.tolist() if x not in index]
        if unknown:
            raise ValueError(f"labels {unknown[:5]!r} are not among the levels {list(levels)!r}")
        k = len(levels)
        if k == 0:
            raise ValueError("no labels to count: the arms are empty")
        position = np.array([index[x] for x in seen.tolist()], dtype=np.int64)[codes]
        rows, cols = position[: base.shape[0]], position[base.shape[0] :]
        flat = np.bincount(rows * k + cols, minlength=k * k).reshape(k, k)
        return cls(levels, tuple(tuple(int(v) for v in row) for row in flat))

    def as_array(self) -> np.ndarray:
        """The counts as an int64 L x L array (rows: baseline)."""
        return np.array(self.counts, dtype=np.int64).reshape(len(self.levels), len(self.levels))

    @property
    def n(self) -> int:
        """Paired items."""
        return int(sum(sum(row) for row in self.counts))

    @property
    def baseline_counts(self) -> tuple[int, ...]:
        """Row margins: items per level in the baseline."""
        return tuple(int(sum(row)) for row in self.counts)

    @property
    def candidate_counts(self) -> tuple[int, ...]:
        """Column margins: items per level in the candidate."""
        k = len(self.levels)
        return tuple(int(sum(self.counts[i][j] for i in range(k))) for j in range(k))

    @property
    def moved(self) -> int:
        """Items whose category changed (the off-diagonal total): the only ones the test weighs."""
        return self.n - sum(self.counts[i][i] for i in range(len(self.levels)))

    def level_table(self, level: str) -> PairedTable:
        """The 2x2 table of "is `level`" in each arm: pass = the item is in that level."""
        i = self.levels.index(level)
        both = self.counts[i][i]
        only_base = self.baseline_counts[i] - both  # baseline in the level, candidate not
        only_cand = self.candidate_counts[i] - both
        return PairedTable(both, only_base, only_cand, self.n - both - only_base - only_cand)
