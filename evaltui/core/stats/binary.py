"""Paired binary statistics: the 2x2 table, McNemar's test and intervals for the paired delta.

Both runs answered the same items, so the unit of analysis is the item, not the run. Each item
lands in one cell of a 2x2 table:

    a = both pass
    b = regressions   (baseline passes, candidate fails)
    c = improvements  (baseline fails, candidate passes)
    d = both fail

and the quantity of interest is ``delta = (c - b) / n = rate(candidate) - rate(baseline)``.
Every interval here is for delta in that orientation (candidate minus baseline). The papers
define ``p1 - p2 = (n12 - n21) / n``, n12 being "first variable positive, second negative"; the
candidate plays their first variable, so n12 is our ``c`` (improvements) and n21 our ``b``
(regressions). That mapping is written out at each method.

Only ``scipy.special`` is imported from SciPy: ``scipy.stats`` and ``scipy.optimize`` cost about
two seconds of start-up, which a terminal tool cannot afford for a handful of closed formulas. The
one interval that needs a root finder (Tango's) uses the bisection below on a function whose sign
is known at both ends of the bracket.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from scipy import special

from evaltui.core.stats import validate

__all__ = [
    "CI_METHODS",
    "FLAG_TEXT",
    "VERDICTS",
    "BinaryComparison",
    "Interval",
    "McNemarResult",
    "PairedTable",
    "UnpairedContrast",
    "compare_binary",
    "mcnemar",
    "paired_delta_interval",
    "unpaired_contrast",
    "wilson_interval",
]

CI_METHODS: tuple[str, ...] = (
    "newcombe",
    "tango",
    "wald",
    "wald-cc",
    "agresti-min",
    "bonett-price",
)
"""Interval methods for the paired delta; the first is the default."""

VERDICTS: tuple[str, ...] = (
    "improved",
    "regressed",
    "no_significant_difference",
    "insufficient_data",
)
"""Every value :attr:`BinaryComparison.verdict` can take."""

FEW_DISCORDANT = 25
"""Below this many disagreements the chi-square approximation is poor: the exact test leads."""

SMALL_N = 30
"""Below this many paired items the tool reports counts but gives no verdict."""

FLAG_TEXT: dict[str, str] = {
    "no_discordant": "no disagreements, nothing to weigh",
    "few_discordant": (
        f"fewer than {FEW_DISCORDANT} disagreements: the exact McNemar p-value is the one to read, "
        "not the chi-square"
    ),
    "nested": (
        "every disagreement goes the same way: one run passes everything the other passes; "
        "that says which way, not by how much"
    ),
    "small_n": f"fewer than {SMALL_N} paired items: counts only, no verdict",
    "ci_test_disagree": (
        "the interval for the delta and the exact McNemar test disagree about significance: "
        "the result sits on the line"
    ),
}
"""Plain-words explanation of each flag a :class:`BinaryComparison` can carry, in display order."""


# --------------------------------------------------------------------------------------------
# Inputs
# --------------------------------------------------------------------------------------------


def _z(confidence: float) -> float:
    """Two-sided standard normal critical value: ndtri(1 - (1 - confidence) / 2)."""
    return float(special.ndtri(1.0 - (1.0 - confidence) / 2.0))


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


@dataclass(frozen=True)
class Interval:
    """A two-sided confidence interval, with the method and level that produced it."""

    lower: float
    upper: float
    method: str
    confidence: float

    @property
    def width(self) -> float:
        """upper - lower."""
        return self.upper - self.lower

    def excludes(self, value: float = 0.0) -> bool:
        """True when ``value`` lies strictly outside the interval (the usual significance read)."""
        return value < self.lower or value > self.upper


# --------------------------------------------------------------------------------------------
# Single proportion
# --------------------------------------------------------------------------------------------


def _wilson_bounds(successes: int, n: int, z: float) -> tuple[float, float]:
    """Wilson (1927) score bounds; exact 0 and 1 at the edges instead of rounding noise."""
    p = successes / n
    z2 = z * z
    denom = 1.0 + z2 / n
    centre = (p + z2 / (2.0 * n)) / denom
    half = z * math.sqrt(p * (1.0 - p) / n + z2 / (4.0 * n * n)) / denom
    lower = 0.0 if successes == 0 else max(0.0, centre - half)
    upper = 1.0 if successes == n else min(1.0, centre + half)
    return lower, upper


def wilson_interval(successes: int, n: int, confidence: float = 0.95) -> Interval:
    """Wilson score interval for one pass rate (method ``"wilson"``).

    Used for the marginal rates because, unlike the Wald interval, it stays inside [0, 1] and
    keeps close to nominal coverage near 0 and 1, where eval pass rates often live.
    """
    successes = validate.count("successes", successes)
    n = validate.count("n", n)
    confidence = validate.confidence(confidence)
    if n == 0:
        raise ValueError("n must be at least 1 for a pass-rate interval, got 0")
    if successes > n:
        raise ValueError(f"successes must be at most n = {n}, got {successes}")
    lower, upper = _wilson_bounds(successes, n, _z(confidence))
    return Interval(lower, upper, "wilson", confidence)


# --------------------------------------------------------------------------------------------
# Paired delta intervals
# --------------------------------------------------------------------------------------------


def _newcombe_phi(table: PairedTable) -> float:
    """Newcombe's (1998) continuity-corrected phi for method 10.

    With A = ad - bc: phi = (A - n/2)/sqrt(margins) when A > n/2, 0 when 0 <= A <= n/2, and
    A/sqrt(margins) when A < 0; 0 when any margin is empty. The correction is what separates
    method 10 from method 8 in the paper's Table III (e.g. 20/12/2/16 gives 0.0562-0.3292 with
    it and 0.0618-0.3242 without) and keeps a = d, b = c = 0 from collapsing to a zero-width
    interval.
    """
    a, b, c, d = table.both_pass, table.regressions, table.improvements, table.both_fail
    margins = (a + b) * (c + d) * (a + c) * (b + d)
    if margins == 0:
        return 0.0
    cross = a * d - b * c
    half_n = table.n / 2.0
    if cross > half_n:
        numerator = cross - half_n
    elif cross >= 0:
        numerator = 0.0
    else:
        numerator = float(cross)
    return numerator / math.sqrt(margins)


def _newcombe(table: PairedTable, z: float) -> tuple[float, float]:
    """Newcombe (1998, Stat Med 17:2635) method 10: hybrid score interval with the two Wilson
    intervals of the marginal rates, joined through the corrected phi.

    Newcombe's theta = p1 - p2 with p1 = (e + f)/n; here p1 is the candidate rate (a + c)/n and
    p2 the baseline rate (a + b)/n, i.e. e = a, f = c (improvements), g = b (regressions), h = d.
    """
    n = table.n
    p1 = table.candidate_passes / n
    p2 = table.baseline_passes / n
    l1, u1 = _wilson_bounds(table.candidate_passes, n, z)
    l2, u2 = _wilson_bounds(table.baseline_passes, n, z)
    phi = _newcombe_phi(table)
    theta = table.delta
    down = (p1 - l1) ** 2 - 2.0 * phi * (p1 - l1) * (u2 - p2) + (u2 - p2) ** 2
    up = (u1 - p1) ** 2 - 2.0 * phi * (u1 - p1) * (p2 - l2) + (p2 - l2) ** 2
    return theta - math.sqrt(max(down, 0.0)), theta + math.sqrt(max(up, 0.0))


def _tango_p21(delta: float, x12: int, x21: int, n: int) -> float:
    """Restricted MLE of p21 given delta = p12 - p21 (Tango 1998, eq. for the score test).

    The positive root of 2n p^2 + B p + C = 0 with B = -x12 - x21 + (2n - x12 + x21) delta and
    C = -x21 delta (1 - delta). When B > 0 the textbook root cancels catastrophically, so the
    algebraically equal form -2C / (sqrt(disc) + B) is used there.
    """
    a = 2.0 * n
    b = -x12 - x21 + (2.0 * n - x12 + x21) * delta
    c = -x21 * delta * (1.0 - delta)
    root = math.sqrt(max(b * b - 4.0 * a * c, 0.0))
    if b <= 0.0:
        return (root - b) / (2.0 * a)
    return (-2.0 * c) / (root + b)


def _tango_parts(delta0: float, x12: int, x21: int, n: int) -> tuple[float, float]:
    """Numerator and standard deviation of Tango's score statistic at delta0."""
    p21 = _tango_p21(delta0, x12, x21, n)
    variance = n * (2.0 * p21 + delta0 * (1.0 - delta0))
    return x12 - x21 - n * delta0, math.sqrt(max(variance, 0.0))


