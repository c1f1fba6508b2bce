"""Three or more runs of the same items: the omnibus test, every pair, one family.

The design chooser's rules R5 and R6: with k >= 3 systems scored on the same items, ask first
whether any system differs at all (Cochran's Q for pass/fail, the Friedman test for scores), then
compare pairs, with the p-values of every pair adjusted together. Each pair is the familiar
two-run comparison (`compare.compare_loaded` on the pair's own spec), so its table, interval,
regressions and review journal are exactly what `evaltui BASE CAND` shows for it; only its
verdict changes, because it is adjusted over a family: the baseline against each candidate form
one family (the question the decision asks), the candidates among themselves another (and,
when the runs carry several metrics, every such pair's metrics): a pair is "regressed" only
when its interval excludes 0 and its p adjusted over its family is below alpha.

Pairs are oriented by the order the runs were given: for i < j, run i plays the baseline and
run j the candidate. The first run is THE baseline: the decision (`decide_run_set`) is the worst
of its pairs with each candidate; candidate-against-candidate pairs are shown in the matrix,
adjusted in their own family (they were looked at), but they do not gate the release. Holm's method
controls the familywise error on its own, so the pairwise verdicts do not wait for the omnibus
test to reject; when it does not while a pair does, the report says so.
"""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from evaltui.core.analysis.family import _adjusted_verdict, metric_row
from evaltui.core.analysis.pair import check_metric_named
from evaltui.core.analysis.pair_headline import warnings_of
from evaltui.core.analysis.pair_result import Analysis
from evaltui.core.analysis.pipeline import _check_policy_options, compare_loaded, reanalyse
from evaltui.core.analysis.read_both import wait_for_hashes
from evaltui.core.analysis.step_progress import Progress
from evaltui.core.compare.pairing import arm_columns
from evaltui.core.compare.spec import CompareSpec
from evaltui.core.errors import UsageError
from evaltui.core.lookalike import describe, lookalike_groups
from evaltui.core.policy import Policy, load_policy
from evaltui.core.read.formats import load_run
from evaltui.core.read.remote.urls import as_typed
from evaltui.core.read.runs import ITEM_ID, Run
from evaltui.core.stats.multiplicity import adjust_pvalues
from evaltui.core.stats.omnibus import OmnibusResult, cochran_q, friedman

RUN_SET_SCHEMA = "evaltui.runset/1"
MIN_RUNS = 3
READERS = 4  # runs read at once: more only competes for the same disk and cores
MAX_RUNS = 12  # 66 pairs: beyond that a matrix stops being readable and the family too large


@dataclass(frozen=True)
class RunSetSpec:
    """k runs compared with one set of choices. `base` carries every option (its baseline and
    candidate are runs[0] and runs[1]); pair (i, j) is `pair_spec(i, j)`."""

    runs: tuple[Path, ...]
    base: CompareSpec

    def __post_init__(self) -> None:
        object.__setattr__(self, "runs", tuple(Path(p) for p in self.runs))

    @classmethod
    def of(cls, spec: CompareSpec, more: Sequence[str | Path]) -> RunSetSpec:
        """The runs of `spec` (baseline, candidate) followed by `more` candidates."""
        runs = (spec.baseline, spec.candidate, *(Path(p) for p in more))
        if len(runs) > MAX_RUNS:
            raise UsageError(
                f"{len(runs)} runs given; at most {MAX_RUNS} can be compared at once "
                f"({MAX_RUNS * (MAX_RUNS - 1) // 2} pairs)"
            )
        if spec.baseline_options or spec.candidate_options:
            raise UsageError(
                "--baseline-arm/--candidate-arm choose two arms of one file; with three or more "
                "runs give each run as its own file"
            )
        resolved = [p.resolve() for p in runs]
        for index, path in enumerate(resolved):
            if path in resolved[:index]:
                raise UsageError(f"{runs[index]} is given twice: each run must be its own file")
        return cls(runs=runs, base=spec)

    @property
    def k(self) -> int:
        return len(self.runs)

    @property
    def names(self) -> tuple[str, ...]:
        return run_names(self.runs)

    def pair_spec(self, i: int, j: int) -> CompareSpec:
        """The two-run comparison of run i (as the baseline) with run j (as the candidate)."""
        return self.base.with_inputs(self.runs[i], self.runs[j])

    def pair_indices(self) -> tuple[tuple[int, int], ...]:
        return tuple((i, j) for i in range(self.k) for j in range(i + 1, self.k))

    def to_dict(self) -> dict[str, Any]:
        return {
            "schema": RUN_SET_SCHEMA,
            "runs": [as_typed(p) for p in self.runs],
            "spec": self.base.to_dict(),
        }

    @classmethod
    def from_dict(cls, data: Any) -> RunSetSpec:
        if not isinstance(data, dict) or data.get("schema") != RUN_SET_SCHEMA:
            raise UsageError(f"the run set is not a {RUN_SET_SCHEMA} object")
        runs = data.get("runs")
        if not isinstance(runs, list) or len(runs) < MIN_RUNS:
            raise UsageError(f"the run set must list at least {MIN_RUNS} runs")
        return cls(runs=tuple(Path(str(p)) for p in runs), base=CompareSpec.from_dict(data["spec"]))


