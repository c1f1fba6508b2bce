"""Paired preferences, two systems: a judge saw both outputs on one item and said which is
better, or a tie (design-chooser rule R3: a paired win rate with an interval). Orientation as
everywhere in evaltui: A is the baseline, B the candidate, so a win rate above 1/2 favours the
candidate. Three or more systems: ``preference_matrix`` (every pair) and ``bradley_terry``.

Two systems, n judged items: ``a`` say A is better, ``b`` say B is better, ``t`` are ties.

- The primary rule counts a tie as half a win for each side: ``W = (b + t/2) / n``. Its interval
  is Tango's score interval for a paired difference, mapped. Why that is right: an item's outcome
  is one draw from a trinomial (A better, B better, tie) with probabilities (pA, pB, pT), and
  ``W - 1/2 = (pB - pA) / 2``. That is exactly the paired 2x2 model with the two discordant
  cells b and a and the concordant cells merged into the ties: the multinomial likelihood of a
  paired 2x2 table depends on the concordant cells only through their sum, so Tango's (1998)
  restricted maximum likelihood and score statistic for ``delta = p12 - p21`` use only x12, x21
  and n (see ``paired_delta._tango_p21``; ``tests/core/stats/test_preference.py`` checks that
  moving the ties between the two concordant cells leaves the interval unchanged). Hence
  ``W in 1/2 + [L, U] / 2`` where [L, U] is Tango's interval for ``(b - a) / n``; it stays in
  [0, 1] and keeps its coverage at small counts, where the Wald interval of a trinomial mean
  does not.
- The alternative shown beside it drops the ties: ``b / (a + b)`` with a Wilson interval, the
  share of decisive items the candidate won. It answers "when the judge had a preference, whom
  did it prefer", and is undefined when every item is a tie.
- The test is the exact two-sided sign test on a against b (ties carry no direction), which is
  the exact McNemar test of ``paired_table.mcnemar`` on the same table.

The two rules differ in the size of the effect, never in its significance: at the null both
intervals invert the same score statistic, ``(b - a) / sqrt(a + b)`` (Tango's at delta = 0 and
Wilson's at p = 1/2 reduce to it), so one interval excludes 1/2 exactly when the other does.
Ties pull W toward 1/2 without changing whether it differs from 1/2. The verdict follows the
exact sign test at alpha: both intervals are asymptotic, and Tango's gives up to 7.1% false
verdicts at 30 to 400 items (exact enumeration, docs/statistics.md); when the interval
disagrees with the exact test (it excludes 1/2, the test does not reject) that is flagged.

No SciPy at all here (start-up time, see ``interval``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from evaltui.core.stats import validate
from evaltui.core.stats.interval import Interval, wilson_interval
from evaltui.core.stats.paired_delta import paired_delta_interval
from evaltui.core.stats.paired_table import PairedTable, mcnemar

__all__ = [
    "FLAG_TEXT",
    "MIRRORED_VERDICT",
    "TIE_RULES",
    "TIE_RULE_TEXT",
    "VERDICTS",
    "PreferenceComparison",
    "PreferenceCounts",
    "WinRate",
    "compare_preferences",
    "sign_test",
    "split_interval",
]

TIE_RULES: tuple[str, ...] = ("split", "drop")
"""How ties enter the headline win rate; the first (a tie is half a win each) is the default."""

TIE_RULE_TEXT: dict[str, str] = {
    "split": "ties count half",
    "drop": "ties dropped",
}

VERDICTS: tuple[str, ...] = (
    "improved",
    "regressed",
    "no_significant_difference",
    "insufficient_data",
)
"""The same verdict words as the pass/fail comparison (``binary.VERDICTS``), B the candidate."""

FEW_DECISIVE = 25
"""Below this many decisive judgments the normal approximation is poor: read the exact test."""

SMALL_N = 30
"""Below this many judged items there is no verdict, as for pass/fail pairs (DESIGN.md)."""

FLAG_TEXT: dict[str, str] = {
    "no_decisive": "every judgment is a tie: nothing to weigh, no verdict",
    "few_decisive": (
        f"fewer than {FEW_DECISIVE} decisive judgments: the exact sign test is the one to read"
    ),
    "one_sided": (
        "every decisive judgment prefers the same system: that says which way, not by how much"
    ),
    "small_n": f"fewer than {SMALL_N} judged items: counts only, no verdict",
    "ci_test_disagree": (
        "the win-rate interval and the exact sign test disagree about significance: "
        "the result sits on the line"
    ),
}
"""Plain words for each flag a :class:`PreferenceComparison` can carry, in display order."""


# --------------------------------------------------------------------------------------------
# Two systems
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class PreferenceCounts:
    """A judge's verdicts on n items for one pair of systems (A the baseline, B the candidate)."""

    a_better: int
    b_better: int
    ties: int

    def __post_init__(self) -> None:
        for name in ("a_better", "b_better", "ties"):
            object.__setattr__(self, name, validate.count(name, getattr(self, name)))

    @property
    def n(self) -> int:
        """Judged items."""
        return self.a_better + self.b_better + self.ties

    @property
    def decisive(self) -> int:
        """Items where the judge preferred one side (a + b): the only ones with a direction."""
        return self.a_better + self.b_better

    def swapped(self) -> PreferenceCounts:
        """The same judgments with A and B exchanged."""
        return PreferenceCounts(self.b_better, self.a_better, self.ties)

    def as_table(self) -> PairedTable:
        """The paired 2x2 table with the same likelihood: discordant cells a (regressions: A
        better) and b (improvements: B better), the ties concordant."""
        return PairedTable(
            both_pass=self.ties, regressions=self.a_better, improvements=self.b_better, both_fail=0
        )