def _bisect(func: Callable[[float], float], lo: float, hi: float) -> float:
    """Root of ``func`` on [lo, hi] given func(lo) >= 0 >= func(hi), to float resolution.

    Bisection rather than Brent: it needs only the sign, so it is immune to the 0/0 that
    Tango's statistic has at a vanishing variance, and 1100 halvings can never be needed
    because the loop stops when the midpoint no longer moves (about 60 steps on [-1, 1]).
    """
    for _ in range(1100):
        mid = 0.5 * (lo + hi)
        if mid <= lo or mid >= hi:
            break
        if func(mid) > 0.0:
            lo = mid
        else:
            hi = mid
    return 0.5 * (lo + hi)


def _tango(table: PairedTable, z: float) -> tuple[float, float]:
    """Tango (1998, Stat Med 17:891) asymptotic score interval, inverted numerically.

    Tango's delta = p12 - p21 with x12 the "first only" cell; the candidate is the first variable,
    so x12 = c (improvements) and x21 = b (regressions), which makes his delta our delta.
    The limits are the two solutions of Z(delta) = +z (lower) and Z(delta) = -z (upper). Rather
    than dividing by a standard deviation that can vanish, each is found as a sign change of
    numerator -/+ z * sd, which has the same roots wherever the statistic is defined: the lower
    one on [-1, estimate] (value n + x12 - x21 >= 0 at -1, -z sd <= 0 at the estimate), the upper
    one on [estimate, 1] likewise.
    """
    n = table.n
    x12 = table.improvements
    x21 = table.regressions
    estimate = table.delta

    def lower_gap(delta0: float) -> float:
        numerator, sd = _tango_parts(delta0, x12, x21, n)
        return numerator - z * sd

    def upper_gap(delta0: float) -> float:
        numerator, sd = _tango_parts(delta0, x12, x21, n)
        return numerator + z * sd

    lower = -1.0 if x21 == n else _bisect(lower_gap, -1.0, estimate)
    upper = 1.0 if x12 == n else _bisect(upper_gap, estimate, 1.0)
    return lower, upper