def run_names(paths: Sequence[Path]) -> tuple[str, ...]:
    """Short unique labels for the runs: the file names without their suffix, else the whole
    file names, else with the parent folder, and a position as the last resort."""
    paths = [Path(p) for p in paths]
    tries = (
        [p.name.split(".")[0] or p.name for p in paths],
        [p.name for p in paths],
        [f"{p.parent.name}/{p.name}" if p.parent.name else p.name for p in paths],
    )
    names = next((t for t in tries if len(set(t)) == len(t)), None)
    if names is None:
        names = [f"{n} ({i + 1})" for i, n in enumerate(tries[1])]
    return tuple(names)


def refuse_lookalike_run_names(runs: Sequence[Path], allowed: bool) -> None:
    """Runs whose names (`run_names`) look alike (a Cyrillic letter, case, an invisible
    character) are refused unless confirmed: the matrix and the record would name them as one."""
    groups = lookalike_groups(run_names(runs))
    if groups and not allowed:
        raise UsageError(
            f"{describe(groups, 'run names')}; rename a file, or pass --allow-lookalike-names "
            "if they are different runs"
        )


@dataclass(frozen=True, eq=False)
class PairResult:
    """One pair of the set: its two-run analysis (verdict adjusted over the family) and the
    p-values the matrix shows."""

    baseline: int  # index into the run set
    candidate: int
    analysis: Analysis
    p_raw: float | None  # the test the verdict uses (exact McNemar; paired t for scores)
    p_test: str
    p_adjusted: float | None
    # Scores: the Wilcoxon signed-rank test the chooser names for R6, adjusted over the pairs.
    p_rank: float | None = None
    p_rank_adjusted: float | None = None
    # Outcome categories (R8): the pair's Stuart-Maxwell p, adjusted over the pairs.
    p_outcome: float | None = None
    p_outcome_adjusted: float | None = None

    @property
    def verdict(self) -> str:
        return self.analysis.verdict

    @property
    def own_verdict(self) -> str:
        return self.analysis.own_verdict