@dataclass(frozen=True)
class WinRate:
    """B's win rate over A under one tie rule, with its interval; None where undefined."""

    rule: str  # one of TIE_RULES
    estimate: float | None
    ci: Interval | None
    items: int  # the denominator: n for "split", a + b for "drop"


@dataclass(frozen=True, repr=False)
class PreferenceComparison:
    """Everything shown for one pair of systems, echoing its inputs.

    ``split`` and ``drop`` are both computed; ``ties`` names the primary one, whose interval
    is the effect shown; the exact sign test decides ``verdict`` (one of :data:`VERDICTS`, B the
    candidate). ``sign_test_p`` is None when
    there is no decisive judgment.
    """

    counts: PreferenceCounts
    ties: str
    confidence: float
    alpha: float
    split: WinRate
    drop: WinRate
    sign_test_p: float | None
    flags: tuple[str, ...]
    verdict: str

    @property
    def primary(self) -> WinRate:
        """The win rate under the chosen tie rule."""
        return self.split if self.ties == "split" else self.drop

    @property
    def alternative(self) -> WinRate:
        """The win rate under the other tie rule, shown beside the primary one."""
        return self.drop if self.ties == "split" else self.split

    def __repr__(self) -> str:
        c = self.counts
        p = "undefined" if self.sign_test_p is None else f"{self.sign_test_p:.4g}"
        rate = self.primary
        shown = "undefined" if rate.estimate is None else f"{rate.estimate:.4f}"
        if rate.ci is not None:
            shown += f" [{rate.ci.lower:.4f}, {rate.ci.upper:.4f}]"
        return (
            f"PreferenceComparison(a_better={c.a_better}, b_better={c.b_better}, ties={c.ties}, "
            f"win_rate={shown} ({TIE_RULE_TEXT[self.ties]}), sign_test_p={p}, "
            f"verdict={self.verdict!r}, flags={self.flags!r})"
        )


def _check_counts(counts: object) -> PreferenceCounts:
    checked = validate.instance("counts", counts, PreferenceCounts)
    if checked.n == 0:
        raise ValueError("no judgments (n = 0): there is nothing to compare")
    return checked


