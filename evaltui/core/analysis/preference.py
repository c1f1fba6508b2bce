"""The analysis behind `evaltui prefer`: a preference file -> pairwise win rates, the all-pairs
matrix, the Bradley-Terry fit, and the decision.

The decision speaks the same words and exits with the same codes as `evaltui report`
(`decision.STATUS_WORDS`, `decision.EXIT_CODES`), with the candidate in place of the candidate
run and the judge's preferences in place of the 2x2 table:

- ``blocked``: a candidate's head-to-head win rate against the baseline is significantly below
  1/2 (its interval lies below 1/2 and, with several pairs, its adjusted sign-test p is below
  alpha);
- ``not_enough_data``: some candidate has no verdict: never judged against the baseline, every
  judgment a tie, or fewer than 30 judged items;
- ``needs_review``: the win-rate interval and the exact sign test disagree for a candidate (the
  result sits on the line: a reader must look);
- ``ready``: none of the above.

A preference file has no items to triage (there is no transcript to tag), so nothing here waits
on a reviewer's tags; ``needs_review`` only ever means "read the numbers yourself". The decision
rests on direct head-to-head judgments; the Bradley-Terry fit (three or more systems) is shown
as context and never decides, because it pools indirect comparisons through a model.
"""

from __future__ import annotations

from dataclasses import dataclass

from evaltui.core.decide.pair import EXIT_CODES, STATUS_WORDS, VERDICT_SHORT, Reason
from evaltui.core.errors import InputError, UsageError
from evaltui.core.read.formats.preference import UNNAMED, PreferenceFile
from evaltui.core.stats.bradley_terry import BradleyTerryFit, bradley_terry
from evaltui.core.stats.multiplicity import ADJUST_METHODS
from evaltui.core.stats.preference import TIE_RULE_TEXT, TIE_RULES
from evaltui.core.stats.preference_matrix import (
    PairResult,
    WinRateMatrix,
    tally_pairs,
    win_rate_matrix,
)
from evaltui.core.textsafe import one_line
from evaltui.core.words import interval_digits

SHOWN_REASONS = 4  # on the first line, as in decision.py; every reason is listed below it
NAME_WIDTH = 40  # a system's name on the first line


@dataclass(frozen=True)
class PreferOptions:
    """What the command line chose; ``None`` baseline: ``A`` in a file without system columns,
    else the first system the file names. ``None`` candidate: every other system."""

    ties: str = "split"
    confidence: float = 0.95
    alpha: float = 0.05
    multiplicity: str = "holm"
    baseline: str | None = None
    candidate: str | None = None


@dataclass(frozen=True)
class PreferDecision:
    """The status, the first line and its reasons (``decision.Reason``), and each candidate's
    verdict against the baseline."""

    status: str
    line: str
    exit_code: int
    verdicts: dict[str, str]
    effect: str
    reasons: tuple[Reason, ...]


@dataclass(frozen=True, eq=False)
class PreferAnalysis:
    """Everything `evaltui prefer` reports. ``systems`` start with the baseline; every pair in
    ``matrix`` is oriented with the system earlier in ``systems`` as ``system_a``, so the
    baseline is always A. ``head_to_head`` maps each candidate to its pair with the baseline
    (None: never judged against it)."""

    source: PreferenceFile
    options: PreferOptions
    systems: tuple[str, ...]
    baseline: str
    candidates: tuple[str, ...]
    items: int
    matrix: WinRateMatrix
    head_to_head: dict[str, PairResult | None]
    bradley_terry: BradleyTerryFit | None
    decision: PreferDecision


def _check_options(options: PreferOptions) -> None:
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


def _named(source: PreferenceFile, name: str, option: str) -> str:
    if name in source.systems:
        return name
    shown = ", ".join(one_line(s, NAME_WIDTH) for s in source.systems[:10])
    more = f" and {len(source.systems) - 10} more" if len(source.systems) > 10 else ""
    raise UsageError(
        f"{option} {one_line(name, NAME_WIDTH)!r}: {source.path} has no such system "
        f"(systems: {shown}{more})"
    )


