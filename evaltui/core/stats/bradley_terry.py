"""The Bradley-Terry model of k systems' paired preferences (design-chooser rule R7).

``P(i beats j) = 1 / (1 + exp(-(lambda_i - lambda_j)))`` is fitted by maximum likelihood
(Newton's method with step halving on the concave log-likelihood), the baseline's log-strength
fixed at 0, with Wald intervals from the inverse observed information. A tie counts as half a
win for each side, the same rule as the win rate W of ``preference``: the point estimates
maximise the binomial likelihood with fractional wins (what R's
``glm(cbind(w_a, w_b) ~ 0 + X, binomial)`` maximises), and since a comparison scored 0, 1/2 or 1
has variance at most p(1 - p), the model-based standard errors are, if anything, conservative
when ties are many (Davidson's 1970 tie model is the fuller alternative; not implemented). Where
a maximum likelihood estimate does not exist (a system that won or lost every comparison it had,
or more generally a win graph that is not strongly connected; Ford 1957), the affected strengths
are reported as infinite or not identified, never as a huge number.

Only ``scipy.special`` is imported from SciPy (start-up time, see ``interval``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from evaltui.core.stats import special, validate
from evaltui.core.stats.interval import Interval, two_sided_z
from evaltui.core.stats.preference_matrix import PairTally, check_tallies, systems_of

__all__ = [
    "BT_STATUSES",
    "BT_STATUS_TEXT",
    "BradleyTerryFit",
    "Strength",
    "bradley_terry",
]

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
    tallies = check_tallies(tallies)
    order = systems_of(tallies, systems)
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
    z = two_sided_z(confidence)
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
