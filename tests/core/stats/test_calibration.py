"""The calibration of every verdict (issue 30): seeded simulations under the null assert at most
6% false verdicts at alpha 0.05 in each cell, and simulations under the planned effect assert
that each design's `plan` delivers its promised power.

A false verdict is "improved" or "regressed" when the two arms do not differ; "not enough data"
(the skewness rule) is not one. The Monte Carlo standard error of a rate p over R replicates is
sqrt(p (1 - p) / R): 0.34 points at 5% over 4,000 replicates, so a procedure whose true rate is
5% stays below 6% by about three standard errors. The seeds are fixed, so the numbers are the
same on every run; `python -m tests.core.stats.test_calibration` prints the table that
docs/statistics.md shows. Preferences are computed exactly, by enumeration: no Monte Carlo error.

Slow (about a minute of CPU): `.ci/run` runs it with `-m slow`.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import pytest
from scipy import special

from evaltui.core.analysis.pair_result import _verdict_of
from evaltui.core.stats.binary import compare_binary
from evaltui.core.stats.graded_reference import paired_t_interval, paired_t_p
from evaltui.core.stats.independent import compare_scores
from evaltui.core.stats.mean_check import check_mean
from evaltui.core.stats.multiplicity import adjust_pvalues
from evaltui.core.stats.paired_table import PairedTable
from evaltui.core.stats.power import paired_sample_size
from evaltui.core.stats.power_designs import systems_plan
from evaltui.core.stats.power_graded import graded_sample_size
from evaltui.core.stats.preference import PreferenceCounts, compare_preferences

LIMIT = 0.06
REPLICATES = 4_000
Draw = Callable[[np.random.Generator, int], np.ndarray]

DELTAS: dict[str, Draw] = {
    "normal": lambda rng, n: rng.standard_normal(n),
    "t(3)": lambda rng, n: rng.standard_t(3, n),
    "bounded symmetric": lambda rng, n: rng.uniform(-1.0, 1.0, n),
    "bounded skewed": lambda rng, n: rng.beta(2.0, 8.0, n) - 0.2,
    "exponential": lambda rng, n: rng.exponential(1.0, n) - 1.0,
    "lognormal": lambda rng, n: rng.lognormal(0.0, 1.0, n) - math.exp(0.5),
}
SIZES = (30, 100, 300, 1_000, 2_000)
GRADED_CELLS = [(kind, n) for kind in DELTAS if kind != "lognormal" for n in SIZES] + [
    ("lognormal", n) for n in (30, 300, 1_000)
]
EPOCH_CELLS = [  # (baseline epochs, candidate epochs, items, item pass rates ~ Beta(a, b))
    (2, 2, 30, (2, 2)),
    (5, 5, 30, (2, 2)),
    (10, 10, 30, (2, 2)),
    (10, 10, 30, (4, 1)),
    (5, 2, 30, (2, 2)),
    (5, 2, 30, (4, 1)),
    (2, 5, 30, (4, 1)),
    (5, 2, 100, (2, 2)),
]


def mc_se(rate: float, replicates: int) -> float:
    return math.sqrt(max(rate * (1.0 - rate), 1e-12) / replicates)


def graded_verdict(deltas: np.ndarray) -> str:
    """The graded verdict as `Analysis` reaches it (pair_result.py): the paired t interval,
    or no verdict where Cochran's rule says no test of the mean holds."""
    if deltas.size < 30 or not check_mean(deltas).holds:
        return "insufficient_data"
    return _verdict_of(paired_t_interval(deltas, 0.95))


def false_rate(draw: Callable[[np.random.Generator], np.ndarray], seed: int, reps: int) -> float:
    rng = np.random.default_rng(seed)
    wrong = sum(graded_verdict(draw(rng)) in ("improved", "regressed") for _ in range(reps))
    return wrong / reps


def graded_rate(kind: str, n: int) -> float:
    seed = 10_000 * list(DELTAS).index(kind) + n  # one stream per cell
    return false_rate(lambda rng: DELTAS[kind](rng, n), seed=seed, reps=REPLICATES)


def epoch_rate(base_k: int, cand_k: int, n: int, beta: tuple[int, int]) -> float:
    def draw(rng: np.random.Generator) -> np.ndarray:
        p = rng.beta(*beta, n)
        return rng.binomial(cand_k, p) / cand_k - rng.binomial(base_k, p) / base_k

    seed = 100_000 + EPOCH_CELLS.index((base_k, cand_k, n, beta))  # one stream per cell
    return false_rate(draw, seed=seed, reps=REPLICATES)