def analyze_preferences(source: PreferenceFile, options: PreferOptions) -> PreferAnalysis:
    """Tally the judgments, compare every pair, fit Bradley-Terry (three or more systems) and
    decide. A comparison graph that is not connected is refused (Bradley-Terry cannot place the
    groups relative to each other), as an InputError naming the file."""
    _check_options(options)
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
    return PreferAnalysis(
        source=source,
        options=options,
        systems=systems,
        baseline=baseline,
        candidates=candidates,
        items=len({j.item_id for j in source.judgments}),
        matrix=matrix,
        head_to_head=head,
        bradley_terry=fit,
        decision=_decide(baseline, head, options),
    )


def percent_interval(estimate: float | None, lo: float | None, hi: float | None) -> str:
    """``57.5% [52.6%, 62.3%]`` with decimals enough to read the interval's width."""
    if estimate is None:
        return "undefined"
    if lo is None or hi is None:
        return f"{estimate * 100:.1f}%"
    k = interval_digits(lo, hi, True)
    return f"{estimate * 100:.{k}f}% [{lo * 100:.{k}f}%, {hi * 100:.{k}f}%]"


def effect_text(candidate: str, result: PairResult | None, verdict: str) -> str:
    """``v2 wins 57.5% [52.6%, 62.3%] (ties count half), improved``."""
    name = one_line(candidate, NAME_WIDTH)
    if result is None:
        return f"{name} never judged against the baseline, no verdict"
    rate = result.comparison.primary
    ci = rate.ci
    shown = percent_interval(rate.estimate, ci.lower if ci else None, ci.upper if ci else None)
    return (
        f"{name} wins {shown} ({TIE_RULE_TEXT[result.comparison.ties]}), {VERDICT_SHORT[verdict]}"
    )


def _no_verdict_text(candidate: str, baseline: str, result: PairResult | None) -> str:
    name, base = one_line(candidate, NAME_WIDTH), one_line(baseline, NAME_WIDTH)
    if result is None:
        return f"{name} was never judged against the baseline {base}: no verdict"
    flags = result.comparison.flags
    n = result.comparison.counts.n
    if "no_decisive" in flags:
        return f"every one of the {n:,} judgments of {name} against {base} is a tie: no verdict"
    if "small_n" in flags:
        return f"only {n:,} judged items for {name} against {base}: counts only, no verdict"
    return f"{name} against {base}: no verdict"


def _decide(
    baseline: str, head: dict[str, PairResult | None], options: PreferOptions
) -> PreferDecision:
    reasons: list[Reason] = []
    verdicts: dict[str, str] = {}
    effects: list[str] = []
    for candidate, result in head.items():
        verdict = "insufficient_data" if result is None else result.verdict
        verdicts[candidate] = verdict
        effect = effect_text(candidate, result, verdict)
        effects.append(effect)
        name = one_line(candidate, NAME_WIDTH)
        if verdict == "regressed":
            reasons.append(
                Reason(
                    "regressed",
                    f"the judge prefers the baseline {one_line(baseline, NAME_WIDTH)} "
                    f"over {name}: {effect}",
                    f"{name} regressed",
                    blocking=True,
                )
            )
        elif verdict == "insufficient_data":
            reasons.append(
                Reason(
                    "no_verdict",
                    _no_verdict_text(candidate, baseline, result),
                    f"{name}: no verdict",
                )
            )
        if result is not None and "ci_test_disagree" in result.comparison.flags:
            reasons.append(
                Reason(
                    "on_the_line",
                    f"{name}: the win-rate interval and the exact sign test disagree about "
                    "significance; the result sits on the line",
                    f"{name} on the line",
                )
            )
    kinds = {r.kind for r in reasons}
    if any(r.blocking for r in reasons):
        status = "blocked"
    elif "no_verdict" in kinds:
        status = "not_enough_data"
    elif reasons:
        status = "needs_review"
    else:
        status = "ready"
    shorts = [r.short for r in sorted(reasons, key=lambda r: not r.blocking)]
    if len(shorts) > SHOWN_REASONS:
        shorts = [*shorts[:SHOWN_REASONS], f"+{len(shorts) - SHOWN_REASONS} more"]
    effect = f"vs {one_line(baseline, NAME_WIDTH)}: " + "; ".join(effects)
    line = " · ".join([STATUS_WORDS[status], *shorts, effect])
    return PreferDecision(
        status=status,
        line=line,
        exit_code=EXIT_CODES[status],
        verdicts=verdicts,
        effect=effect,
        reasons=tuple(reasons),
    )