def _wald(table: PairedTable, z: float) -> tuple[float, float]:
    """delta +/- z sqrt(b + c - (c - b)^2 / n) / n: the textbook paired Wald interval."""
    n = table.n
    b, c = table.regressions, table.improvements
    se = math.sqrt(max(b + c - (c - b) ** 2 / n, 0.0)) / n
    return table.delta - z * se, table.delta + z * se


def _wald_cc(table: PairedTable, z: float) -> tuple[float, float]:
    """Wald with continuity correction, the correction inside the standard error.

    Fagerland, Lydersen & Laake (2014, Stat Med 33:2850), "Wald interval with continuity
    correction": delta +/- z * sqrt(b + c - (|c - b| - 1)^2 / n) / n, i.e. the 1 is subtracted
    from |c - b| inside the variance, not added to the limits as +/- 1/n. This is the formula in
    the authors' companion R package (contingencytables::Wald_CI_diff_CC_paired_2x2, Fagerland,
    Lydersen & Laake, "Statistical Analysis of Contingency Tables", 2017, ch. 8); the paper's own
    text was not available to check the printed equation. With b = c = 0 the radicand is -1/n;
    like that package we take the standard error as 0, giving the zero-width interval [0, 0].
    """
    n = table.n
    b, c = table.regressions, table.improvements
    se = math.sqrt(max(b + c - (abs(c - b) - 1) ** 2 / n, 0.0)) / n
    return table.delta - z * se, table.delta + z * se


