"""Paired preferences: a judge saw both outputs on one item and said which is better, or a tie.

Design-chooser rules R3 (two systems: a paired win rate with an interval) and R7 (three or more:
an all-pairs win-rate matrix with one interval per pair, and a Bradley-Terry fit). Orientation as
everywhere in evaltui: A is the baseline, B the candidate, so a win rate above 1/2 favours the
candidate.

Two systems, n judged items: ``a`` say A is better, ``b`` say B is better, ``t`` are ties.

- The primary rule counts a tie as half a win for each side: ``W = (b + t/2) / n``. Its interval
  is Tango's score interval for a paired difference, mapped. Why that is right: an item's outcome
  is one draw from a trinomial (A better, B better, tie) with probabilities (pA, pB, pT), and
  ``W - 1/2 = (pB - pA) / 2``. That is exactly the paired 2x2 model with the two discordant
  cells b and a and the concordant cells merged into the ties: the multinomial likelihood of a
  paired 2x2 table depends on the concordant cells only through their sum, so Tango's (1998)
  restricted maximum likelihood and score statistic for ``delta = p12 - p21`` use only x12, x21
  and n (see ``binary._tango_p21``; ``tests/core/test_preference.py`` checks that moving the
  ties between the two concordant cells leaves the interval unchanged). Hence
  ``W in 1/2 + [L, U] / 2`` where [L, U] is Tango's interval for ``(b - a) / n``; it stays in
  [0, 1] and keeps its coverage at small counts, where the Wald interval of a trinomial mean
  does not.
- The alternative shown beside it drops the ties: ``b / (a + b)`` with a Wilson interval, the
  share of decisive items the candidate won. It answers "when the judge had a preference, whom
  did it prefer", and is undefined when every item is a tie.
- The test is the exact two-sided sign test on a against b (ties carry no direction), which is
  the exact McNemar test of ``binary.mcnemar`` on the same table.

The two rules differ in the size of the effect, never in its significance: at the null both
intervals invert the same score statistic, ``(b - a) / sqrt(a + b)`` (Tango's at delta = 0 and
Wilson's at p = 1/2 reduce to it), so one interval excludes 1/2 exactly when the other does.
Ties pull W toward 1/2 without changing whether it differs from 1/2. The verdict follows the
primary rule's interval; the exact sign test can disagree with it on the line, which is flagged.

k systems: every judged pair gets the two-system analysis above and the pairs' exact p-values
are adjusted together (Holm by default, ``multiplicity.adjust_pvalues``). The Bradley-Terry model
``P(i beats j) = 1 / (1 + exp(-(lambda_i - lambda_j)))`` is fitted by maximum likelihood (Newton's
method with step halving on the concave log-likelihood), the baseline's log-strength fixed at 0,
with Wald intervals from the inverse observed information. A tie counts as half a win for each
side, the same rule as W: the point estimates maximise the binomial likelihood with fractional
wins (what R's ``glm(cbind(w_a, w_b) ~ 0 + X, binomial)`` maximises), and since a comparison
scored 0, 1/2 or 1 has variance at most p(1 - p), the model-based standard errors are, if
anything, conservative when ties are many (Davidson's 1970 tie model is the fuller alternative;
not implemented). Where a maximum likelihood estimate does not exist (a system that won or lost
every comparison it had, or more generally a win graph that is not strongly connected; Ford
1957), the affected strengths are reported as infinite or not identified, never as a huge number.

Only ``scipy.special`` is imported from SciPy (start-up time, see ``binary``).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
from scipy import special

from evaltui.core.stats import validate
from evaltui.core.stats.binary import (
    Interval,
    PairedTable,
    _z,
    mcnemar,
    paired_delta_interval,
    wilson_interval,
)
from evaltui.core.stats.multiplicity import ADJUST_METHODS, adjust_pvalues

__all__ = [
    "BT_STATUSES",
    "FLAG_TEXT",
    "TIE_RULES",
    "VERDICTS",
    "BradleyTerryFit",
    "PairResult",
    "PairTally",
    "PreferenceComparison",
    "PreferenceCounts",
    "Strength",
    "WinRate",
    "WinRateMatrix",
    "bradley_terry",
    "compare_preferences",
    "sign_test",
    "split_interval",
    "tally_pairs",
    "win_rate_matrix",
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

BT_STATUSES: tuple[str, ...] = (
    "baseline",
    "estimated",
    "plus_infinity",
    "minus_infinity",
    "not_identified",
)
"""What a :class:`Strength` can be: the fixed reference, a finite estimate, or no estimate."""

BT_STATUS_TEXT: dict[str, str] = {
    "baseline": "the reference: log-strength fixed at 0",
    "estimated": "maximum likelihood estimate",
    "plus_infinity": (
        "beats the baseline, directly or through others, and was never beaten back: its "
        "strength is +infinity (no finite maximum likelihood estimate)"
    ),
    "minus_infinity": (
        "is beaten by the baseline, directly or through others, and never won back: its "
        "strength is -infinity (no finite maximum likelihood estimate)"
    ),
    "not_identified": (
        "its comparisons place it neither above nor below the baseline: not identified"
    ),
}
"""What each :class:`Strength` status means, in words for the report."""


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
    decides ``verdict`` (one of :data:`VERDICTS`, B the candidate). ``sign_test_p`` is None when
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


def _verdict(flags: tuple[str, ...], primary: WinRate) -> str:
    """No verdict without enough items or any decisive judgment; otherwise the interval."""
    if "small_n" in flags or "no_decisive" in flags or primary.ci is None:
        return "insufficient_data"
    if primary.ci.upper < 0.5:
        return "regressed"
    if primary.ci.lower > 0.5:
        return "improved"
    return "no_significant_difference"


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
        verdict=_verdict(flags, primary),
    )


MIRRORED_VERDICT = {
    "improved": "regressed",
    "regressed": "improved",
    "no_significant_difference": "no_significant_difference",
    "insufficient_data": "insufficient_data",
}
"""A verdict read from the other side of the pair."""


# --------------------------------------------------------------------------------------------
# k systems: tallies and the all-pairs matrix
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class PairTally:
    """The judgments of one pair of systems, oriented: ``counts.b_better`` are wins of
    ``system_b`` over ``system_a``."""

    system_a: str
    system_b: str
    counts: PreferenceCounts

    def __post_init__(self) -> None:
        for name in ("system_a", "system_b"):
            value = getattr(self, name)
            if not isinstance(value, str) or not value:
                raise ValueError(f"{name} must be a non-empty system name, got {value!r}")
        if self.system_a == self.system_b:
            raise ValueError(f"a system cannot be compared with itself: {self.system_a!r}")
        validate.instance("counts", self.counts, PreferenceCounts)

    def swapped(self) -> PairTally:
        return PairTally(self.system_b, self.system_a, self.counts.swapped())


def tally_pairs(
    judgments: Iterable[tuple[str, str, str]], order: Sequence[str] | None = None
) -> tuple[PairTally, ...]:
    """Count ``(system_a, system_b, outcome)`` judgments (outcome ``"a"``, ``"b"`` or ``"tie"``)
    per unordered pair, each pair oriented with the system earlier in ``order`` (default: the
    order systems first appear) as ``system_a``. Pairs come out in that order too."""
    seen: list[str] = list(order or ())
    rank = {s: i for i, s in enumerate(seen)}
    counts: dict[tuple[str, str], list[int]] = {}
    for index, (first, second, outcome) in enumerate(judgments):
        if outcome not in ("a", "b", "tie"):
            raise ValueError(
                f"judgment {index}: outcome must be 'a', 'b' or 'tie', got {outcome!r}"
            )
        if first == second:
            raise ValueError(
                f"judgment {index}: a system cannot be compared with itself: {first!r}"
            )
        for system in (first, second):
            if system not in rank:
                if order is not None:
                    raise ValueError(
                        f"judgment {index}: system {system!r} is not in the order given"
                    )
                rank[system] = len(seen)
                seen.append(system)
        flipped = rank[first] > rank[second]
        key = (second, first) if flipped else (first, second)
        cell = counts.setdefault(key, [0, 0, 0])
        if outcome == "tie":
            cell[2] += 1
        elif (outcome == "a") != flipped:
            cell[0] += 1  # the pair's system_a won
        else:
            cell[1] += 1
    keys = sorted(counts, key=lambda k: (rank[k[0]], rank[k[1]]))
    return tuple(PairTally(x, y, PreferenceCounts(*counts[(x, y)])) for x, y in keys)


@dataclass(frozen=True)
class PairResult:
    """One cell pair of the matrix: ``system_b``'s win rate over ``system_a`` and its test.

    ``p_adjusted`` is the exact sign-test p adjusted over every judged pair; ``verdict`` follows
    it (a pair whose adjusted p is not below alpha is "no significant difference" whatever its
    own interval says; its own verdict is ``comparison.verdict``).
    """

    system_a: str
    system_b: str
    comparison: PreferenceComparison
    p_adjusted: float | None
    verdict: str

    def swapped(self) -> PairResult:
        """The same pair read from the other side (system_a's win rate over system_b)."""
        c = self.comparison
        mirrored = compare_preferences(c.counts.swapped(), c.ties, c.confidence, c.alpha)
        return PairResult(
            self.system_b, self.system_a, mirrored, self.p_adjusted, MIRRORED_VERDICT[self.verdict]
        )


@dataclass(frozen=True)
class WinRateMatrix:
    """Every judged pair of k systems, with p-values adjusted over the pairs."""

    systems: tuple[str, ...]
    pairs: tuple[PairResult, ...]
    ties: str
    confidence: float
    alpha: float
    multiplicity: str

    def pair(self, system_a: str, system_b: str) -> PairResult | None:
        """The pair oriented as asked (system_b's win rate over system_a), None if never judged."""
        for result in self.pairs:
            if (result.system_a, result.system_b) == (system_a, system_b):
                return result
            if (result.system_b, result.system_a) == (system_a, system_b):
                return result.swapped()
        return None

    def rate(self, row: str, column: str) -> float | None:
        """How often ``row`` beats ``column`` under the primary tie rule (None: never judged, or
        every judgment a tie under the "drop" rule)."""
        result = self.pair(column, row)
        return None if result is None else result.comparison.primary.estimate


def _adjusted_verdict(own: str, p_adjusted: float | None, alpha: float, family: int) -> str:
    if family < 2 or own not in ("improved", "regressed"):
        return own
    if p_adjusted is None or p_adjusted >= alpha:
        return "no_significant_difference"
    return own


def _systems_of(tallies: Sequence[PairTally], systems: Sequence[str] | None) -> tuple[str, ...]:
    if systems is None:
        found: list[str] = []
        for t in tallies:
            for s in (t.system_a, t.system_b):
                if s not in found:
                    found.append(s)
        return tuple(found)
    order = tuple(systems)
    if len(set(order)) != len(order):
        raise ValueError(f"systems must be distinct, got {list(order)!r}")
    for t in tallies:
        for s in (t.system_a, t.system_b):
            if s not in order:
                raise ValueError(f"system {s!r} of a tally is not among systems {list(order)!r}")
    return order


def _check_tallies(tallies: object) -> tuple[PairTally, ...]:
    if isinstance(tallies, str | bytes) or not isinstance(tallies, Sequence):
        raise ValueError(f"tallies must be a sequence of PairTally, got {type(tallies).__name__}")
    out = tuple(tallies)
    pairs: set[frozenset[str]] = set()
    for t in out:
        if not isinstance(t, PairTally):
            raise ValueError(f"tallies must hold PairTally, got {type(t).__name__}")
        key = frozenset((t.system_a, t.system_b))
        if key in pairs:
            raise ValueError(
                f"the pair {t.system_a!r}/{t.system_b!r} is tallied twice; add the counts first"
            )
        pairs.add(key)
    if not out:
        raise ValueError("no tallies: there is nothing to compare")
    return out


def win_rate_matrix(
    tallies: Sequence[PairTally],
    systems: Sequence[str] | None = None,
    ties: str = "split",
    confidence: float = 0.95,
    alpha: float = 0.05,
    multiplicity: str = "holm",
) -> WinRateMatrix:
    """The all-pairs win-rate matrix: each judged pair's comparison, the exact sign-test
    p-values adjusted over the pairs (``multiplicity``: Holm by default), and the verdicts that
    follow the adjusted p. Pairs never judged are absent (``WinRateMatrix.pair`` gives None)."""
    tallies = _check_tallies(tallies)
    order = _systems_of(tallies, systems)
    ties = validate.one_of("tie rule", ties, TIE_RULES)
    confidence = validate.confidence(confidence)
    alpha = validate.alpha(alpha)
    multiplicity = validate.one_of("adjustment method", multiplicity, ADJUST_METHODS)
    comparisons = [
        compare_preferences(t.counts, ties, confidence, alpha) if t.counts.n else None
        for t in tallies
    ]
    kept = [(t, c) for t, c in zip(tallies, comparisons, strict=True) if c is not None]
    adjusted = adjust_pvalues([c.sign_test_p for _, c in kept], multiplicity)
    family = sum(1 for _, c in kept if c.sign_test_p is not None)
    pairs = tuple(
        PairResult(t.system_a, t.system_b, c, p, _adjusted_verdict(c.verdict, p, alpha, family))
        for (t, c), p in zip(kept, adjusted, strict=True)
    )
    return WinRateMatrix(order, pairs, ties, confidence, alpha, multiplicity)


# --------------------------------------------------------------------------------------------
# Bradley-Terry
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Strength:
    """One system's Bradley-Terry log-strength relative to the baseline (``status`` says whether
    it is finite: one of :data:`BT_STATUSES`). ``wins`` counts a tie as half a win."""

    system: str
    status: str
    log_strength: float | None
    se: float | None
    ci: Interval | None
    wins: float
    comparisons: int

    @property
    def win_probability(self) -> float | None:
        """P(this system beats the baseline) under the model; 1 or 0 at +/- infinity."""
        if self.status == "plus_infinity":
            return 1.0
        if self.status == "minus_infinity":
            return 0.0
        if self.log_strength is None:
            return None
        return float(special.expit(self.log_strength))

    @property
    def win_probability_ci(self) -> tuple[float, float] | None:
        """The Wald interval of the log-strength mapped through the logistic function."""
        if self.ci is None:
            return None
        return float(special.expit(self.ci.lower)), float(special.expit(self.ci.upper))


@dataclass(frozen=True, repr=False)
class BradleyTerryFit:
    """The Bradley-Terry fit, baseline log-strength 0. ``covariance`` is the inverse observed
    information of the ``estimated`` systems' log-strengths, in that order; ``log_likelihood``
    is the kernel sum of w log p over the fitted comparisons (no binomial coefficients, which
    half wins do not have). ``flags``: ``infinite_strength``, ``not_identified``."""

    systems: tuple[str, ...]
    baseline: str
    confidence: float
    strengths: tuple[Strength, ...]
    estimated: tuple[str, ...]
    covariance: tuple[tuple[float, ...], ...]
    log_likelihood: float
    iterations: int
    flags: tuple[str, ...]

    def strength(self, system: str) -> Strength:
        for s in self.strengths:
            if s.system == system:
                return s
        raise ValueError(f"unknown system {system!r}; the fit has {list(self.systems)!r}")

    def contrast(self, first: str, second: str) -> tuple[float, float] | None:
        """(estimate, se) of log-strength(first) - log-strength(second), None unless both are
        finite (the baseline or estimated)."""
        index = {name: i for i, name in enumerate(self.estimated)}
        vector = np.zeros(len(self.estimated))
        estimate = 0.0
        for system, sign in ((first, 1.0), (second, -1.0)):
            s = self.strength(system)
            if s.status not in ("baseline", "estimated") or s.log_strength is None:
                return None
            if s.status == "estimated":
                vector[index[system]] += sign
                estimate += sign * s.log_strength
        if not self.estimated:
            return estimate, 0.0
        cov = np.array(self.covariance, dtype=float)
        return estimate, math.sqrt(max(float(vector @ cov @ vector), 0.0))

    def __repr__(self) -> str:
        parts = []
        for s in self.strengths:
            if s.log_strength is not None and s.status != "baseline":
                parts.append(f"{s.system}={s.log_strength:+.4f} (se {s.se:.4f})")
            else:
                parts.append(f"{s.system}={s.status}")
        return (
            f"BradleyTerryFit(baseline={self.baseline!r}, {', '.join(parts)}, flags={self.flags!r})"
        )


def _components(systems: tuple[str, ...], edges: set[tuple[int, int]]) -> list[list[int]]:
    """Connected components of the undirected comparison graph, in first-system order."""
    neighbours: dict[int, set[int]] = {i: set() for i in range(len(systems))}
    for i, j in edges:
        neighbours[i].add(j)
        neighbours[j].add(i)
    seen: set[int] = set()
    groups = []
    for start in range(len(systems)):
        if start in seen:
            continue
        group, stack = [], [start]
        seen.add(start)
        while stack:
            node = stack.pop()
            group.append(node)
            for nxt in neighbours[node]:
                if nxt not in seen:
                    seen.add(nxt)
                    stack.append(nxt)
        groups.append(sorted(group))
    return groups


def _reachable(start: int, out: dict[int, set[int]]) -> set[int]:
    seen, stack = {start}, [start]
    while stack:
        for nxt in out[stack.pop()]:
            if nxt not in seen:
                seen.add(nxt)
                stack.append(nxt)
    return seen


def _log_likelihood(lam: np.ndarray, i: np.ndarray, j: np.ndarray, wi, wj) -> float:
    d = lam[i] - lam[j]
    return float(np.sum(wi * special.log_expit(d) + wj * special.log_expit(-d)))


def _information(
    lam: np.ndarray, i: np.ndarray, j: np.ndarray, n: np.ndarray, size: int
) -> np.ndarray:
    """The observed information: sum over pairs of n p (1 - p) (e_i - e_j)(e_i - e_j)^T (the
    logit is the canonical link, so observed and expected information coincide)."""
    p = special.expit(lam[i] - lam[j])
    weight = n * p * (1.0 - p)
    info = np.zeros((size, size))
    np.add.at(info, (i, i), weight)
    np.add.at(info, (j, j), weight)
    np.add.at(info, (i, j), -weight)
    np.add.at(info, (j, i), -weight)
    return info


MAX_NEWTON_STEPS = 200


def _newton(
    size: int, i: np.ndarray, j: np.ndarray, wi: np.ndarray, wj: np.ndarray, fixed: int
) -> tuple[np.ndarray, np.ndarray, int]:
    """Maximise the Bradley-Terry log-likelihood over log-strengths with ``fixed`` at 0.

    Newton's method with step halving: the log-likelihood is concave, and strictly so in the
    free parameters when the win graph is strongly connected (the caller makes sure), so the
    iteration climbs to the unique maximum, quadratically near it. Returns the log-strengths,
    the information matrix of the free ones and the number of Newton steps."""
    free = [k for k in range(size) if k != fixed]
    n = wi + wj
    lam = np.zeros(size)
    current = _log_likelihood(lam, i, j, wi, wj)
    steps = 0
    while steps < MAX_NEWTON_STEPS:
        steps += 1
        resid = wi - n * special.expit(lam[i] - lam[j])  # d loglik / d (lam_i - lam_j)
        grad = np.zeros(size)
        np.add.at(grad, i, resid)
        np.add.at(grad, j, -resid)
        info = _information(lam, i, j, n, size)[np.ix_(free, free)]
        step = np.zeros(size)
        step[free] = np.linalg.solve(info, grad[free])
        scale = 1.0
        trial = lam + step
        value = _log_likelihood(trial, i, j, wi, wj)
        while value < current - 1e-12 * max(1.0, abs(current)) and scale > 1e-10:
            scale /= 2.0
            trial = lam + scale * step
            value = _log_likelihood(trial, i, j, wi, wj)
        lam, current = trial, value
        if float(np.max(np.abs(scale * step))) < 1e-12:
            break
    else:
        raise RuntimeError(
            f"the Bradley-Terry fit did not converge in {MAX_NEWTON_STEPS} Newton steps"
        )
    return lam, _information(lam, i, j, n, size)[np.ix_(free, free)], steps


def bradley_terry(
    tallies: Sequence[PairTally],
    baseline: str,
    confidence: float = 0.95,
    systems: Sequence[str] | None = None,
) -> BradleyTerryFit:
    """Fit the Bradley-Terry model to the tallies, ``baseline``'s log-strength fixed at 0.

    A comparison graph that is not connected is refused (ValueError naming the groups): no
    comparison links the groups, so their relative strengths are not defined by anything.
    Connected but not strongly connected in wins (ties count both ways), the likelihood has no
    maximum: systems that beat the baseline's group without ever losing back are
    ``plus_infinity``, those beaten by it ``minus_infinity``, others ``not_identified``; the
    baseline's group is fitted on its own comparisons (the others' limit contributes nothing).
    """
    tallies = _check_tallies(tallies)
    order = _systems_of(tallies, systems)
    confidence = validate.confidence(confidence)
    if not isinstance(baseline, str) or baseline not in order:
        raise ValueError(f"baseline {baseline!r} is not among the systems {list(order)!r}")
    index = {s: k for k, s in enumerate(order)}
    judged = [t for t in tallies if t.counts.n > 0]
    edges = {(index[t.system_a], index[t.system_b]) for t in judged}
    groups = _components(order, edges)
    if len(groups) > 1:
        shown = " and ".join("{" + ", ".join(order[k] for k in g) + "}" for g in groups)
        raise ValueError(
            f"the comparisons fall into {len(groups)} groups never compared with each other: "
            f"{shown}; a Bradley-Terry fit needs every system linked to the others by judged "
            "pairs"
        )
    # Win graph: an edge i -> j when i beat j at least once (a tie is half a win both ways).
    beats: dict[int, set[int]] = {k: set() for k in range(len(order))}
    beaten_by: dict[int, set[int]] = {k: set() for k in range(len(order))}
    wins = np.zeros(len(order))
    played = np.zeros(len(order), dtype=int)
    for t in judged:
        x, y = index[t.system_a], index[t.system_b]
        c = t.counts
        if c.a_better + c.ties > 0:
            beats[x].add(y)
            beaten_by[y].add(x)
        if c.b_better + c.ties > 0:
            beats[y].add(x)
            beaten_by[x].add(y)
        wins[x] += c.a_better + c.ties / 2.0
        wins[y] += c.b_better + c.ties / 2.0
        played[x] += c.n
        played[y] += c.n
    base = index[baseline]
    below = _reachable(base, beats)  # the baseline beats them, directly or through a chain
    above = _reachable(base, beaten_by)  # they beat the baseline, directly or through a chain
    group = sorted(below & above)  # the baseline's strongly connected group
    position = {k: m for m, k in enumerate(group)}
    rows = [t for t in judged if index[t.system_a] in position and index[t.system_b] in position]
    i = np.array([position[index[t.system_a]] for t in rows], dtype=int)
    j = np.array([position[index[t.system_b]] for t in rows], dtype=int)
    wi = np.array([t.counts.a_better + t.counts.ties / 2.0 for t in rows])
    wj = np.array([t.counts.b_better + t.counts.ties / 2.0 for t in rows])
    fixed = position[base]
    if len(group) > 1:
        lam, info, iterations = _newton(len(group), i, j, wi, wj, fixed)
        covariance = np.linalg.inv(info)
        loglik = _log_likelihood(lam, i, j, wi, wj)
    else:
        lam, covariance, iterations, loglik = np.zeros(1), np.zeros((0, 0)), 0, 0.0
    free = [k for k in group if k != base]
    z = _z(confidence)
    strengths = []
    for k, system in enumerate(order):
        won, compared = float(wins[k]), int(played[k])
        if k == base:
            strengths.append(Strength(system, "baseline", 0.0, None, None, won, compared))
        elif k in position:
            m = free.index(k)
            value = float(lam[position[k]])
            se = math.sqrt(max(float(covariance[m, m]), 0.0))
            ci = Interval(value - z * se, value + z * se, "wald", confidence)
            strengths.append(Strength(system, "estimated", value, se, ci, won, compared))
        else:
            status = (
                "plus_infinity"
                if k in above
                else "minus_infinity"
                if k in below
                else "not_identified"
            )
            strengths.append(Strength(system, status, None, None, None, won, compared))
    statuses = {s.status for s in strengths}
    flags = tuple(
        flag
        for flag, hit in (
            ("infinite_strength", bool(statuses & {"plus_infinity", "minus_infinity"})),
            ("not_identified", "not_identified" in statuses),
        )
        if hit
    )
    return BradleyTerryFit(
        systems=order,
        baseline=baseline,
        confidence=confidence,
        strengths=tuple(strengths),
        estimated=tuple(order[k] for k in free),
        covariance=tuple(tuple(float(v) for v in row) for row in covariance),
        log_likelihood=loglik,
        iterations=iterations,
        flags=flags,
    )