def preference_rate(n: int, tie_share: float) -> float:
    """Exact: the probability of a directional verdict when A and B are equally preferred,
    summed over every (A better, B better, ties) outcome of n judgments."""
    total = 0.0
    p_side = (1.0 - tie_share) / 2.0
    for a in range(n + 1):
        for b in range(n - a + 1):
            t = n - a - b
            if tie_share == 0.0 and t:
                continue
            log_p = (
                special.gammaln(n + 1)
                - special.gammaln(a + 1)
                - special.gammaln(b + 1)
                - special.gammaln(t + 1)
                + (a + b) * math.log(p_side)
                + (t * math.log(tie_share) if t else 0.0)
            )
            verdict = compare_preferences(PreferenceCounts(a, b, t)).verdict
            if verdict in ("improved", "regressed"):
                total += math.exp(log_p)
    return total


def independent_rate(kind: str, n_cand: int, n_base: int, reps: int) -> float:
    rng = np.random.default_rng(n_cand + n_base)
    wrong = 0
    for seed in range(reps):
        cand, base = DELTAS[kind](rng, n_cand), DELTAS[kind](rng, n_base)
        result = compare_scores(cand, base, permutations=999, seed=seed)
        wrong += result.verdict in ("improved", "regressed")
    return wrong / reps


def run_set_rate(k: int, n: int, reps: int) -> float:
    """k systems that do not differ (normal per-item scores around a shared item difficulty):
    the share of replicates in which any baseline pair gets a verdict after Holm over the
    baseline pairs (the family the decision asks about)."""
    rng = np.random.default_rng(k * n)
    wrong = 0
    for _ in range(reps):
        item = rng.standard_normal(n)
        scores = item + rng.standard_normal((k, n))
        p = [paired_t_p(scores[j] - scores[0]) for j in range(1, k)]
        wrong += any(q is not None and q < 0.05 for q in adjust_pvalues(p, "holm"))
    return wrong / reps


# --------------------------------------------------------------------------------------------
# false verdicts under the null
# --------------------------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize(("kind", "n"), GRADED_CELLS)
def test_graded_false_verdicts_stay_at_the_level(kind, n):
    rate = graded_rate(kind, n)
    assert rate <= LIMIT, f"{kind} n={n}: {rate:.2%} ± {mc_se(rate, REPLICATES):.2%} (MC SE)"


@pytest.mark.slow
@pytest.mark.parametrize(("base_k", "cand_k", "n", "beta"), EPOCH_CELLS)
def test_epoch_false_verdicts_stay_at_the_level(base_k, cand_k, n, beta):
    rate = epoch_rate(base_k, cand_k, n, beta)
    assert rate <= LIMIT, f"{base_k} vs {cand_k} epochs: {rate:.2%} ± {mc_se(rate, REPLICATES):.2%}"


@pytest.mark.slow
@pytest.mark.parametrize("n", [30, 31, 50, 100, 200])
@pytest.mark.parametrize("tie_share", [0.0, 0.5])
def test_preference_false_verdicts_stay_at_the_level_exactly(n, tie_share):
    rate = preference_rate(n, tie_share)
    assert rate <= 0.05 + 1e-12, f"n={n} ties {tie_share}: {rate:.3%} (exact)"


@pytest.mark.slow
@pytest.mark.parametrize(("kind", "reps"), [("lognormal", 2_000), ("exponential", 2_000)])
def test_independent_scores_30_against_300_stay_at_the_level(kind, reps):
    rate = independent_rate(kind, 30, 300, reps)
    assert rate <= LIMIT, f"{kind} 30 vs 300: {rate:.2%} ± {mc_se(rate, reps):.2%}"


@pytest.mark.slow
@pytest.mark.parametrize("k", [3, 6])
def test_run_set_baseline_family_holds_its_level(k):
    rate = run_set_rate(k, 50, 2_000)
    assert rate <= LIMIT, f"k={k}: {rate:.2%} ± {mc_se(rate, 2_000):.2%}"


# --------------------------------------------------------------------------------------------
# plans deliver their power
# --------------------------------------------------------------------------------------------


def graded_power(n: int, delta: float, sd: float, reps: int, seed: int) -> float:
    rng = np.random.default_rng(seed)
    hits = sum(
        graded_verdict(delta + sd * rng.standard_normal(n)) == "improved" for _ in range(reps)
    )
    return hits / reps


