"""The paired 2x2 table of two runs over the same items, and McNemar's test on it.

Both runs answered the same items, so the unit of analysis is the item, not the run. Each item
lands in one cell of a 2x2 table:

    a = both pass
    b = regressions   (baseline passes, candidate fails)
    c = improvements  (baseline fails, candidate passes)
    d = both fail

and the quantity of interest is ``delta = (c - b) / n = rate(candidate) - rate(baseline)``.
McNemar's test weighs only the b + c items on which the runs disagree.

Only ``scipy.special`` is imported from SciPy (start-up time, see ``interval``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from evaltui.core.stats import special, validate

__all__ = ["McNemarResult", "PairedTable", "mcnemar"]


@dataclass(frozen=True)
class PairedTable:
    """The paired 2x2 table of two runs over the same items (baseline = A, candidate = B).

    Built from counts or with :meth:`from_verdicts`. Counts are validated because every
    statistic downstream silently assumes they are non-negative integers.
    """

    both_pass: int
    regressions: int
    improvements: int
    both_fail: int

    def __post_init__(self) -> None:
        for name in ("both_pass", "regressions", "improvements", "both_fail"):
            # Normalise numpy integers to int so the dataclass compares and hashes plainly.
            object.__setattr__(self, name, validate.count(name, getattr(self, name)))

    @classmethod
    def from_verdicts(cls, baseline: np.ndarray, candidate: np.ndarray) -> PairedTable:
        """Count the four cells from two aligned boolean verdict arrays (item i in both).

        Only real booleans are accepted: 0/1 or strings would hide a loading bug that the format
        modules are meant to catch, and unequal lengths mean the runs were never paired.
        """
        base = np.asarray(baseline)
        cand = np.asarray(candidate)
        if base.dtype != np.bool_ or cand.dtype != np.bool_:
            raise ValueError(
                "verdicts must be boolean arrays, got dtypes "
                f"baseline={base.dtype} and candidate={cand.dtype}"
            )
        if base.ndim != 1 or cand.ndim != 1:
            raise ValueError(
                f"verdicts must be one-dimensional, got shapes {base.shape} and {cand.shape}"
            )
        if base.shape != cand.shape:
            raise ValueError(
                f"baseline has {base.shape[0]} verdicts but candidate has {cand.shape[0]}: "
                "pair the runs item by item first"
            )
        both_pass = int(np.count_nonzero(base & cand))
        regressions = int(np.count_nonzero(base & ~cand))
        improvements = int(np.count_nonzero(~base & cand))
        both_fail = int(base.shape[0]) - both_pass - regressions - improvements
        return cls(both_pass, regressions, improvements, both_fail)

    @property
    def n(self) -> int:
        """Number of paired items."""
        return self.both_pass + self.regressions + self.improvements + self.both_fail

    @property
    def discordant(self) -> int:
        """Items where the runs disagree (b + c): the only ones that carry information."""
        return self.regressions + self.improvements

    @property
    def baseline_passes(self) -> int:
        """a + b."""
        return self.both_pass + self.regressions

    @property
    def candidate_passes(self) -> int:
        """a + c."""
        return self.both_pass + self.improvements

    @property
    def delta(self) -> float:
        """(c - b) / n = rate(candidate) - rate(baseline); NaN for an empty table."""
        if self.n == 0:
            return math.nan
        return (self.improvements - self.regressions) / self.n

    def swapped(self) -> PairedTable:
        """The same table with baseline and candidate exchanged (regressions <-> improvements)."""
        return PairedTable(self.both_pass, self.improvements, self.regressions, self.both_fail)


# --------------------------------------------------------------------------------------------
# McNemar
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class McNemarResult:
    """McNemar's test on the discordant items, exact and asymptotic.

    Every p-value is None when b + c == 0: with no disagreements the test has nothing to weigh,
    and reporting p = 1 would read as "no difference", which the data do not say.
    """

    regressions: int
    improvements: int
    exact_p: float | None
    mid_p: float | None
    chi2: float | None
    chi2_p: float | None
    chi2_cc: float | None
    chi2_cc_p: float | None

    @property
    def discordant(self) -> int:
        """b + c."""
        return self.regressions + self.improvements

    @property
    def defined(self) -> bool:
        """False when there are no disagreements (all p-values None)."""
        return self.discordant > 0


def _binom_half_pmf(k: int, m: int) -> float:
    """P(X = k) for X ~ Bin(m, 1/2), in logs so it stays finite for a million trials."""
    log_pmf = special.gammaln(m + 1) - special.gammaln(k + 1) - special.gammaln(m - k + 1)
    return float(math.exp(log_pmf - m * math.log(2.0)))


def mcnemar(table: PairedTable) -> McNemarResult:
    """McNemar's test of equal pass rates, conditional on the b + c discordant items.

    - exact: two-sided binomial, min(1, 2 P(X <= min(b, c))), X ~ Bin(b + c, 1/2), via the
      regularised incomplete beta in ``scipy.special.bdtr`` (relative error below 1e-9 up to
      two million disagreements, against exact big-integer sums; microseconds at a million
      items, where big-integer sums take hours).
    - mid-p: P(strictly more extreme) + P(as extreme)/2. For b != c that is
      2 (P(X <= k) - P(X = k)/2); for b == c the only outcome as extreme as the observed one is
      X = k itself, so it is 1 - P(X = k)/2 (the definition in Fagerland, Lydersen & Laake 2013,
      BMC Med Res Methodol 13:91, and their contingencytables::McNemar_midP_test_paired_2x2).
    - chi2 = (b - c)^2/(b + c) and chi2_cc = (|b - c| - 1)^2/(b + c), each on 1 df via
      ``scipy.special.chdtrc``. chi2_cc reproduces R's ``mcnemar.test(correct = TRUE)``
      exactly: no floor (|b - c| = 1 gives 0), and when b == c R applies no correction at all,
      so chi2_cc is 0, not 1/(b + c).
    """
    validate.instance("table", table, PairedTable)
    b, c = table.regressions, table.improvements
    m = b + c
    if m == 0:
        return McNemarResult(b, c, None, None, None, None, None, None)
    k = min(b, c)
    pmf = _binom_half_pmf(k, m)
    if b == c:
        exact_p = 1.0
        mid_p = 1.0 - 0.5 * pmf
    else:
        cdf = float(special.bdtr(k, m, 0.5))
        exact_p = min(1.0, 2.0 * cdf)
        mid_p = min(1.0, max(0.0, 2.0 * cdf - pmf))
    chi2 = (b - c) ** 2 / m
    chi2_cc = (abs(b - c) - 1) ** 2 / m if b != c else 0.0
    return McNemarResult(
        regressions=b,
        improvements=c,
        exact_p=exact_p,
        mid_p=mid_p,
        chi2=chi2,
        chi2_p=float(special.chdtrc(1, chi2)),
        chi2_cc=chi2_cc,
        chi2_cc_p=float(special.chdtrc(1, chi2_cc)),
    )