@dataclass(frozen=True, eq=False)
class RunSetAnalysis:
    """Everything shown about k runs: the omnibus test and every pair."""

    spec: RunSetSpec
    runs: tuple[Run, ...]
    metric: str
    kind: str  # binary | graded, as every pair's analysis
    omnibus: OmnibusResult | None  # None when fewer than 2 items are common to all runs
    common_items: int  # items every run scored (the omnibus test's rows)
    pairs: tuple[PairResult, ...]  # every i < j, in `spec.pair_indices()` order
    multiplicity: str
    family_size: int
    family_label: str
    policy: Policy | None = None

    @property
    def k(self) -> int:
        return len(self.runs)

    @property
    def names(self) -> tuple[str, ...]:
        return self.spec.names

    def pair(self, i: int, j: int) -> PairResult:
        """The pair of runs i and j, whichever order they are asked in (oriented i < j)."""
        lo, hi = min(i, j), max(i, j)
        return next(p for p in self.pairs if (p.baseline, p.candidate) == (lo, hi))

    @property
    def baseline_pairs(self) -> tuple[PairResult, ...]:
        """The baseline against each candidate: the pairs the decision rests on."""
        return tuple(p for p in self.pairs if p.baseline == 0)

    @property
    def omnibus_rejects(self) -> bool | None:
        """Does the omnibus test reject at alpha (None: undefined)."""
        if self.omnibus is None or self.omnibus.p is None:
            return None
        return self.omnibus.p < self.pairs[0].analysis.options.alpha


def compare_runs(
    spec: RunSetSpec,
    *,
    progress: Progress | None = None,
    policy: Policy | None = None,
    replay: bool = False,
) -> RunSetAnalysis:
    """Read each run once, compare every pair, run the omnibus test and adjust the family
    (`replay`: a record's set, replayed as it was made, as `pipeline.compare` says)."""
    if spec.k < MIN_RUNS:
        raise UsageError(f"a run set needs at least {MIN_RUNS} runs, got {spec.k}")
    base = spec.base
    if policy is None and base.policy is not None:
        policy = load_policy(base.policy)
    if policy is not None:
        _check_policy_options(base, policy)
    steps = spec.k + 2
    runs = _load_all(spec, progress, steps)
    if not replay:
        for run in runs:
            check_metric_named(run, base.analysis.metric)
    wait_for_hashes(runs, progress, spec.k - 1, steps)  # (a remote run's: the whole object)
    if progress is not None:
        progress(f"comparing {len(spec.pair_indices())} pairs", spec.k, steps)
    analyses = [
        compare_loaded(spec.pair_spec(i, j), runs[i], runs[j], policy=policy)
        for i, j in spec.pair_indices()
    ]
    _check_same_metric(spec, analyses)
    if progress is not None:
        progress("the omnibus test", spec.k + 1, steps)
    return _assemble(spec, tuple(r.resolved() for r in runs), analyses, policy)


def on_metric(run_set: RunSetAnalysis, metric: str) -> RunSetAnalysis:
    """The same runs compared on another of their scorers (`metric`, a column or a scorer's
    name), from the pairs already read: every pair analysed anew on it, the omnibus test on
    it, the family adjusted again (every scorer is in the family whichever is compared, so
    no verdict changes; the compared scorer is the one the matrix, the omnibus test and each
    pair's list show). The spec follows, so a sign-off replays the scorer it shows. The app
    opens a set on the scorer that blocks, as it opens a pair."""
    analyses = [reanalyse(p.analysis, metric) for p in run_set.pairs]
    base = run_set.spec.base
    spec = RunSetSpec(
        runs=run_set.spec.runs,
        base=replace(base, analysis=replace(base.analysis, metric=metric)),
    )
    return _assemble(spec, run_set.runs, analyses, run_set.policy)


def _assemble(
    spec: RunSetSpec, runs: tuple[Run, ...], analyses: list[Analysis], policy: Policy | None
) -> RunSetAnalysis:
    """The set from its pairs' analyses: the omnibus test and the family adjustment."""
    kind = analyses[0].kind
    metric = analyses[0].metric
    table = _common_items(spec, analyses, metric)
    omnibus = _omnibus(table, kind)
    multiplicity = policy.multiplicity if policy is not None else "holm"
    pairs, size, label = _adjust_family(spec, analyses, multiplicity)
    return RunSetAnalysis(
        spec=spec,
        runs=runs,
        metric=metric,
        kind=kind,
        omnibus=omnibus,
        common_items=table.height,
        pairs=pairs,
        multiplicity=multiplicity,
        family_size=size,
        family_label=label,
        policy=policy,
    )