def _agresti_min(table: PairedTable, z: float) -> tuple[float, float]:
    """Agresti & Min (2005, Stat Med 24:729) "Wald+2": add 0.5 to every cell, then Wald.

    With n~ = n + 2: centre (c - b)/n~ and se = sqrt((b + c + 1) - (c - b)^2/n~)/n~ (the same
    formula as Agresti's own diffpropci R function, with his b, c in our orientation).
    The centre is shrunk toward 0, so at low confidence the interval need not contain delta.
    """
    n_adj = table.n + 2.0
    b, c = table.regressions, table.improvements
    centre = (c - b) / n_adj
    se = math.sqrt(max(b + c + 1.0 - (c - b) ** 2 / n_adj, 0.0)) / n_adj
    return centre - z * se, centre + z * se


def _bonett_price(table: PairedTable, z: float) -> tuple[float, float]:
    """Bonett & Price (2012, J Educ Behav Stat 37:479) adjusted Wald with Laplace estimates.

    p12~ = (c + 1)/(n + 2), p21~ = (b + 1)/(n + 2); limits
    p12~ - p21~ +/- z sqrt((p12~ + p21~ - (p12~ - p21~)^2) / (n + 2)).
    Like Agresti-Min the centre is shrunk toward 0.
    """
    n_adj = table.n + 2.0
    p12 = (table.improvements + 1.0) / n_adj
    p21 = (table.regressions + 1.0) / n_adj
    centre = p12 - p21
    se = math.sqrt(max((p12 + p21 - centre * centre) / n_adj, 0.0))
    return centre - z * se, centre + z * se


_DELTA_METHODS: dict[str, Callable[[PairedTable, float], tuple[float, float]]] = {
    "newcombe": _newcombe,
    "tango": _tango,
    "wald": _wald,
    "wald-cc": _wald_cc,
    "agresti-min": _agresti_min,
    "bonett-price": _bonett_price,
}


def paired_delta_interval(
    table: PairedTable, method: str = "newcombe", confidence: float = 0.95
) -> Interval:
    """Confidence interval for delta = rate(candidate) - rate(baseline) from paired data.

    The default (Newcombe's method 10) keeps near-nominal coverage at small b + c and never
    leaves [-1, 1]; the Wald family is there for comparison with other tools. All limits are
    clipped to [-1, 1].
    """
    method = validate.one_of("interval method", method, CI_METHODS)
    confidence = validate.confidence(confidence)
    validate.some_items(validate.instance("table", table, PairedTable).n)
    lower, upper = _DELTA_METHODS[method](table, _z(confidence))
    return Interval(max(-1.0, lower), min(1.0, upper), method, confidence)


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


# --------------------------------------------------------------------------------------------
# The wrong test, for contrast
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class UnpairedContrast:
    """The independent two-proportion Wald interval: the WRONG test for paired runs.

    Shown only so the reviewer can see how much the pairing buys (it ignores that both runs
    answered the same items, so shared difficulty inflates its standard error).
    """

    se: float
    ci: Interval


def unpaired_contrast(table: PairedTable, confidence: float = 0.95) -> UnpairedContrast:
    """delta +/- z sqrt(pA(1 - pA)/n + pB(1 - pB)/n), method ``"unpaired-wald"``, clipped."""
    confidence = validate.confidence(confidence)
    n = validate.some_items(validate.instance("table", table, PairedTable).n)
    p_a = table.baseline_passes / n
    p_b = table.candidate_passes / n
    se = math.sqrt(p_a * (1.0 - p_a) / n + p_b * (1.0 - p_b) / n)
    z = _z(confidence)
    ci = Interval(
        max(-1.0, table.delta - z * se),
        min(1.0, table.delta + z * se),
        "unpaired-wald",
        confidence,
    )
    return UnpairedContrast(se=se, ci=ci)


