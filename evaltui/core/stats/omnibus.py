"""Omnibus tests for three or more runs of the same items: Cochran's Q and Friedman.

With k >= 3 runs of the same items, comparing every pair first inflates the error rate; the
design chooser's rules R5 and R6 ask for one test across all runs first ("do the runs differ at
all?"), then the pairwise tests with a multiplicity correction. This module is that first step,
as pure functions on an n x k matrix (rows = items, columns = runs/systems):

- :func:`cochran_q` for pass/fail (rule R5; Cochran 1950). For k = 2 it is McNemar's
  chi-square without continuity correction, (b - c)^2 / (b + c).
- :func:`friedman` for scores (rule R6), ranked within each item with average ranks for ties
  and the tie-corrected statistic of R's ``friedman.test`` and ``scipy.stats.friedmanchisquare``.
  On 0/1 data it equals Cochran's Q exactly.

Both p-values are the chi-square approximation on k - 1 df (``scipy.special.chdtrc``); only
``scipy.special`` is imported because ``scipy.stats`` costs about two seconds of start-up.

Items on which every run agrees (all pass, all fail, or a fully tied score row) carry no
information about a difference between the runs: they add exactly nothing to either statistic.
``informative`` counts the others, and the small-sample flag is judged on that count, not on n:
10,000 items of which 6 disagree are 6 items' worth of evidence. When no item is informative the
statistic is 0/0: it is reported as undefined (None), never as "no difference", for the same
reason McNemar with no disagreements is (see :mod:`evaltui.core.stats.paired_table`).

The arithmetic is done in integers (column totals, doubled rank sums, tie counts) with one
division at the end, so the statistic is exact up to that one rounding and does not depend on
the order of the rows or columns.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from evaltui.core.stats import special

__all__ = [
    "COCHRAN_MIN_CELLS",
    "FLAG_TEXT",
    "FRIEDMAN_LARGE_K",
    "FRIEDMAN_MIN_ITEMS",
    "OmnibusResult",
    "cochran_q",
    "friedman",
]

COCHRAN_MIN_CELLS = 24
"""Cochran's Q: below ``informative * k`` = 24 the chi-square p-value is flagged.

The rule of thumb usually attributed to Tate & Brown (1970, JASA 65:155-160): the chi-square
approximation is adequate when the number of items that are neither all-pass nor all-fail,
times k, is at least 24. We could not read the paper itself, so this is stated as a convention
and applied conservatively (it is a flag, not a refusal). The same floor guards Friedman for
k > 4, where Friedman on 0/1 data *is* Cochran's Q.
"""

FRIEDMAN_MIN_ITEMS = 16
"""Friedman, k <= 4: fewer than 16 informative items (n <= 15) flags the chi-square p-value."""

FRIEDMAN_LARGE_K = 4
"""Friedman: beyond this many runs the item count rule above no longer applies.

The usual statement (e.g. Wikipedia, "Friedman test", Method, step 4): the chi-square
approximation holds "when n or k is large (i.e. n > 15 or k > 4)"; for smaller designs exact
tables are needed. We count informative (not fully tied) items as n, and for k > 4 still require
``informative * k >= COCHRAN_MIN_CELLS`` so that one or two items are never read as evidence.
"""

FLAG_TEXT: dict[str, str] = {
    "undefined": (
        "every item has the same result in all runs: the runs never disagree, nothing to weigh"
    ),
    "few_informative": (
        "few items on which the runs disagree: the chi-square p-value is only a rough guide"
    ),
}
"""Plain-words explanation of each flag an :class:`OmnibusResult` can carry, in display order."""

_LABELS = {"cochran_q": "Cochran's Q", "friedman": "Friedman"}


@dataclass(frozen=True)
class OmnibusResult:
    """One omnibus test across k runs of the same n items.

    ``statistic`` and ``p`` are None (flag ``undefined``) when no item is informative: the
    statistic is 0/0 there, and a p of 1 would read as "no difference", which the data do not
    say. ``p`` is the upper tail of chi-square on ``df`` = k - 1.
    """

    test: str
    label: str
    statistic: float | None
    df: int
    p: float | None
    n: int
    k: int
    informative: int
    flags: tuple[str, ...]

    @property
    def defined(self) -> bool:
        """False when no item is informative (statistic and p are None)."""
        return self.statistic is not None


# --------------------------------------------------------------------------------------------
# Inputs
# --------------------------------------------------------------------------------------------


def _check_matrix(name: str, values: object) -> np.ndarray:
    """An n x k array with n >= 1 items and k >= 2 runs; anything else is a caller's bug."""
    array = np.asarray(values)
    if array.ndim != 2:
        raise ValueError(
            f"{name} must be a 2-D array (rows = items, columns = runs), got shape {array.shape}"
        )
    n, k = array.shape
    if k < 2:
        raise ValueError(f"{name} needs at least 2 columns (runs) to compare, got shape {(n, k)}")
    if n < 1:
        raise ValueError(f"{name} needs at least 1 row (item), got shape {(n, k)}")
    return array


def _result(
    test: str, numerator: int, denominator: int, n: int, k: int, informative: int
) -> OmnibusResult:
    """Statistic = numerator / denominator on k - 1 df, with the flags both tests share."""
    df = k - 1
    if informative == 0:
        return OmnibusResult(test, _LABELS[test], None, df, None, n, k, 0, ("undefined",))
    statistic = numerator / denominator
    few = informative * k < COCHRAN_MIN_CELLS
    if test == "friedman" and k <= FRIEDMAN_LARGE_K:
        few = few or informative < FRIEDMAN_MIN_ITEMS
    return OmnibusResult(
        test=test,
        label=_LABELS[test],
        statistic=statistic,
        df=df,
        p=float(special.chdtrc(df, statistic)),
        n=n,
        k=k,
        informative=informative,
        flags=("few_informative",) if few else (),
    )


