"""Paired preferences, three or more systems: every judged pair (design-chooser rule R7).

Each judged pair gets the two-system analysis of ``preference`` (its win rate, interval and
exact sign test), and the pairs' exact p-values are adjusted together (Holm by default,
``multiplicity.adjust_pvalues``): a pair's verdict follows its adjusted p. Judgments come in as
``(system_a, system_b, outcome)`` rows and are tallied per unordered pair, each pair oriented by
the order the systems were given (or first appeared in).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from evaltui.core.stats import validate
from evaltui.core.stats.multiplicity import ADJUST_METHODS, adjust_pvalues
from evaltui.core.stats.preference import (
    MIRRORED_VERDICT,
    TIE_RULES,
    PreferenceComparison,
    PreferenceCounts,
    compare_preferences,
)

__all__ = [
    "PairResult",
    "PairTally",
    "WinRateMatrix",
    "check_tallies",
    "systems_of",
    "tally_pairs",
    "win_rate_matrix",
]


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


def systems_of(tallies: Sequence[PairTally], systems: Sequence[str] | None) -> tuple[str, ...]:
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


def check_tallies(tallies: object) -> tuple[PairTally, ...]:
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
    tallies = check_tallies(tallies)
    order = systems_of(tallies, systems)
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