# --------------------------------------------------------------------------------------------
# The headline comparison
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True, repr=False)
class BinaryComparison:
    """Everything the report shows for one pass/fail metric, echoing its inputs.

    The effect size and its interval are the headline; McNemar is secondary; ``unpaired`` is
    the wrong test, kept only as a contrast. ``flags`` (keys of :data:`FLAG_TEXT`) say what the
    numbers cannot, and ``verdict`` is one of :data:`VERDICTS`.
    """

    table: PairedTable
    ci_method: str
    confidence: float
    alpha: float
    baseline_rate: float
    baseline_ci: Interval
    candidate_rate: float
    candidate_ci: Interval
    delta: float
    delta_ci: Interval
    mcnemar: McNemarResult
    unpaired: UnpairedContrast
    flags: tuple[str, ...]
    verdict: str

    def __repr__(self) -> str:
        t = self.table
        level = f"{self.confidence * 100:g}%"
        p = "undefined" if self.mcnemar.exact_p is None else f"{self.mcnemar.exact_p:.4g}"
        return (
            f"BinaryComparison(n={t.n}, both_pass={t.both_pass}, regressions={t.regressions}, "
            f"improvements={t.improvements}, both_fail={t.both_fail}, "
            f"delta={self.delta:+.4f} [{level} {self.ci_method}: "
            f"{self.delta_ci.lower:+.4f}, {self.delta_ci.upper:+.4f}], "
            f"exact_p={p}, verdict={self.verdict!r}, flags={self.flags!r})"
        )


def _flags(
    table: PairedTable,
    delta_ci: Interval,
    test: McNemarResult,
    alpha: float,
    confidence: float,
) -> tuple[str, ...]:
    """The flags that apply, in :data:`FLAG_TEXT` order."""
    flags: list[str] = []
    discordant = table.discordant
    if discordant == 0:
        flags.append("no_discordant")
    if 0 < discordant < FEW_DISCORDANT:
        flags.append("few_discordant")
    if discordant > 0 and (table.regressions == 0 or table.improvements == 0):
        flags.append("nested")
    if table.n < SMALL_N:
        flags.append("small_n")
    # The interval and the test can only disagree when they are at the same level: a 90%
    # interval and a test at 5% are different questions, not a result on the line.
    same_level = math.isclose(confidence, 1.0 - alpha, abs_tol=1e-9)
    if same_level and test.exact_p is not None and delta_ci.excludes(0.0) != (test.exact_p < alpha):
        flags.append("ci_test_disagree")
    return tuple(flags)


def _verdict(flags: tuple[str, ...], delta_ci: Interval) -> str:
    """No verdict without enough items or any disagreement; otherwise the interval decides."""
    if "small_n" in flags or "no_discordant" in flags:
        return "insufficient_data"
    if delta_ci.upper < 0.0:
        return "regressed"
    if delta_ci.lower > 0.0:
        return "improved"
    return "no_significant_difference"


def compare_binary(
    table: PairedTable,
    ci_method: str = "newcombe",
    confidence: float = 0.95,
    alpha: float = 0.05,
) -> BinaryComparison:
    """Compare candidate with baseline on one pass/fail metric, paired item by item.

    The verdict comes from the delta interval (the headline), not from the p-value; when the two
    disagree the ``ci_test_disagree`` flag says so. Fewer than 30 items or no disagreements give
    ``insufficient_data`` with the counts still reported. An empty table raises ValueError:
    there is no rate to report at all.
    """
    ci_method = validate.one_of("interval method", ci_method, CI_METHODS)
    confidence = validate.confidence(confidence)
    alpha = validate.alpha(alpha)
    n = validate.some_items(validate.instance("table", table, PairedTable).n)
    delta_ci = paired_delta_interval(table, ci_method, confidence)
    test = mcnemar(table)
    flags = _flags(table, delta_ci, test, alpha, confidence)
    return BinaryComparison(
        table=table,
        ci_method=ci_method,
        confidence=confidence,
        alpha=alpha,
        baseline_rate=table.baseline_passes / n,
        baseline_ci=wilson_interval(table.baseline_passes, n, confidence),
        candidate_rate=table.candidate_passes / n,
        candidate_ci=wilson_interval(table.candidate_passes, n, confidence),
        delta=table.delta,
        delta_ci=delta_ci,
        mcnemar=test,
        unpaired=unpaired_contrast(table, confidence),
        flags=flags,
        verdict=_verdict(flags, delta_ci),
    )