def _load_all(spec: RunSetSpec, progress: Progress | None, steps: int) -> list[Run]:
    """Read the k runs side by side (a load is mostly hashing and polars parsing, which
    release the GIL, as `compare` reads its two); the first run's error wins when several
    files are bad, as if they were read in turn. Each run's hash finishes in its own thread
    and is waited for before the pairs are compared (`wait_for_hashes`, its progress said)."""
    options = spec.base.load_options("baseline")
    done = 0
    with ThreadPoolExecutor(max_workers=min(spec.k, READERS)) as pool:
        futures = [
            pool.submit(load_run, path, spec.base.input_format, options, wait_for_hash=False)
            for path in spec.runs
        ]
        for index, future in enumerate(futures):
            if progress is not None:
                progress(f"reading {spec.k} runs ({done} read)", done, steps)
            future.exception()  # wait, in order
            done = index + 1
    return [future.result() for future in futures]


def _check_same_metric(spec: RunSetSpec, analyses: list[Analysis]) -> None:
    """Every pair must compare the same metric the same way, or the matrix mixes units."""
    first = analyses[0]
    for (i, j), a in zip(spec.pair_indices(), analyses, strict=True):
        if a.metric == first.metric and a.kind != first.kind:
            raise UsageError(
                f"{spec.runs[i]} and {spec.runs[j]} compare one {a.metric} verdict per item, but "
                f"{spec.runs[0]} and {spec.runs[1]} compare pass rates over repeated epochs: the "
                "runs must repeat their items the same way to be compared together"
            )
        if (a.metric, a.kind) != (first.metric, first.kind):
            raise UsageError(
                f"{spec.runs[i]} and {spec.runs[j]} compare {a.metric} ({a.kind}), the first pair "
                f"{first.metric} ({first.kind}); give runs that carry the same metric, or --metric"
            )


def _common_items(spec: RunSetSpec, analyses: list[Analysis], metric: str) -> pl.DataFrame:
    """One row per item every run scored, one column per run (the per-item value)."""
    base_col, cand_col = arm_columns(metric)
    by_pair = dict(zip(spec.pair_indices(), analyses, strict=True))
    first = by_pair[(0, 1)].paired.items.select(
        pl.col(ITEM_ID), pl.col(base_col).alias("run_0"), pl.col(cand_col).alias("run_1")
    )
    for j in range(2, spec.k):
        other = by_pair[(0, j)].paired.items.select(
            pl.col(ITEM_ID), pl.col(cand_col).alias(f"run_{j}")
        )
        first = first.join(other, on=ITEM_ID, how="inner", maintain_order="left")
    return first


def _omnibus(table: pl.DataFrame, kind: str) -> OmnibusResult | None:
    if table.height < 2:
        return None
    values = table.drop(ITEM_ID)
    if values.null_count().sum_horizontal().item():
        return None  # an arm without a value: no omnibus row can be formed (never guessed)
    matrix = values.to_numpy()
    if kind == "binary":
        return cochran_q(matrix.astype(bool))  # binary pairs hold one bool verdict per item
    return friedman(matrix.astype(np.float64))


