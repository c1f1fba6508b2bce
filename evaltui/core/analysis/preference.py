"""The analysis behind `evaltui prefer`: a preference file -> pairwise win rates, the all-pairs
matrix and the Bradley-Terry fit. Numbers only: the decision is `decide.preference`'s.
"""

from __future__ import annotations

from dataclasses import dataclass

from evaltui.core.errors import InputError, UsageError
from evaltui.core.lookalike import describe, lookalike_groups
from evaltui.core.read.formats.preference import UNNAMED, PreferenceFile
from evaltui.core.stats.bradley_terry import BradleyTerryFit, bradley_terry
from evaltui.core.stats.multiplicity import ADJUST_METHODS
from evaltui.core.stats.preference import TIE_RULES
from evaltui.core.stats.preference_matrix import (
    PairResult,
    WinRateMatrix,
    tally_pairs,
    win_rate_matrix,
)
from evaltui.core.textsafe import one_line

NAME_WIDTH = 40  # a system's name on the first line


@dataclass(frozen=True)
class PreferenceOptions:
    """What the command line chose; ``None`` baseline: ``A`` in a file without system columns,
    else the first system the file names. ``None`` candidate: every other system."""

    ties: str = "split"
    confidence: float = 0.95
    alpha: float = 0.05
    multiplicity: str = "holm"
    baseline: str | None = None
    candidate: str | None = None
    allow_lookalike_names: bool = False  # systems whose names look alike are different ones


@dataclass(frozen=True, eq=False)
class PreferenceAnalysis:
    """Everything `evaltui prefer` reports. ``systems`` start with the baseline; every pair in
    ``matrix`` is oriented with the system earlier in ``systems`` as ``system_a``, so the
    baseline is always A. ``head_to_head`` maps each candidate to its pair with the baseline
    (None: never judged against it)."""

    source: PreferenceFile
    options: PreferenceOptions
    systems: tuple[str, ...]
    baseline: str
    candidates: tuple[str, ...]
    items: int
    matrix: WinRateMatrix
    head_to_head: dict[str, PairResult | None]
    bradley_terry: BradleyTerryFit | None


def _check_options(options: PreferenceOptions) -> None:
    if options.ties not in TIE_RULES:
        raise UsageError(f"--ties must be one of {', '.join(TIE_RULES)}, got {options.ties!r}")
    for name in ("confidence", "alpha"):
        value = getattr(options, name)
        if not 0.0 < value < 1.0:
            raise UsageError(f"--{name} must be strictly between 0 and 1, got {value!r}")
    if options.multiplicity not in ADJUST_METHODS:
        raise UsageError(
            f"--multiplicity must be one of {', '.join(ADJUST_METHODS)}, "
            f"got {options.multiplicity!r}"
        )


LOOKALIKE_HINT = (
    "a system written two ways splits its judgments (fix the file), or pass "
    "--allow-lookalike-names if they are different systems"
)


def refuse_lookalike_systems(source: PreferenceFile, allowed: bool) -> None:
    """System names that differ only by look-alike characters, case or invisible characters
    (`phаrmbot-v2` with a Cyrillic а beside `pharmbot-v2`) are refused unless confirmed."""
    groups = lookalike_groups(source.systems)
    if groups and not allowed:
        raise InputError(source.path, f"{describe(groups, 'system names')}; {LOOKALIKE_HINT}")


def _named(source: PreferenceFile, name: str, option: str) -> str:
    if name in source.systems:
        return name
    shown = ", ".join(one_line(s, NAME_WIDTH) for s in source.systems[:10])
    more = f" and {len(source.systems) - 10} more" if len(source.systems) > 10 else ""
    raise UsageError(
        f"{option} {one_line(name, NAME_WIDTH)!r}: {source.path} has no such system "
        f"(systems: {shown}{more})"
    )


def analyze_preferences(source: PreferenceFile, options: PreferenceOptions) -> PreferenceAnalysis:
    """Tally the judgments, compare every pair and fit Bradley-Terry (three or more systems).
    A comparison graph that is not connected is refused (Bradley-Terry cannot place the
    groups relative to each other), as an InputError naming the file."""
    _check_options(options)
    refuse_lookalike_systems(source, options.allow_lookalike_names)
    if options.baseline is not None:
        baseline = _named(source, options.baseline, "--baseline")
    else:
        baseline = UNNAMED[0] if not source.named_systems else source.systems[0]
    if len(source.systems) < 2:
        raise InputError(source.path, "only one system is judged: nothing to compare")
    if options.candidate is not None:
        candidate = _named(source, options.candidate, "--candidate")
        if candidate == baseline:
            raise UsageError(f"--candidate {one_line(candidate, NAME_WIDTH)!r} is the baseline")
        candidates: tuple[str, ...] = (candidate,)
    else:
        candidates = tuple(s for s in source.systems if s != baseline)
    systems = (baseline, *(s for s in source.systems if s != baseline))
    tallies = tally_pairs(
        ((j.system_a, j.system_b, j.outcome) for j in source.judgments), order=systems
    )
    matrix = win_rate_matrix(
        tallies,
        systems,
        ties=options.ties,
        confidence=options.confidence,
        alpha=options.alpha,
        multiplicity=options.multiplicity,
    )
    fit = None
    if len(systems) >= 3:
        try:
            fit = bradley_terry(tallies, baseline, options.confidence, systems)
        except ValueError as exc:
            raise InputError(source.path, str(exc)) from None
    head = {c: matrix.pair(baseline, c) for c in candidates}
    return PreferenceAnalysis(
        source=source,
        options=options,
        systems=systems,
        baseline=baseline,
        candidates=candidates,
        items=len({j.item_id for j in source.judgments}),
        matrix=matrix,
        head_to_head=head,
        bradley_terry=fit,
    )
