"""The headline pass/fail comparison of two paired runs: rates, the delta and its interval,
McNemar, flags and the verdict; and the unpaired interval, the wrong test, shown as a contrast.

The pieces live beside it: the 2x2 table and McNemar in ``paired_table``, the delta intervals in
``paired_delta``, Wilson's interval for each rate in ``interval``. Conventions: baseline = A,
candidate = B, ``delta = (c - b) / n = rate(candidate) - rate(baseline)``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from evaltui.core.stats import validate
from evaltui.core.stats.interval import Interval, two_sided_z, wilson_interval
from evaltui.core.stats.paired_delta import CI_METHODS, DEFAULT_CI_METHOD, paired_delta_interval
from evaltui.core.stats.paired_table import McNemarResult, PairedTable, mcnemar

__all__ = [
    "FLAG_TEXT",
    "VERDICTS",
    "BinaryComparison",
    "UnpairedContrast",
    "compare_binary",
    "unpaired_contrast",
]

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
# The wrong test, for contrast
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class UnpairedContrast:
    """The independent two-proportion Wald interval: the WRONG test for paired runs.

    Shown only as a contrast: its standard error leaves out the covariance of the two runs'
    verdicts on the same items. Whether that makes it wider or narrower than the paired
    interval depends on the data (wider when the runs agree on more items than chance would
    have them agree, narrower when they agree on fewer); it is not a measure of the pairing's
    gain, and its coverage is not that of any paired interval.
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
    z = two_sided_z(confidence)
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
    ci_method: str = DEFAULT_CI_METHOD,
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
