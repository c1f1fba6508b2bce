"""Paired categorical outcomes: the Stuart-Maxwell test and per-category changes.

An eval item often ends in one of several outcomes, not just pass or fail: correct, incorrect,
refused, error (Inspect's C / I / P / N). Two runs of the same items can keep the same pass rate
while the mix underneath moves (fewer wrong answers, as many more refusals), and a reviewer
needs to see that. The design chooser's rules R4 (two systems) and R8 (three or more) name the
test: Stuart-Maxwell, the test of marginal homogeneity for a paired L x L table
(``categorical_table``), and pairwise Stuart-Maxwell with a multiplicity correction for k
systems.

Conventions: rows are the baseline's level, columns the candidate's (n_ij: baseline i,
candidate j), as in the 2x2 table. The statistic (Stuart 1955; Maxwell 1970; Agresti 2002,
Categorical Data Analysis, 2nd ed., section 10.3) is

    d_i  = n_i. - n_.i                      (row margin minus column margin)
    S_ii = n_i. + n_.i - 2 n_ii,  S_ij = -(n_ij + n_ji)
    chi2 = d' S^-1 d  on L - 1 df,          with one level dropped from d and S

(any one: the statistic does not depend on which). With two levels it is McNemar's chi-square
without continuity correction, (b - c)^2 / (b + c).

S is singular when a level has no off-diagonal counts (nobody moved into or out of it, e.g. a
level only one item had, in both runs): its margin difference is exactly zero, so such levels
are dropped and the result says which. S is also singular when the levels that did move fall
into groups with no item moving between groups (A <-> B and C <-> D only); the statistic is then
the sum over the groups (d' S^+ d, S^+ the pseudo-inverse of the full matrix) on L' - g df
(L' levels tested, g groups), which is what dropping one level per group and adding the
independent tests gives. DescTools' StuartMaxwellTest keeps k - 1 df after dropping a level (it
counts the dropped levels as contributing zero); we count the df of what was tested, as
statsmodels and R's coin do on the reduced table.

Per level, "is this level" in each arm is a 2x2 table: the candidate's share minus the
baseline's is the paired delta of `evaltui.core.stats.paired_delta` (the same interval methods)
and its exact McNemar p, adjusted across the levels with `multiplicity.adjust_pvalues`.

Only ``scipy.special`` is imported (the chi-square tail ``chdtrc``): scipy.stats costs two
seconds of start-up.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations

import numpy as np

from evaltui.core.stats import special, validate
from evaltui.core.stats.categorical_table import CategoricalTable, labels_array
from evaltui.core.stats.interval import Interval
from evaltui.core.stats.multiplicity import ADJUST_METHODS, adjust_pvalues
from evaltui.core.stats.paired_delta import CI_METHODS, DEFAULT_CI_METHOD, paired_delta_interval
from evaltui.core.stats.paired_table import PairedTable, mcnemar

__all__ = [
    "FEW_MOVES",
    "FLAG_TEXT",
    "CategoricalComparison",
    "CategoryChange",
    "PairwiseComparison",
    "PairwiseStuartMaxwell",
    "StuartMaxwellResult",
    "compare_categorical",
    "pairwise_stuart_maxwell",
    "stuart_maxwell",
]

FEW_MOVES = 25
"""Below this many items that changed category the chi-square reference is rough."""

FLAG_TEXT: dict[str, str] = {
    "single_level": "only one outcome category in both runs: nothing to compare",
    "no_moves": "no item changed outcome category: nothing to weigh",
    "dropped_levels": (
        "some categories had no item move into or out of them; they are left out of the "
        "Stuart-Maxwell test (their shares did not change)"
    ),
    "few_moves": (
        f"fewer than {FEW_MOVES} items changed category: the chi-square p-value is approximate; "
        "the per-category exact McNemar p-values are the ones to lean on"
    ),
}
"""Plain-words explanation of each flag a :class:`CategoricalComparison` can carry."""


# --------------------------------------------------------------------------------------------
# Stuart-Maxwell
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class StuartMaxwellResult:
    """The Stuart-Maxwell test of marginal homogeneity.

    `statistic` and `p_value` are None when nothing can be tested (one level, or no item
    changed category): reporting p = 1 would read as "the mix did not change", which the data
    do not say. `dropped_levels` had no item move into or out of them; `groups` is how many
    separate groups of levels the moves formed (1 in the usual case; see the module docstring).
    """

    statistic: float | None
    df: int
    p_value: float | None
    tested_levels: tuple[str, ...]
    dropped_levels: tuple[str, ...]
    groups: int

    @property
    def defined(self) -> bool:
        return self.p_value is not None

    @property
    def note(self) -> str:
        """What was left out and why, in words ("" when nothing was)."""
        parts = []
        if self.dropped_levels:
            names = ", ".join(self.dropped_levels)
            parts.append(f"left out (no item moved into or out of it): {names}")
        if self.groups > 1:
            parts.append(
                f"the moves form {self.groups} separate groups of categories: the statistic "
                "is the sum of one test per group"
            )
        return "; ".join(parts)


def _groups(moves: np.ndarray, tested: list[int]) -> list[list[int]]:
    """Connected groups of levels, two levels joined when an item moved between them."""
    parent = {i: i for i in tested}

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for a, b in combinations(tested, 2):
        if moves[a, b] > 0:
            parent[find(a)] = find(b)
    out: dict[int, list[int]] = {}
    for i in tested:
        out.setdefault(find(i), []).append(i)
    return list(out.values())


def stuart_maxwell(table: CategoricalTable) -> StuartMaxwellResult:
    """Stuart-Maxwell chi-square for `table` (see the module docstring for the formula).

    Levels with no off-diagonal counts are dropped (named in the result); each group of levels
    joined by moves contributes d_g' S_g^-1 d_g with one of its levels dropped, on (size - 1)
    df. The p-value is the chi-square upper tail (``scipy.special.chdtrc``).
    """
    validate.instance("table", table, CategoricalTable)
    counts = table.as_array().astype(np.float64)
    rows, cols = counts.sum(axis=1), counts.sum(axis=0)
    diag = np.diag(counts)
    off = rows + cols - 2.0 * diag  # S_ii: items moving into or out of level i
    moves = counts + counts.T
    np.fill_diagonal(moves, 0.0)
    tested = [i for i in range(len(table.levels)) if off[i] > 0]
    dropped = tuple(table.levels[i] for i in range(len(table.levels)) if off[i] == 0)
    names = tuple(table.levels[i] for i in tested)
    if len(tested) < 2:  # one level, or nobody moved: nothing to weigh
        return StuartMaxwellResult(None, 0, None, names, dropped, 0)
    d_all = rows - cols
    statistic = 0.0
    df = 0
    groups = _groups(moves, tested)
    for group in groups:
        keep = group[:-1]  # drop one level of the group: its margin difference is implied
        d = d_all[keep]
        s = -moves[np.ix_(keep, keep)]
        s[np.diag_indices_from(s)] = off[keep]
        statistic += float(d @ np.linalg.solve(s, d))
        df += len(keep)
    statistic = max(statistic, 0.0)  # S is positive definite; guard rounding at exactly zero
    p = float(special.chdtrc(df, statistic))
    return StuartMaxwellResult(statistic, df, p, names, dropped, len(groups))


# --------------------------------------------------------------------------------------------
# Per-category changes and the comparison
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class CategoryChange:
    """One level: its share in each arm, the paired delta (candidate - baseline) with its
    interval, and the exact McNemar p of "is this level", raw and adjusted across levels."""

    level: str
    baseline_count: int
    candidate_count: int
    baseline_share: float
    candidate_share: float
    delta: float
    ci: Interval
    table: PairedTable
    exact_p: float | None  # None: no item moved into or out of the level
    p_adjusted: float | None


@dataclass(frozen=True)
class CategoricalComparison:
    """The categorical comparison of two paired runs: the table, the test, the changes."""

    table: CategoricalTable
    test: StuartMaxwellResult
    changes: tuple[CategoryChange, ...]  # in `table.levels` order
    ci_method: str
    confidence: float
    alpha: float
    adjust: str  # how the per-level p-values were adjusted (multiplicity.ADJUST_METHODS)
    flags: tuple[str, ...]
    # With three or more runs the pairs' Stuart-Maxwell p-values form a family (`multirun`):
    # the adjusted p, and over what, e.g. "3 pairs"; None for a lone pair.
    p_family: float | None = None
    family_label: str = ""

    @property
    def rejects(self) -> bool:
        """The Stuart-Maxwell test rejects marginal homogeneity at `alpha` (after the family
        adjustment when the pair is one of several): the mix moved."""
        p = self.p_family if self.family_label else self.test.p_value
        return p is not None and p < self.alpha

    def moved_most(self, count: int | None = None) -> tuple[CategoryChange, ...]:
        """The levels whose share changed, largest change first (ties: table order)."""
        changed = [c for c in self.changes if c.delta != 0.0]
        changed.sort(key=lambda c: -abs(c.delta))
        return tuple(changed if count is None else changed[:count])


def compare_categorical(
    table: CategoricalTable,
    ci_method: str = DEFAULT_CI_METHOD,
    confidence: float = 0.95,
    alpha: float = 0.05,
    adjust: str = "holm",
) -> CategoricalComparison:
    """The Stuart-Maxwell test and every level's change, p adjusted across the levels."""
    validate.instance("table", table, CategoricalTable)
    ci_method = validate.one_of("interval method", ci_method, CI_METHODS)
    adjust = validate.one_of("adjustment method", adjust, ADJUST_METHODS)
    confidence = validate.confidence(confidence)
    alpha = validate.alpha(alpha)
    n = validate.some_items(table.n)
    test = stuart_maxwell(table)
    raw = []
    parts = []
    for level, base, cand in zip(
        table.levels, table.baseline_counts, table.candidate_counts, strict=True
    ):
        two = table.level_table(level)
        raw.append(mcnemar(two).exact_p)
        parts.append((level, base, cand, two, paired_delta_interval(two, ci_method, confidence)))
    adjusted = adjust_pvalues(raw, adjust)
    changes = tuple(
        CategoryChange(
            level=level,
            baseline_count=base,
            candidate_count=cand,
            baseline_share=base / n,
            candidate_share=cand / n,
            delta=(cand - base) / n,
            ci=ci,
            table=two,
            exact_p=p,
            p_adjusted=q,
        )
        for (level, base, cand, two, ci), p, q in zip(parts, raw, adjusted, strict=True)
    )
    flags: list[str] = []
    if len(table.levels) < 2:
        flags.append("single_level")
    elif table.moved == 0:
        flags.append("no_moves")
    else:
        if test.dropped_levels:
            flags.append("dropped_levels")
        if table.moved < FEW_MOVES:
            flags.append("few_moves")
    return CategoricalComparison(
        table=table,
        test=test,
        changes=changes,
        ci_method=ci_method,
        confidence=confidence,
        alpha=alpha,
        adjust=adjust,
        flags=tuple(flags),
    )