# --------------------------------------------------------------------------------------------
# Cochran's Q
# --------------------------------------------------------------------------------------------


def cochran_q(passed: np.ndarray) -> OmnibusResult:
    """Cochran's Q test that k runs have the same pass rate over the same n items.

    ``passed`` is an n x k boolean matrix (item i, run j). With C_j the column totals, R_i the
    row totals and N the grand total,

        Q = (k - 1) (k sum C_j^2 - N^2) / (k N - sum R_i^2),   df = k - 1

    (Cochran 1950; the form of statsmodels' ``cochrans_q`` and the SAS manual). The denominator
    is sum R_i (k - R_i), zero exactly when every item is all-pass or all-fail: then the result
    is undefined. For k = 2 this is (b - c)^2 / (b + c), McNemar without continuity correction.

    Only real booleans are accepted: 0/1 or scores would hide a loading or threshold bug.
    """
    matrix = _check_matrix("passed", passed)
    if matrix.dtype != np.bool_:
        raise ValueError(f"passed must be a boolean array, got dtype {matrix.dtype}")
    n, k = matrix.shape
    columns = matrix.sum(axis=0, dtype=np.int64)
    rows = matrix.sum(axis=1, dtype=np.int64)
    total = int(columns.sum())
    informative = int(np.count_nonzero((rows > 0) & (rows < k)))
    # Python ints: sums of squares of column totals overflow nothing at any n.
    numerator = (k - 1) * (k * sum(int(c) ** 2 for c in columns) - total**2)
    denominator = k * total - int(np.dot(rows, rows))
    return _result("cochran_q", numerator, denominator, n, k, informative)


# --------------------------------------------------------------------------------------------
# Friedman
# --------------------------------------------------------------------------------------------


def _doubled_ranks(matrix: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Twice the within-row average ranks (integers), and each value's tie-group size.

    Each row is sorted; runs of equal values in a sorted row are its tie groups. A value in a
    group spanning 0-based sorted positions s..e has average rank (s + e) / 2 + 1, so twice that
    is the integer s + e + 2, and the group has e - s + 1 members. Equality is exact (as in R's
    ``rank`` and scipy's ``rankdata``); -0.0 ties with 0.0. Row-wise sorts and running maxima,
    no Python loop: well under a second for a million items and five runs.
    """
    n, k = matrix.shape
    order = np.argsort(matrix, axis=1, kind="stable")
    ordered = np.take_along_axis(matrix, order, axis=1)
    first = np.ones((n, k), dtype=bool)  # first member of its tie group
    first[:, 1:] = ordered[:, 1:] != ordered[:, :-1]
    last = np.ones((n, k), dtype=bool)  # last member of its tie group
    last[:, :-1] = first[:, 1:]
    position = np.arange(k, dtype=np.int64)
    start = np.maximum.accumulate(np.where(first, position, 0), axis=1)
    end = np.minimum.accumulate(np.where(last, position, k - 1)[:, ::-1], axis=1)[:, ::-1]
    doubled = np.empty((n, k), dtype=np.int64)
    ties = np.empty((n, k), dtype=np.int64)
    np.put_along_axis(doubled, order, start + end + 2, axis=1)
    np.put_along_axis(ties, order, end - start + 1, axis=1)
    return doubled, ties


def friedman(scores: np.ndarray) -> OmnibusResult:
    """Friedman's rank test that k runs score the same n items alike.

    Each item's k scores are ranked 1..k, tied scores getting the average of their ranks. With
    R_j the rank sum of run j and t the sizes of the tie groups of every row,

        X = 12 sum (R_j - n (k + 1) / 2)^2 / (n k (k + 1) - sum (t^3 - t) / (k - 1))

    on k - 1 df: exactly R's ``friedman.test`` (and ``scipy.stats.friedmanchisquare``, which
    writes the same tie correction as a divisor). Computed here in integers as
    3 (k - 1) sum D_j^2 / (n k (k^2 - 1) - sum (t^3 - t)) with D_j = 2 R_j - n (k + 1). A fully
    tied row adds nothing to either part; when every row is fully tied the statistic is 0/0
    and the result is undefined.

    ``scores`` is an n x k real matrix of finite values (integers are accepted; booleans are
    refused, use :func:`cochran_q`, which Friedman on 0/1 data equals).
    """
    matrix = _check_matrix("scores", scores)
    if matrix.dtype == np.bool_ or not (
        np.issubdtype(matrix.dtype, np.integer) or np.issubdtype(matrix.dtype, np.floating)
    ):
        raise ValueError(
            f"scores must be a real-valued (integer or float) array, got dtype {matrix.dtype}"
        )
    matrix = matrix.astype(np.float64, copy=False)
    if not np.isfinite(matrix).all():
        bad = np.argwhere(~np.isfinite(matrix))[0]
        raise ValueError(
            f"scores must be finite, got {float(matrix[bad[0], bad[1]])!r} at row {int(bad[0])}, "
            f"column {int(bad[1])}"
        )
    n, k = matrix.shape
    doubled, ties = _doubled_ranks(matrix)
    deviations = doubled.sum(axis=0) - n * (k + 1)
    # Each member of a tie group of size t adds t^2 - 1, so a group adds t^3 - t.
    tie_term = int((ties * ties - 1).sum())
    informative = int(np.count_nonzero(ties.max(axis=1) < k))
    numerator = 3 * (k - 1) * sum(int(d) ** 2 for d in deviations)
    denominator = n * k * (k * k - 1) - tie_term
    return _result("friedman", numerator, denominator, n, k, informative)