def _adjust_family(
    spec: RunSetSpec, analyses: list[Analysis], method: str
) -> tuple[tuple[PairResult, ...], int, str]:
    """Adjust every in-family p of every pair together, and give each pair its new rows."""
    rows_per_pair = [list(a.metrics) or [metric_row(a, in_family=True)] for a in analyses]
    family = [
        (pi, ri)
        for pi, rows in enumerate(rows_per_pair)
        for ri, row in enumerate(rows)
        if row.in_family
    ]
    # Two families: the baseline against each candidate (the question the decision asks) and
    # the candidates among themselves (shown in the matrix, never gating). Adjusting the
    # baseline pairs over every pair cost them 11-14 points of power at k = 6.
    baseline_pair = [i == 0 for i, _ in spec.pair_indices()]
    metrics = len({rows_per_pair[pi][ri].metric for pi, ri in family})
    alpha = analyses[0].options.alpha
    size = 0
    label = ""
    for in_baseline in (True, False):
        members = [(pi, ri) for pi, ri in family if baseline_pair[pi] == in_baseline]
        if not members:
            continue
        adjusted = adjust_pvalues([rows_per_pair[pi][ri].p_raw for pi, ri in members], method)
        n_pairs = sum(1 for b in baseline_pair if b == in_baseline)
        what = _family_words(n_pairs, in_baseline)
        own_label = what if metrics <= 1 else f"{what} x {metrics} metrics"
        if in_baseline:
            size, label = len(members), own_label
        for (pi, ri), p in zip(members, adjusted, strict=True):
            row = replace(
                rows_per_pair[pi][ri],
                p_adjusted=p,
                family_size=len(members),
                family_label=own_label,
            )
            rows_per_pair[pi][ri] = replace(
                row, verdict=_adjusted_verdict(row, alpha, len(members))
            )
    n_pairs = len(analyses)
    ranks = [
        _primary(rows, a.metric).p_reference
        for rows, a in zip(rows_per_pair, analyses, strict=True)
    ]
    ranks_adjusted: list[float | None] = [None] * len(ranks)
    for in_baseline in (True, False):
        index = [k for k, b in enumerate(baseline_pair) if b == in_baseline]
        for k, value in zip(index, adjust_pvalues([ranks[k] for k in index], method), strict=True):
            ranks_adjusted[k] = value
    out = []
    for (i, j), a, rows, rank, rank_adj in zip(
        spec.pair_indices(), analyses, rows_per_pair, ranks, ranks_adjusted, strict=True
    ):
        done = replace(a, metrics=tuple(rows))
        done = replace(done, warnings=warnings_of(done))
        primary = _primary(rows, a.metric)
        out.append(
            PairResult(
                baseline=i,
                candidate=j,
                analysis=done,
                p_raw=primary.p_raw,
                p_test=primary.p_test,
                p_adjusted=primary.p_adjusted,
                p_rank=rank if a.kind == "graded" else None,
                p_rank_adjusted=rank_adj if a.kind == "graded" else None,
            )
        )
    return _adjust_outcomes(tuple(out), method, n_pairs), size, label


def _family_words(n_pairs: int, baseline: bool) -> str:
    """The family's name as the reports say it: "2 baseline pairs", "1 candidate pair"."""
    kind = "baseline" if baseline else "candidate"
    return f"{n_pairs} {kind} pair{'s' if n_pairs != 1 else ''}"


def _adjust_outcomes(pairs: tuple[PairResult, ...], method: str, n_pairs: int) -> tuple:
    """Pairwise Stuart-Maxwell with the correction (R8): when the runs carry outcome
    categories, each pair's test of whether the mix moved is adjusted over the pairs, and the
    pair's decision reads the adjusted p (`CategoricalComparison.rejects`)."""
    raw = [_outcome_p(p.analysis) for p in pairs]
    if all(value is None for value in raw):
        return pairs
    adjusted = adjust_pvalues(raw, method)
    label = f"{n_pairs} pairs"
    out = []
    for pair, p, p_adj in zip(pairs, raw, adjusted, strict=True):
        categorical = pair.analysis.categorical
        if categorical is not None and p is not None:
            categorical = replace(categorical, p_family=p_adj, family_label=label)
            pair = replace(pair, analysis=replace(pair.analysis, categorical=categorical))
        out.append(replace(pair, p_outcome=p, p_outcome_adjusted=p_adj))
    return tuple(out)


def _outcome_p(analysis: Analysis) -> float | None:
    categorical = getattr(analysis, "categorical", None)
    return None if categorical is None else categorical.test.p_value


def _primary(rows: list[Any], metric: str) -> Any:
    """The row of the metric the pair compares."""
    return next(r for r in rows if r.metric == metric)
