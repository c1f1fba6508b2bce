"""Non-inferiority and equivalence: the delta's interval against a margin stated beforehand.

A superiority verdict asks "is the candidate better or worse at all?". A release often asks
something else: "is the candidate at most m worse?" (non-inferiority), or "does it stay within
+-m?" (equivalence). Both are read off the same two-sided interval at level 1 - 2 alpha, which
is the one-sided test at level alpha on each side it is read (Schuirmann 1987's two one-sided
tests, TOST; the same as ICH E9's "two one-sided tests at 2.5%" read from a 95% interval when
alpha = 0.025):

- non-inferiority at one-sided level alpha: the interval's limit on the worse side lies beyond
  -margin (``lower > -margin``; for a loss, where a rise is worse, ``upper < +margin``);
- equivalence by TOST at level alpha: the interval lies inside ``(-margin, +margin)``; the TOST
  p-value is the larger of the two one-sided p-values.

The interval decides, as it does for the verdict; the one-sided p-values are reported beside it.
Each is the test whose family the data call for:

- pass/fail, paired: Tango's (1998, Stat Med 17:891-908) score test at the shifted null
  delta0 = -margin or +margin. Tango designed it for exactly this question (his "equivalence" is
  one-sided: "not more than 100 delta per cent inferior"), it stays defined with an empty
  off-diagonal cell, and its inversion is the Tango interval. The interval shown is the
  analysis's own method at 1 - 2 alpha (Tango's score interval by default, so the interval and the
  test agree), so the margin reads the same interval family the verdict does; when that method is
  not Tango's (``--ci-method newcombe``, say), the interval and
  the score test can disagree near the margin, which the ``interval_test_disagree`` flag says.
- graded scores (or per-item pass rates over epochs), paired: the paired t test of
  ``mean delta = -margin`` (greater) and ``= +margin`` (less), as R's
  ``t.test(d, mu = -m, alternative = "greater")`` and statsmodels' ``ttost_paired`` compute
  them; the interval is the analysis's bootstrap (BCa or percentile) at 1 - 2 alpha.
- clustered items: the cluster-aware interval the verdict rests on (wild cluster bootstrap-t,
  or the CR1 t interval with many clusters) at 1 - 2 alpha, and one-sided CR1 t tests on G - 1
  degrees of freedom (Cameron and Miller 2015, section VI.A).

Only ``scipy.special`` is imported (``scipy.stats`` costs about two seconds of start-up).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np

from evaltui.core.stats import special, validate
from evaltui.core.stats.paired_delta import DEFAULT_CI_METHOD, paired_delta_interval, tango_parts
from evaltui.core.stats.paired_table import PairedTable

__all__ = [
    "MARGIN_KINDS",
    "MarginTest",
    "binary_margin",
    "cluster_t_one_sided",
    "decide_margin",
    "paired_t_one_sided",
    "tango_one_sided",
]

MARGIN_KINDS: tuple[str, ...] = ("non_inferiority", "equivalence")
"""What a margin asks: at most ``margin`` worse, or within ``+-margin``."""


@dataclass(frozen=True)
class MarginTest:
    """A margin question answered: the interval against the margin, and the one-sided tests.

    Everything is in the metric's units and the raw orientation, candidate minus baseline
    (``estimate``, ``interval``); ``lower_is_better`` says which side is worse. ``interval`` is
    two-sided at ``level`` = 1 - 2 alpha. ``p_below`` is the one-sided p of the null
    "delta <= -margin" (small: the candidate is shown above -margin), ``p_above`` that of
    "delta >= +margin". ``shown`` is True when the interval clears the margin, False when it
    does not, None when no answer can be given (``undecided`` says why, in words).
    """

    kind: str
    margin: float
    alpha: float
    estimate: float
    interval: tuple[float, float]
    interval_method: str  # what the interval is, for a reader: "Tango 90%"
    test: str  # the one-sided tests: "Tango score", "paired t", "cluster-robust t (CR1)"
    p_below: float | None
    p_above: float | None
    lower_is_better: bool = False
    shown: bool | None = None
    undecided: str | None = None
    flags: tuple[str, ...] = ()

    @property
    def level(self) -> float:
        """The interval's level, 1 - 2 alpha."""
        return 1.0 - 2.0 * self.alpha

    @property
    def worse_limit(self) -> float:
        """The interval's limit on the worse side: the one non-inferiority reads."""
        return self.interval[1] if self.lower_is_better else self.interval[0]

    @property
    def p(self) -> float | None:
        """Non-inferiority: the worse side's one-sided p; equivalence: the TOST p, the larger."""
        if self.kind == "non_inferiority":
            return self.p_above if self.lower_is_better else self.p_below
        if self.p_below is None or self.p_above is None:
            return None
        return max(self.p_below, self.p_above)


def _check(kind: str, margin: float, alpha: float) -> None:
    """alpha below 1/2: the interval read against the margin is two-sided at 1 - 2 alpha."""
    validate.one_of("margin kind", kind, MARGIN_KINDS)
    validate.positive("margin", margin)
    if not 0.0 < validate.number("alpha", alpha) < 0.5:
        raise ValueError(f"alpha must be strictly between 0 and 0.5, got {alpha!r}")