# --------------------------------------------------------------------------------------------
# k systems: every pair
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class PairwiseComparison:
    """One pair of systems: the first plays the baseline (rows), the second the candidate."""

    first: str
    second: str
    table: CategoricalTable
    test: StuartMaxwellResult
    p_adjusted: float | None


@dataclass(frozen=True)
class PairwiseStuartMaxwell:
    """Stuart-Maxwell for every pair of k systems (R8), p adjusted over the pairs by `method`."""

    systems: tuple[str, ...]
    levels: tuple[str, ...]
    method: str
    pairs: tuple[PairwiseComparison, ...]  # (systems[i], systems[j]) for i < j, in that order

    def pair(self, first: str, second: str) -> PairwiseComparison:
        """The comparison of two named systems, in either order."""
        for p in self.pairs:
            if {p.first, p.second} == {first, second}:
                return p
        raise KeyError(f"no pair {first!r} / {second!r}; systems are {list(self.systems)!r}")


def pairwise_stuart_maxwell(
    labels: Mapping[str, Sequence[str] | np.ndarray],
    method: str = "holm",
    levels: Sequence[str] | None = None,
) -> PairwiseStuartMaxwell:
    """Every pair of systems (`labels`: system name -> its labels, item i aligned in all),
    each pair's p adjusted across the k(k-1)/2 pairs; the levels are shared by every table
    (the sorted union of all labels unless `levels` is given), so the pairs read alike.

    An undefined pair (nobody moved) keeps p None and does not count in the family.
    """
    method = validate.one_of("adjustment method", method, ADJUST_METHODS)
    if not isinstance(labels, Mapping) or len(labels) < 2:
        raise ValueError("labels must map at least two system names to their label arrays")
    systems = tuple(labels)
    arrays = {name: labels_array(str(name), labels[name]) for name in systems}
    lengths = {name: a.shape[0] for name, a in arrays.items()}
    if len(set(lengths.values())) != 1:
        raise ValueError(f"every system needs one label per paired item, got lengths {lengths}")
    if levels is None:
        levels = sorted(set().union(*(set(a.tolist()) for a in arrays.values())))
    shared = tuple(levels)
    tables = []
    for first, second in combinations(systems, 2):
        table = CategoricalTable.from_labels(arrays[first], arrays[second], shared)
        tables.append((first, second, table, stuart_maxwell(table)))
    adjusted = adjust_pvalues([t.p_value for *_, t in tables], method)
    pairs = tuple(
        PairwiseComparison(first, second, table, test, q)
        for (first, second, table, test), q in zip(tables, adjusted, strict=True)
    )
    return PairwiseStuartMaxwell(systems, shared, method, pairs)
