"""Two runs of different items: the independent (unpaired) comparison (design rules D1, R9, R10).

When the arms do not share their items there are no pairs, so the paired machinery (the 2x2
table, McNemar, the paired bootstrap) does not apply. What does:

- pass/fail (R9): each arm's rate with its Wilson interval; the difference candidate - baseline
  with Newcombe's hybrid score interval for independent proportions (Newcombe 1998, Stat Med
  17:873-890, method 10: the Wilson limits of the two rates combined); the two-proportion z-test
  with the pooled null (R's ``prop.test(correct = FALSE)``: its chi-square is z squared); and
  Fisher's exact two-sided test (R's ``fisher.test``). Fisher is THE test, the one the verdict
  rests on, when an arm is small: an arm with fewer than :data:`SMALL_ARM` items, or an
  expected cell count under the pooled null below :data:`MIN_EXPECTED` (Cochran's rule, the
  point where the z-test's normal approximation is known to mislead). Both tests are always
  reported, side by side.
- scores (R10): Welch's two-sample t (statistic, Welch-Satterthwaite df, p, and the interval
  for the mean difference), as R's ``t.test(var.equal = FALSE)``; each arm's mean with its
  one-sample t interval. When an arm is too skewed for its size (n <= 100 g1²,
  ``ARM_SKEW_FACTOR`` with ``mean_check``) Welch's t is liberal (9.4-10.3% false verdicts for
  30 against 300 lognormal items), and the permutation test of Welch's t, exact when the arms
  share one distribution, decides instead (``permutation``).

The verdict rests on the test at ``alpha`` (not on the interval, as the paired analysis does):
an unpaired comparison has two candidate intervals (Newcombe's, and the one the z or Fisher
test inverts), and the test is what the design chooser names. When the interval disagrees with
the test the ``ci_test_disagree`` flag says so. Fewer than 30 items in an arm gives no verdict
(the project's small-n rule), and so does a pair of arms with nothing to weigh (every item in
both arms passed, or failed; every score equal).

Only ``scipy.special`` is imported: ``scipy.stats`` costs about two seconds of start-up.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from evaltui.core.stats import special, validate
from evaltui.core.stats.interval import Interval, wilson_interval
from evaltui.core.stats.mean_check import check_mean
from evaltui.core.stats.permutation import PERMUTATIONS, permutation_welch_p

__all__ = [
    "FLAG_TEXT",
    "MIN_EXPECTED",
    "SMALL_ARM",
    "ArmSummary",
    "IndependentComparison",
    "TwoSampleTest",
    "compare_proportions",
    "compare_scores",
    "fisher_exact_p",
    "newcombe_independent_interval",
    "two_proportion_z",
    "welch_t",
]

SMALL_ARM = 30
"""An arm with fewer items is small: Fisher is the test and (the paired rule) no verdict."""

ARM_SKEW_FACTOR = 100.0
"""Welch's t on arms of unequal size does not get the cancellation of skewness that a paired
difference gets, so an arm is held to n > 100 g1² (four times Cochran's 25) before Welch
decides: with 25, 30 against 300 exponential items still gave 6.0% false verdicts."""

MIN_EXPECTED = 5.0
"""Cochran's rule: an expected cell count under the pooled null below this makes Fisher the test."""

FISHER_RELATIVE_TOLERANCE = 1e-7
"""R's ``fisher.test``: a table counts as no more likely than the observed one when its
probability is at most the observed one's times 1 + 1e-7 (ties in floating point)."""

FLAG_TEXT: dict[str, str] = {
    "small_n": f"an arm has fewer than {SMALL_ARM} items: counts only, no verdict",
    "fisher_leads": (
        f"an arm is small (fewer than {SMALL_ARM} items, or an expected count below "
        f"{MIN_EXPECTED:g}): Fisher's exact test is the one to read, not the z-test"
    ),
    "no_variation": "every item in both arms has the same outcome: nothing to weigh",
    "zero_variance": (
        "every score is the same within each arm: Welch's t is undefined, so there is no verdict"
    ),
    "direction_unknown": (
        "which way is better for this metric is not known: no directional verdict until "
        "--direction higher|lower (or the policy's [metrics.NAME] direction) says"
    ),
    "permutation_leads": (
        "an arm's scores are too skewed for its size (Cochran's rule): Welch's t does not hold "
        "its level here, so the permutation test of Welch's t decides (Welch's p beside it)"
    ),
    "ci_test_disagree": (
        "the interval for the difference and the test disagree about significance: "
        "the result sits on the line"
    ),
}
"""Plain words for each flag an :class:`IndependentComparison` can carry, in display order."""

VERDICTS = ("improved", "regressed", "no_significant_difference", "insufficient_data")


@dataclass(frozen=True)
class TwoSampleTest:
    """One two-sample test: its name, statistic (z or t; None for Fisher), df (Welch) and p."""

    name: str  # "z_pooled", "fisher_exact" or "welch_t"
    statistic: float | None
    df: float | None
    p: float  # NaN when the test is undefined (no variation at all)

    @property
    def label(self) -> str:
        """What a reader calls it."""
        return TEST_LABELS[self.name]


TEST_LABELS = {
    "z_pooled": "two-proportion z (pooled)",
    "fisher_exact": "Fisher exact",
    "welch_t": "Welch t",
    "permutation_welch_t": "permutation test of Welch t",
}


@dataclass(frozen=True)
class ArmSummary:
    """One arm on its own: its size, its rate or mean, and how precisely that one is known."""

    n: int
    value: float  # the pass rate, or the mean score
    ci: Interval  # Wilson for a rate, the one-sample t interval for a mean
    passes: int | None = None  # pass/fail only
    sd: float | None = None  # scores only (n - 1 in the denominator)


@dataclass(frozen=True)
class IndependentComparison:
    """The unpaired comparison of two arms, echoing its inputs (see the module docstring).

    ``delta`` is candidate - baseline; ``ci`` its interval (``ci.method``: ``newcombe`` for
    rates, ``welch`` for means); ``test`` is the test the verdict rests on and ``other_test``
    the one reported beside it (pass/fail: z and Fisher; scores: None).
    """

    kind: str  # "binary" or "graded"
    baseline: ArmSummary
    candidate: ArmSummary
    delta: float
    ci: Interval
    confidence: float
    alpha: float
    test: TwoSampleTest
    other_test: TwoSampleTest | None
    small_arm: bool  # pass/fail: Fisher leads (an arm < SMALL_ARM, or an expected count < 5)
    min_expected: float | None  # pass/fail: the smallest expected cell count under the null
    lower_is_better: bool
    flags: tuple[str, ...]
    verdict: str

    @property
    def z_test(self) -> TwoSampleTest | None:
        return self._named("z_pooled")

    @property
    def fisher(self) -> TwoSampleTest | None:
        return self._named("fisher_exact")

    def _named(self, name: str) -> TwoSampleTest | None:
        for test in (self.test, self.other_test):
            if test is not None and test.name == name:
                return test
        return None


# --------------------------------------------------------------------------------------------
# Checks
# --------------------------------------------------------------------------------------------


def _arm(passes: object, n: object, which: str) -> tuple[int, int]:
    passes, n = validate.count(f"{which} passes", passes), validate.count(f"{which} n", n)
    if n == 0:
        raise ValueError(f"the {which} arm is empty (n = 0): there is no rate to compare")
    if passes > n:
        raise ValueError(f"{which} passes must be at most n = {n}, got {passes}")
    return passes, n


# --------------------------------------------------------------------------------------------
# Pass/fail
# --------------------------------------------------------------------------------------------


def newcombe_independent_interval(
    candidate_passes: int,
    candidate_n: int,
    baseline_passes: int,
    baseline_n: int,
    confidence: float = 0.95,
) -> Interval:
    """Newcombe's (1998) hybrid score interval for rate(candidate) - rate(baseline), method 10.

    With p1, p2 the candidate's and the baseline's rates and [l_i, u_i] their Wilson limits:
    lower = d - sqrt((p1 - l1)^2 + (u2 - p2)^2), upper = d + sqrt((u1 - p1)^2 + (p2 - l2)^2).
    It inherits the Wilson interval's behaviour at 0 and 1 (no overshoot, no zero width), which
    is where eval pass rates live; Newcombe's Table II gives 0.0524 to 0.3339 for 56/70 - 48/80.
    """
    x1, n1 = _arm(candidate_passes, candidate_n, "candidate")
    x2, n2 = _arm(baseline_passes, baseline_n, "baseline")
    confidence = validate.confidence(confidence)
    p1, p2 = x1 / n1, x2 / n2
    w1 = wilson_interval(x1, n1, confidence)
    w2 = wilson_interval(x2, n2, confidence)
    d = p1 - p2
    lower = d - math.sqrt((p1 - w1.lower) ** 2 + (w2.upper - p2) ** 2)
    upper = d + math.sqrt((w1.upper - p1) ** 2 + (p2 - w2.lower) ** 2)
    return Interval(max(-1.0, lower), min(1.0, upper), "newcombe", confidence)


def two_proportion_z(
    candidate_passes: int, candidate_n: int, baseline_passes: int, baseline_n: int
) -> TwoSampleTest:
    """The two-proportion z-test with the pooled null: z = (p1 - p2) / sqrt(p(1-p)(1/n1+1/n2)),
    p the pooled rate; two-sided p. z squared is R's ``prop.test(correct = FALSE)`` chi-square.
    With no variation at all (every item passed, or failed) z is undefined: statistic and p NaN.
    """
    x1, n1 = _arm(candidate_passes, candidate_n, "candidate")
    x2, n2 = _arm(baseline_passes, baseline_n, "baseline")
    pooled = (x1 + x2) / (n1 + n2)
    variance = pooled * (1.0 - pooled) * (1.0 / n1 + 1.0 / n2)
    if variance <= 0.0:
        return TwoSampleTest("z_pooled", math.nan, None, math.nan)
    z = (x1 / n1 - x2 / n2) / math.sqrt(variance)
    return TwoSampleTest("z_pooled", z, None, float(special.erfc(abs(z) / math.sqrt(2.0))))


def _lchoose(n: int | np.ndarray, k: int | np.ndarray) -> np.ndarray:
    return special.gammaln(n + 1) - special.gammaln(k + 1) - special.gammaln(n - k + 1)


def fisher_exact_p(
    candidate_passes: int, candidate_n: int, baseline_passes: int, baseline_n: int
) -> float:
    """Fisher's exact test, two-sided, as R's ``fisher.test`` computes it.

    Conditional on the margins the candidate's passes are hypergeometric; the p-value sums the
    probabilities of every table no more likely than the observed one, "no more likely" with
    R's relative tolerance of 1e-7 (without it, tables of equal probability are counted or not
    by rounding). Computed on the log scale over the whole support, so a million items per arm
    costs one vector of a million probabilities, not big integers.
    """
    x1, n1 = _arm(candidate_passes, candidate_n, "candidate")
    x2, n2 = _arm(baseline_passes, baseline_n, "baseline")
    k = x1 + x2
    lo, hi = max(0, k - n2), min(k, n1)
    support = np.arange(lo, hi + 1, dtype=np.float64)
    log_d = _lchoose(n1, support) + _lchoose(n2, k - support)
    d = np.exp(log_d - log_d.max())
    d /= d.sum()
    observed = d[x1 - lo]
    p = float(d[d <= observed * (1.0 + FISHER_RELATIVE_TOLERANCE)].sum())
    return min(1.0, p)


def _expected_minimum(x1: int, n1: int, x2: int, n2: int) -> float:
    """The smallest of the four expected cell counts under the pooled null."""
    total, passes = n1 + n2, x1 + x2
    fails = total - passes
    return min(n * m / total for n in (n1, n2) for m in (passes, fails))


def _significant(test: TwoSampleTest, alpha: float) -> bool:
    return not math.isnan(test.p) and test.p < alpha


def _verdict(delta: float, significant: bool, lower_is_better: bool, flags: tuple[str, ...]) -> str:
    if {"small_n", "no_variation", "zero_variance"} & set(flags):
        return "insufficient_data"
    if not significant:
        return "no_significant_difference"
    better = delta < 0 if lower_is_better else delta > 0
    return "improved" if better else "regressed"


def _disagree(ci: Interval, significant: bool, confidence: float, alpha: float) -> bool:
    """The interval and the test can only disagree at the same level (a 90% interval and a
    test at 5% answer different questions)."""
    same_level = math.isclose(confidence, 1.0 - alpha, abs_tol=1e-9)
    return same_level and ci.excludes(0.0) != significant


def compare_proportions(
    candidate_passes: int,
    candidate_n: int,
    baseline_passes: int,
    baseline_n: int,
    *,
    confidence: float = 0.95,
    alpha: float = 0.05,
) -> IndependentComparison:
    """Compare two pass rates measured on different items (R9).

    The z-test leads unless an arm is small (fewer than :data:`SMALL_ARM` items, or an expected
    count below :data:`MIN_EXPECTED`): then Fisher's exact test does. Both are reported.
    """
    x1, n1 = _arm(candidate_passes, candidate_n, "candidate")
    x2, n2 = _arm(baseline_passes, baseline_n, "baseline")
    confidence = validate.confidence(confidence)
    alpha = validate.alpha(alpha)
    ci = newcombe_independent_interval(x1, n1, x2, n2, confidence)
    z = two_proportion_z(x1, n1, x2, n2)
    fisher = TwoSampleTest("fisher_exact", None, None, fisher_exact_p(x1, n1, x2, n2))
    min_expected = _expected_minimum(x1, n1, x2, n2)
    small = min(n1, n2) < SMALL_ARM or min_expected < MIN_EXPECTED
    test, other = (fisher, z) if small else (z, fisher)
    flags: list[str] = []
    if min(n1, n2) < SMALL_ARM:
        flags.append("small_n")
    if small:
        flags.append("fisher_leads")
    if x1 + x2 in (0, n1 + n2):
        flags.append("no_variation")
    significant = _significant(test, alpha)
    if "no_variation" not in flags and _disagree(ci, significant, confidence, alpha):
        flags.append("ci_test_disagree")
    delta = x1 / n1 - x2 / n2
    return IndependentComparison(
        kind="binary",
        baseline=ArmSummary(n2, x2 / n2, wilson_interval(x2, n2, confidence), passes=x2),
        candidate=ArmSummary(n1, x1 / n1, wilson_interval(x1, n1, confidence), passes=x1),
        delta=delta,
        ci=ci,
        confidence=confidence,
        alpha=alpha,
        test=test,
        other_test=other,
        small_arm=small,
        min_expected=min_expected,
        lower_is_better=False,
        flags=tuple(flags),
        verdict=_verdict(delta, significant, False, tuple(flags)),
    )


# --------------------------------------------------------------------------------------------
# Scores
# --------------------------------------------------------------------------------------------


def _mean_interval(values: np.ndarray, confidence: float) -> tuple[float, float, Interval]:
    """An arm's mean, its SD and its one-sample t interval (NaN bounds with one item)."""
    n = values.size
    mean = float(values.mean())
    if n < 2:
        return mean, math.nan, Interval(math.nan, math.nan, "t", confidence)
    sd = float(values.std(ddof=1))
    half = float(special.stdtrit(n - 1, 1.0 - (1.0 - confidence) / 2.0)) * sd / math.sqrt(n)
    return mean, sd, Interval(mean - half, mean + half, "t", confidence)


def welch_t(
    candidate: np.ndarray, baseline: np.ndarray, confidence: float = 0.95
) -> tuple[TwoSampleTest, Interval]:
    """Welch's two-sample t for mean(candidate) - mean(baseline), as R's ``t.test(var.equal =
    FALSE)``: t, the Welch-Satterthwaite df, the two-sided p and the interval at
    ``confidence``. Undefined (NaN) with fewer than two items in an arm or no variance in either.
    """
    cand = validate.sample("candidate", candidate)
    base = validate.sample("baseline", baseline)
    confidence = validate.confidence(confidence)
    n1, n2 = cand.size, base.size
    delta = float(cand.mean() - base.mean())
    if n1 < 2 or n2 < 2:
        return TwoSampleTest("welch_t", math.nan, math.nan, math.nan), Interval(
            math.nan, math.nan, "welch", confidence
        )
    s1, s2 = float(cand.var(ddof=1)) / n1, float(base.var(ddof=1)) / n2
    se2 = s1 + s2
    if se2 <= 0.0:
        return TwoSampleTest("welch_t", math.nan, math.nan, math.nan), Interval(
            math.nan, math.nan, "welch", confidence
        )
    se = math.sqrt(se2)
    t = delta / se
    df = se2**2 / (s1**2 / (n1 - 1) + s2**2 / (n2 - 1))
    p = float(2.0 * special.stdtr(df, -abs(t)))
    half = float(special.stdtrit(df, 1.0 - (1.0 - confidence) / 2.0)) * se
    return TwoSampleTest("welch_t", t, df, p), Interval(
        delta - half, delta + half, "welch", confidence
    )


def compare_scores(
    candidate: np.ndarray,
    baseline: np.ndarray,
    *,
    confidence: float = 0.95,
    alpha: float = 0.05,
    lower_is_better: bool = False,
    permutations: int = PERMUTATIONS,
    seed: int = 0,
) -> IndependentComparison:
    """Compare two mean scores measured on different items (R10): Welch's t decides, or, when
    an arm is too skewed for its size (Cochran's rule, ``mean_check``), the permutation test of
    Welch's t (``permutation``: ``permutations`` relabellings, seeded), Welch's p beside it.

    ``lower_is_better`` (a loss: mae, a distance) turns a drop into the improvement, as the
    paired analysis does.
    """
    cand = validate.sample("candidate", candidate)
    base = validate.sample("baseline", baseline)
    confidence = validate.confidence(confidence)
    alpha = validate.alpha(alpha)
    test, ci = welch_t(cand, base, confidence)
    other: TwoSampleTest | None = None
    c_mean, c_sd, c_ci = _mean_interval(cand, confidence)
    b_mean, b_sd, b_ci = _mean_interval(base, confidence)
    flags: list[str] = []
    if min(cand.size, base.size) < SMALL_ARM:
        flags.append("small_n")
    if cand.size >= 2 and base.size >= 2 and np.ptp(cand) == 0 and np.ptp(base) == 0:
        flags.append("zero_variance")
    elif min(cand.size, base.size) >= 2 and not all(
        check_mean(arm, factor=ARM_SKEW_FACTOR).holds for arm in (cand, base)
    ):
        # An arm too skewed for its size (Cochran's rule): Welch's normal approximation does
        # not hold its level, the permutation test of the same statistic does.
        p = permutation_welch_p(cand, base, permutations=permutations, seed=seed)
        other, test = test, TwoSampleTest("permutation_welch_t", test.statistic, None, p)
        flags.append("permutation_leads")
    significant = _significant(test, alpha)
    delta = c_mean - b_mean
    return IndependentComparison(
        kind="graded",
        baseline=ArmSummary(base.size, b_mean, b_ci, sd=b_sd),
        candidate=ArmSummary(cand.size, c_mean, c_ci, sd=c_sd),
        delta=delta,
        ci=ci,
        confidence=confidence,
        alpha=alpha,
        test=test,
        other_test=other,
        small_arm=min(cand.size, base.size) < SMALL_ARM,
        min_expected=None,
        lower_is_better=bool(lower_is_better),
        flags=tuple(flags),
        verdict=_verdict(delta, significant, bool(lower_is_better), tuple(flags)),
    )