def decide_margin(
    kind: str,
    margin: float,
    alpha: float,
    estimate: float,
    interval: tuple[float, float],
    interval_method: str,
    test: str,
    p_below: float | None,
    p_above: float | None,
    *,
    lower_is_better: bool = False,
    undecided: str | None = None,
) -> MarginTest:
    """The interval (two-sided, 1 - 2 alpha) against the margin; ``undecided`` (a reason in
    words) leaves the question open, as does an interval limit that is undefined (NaN)."""
    _check(kind, margin, alpha)
    lo, hi = float(interval[0]), float(interval[1])
    shown: bool | None
    if undecided is not None:
        shown = None
    elif kind == "non_inferiority":
        limit = hi if lower_is_better else lo
        if math.isnan(limit):
            shown, undecided = None, "the interval's limit is undefined"
        else:
            shown = limit < margin if lower_is_better else limit > -margin
    elif math.isnan(lo) or math.isnan(hi):
        shown, undecided = None, "the interval's limits are undefined"
    else:
        shown = -margin < lo and hi < margin
    result = MarginTest(
        kind=kind,
        margin=float(margin),
        alpha=float(alpha),
        estimate=float(estimate),
        interval=(lo, hi),
        interval_method=interval_method,
        test=test,
        p_below=p_below,
        p_above=p_above,
        lower_is_better=lower_is_better,
        shown=shown,
        undecided=undecided,
    )
    p = result.p
    if shown is not None and p is not None and shown != (p < alpha):
        # Newcombe's (or a Wald) interval and Tango's test, or the bootstrap and the t test,
        # read the data differently near the margin: the result sits on the line.
        result = replace(result, flags=("interval_test_disagree",))
    return result


# --------------------------------------------------------------------------------------------
# The one-sided tests
# --------------------------------------------------------------------------------------------


def tango_one_sided(table: PairedTable, delta0: float) -> tuple[float, float, float]:
    """Tango's (1998) score statistic Z at the null delta = delta0, and its one-sided p-values
    (p_greater for the null "delta <= delta0", p_less for "delta >= delta0").

    Z = (x12 - x21 - n delta0) / sqrt(n (2 p21~ + delta0 (1 - delta0))), p21~ the restricted
    MLE of p21 under delta0; the candidate is Tango's first variable, so x12 = improvements and
    x21 = regressions (see paired_delta.py). The variance is positive for every delta0 strictly
    inside (-1, 1) except 0 with no discordant items, where Z is taken as 0.
    """
    validate.some_items(validate.instance("table", table, PairedTable).n)
    if not -1.0 < delta0 < 1.0:
        raise ValueError(f"delta0 must lie strictly between -1 and 1, got {delta0!r}")
    numerator, sd = tango_parts(delta0, table.improvements, table.regressions, table.n)
    z = 0.0 if sd == 0.0 else numerator / sd
    return z, float(special.ndtr(-z)), float(special.ndtr(z))


def paired_t_one_sided(deltas: np.ndarray, delta0: float) -> tuple[float, float, float]:
    """The paired t statistic of "mean delta = delta0" and its one-sided p-values: p_greater
    (R's ``t.test(d, mu = delta0, alternative = "greater")``) and p_less.

    A single item has no degrees of freedom (NaN statistic, p-values 1: nothing is shown); all
    deltas equal make the mean exactly known, so each p is 0 or 1.
    """
    x = validate.sample("deltas", deltas)
    n = x.size
    if n < 2:
        return math.nan, 1.0, 1.0
    mean = float(np.mean(x))
    se = math.sqrt(float(np.var(x, ddof=1)) / n)
    if se == 0.0:
        return (
            math.copysign(math.inf, mean - delta0) if mean != delta0 else 0.0,
            0.0 if mean > delta0 else 1.0,
            0.0 if mean < delta0 else 1.0,
        )
    t = (mean - delta0) / se
    return t, float(special.stdtr(n - 1, -t)), float(special.stdtr(n - 1, t))


def cluster_t_one_sided(
    mean: float, cr1: float, n_clusters: int, delta0: float
) -> tuple[float, float, float]:
    """One-sided CR1 t tests of "mean delta = delta0" on G - 1 degrees of freedom, ``cr1`` the
    CR1 standard error (``clusters.cr1_se``), as ``clusters.cluster_t_interval`` inverts it."""
    g = n_clusters
    if g < 2 or not math.isfinite(cr1):
        return math.nan, 1.0, 1.0
    se = cr1
    if se == 0.0:
        return (
            math.copysign(math.inf, mean - delta0) if mean != delta0 else 0.0,
            0.0 if mean > delta0 else 1.0,
            0.0 if mean < delta0 else 1.0,
        )
    t = (mean - delta0) / se
    return t, float(special.stdtr(g - 1, -t)), float(special.stdtr(g - 1, t))


# --------------------------------------------------------------------------------------------
# Pass/fail, paired
# --------------------------------------------------------------------------------------------


def binary_margin(
    table: PairedTable,
    kind: str,
    margin: float,
    alpha: float = 0.05,
    ci_method: str = DEFAULT_CI_METHOD,
    *,
    method_label: str | None = None,
    undecided: str | None = None,
) -> MarginTest:
    """A margin on the paired difference in pass rate: the ``ci_method`` interval at
    1 - 2 alpha (Tango's score interval by default) against it, Tango's score tests at
    delta0 = -margin and +margin beside it. ``margin`` is in rate units (0.01 = 1 point) and
    must be below 1: a pass rate cannot move by more."""
    _check(kind, margin, alpha)
    if margin >= 1.0:
        raise ValueError(f"a margin on a pass rate must be below 1 (0.01 = 1 point), got {margin}")
    level = 1.0 - 2.0 * alpha
    interval = paired_delta_interval(table, ci_method, level)
    _, p_below, _ = tango_one_sided(table, -margin)
    _, _, p_above = tango_one_sided(table, margin)
    label = method_label or ci_method
    return decide_margin(
        kind,
        margin,
        alpha,
        table.delta,
        (interval.lower, interval.upper),
        f"{label} {level * 100:g}%",
        "Tango score",
        p_below,
        p_above,
        undecided=undecided,
    )
