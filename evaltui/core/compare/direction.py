"""Which way is better for a graded metric, and how that is known (`Direction`).

The direction decides which items are regressions and which way the verdict points, so it is
never assumed in silence. In order:

1. the user's word: `--direction higher|lower` (recorded in the spec), or the lm-eval format's
   `--higher-is-better true|false` (recorded in the run's metadata); then the release
   policy's `[metrics.NAME] direction` (folded into the spec's options, so a record replays
   it without the policy file), refused when the log declares the opposite;
2. the log's declaration: lm-eval's `results_<date>.json` (`higher_is_better`), read by the
   format into the run metadata (`higher_is_better`, `direction_source`);
3. a log that could declare it and does not (lm-eval without its results file: the run's
   metadata say `higher_is_better = unknown`) leaves it unknown: no directional verdict until
   the user says; the metric's name only suggests the answer in the message;
4. for formats that have no way to declare it (the evaltui run format, Inspect scores, HELM,
   promptfoo), the metric's name: the usual lower-is-better names (loss, perplexity, error,
   mae, rmse, wer, cer, latency, cost...) and higher-is-better ones (acc, f1, exact_match,
   bleu...), said to be inferred from the name; any other name takes those formats'
   documented convention, higher is better, and says it was assumed.

A pass/fail verdict has no direction to get wrong: passing is better.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from evaltui.core.errors import UsageError

DIRECTIONS = ("higher", "lower")
DIRECTION_FLAG = "--direction"
PASSED = "passed"  # runs.PASSED, not imported: this module stays free of polars
UNKNOWN = "unknown"
# Names (or name parts, split on _ - . / @ and spaces) whose smaller value is the better one.
LOWER_IS_BETTER = frozenset(
    {
        "loss", "nll", "perplexity", "ppl", "error", "errors", "err", "mae", "mse", "rmse",
        "msle", "mape", "wer", "cer", "ter", "latency", "cost", "duration", "distance",
        "regret", "bpb", "bpc", "brier", "ece", "toxicity", "hallucination",
    }
)  # fmt: skip
# Names whose larger value is the better one (a name that matches both is left unknown).
HIGHER_IS_BETTER = frozenset(
    {
        "acc", "accuracy", "f1", "exact", "em", "bleu", "rouge", "rouge1", "rouge2", "rougel",
        "chrf", "meteor", "bertscore", "precision", "recall", "mcc", "pass", "match",
        "correct", "correctness", "reward", "win", "success", "helpfulness", "quality",
        "mrr", "ndcg", "auc", "auroc",
    }
)  # fmt: skip
_PARTS = re.compile(r"[_\-./@\s:]+")


@dataclass(frozen=True)
class Direction:
    """`higher` True (more is better), False (less is better) or None (unknown: no
    directional verdict); `source` says how it is known, in words a report prints."""

    higher: bool | None
    source: str
    inferred: bool = False  # from the metric's name

    @property
    def known(self) -> bool:
        return self.higher is not None

    @property
    def lower_is_better(self) -> bool:
        return self.higher is False

    @property
    def text(self) -> str:
        """ "lower is better (inferred from the metric name 'mae')"."""
        if self.higher is None:
            return f"direction unknown ({self.source})"
        return f"{'higher' if self.higher else 'lower'} is better ({self.source})"

    def to_dict(self) -> dict[str, object]:
        return {"higher_is_better": self.higher, "source": self.source, "inferred": self.inferred}


def check_direction(value: object) -> str | None:
    """`--direction` is higher, lower or not given; anything else is a UsageError."""
    if value is None:
        return None
    if isinstance(value, str) and value in DIRECTIONS:
        return value
    raise UsageError(f"{DIRECTION_FLAG} must be one of {', '.join(DIRECTIONS)}, got {value!r}")


def from_name(metric: str) -> bool | None:
    """True/False when the metric's name says which way is better, else None."""
    name = metric.removeprefix("score:").lower()
    parts = {p for p in _PARTS.split(name) if p} | {name}
    lower = bool(parts & LOWER_IS_BETTER)
    higher = bool(parts & HIGHER_IS_BETTER)
    if lower == higher:
        return None
    return higher


def metric_direction(
    metric: str,
    metadata: Sequence[Mapping[str, str]],
    given: str | None = None,
    policy: Sequence[tuple[str, str]] = (),
) -> Direction:
    """The direction of `metric` for runs with these metadata (see the module docstring);
    `given` is the spec's `--direction`, `policy` the release policy's `[metrics]`
    directions (metric name, higher|lower)."""
    if metric == PASSED or metric.startswith(PASSED + ":"):  # another scorer's verdicts too
        return Direction(True, "a pass is better than a fail")
    if given is not None:
        return Direction(given == "higher", f"{DIRECTION_FLAG} {given}")
    declared = [m.get("higher_is_better") for m in metadata]
    said = {d for d in declared if d in ("true", "false")}
    stated = policy_direction(metric, metadata, policy)
    if stated is not None:
        name, word = stated
        if said == {"false" if word == "higher" else "true"}:
            raise UsageError(
                f"the policy says {word} is better for {name}, but the runs declare the "
                f"opposite ({metadata[0].get('direction_source', 'their metadata')}); fix the "
                f"policy or say which way is better with {DIRECTION_FLAG} higher|lower"
            )
        return Direction(word == "higher", f'the policy: [metrics.{name}] direction = "{word}"')
    if len(said) == 2:
        sources = " vs ".join(m.get("direction_source", "a run's metadata") for m in metadata)
        raise UsageError(
            f"the runs declare opposite directions for {metric} ({sources}); say which way "
            f"is better with {DIRECTION_FLAG} higher|lower"
        )
    if said:
        source = next(
            (m.get("direction_source") for m in metadata if m.get("direction_source")),
            "the run's metadata",
        )
        return Direction(said == {"true"}, f"declared by {source}")
    short = _name(metric, metadata)
    by_name = from_name(short)
    if any(d == UNKNOWN for d in declared):
        # The log could have declared it (lm-eval's results file) and did not: ask, do not
        # guess; the name only suggests the answer.
        hint = (
            f"; its name suggests {'higher' if by_name else 'lower'} is better: confirm with "
            f"{DIRECTION_FLAG} {'higher' if by_name else 'lower'}"
            if by_name is not None
            else f"; give {DIRECTION_FLAG} higher or {DIRECTION_FLAG} lower"
        )
        return Direction(
            None,
            f"the log declares no direction for '{short}' (no results file beside it){hint}",
            inferred=by_name is not None,
        )
    if by_name is not None:
        return Direction(by_name, f"inferred from the metric name '{short}'", inferred=True)
    return Direction(True, "assumed: the format's scores are higher-is-better by convention")


def policy_direction(
    metric: str, metadata: Sequence[Mapping[str, str]], policy: Sequence[tuple[str, str]]
) -> tuple[str, str] | None:
    """The policy's (name, higher|lower) for `metric`: it names a metric as a reader knows it,
    the column (`score:mae`), the score's own name (`mae`) or a harness's single metric's."""
    names = {metric, metric.removeprefix("score:"), _name(metric, metadata)}
    return next(((name, word) for name, word in policy if name in names), None)


def _name(metric: str, metadata: Sequence[Mapping[str, str]]) -> str:
    """The metric's own name: a harness's single metric is the column `score`, and its name
    (lm-eval's `mae`, HELM's stat) is in the runs' metadata (`metric`)."""
    if metric == "score":
        named = {m.get("metric") for m in metadata} - {None, ""}
        if len(named) == 1:
            return str(named.pop())
    return metric.removeprefix("score:")