def pass_fail_power(n: int, delta: float, psi: float, reps: int, seed: int) -> float:
    rng = np.random.default_rng(seed)
    c_share, b_share = (psi + delta) / 2.0, (psi - delta) / 2.0
    hits = 0
    for _ in range(reps):
        both, b, c, fail = rng.multinomial(n, [0.85 - b_share, b_share, c_share, 0.15 - c_share])
        table = PairedTable(both_pass=both, regressions=b, improvements=c, both_fail=fail)
        hits += compare_binary(table).verdict == "improved"
    return hits / reps


def systems_power(k: int, delta: float, sd: float, reps: int) -> float:
    """The least power over the candidates, each `delta` better than the baseline, under Holm
    over the baseline pairs, at the items `plan --systems k --pairs baseline` asks for."""
    plan = systems_plan(k, lambda a: graded_sample_size(delta, sd, alpha=a), pairs="baseline")
    n = plan.items
    rng = np.random.default_rng(k)
    hits = np.zeros(k - 1)
    for _ in range(reps):
        # Candidate minus baseline per item: a shared baseline term makes the pairs correlated.
        base = rng.standard_normal(n) * sd / math.sqrt(2.0)
        deltas = [delta + rng.standard_normal(n) * sd / math.sqrt(2.0) - base for _ in range(k - 1)]
        p = adjust_pvalues([paired_t_p(d) for d in deltas], "holm")
        hits += [
            q is not None and q < 0.05 and d.mean() > 0 for q, d in zip(p, deltas, strict=True)
        ]
    return float(hits.min() / reps)


POWER_REPS = 2_000


@pytest.mark.slow
def test_a_graded_plan_delivers_its_power():
    plan = graded_sample_size(0.05, 0.2)
    power = graded_power(plan.items, 0.05, 0.2, POWER_REPS, seed=1)
    assert power >= 0.80 - 2 * mc_se(0.8, POWER_REPS), f"{power:.1%} at {plan.items} items"


@pytest.mark.slow
def test_a_pass_fail_plan_delivers_its_power():
    plan = paired_sample_size(0.05, 0.15, baseline_rate=0.85)
    power = pass_fail_power(plan.paired_n, 0.05, 0.15, POWER_REPS, seed=2)
    assert power >= 0.80 - 2 * mc_se(0.8, POWER_REPS), f"{power:.1%} at {plan.paired_n} items"


@pytest.mark.slow
@pytest.mark.parametrize("k", [3, 5])
def test_a_k_systems_plan_against_the_baseline_delivers_its_power(k):
    power = systems_power(k, 0.05, 0.2, POWER_REPS)
    assert power >= 0.80 - 2 * mc_se(0.8, POWER_REPS), f"k={k}: {power:.1%}"


if __name__ == "__main__":  # the table in docs/statistics.md
    for kind, n in GRADED_CELLS:
        rate = graded_rate(kind, n)
        print(f"graded {kind} n={n}: {rate:.1%} ± {mc_se(rate, REPLICATES):.1%}", flush=True)
    for base_k, cand_k, n, beta in EPOCH_CELLS:
        rate = epoch_rate(base_k, cand_k, n, beta)
        print(f"epochs {base_k} vs {cand_k}, n={n}, Beta{beta}: {rate:.1%}", flush=True)
    for n in (30, 31, 50, 100, 200):
        for tie in (0.0, 0.5):
            print(f"preferences n={n} ties {tie}: {preference_rate(n, tie):.2%} (exact)")
    for kind, reps in (("lognormal", 2_000), ("exponential", 2_000)):
        print(f"independent {kind} 30 vs 300: {independent_rate(kind, 30, 300, reps):.1%}")
    for k in (3, 6):
        print(f"run set k={k} n=50: {run_set_rate(k, 50, 2_000):.1%}")
    g = graded_sample_size(0.05, 0.2)
    print(f"graded plan {g.items} items: {graded_power(g.items, 0.05, 0.2, POWER_REPS, 1):.1%}")
    pf = paired_sample_size(0.05, 0.15, baseline_rate=0.85)
    print(
        f"pass/fail plan {pf.paired_n}: "
        f"{pass_fail_power(pf.paired_n, 0.05, 0.15, POWER_REPS, 2):.1%}"
    )
    for k in (3, 5):
        print(f"k={k} systems plan, baseline pairs: {systems_power(k, 0.05, 0.2, POWER_REPS):.1%}")
