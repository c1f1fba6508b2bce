"""The one way from a comparison spec to an Analysis, shared by the CLI, the app and verify.

Each step reports progress through an optional callback, so the app can show where a slow open
is and the headless commands stay silent.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, overload

from evaltui.core.analysis.categories import outcome_comparison
from evaltui.core.analysis.early_read import EarlyRead, read_spec
from evaltui.core.analysis.early_read import start_reading as start_reading
from evaltui.core.analysis.family import metric_family
from evaltui.core.analysis.pair import (
    analyze,
    apply_threshold,
    check_cost_metric,
    check_cost_threshold,
    check_metric_named,
    choose_metric,
    with_clusters,
)
from evaltui.core.analysis.pair_headline import warnings_of
from evaltui.core.analysis.pair_result import Analysis
from evaltui.core.analysis.read_both import STEPS, wait_for_hashes
from evaltui.core.analysis.slices import slice_comparisons
from evaltui.core.analysis.step_progress import Progress
from evaltui.core.compare.choose_design import (
    DesignChoice,
    choose_design,
    explain_pairing_error,
    refuse_accidental_pairing,
)
from evaltui.core.compare.pairing import PairedRuns, pair_runs
from evaltui.core.compare.spec import POLICY_FIXED, CompareSpec
from evaltui.core.errors import PairingError, UsageError
from evaltui.core.policy import Policy, load_policy
from evaltui.core.read.runs import PASSED, SLICE, Run

if TYPE_CHECKING:  # (two samples of different items: imported when one is compared)
    from evaltui.core.analysis.independent import IndependentAnalysis


def compare_files(
    baseline: str | Path,
    candidate: str | Path,
    *,
    progress: Progress | None = None,
    complete: bool = True,
    **choices: Any,
) -> Analysis:
    """`compare` on a spec made from these choices (`CompareSpec.create` names them)."""
    spec = CompareSpec.create(baseline, candidate, **choices)
    return compare(spec, progress=progress, complete=complete)


def compare(
    spec: CompareSpec,
    *,
    progress: Progress | None = None,
    complete: bool = True,
    defer_hash_check: bool = False,
    policy: Policy | None = None,
    cached: bool = False,
    reading: EarlyRead | None = None,
    replay: bool = False,
) -> Analysis:
    """The paired analysis of the spec's two runs (see `_compare`): what the app, sign-off and
    verify review. A spec whose design is independent (or `auto` on two runs that cannot be
    paired) is refused here, with the reason: `compare_design` is the entry that compares
    independent samples (`evaltui report --design independent`). `cached` (the app): a
    completed analysis kept by an earlier open of the same inputs, spec and policy is rebuilt
    instead of pairing and analysing (`analysis_cache.py`), whatever `complete` says.
    `reading`: the two runs' read, already started (the app's CLI: `early_read.py`), taken if
    it is this spec's. `replay` (verify): the spec is a record's, made by an evaltui that may
    have taken a `--metric` the runs do not have without a word; it replays as it was made."""
    return _compare(
        spec,
        progress,
        complete,
        defer_hash_check,
        policy,
        cached=cached,
        reading=reading,
        replay=replay,
    )


def compare_design(
    spec: CompareSpec,
    *,
    progress: Progress | None = None,
    policy: Policy | None = None,
    complete: bool = True,
    defer_hash_check: bool = False,
    reading: EarlyRead | None = None,
) -> Analysis | IndependentAnalysis:
    """`compare`, or the independent comparison when the spec's design is independent, or is
    `auto` and the runs cannot be paired (see `evaltui.core.compare.choose_design`). `complete`,
    `defer_hash_check` and `reading` are `compare`'s (the app's first screen)."""
    return _compare(
        spec, progress, complete, defer_hash_check, policy, independent_ok=True, reading=reading
    )


@overload
def _compare(
    spec: CompareSpec,
    progress: Progress | None,
    complete: bool,
    defer_hash_check: bool,
    policy: Policy | None,
    *,
    independent_ok: Literal[False] = False,
    cached: bool = False,
    reading: EarlyRead | None = None,
    replay: bool = False,
) -> Analysis: ...
@overload
def _compare(
    spec: CompareSpec,
    progress: Progress | None,
    complete: bool,
    defer_hash_check: bool,
    policy: Policy | None,
    *,
    independent_ok: bool,
    cached: bool = False,
    reading: EarlyRead | None = None,
    replay: bool = False,
) -> Analysis | IndependentAnalysis: ...
def _compare(
    spec: CompareSpec,
    progress: Progress | None,
    complete: bool,
    defer_hash_check: bool,
    policy: Policy | None,
    *,
    independent_ok: bool = False,
    cached: bool = False,
    reading: EarlyRead | None = None,
    replay: bool = False,
) -> Analysis | IndependentAnalysis:
    """Load both runs, apply a pass threshold if asked, pair them and analyse the pair.

    The policy the spec names is read here unless the caller passes it (`verify` replays a
    record without its policy file: `spec.policy` is then ignored and `policy` stays None).
    `complete=False` stops after the headline analysis (no cluster bootstrap, metric family or
    slices): the app shows its first screen and calls `complete_analysis` in the background.
    `defer_hash_check` lets a JSONL run found in the scan cache take its sha256 from the cache
    (the app only; it must confirm the hash before anything records it).
    """
    if policy is None and spec.policy is not None:
        policy = load_policy(spec.policy)
    if policy is not None:
        _check_policy_options(spec, policy)
    if progress is not None:
        progress(STEPS[0], 0, len(STEPS))
    if reading is not None and reading.serves(spec, defer_hash_check):
        base_run, cand_run = reading.take(progress)  # (started by the CLI: `early_read.py`)
    else:
        # A kept analysis needs no statistic before the first screen: no scipy beside the read.
        prefetch = not (cached and _probably_kept(spec))
        base_run, cand_run = read_spec(spec, defer_hash_check, progress, prefetch=prefetch)
    if not replay:  # (a record replays as it was made: see `compare`)
        check_metric_named(base_run, spec.analysis.metric)
        check_metric_named(cand_run, spec.analysis.metric)
    if cached:
        # (what the early read rebuilt, if it was this read's: dropped otherwise)
        found = None if reading is None else reading.take_rebuilt(spec, base_run, cand_run, policy)
        if found is None:
            from evaltui.core.analysis.analysis_cache import rebuild

            found = rebuild(spec, base_run, cand_run, policy)
        if found is not None:
            return found
    return compare_loaded(
        spec,
        base_run,
        cand_run,
        policy=policy,
        complete=complete,
        progress=progress,
        independent_ok=independent_ok,
    )


@overload
def compare_loaded(
    spec: CompareSpec,
    base_run: Run,
    cand_run: Run,
    *,
    policy: Policy | None = None,
    complete: bool = True,
    progress: Progress | None = None,
    independent_ok: Literal[False] = False,
) -> Analysis: ...
@overload
def compare_loaded(
    spec: CompareSpec,
    base_run: Run,
    cand_run: Run,
    *,
    policy: Policy | None = None,
    complete: bool = True,
    progress: Progress | None = None,
    independent_ok: bool,
) -> Analysis | IndependentAnalysis: ...
def compare_loaded(
    spec: CompareSpec,
    base_run: Run,
    cand_run: Run,
    *,
    policy: Policy | None = None,
    complete: bool = True,
    progress: Progress | None = None,
    independent_ok: bool = False,
) -> Analysis | IndependentAnalysis:
    """Everything `compare` does after reading the two files: the pass threshold, pairing,
    the analysis and its breakdowns. A comparison of k runs reads each file once and calls
    this for every pair (`multirun.compare_runs`)."""
    analysis = spec.analysis

    def step(index: int) -> None:
        if progress is not None:
            progress(STEPS[index], index, len(STEPS))

    check_cost_threshold(analysis.metric, analysis.pass_threshold)
    check_cost_metric(base_run, analysis.metric)
    check_cost_metric(cand_run, analysis.metric)
    metric = choose_metric(base_run, analysis.metric)
    if analysis.pass_threshold is not None:
        if metric in (None, PASSED):
            scores = base_run.score_columns
            if not scores:
                raise UsageError(
                    f"--pass-threshold needs a graded metric; {base_run.source.path} has none"
                )
            metric = scores[0]
        base_run = apply_threshold(base_run, metric, analysis.pass_threshold)
        cand_run = apply_threshold(cand_run, metric, analysis.pass_threshold)
        analysis = replace(analysis, metric=PASSED, threshold_metric=metric)
    else:
        analysis = replace(analysis, metric=metric)
    step(1)
    if spec.design != "paired":
        choice = choose_design(
            spec.design, base_run, cand_run, accept_mismatch=spec.accept_mismatch
        )
        if choice.independent:
            step(2)
            return _independent(
                spec, choice, base_run, cand_run, analysis, policy, independent_ok, progress
            )
    paired = _pair(spec, base_run, cand_run)
    step(2)
    first = replace(analyze(paired, analysis, clusters=complete), spec=spec)
    if complete:
        done = add_breakdowns(first, policy)
    else:
        done = replace(first, policy=policy, breakdowns_pending=True)
    # The inputs' sha256 were computed beside all this; the result carries them, never "".
    wait_for_hashes((paired.baseline, paired.candidate), progress, 2, len(STEPS))
    resolved = replace(
        paired,
        baseline=paired.baseline.resolved(),
        candidate=paired.candidate.resolved(),
    )
    return replace(done, paired=resolved)


def _probably_kept(spec: CompareSpec) -> bool:
    """Whether an analysis of these two files (as they are now) is kept, before reading
    them (`kept_hint.probably_kept`; the read then confirms it or not)."""
    from evaltui.core.analysis.kept_hint import probably_kept

    return spec.design == "paired" and probably_kept(spec.baseline, spec.candidate)


def keep_analysis(analysis: Analysis) -> None:
    """Keep a completed analysis for the next open of the same pair (the app's `cached`
    opens; `analysis_cache.store`). Never raises: a cache only ever costs a recomputation."""
    from evaltui.core.analysis import analysis_cache

    spec = analysis.spec
    if spec is None or spec.design != "paired" or spec.analysis.pass_threshold is not None:
        return
    if analysis_cache.cache_root() is None:
        return
    paired = analysis.paired
    key = analysis_cache.entry_key(
        spec, analysis.policy, paired.baseline.source, paired.candidate.source
    )
    if key is not None:
        analysis_cache.store(key, analysis)


def _pair(spec: CompareSpec, baseline: Run, candidate: Run) -> PairedRuns:
    """The pairing, refusing ids that coincide by accident, and naming the independent design
    when the runs turn out to be two samples of different items (`compare.choose_design`)."""
    refuse_accidental_pairing(baseline, candidate, accept_mismatch=spec.accept_mismatch)
    try:
        return pair_runs(baseline, candidate, spec.pairing)
    except PairingError as exc:
        raise explain_pairing_error(exc, baseline, candidate) from None


def _independent(
    spec: CompareSpec,
    choice: DesignChoice,
    baseline: Run,
    candidate: Run,
    options: Any,
    policy: Policy | None,
    allowed: bool,
    progress: Progress | None = None,
) -> IndependentAnalysis:
    if not allowed:
        raise UsageError(
            f"{choice.reason}; this command reviews paired runs only: compare two runs of "
            "different items with evaltui report BASE CAND --design independent"
        )
    from evaltui.core.analysis.independent import analyze_independent

    wait_for_hashes((baseline, candidate), progress, 2, len(STEPS))
    return analyze_independent(
        baseline.resolved(),
        candidate.resolved(),
        choice,
        options,
        on_error=spec.pairing.on_error,
        spec=spec,
        policy=policy,
    )


def _check_policy_options(spec: CompareSpec, policy: Policy) -> None:
    """The spec's alpha, CI method and level are the policy's (`CompareSpec.create` folds them
    in); a policy file edited since the spec was made is refused rather than half-applied."""
    for name in POLICY_FIXED:
        mine, theirs = getattr(spec.analysis, name), getattr(policy, name)
        if mine != theirs:
            raise UsageError(
                f"the policy {policy.source_path} says {name} = {theirs}, but this comparison "
                f"was set up with {mine}; the policy changed: open the pair again"
            )
    if policy.directions and spec.analysis.policy_directions != policy.directions:
        raise UsageError(
            f"the policy {policy.source_path} declares the directions "
            f"{dict(policy.directions)}, but this comparison was set up with "
            f"{dict(spec.analysis.policy_directions)}; the policy changed: open the pair again"
        )


def reanalyse(analysis: Analysis, metric: str) -> Analysis:
    """The same pair compared on another of its metrics (the app's metric switch); the spec
    follows, so a sign-off made after the switch replays the metric it shows."""
    options = replace(analysis.options, metric=metric)
    spec = analysis.spec
    if spec is not None:
        spec = replace(spec, analysis=replace(spec.analysis, metric=metric))
    again = replace(analyze(analysis.paired, options), spec=spec)
    return add_breakdowns(again, analysis.policy)


# The parts `complete_analysis` adds, in order: what its progress names.
COMPLETING_STEPS = ("clusters", "metric family")
Completing = Callable[[str, int, int], None]  # the part now computed, its step, the steps


def complete_analysis(analysis: Analysis, progress: Completing | None = None) -> Analysis:
    """What `compare_files(complete=False)` left out: clusters, metric family, slices.
    `progress` hears each part before it starts (the app's deciding line says it)."""
    steps = len(COMPLETING_STEPS)
    if not analysis.clusters_done:
        if progress is not None and analysis.clusters_pending:
            progress(COMPLETING_STEPS[0], 1, steps)
        analysis = with_clusters(analysis)
    if progress is not None:
        progress(COMPLETING_STEPS[1], 2, steps)
    return add_breakdowns(analysis, analysis.policy)


def add_breakdowns(analysis: Analysis, policy: Policy | None = None) -> Analysis:
    """Add the metric family table and the per-slice comparisons (binary verdicts only)."""
    multiplicity = policy.multiplicity if policy is not None else "holm"
    monitor = policy.monitor if policy is not None else ()
    secondary = policy.secondary if policy is not None else ()
    return replace(breakdowns(analysis, multiplicity, monitor, secondary), policy=policy)


def breakdowns(
    analysis: Analysis,
    multiplicity: str,
    monitor: tuple[str, ...],
    secondary: tuple[str, ...] = (),
) -> Analysis:
    """The family table (adjusted by `multiplicity`, without `monitor`; `secondary` ones kept
    from blocking) and the slices."""
    metrics = metric_family(analysis, multiplicity, monitor, secondary)
    slices: tuple = ()
    paired = analysis.paired
    if analysis.binary is not None and SLICE in paired.items.columns:
        slices = slice_comparisons(
            paired,
            ci_method=analysis.options.ci_method,
            confidence=analysis.options.confidence,
            alpha=analysis.options.alpha,
            adjust=multiplicity,
        )
    categorical = outcome_comparison(
        paired,
        ci_method=analysis.options.ci_method,
        confidence=analysis.options.confidence,
        alpha=analysis.options.alpha,
        adjust=multiplicity,
    )
    done = replace(
        analysis,
        metrics=metrics,
        slices=slices,
        categorical=categorical,
        breakdowns_pending=False,
    )
    return replace(done, warnings=warnings_of(done))  # the family may change the verdict