def split_interval(counts: PreferenceCounts, confidence: float = 0.95) -> Interval:
    """Interval for W = (b + t/2) / n: Tango's score interval for (b - a) / n, as 1/2 + CI/2.

    Method ``"tango"``. See the module docstring for why the mapping is exact; the limits stay in
    [0, 1] because Tango's stay in [-1, 1].
    """
    counts = _check_counts(counts)
    confidence = validate.confidence(confidence)
    delta = paired_delta_interval(counts.as_table(), "tango", confidence)
    return Interval(0.5 + delta.lower / 2.0, 0.5 + delta.upper / 2.0, "tango", confidence)


def sign_test(counts: PreferenceCounts) -> float | None:
    """Exact two-sided sign test of a against b (ties ignored), as R's ``binom.test(b, a + b)``:
    the exact McNemar p of the same table. None when there is no decisive judgment."""
    return mcnemar(validate.instance("counts", counts, PreferenceCounts).as_table()).exact_p


def _flags(
    counts: PreferenceCounts,
    primary: WinRate,
    p: float | None,
    alpha: float,
    confidence: float,
) -> tuple[str, ...]:
    """The flags that apply, in :data:`FLAG_TEXT` order."""
    flags: list[str] = []
    decisive = counts.decisive
    if decisive == 0:
        flags.append("no_decisive")
    if 0 < decisive < FEW_DECISIVE:
        flags.append("few_decisive")
    if decisive > 0 and (counts.a_better == 0 or counts.b_better == 0):
        flags.append("one_sided")
    if counts.n < SMALL_N:
        flags.append("small_n")
    # As in binary: an interval and a test can only disagree when they are at the same level.
    same_level = math.isclose(confidence, 1.0 - alpha, abs_tol=1e-9)
    ci = primary.ci
    if same_level and p is not None and ci is not None and ci.excludes(0.5) != (p < alpha):
        flags.append("ci_test_disagree")
    return tuple(flags)


def _verdict(
    flags: tuple[str, ...], counts: PreferenceCounts, p: float | None, alpha: float
) -> str:
    """No verdict without enough items or any decisive judgment; otherwise the exact sign test
    at ``alpha``, in the direction of the decisive judgments. Tango's interval is asymptotic
    and liberal at these sizes (7.1% false verdicts at n = 31, above 6% at 11 of the sizes 30 to
    400, by enumeration; a 4-0 split among 30 judgments excludes 1/2 while the exact p is
    0.125): it is the effect's size, shown, and the exact test decides."""
    if "small_n" in flags or "no_decisive" in flags or p is None:
        return "insufficient_data"
    if p >= alpha:
        return "no_significant_difference"
    return "improved" if counts.b_better > counts.a_better else "regressed"


def compare_preferences(
    counts: PreferenceCounts,
    ties: str = "split",
    confidence: float = 0.95,
    alpha: float = 0.05,
) -> PreferenceComparison:
    """Compare B (the candidate) with A (the baseline) from a judge's paired preferences.

    Both tie rules are computed; ``ties`` picks the headline and the verdict. No judgments at
    all raise ValueError; degenerate data (all ties, few items) return a result with flags.
    """
    counts = _check_counts(counts)
    ties = validate.one_of("tie rule", ties, TIE_RULES)
    confidence = validate.confidence(confidence)
    alpha = validate.alpha(alpha)
    n, a, b = counts.n, counts.a_better, counts.b_better
    split = WinRate("split", (b + counts.ties / 2.0) / n, split_interval(counts, confidence), n)
    if counts.decisive == 0:
        drop = WinRate("drop", None, None, 0)
    else:
        m = a + b
        drop = WinRate("drop", b / m, wilson_interval(b, m, confidence), m)
    p = sign_test(counts)
    primary = split if ties == "split" else drop
    flags = _flags(counts, primary, p, alpha, confidence)
    return PreferenceComparison(
        counts=counts,
        ties=ties,
        confidence=confidence,
        alpha=alpha,
        split=split,
        drop=drop,
        sign_test_p=p,
        flags=flags,
        verdict=_verdict(flags, counts, p, alpha),
    )


MIRRORED_VERDICT = {
    "improved": "regressed",
    "regressed": "improved",
    "no_significant_difference": "no_significant_difference",
    "insufficient_data": "insufficient_data",
}
"""A verdict read from the other side of the pair."""
