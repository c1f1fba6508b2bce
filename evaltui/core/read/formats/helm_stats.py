"""HELM predictions' stats -> the statistics table: which metric, and each prediction's value.

A prediction carries its stats as a dict (`display_predictions.json`) or, in suites v3/v4, as
a list of `Stat`s in `per_instance_stats.json` (flattened here to the same dict). The metric is
`--metric`, else the first of PREFERRED_METRICS present; values 0/1 of a verdict metric become
`passed`, anything else a graded `score`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import polars as pl

from evaltui.core.read.formats.contract import LoadOptions
from evaltui.core.read.formats.fields import (
    Where,
    dotted,
    element,
    identifier,
    is_finite,
    metric_value,
    optional_str,
    require_dict,
    require_int,
)
from evaltui.core.read.formats.harness_sniffs import PER_INSTANCE_FILE as PER_INSTANCE_FILE
from evaltui.core.read.formats.harness_sniffs import PREDICTIONS_FILE as PREDICTIONS_FILE
from evaltui.core.read.runs import stats_table

MAX_METADATA_CHARS = 2000
PERTURBATION_SEPARATOR = "/"


# Preferred metrics, most common first (HELM's metric names).
PREFERRED_METRICS = (
    "exact_match",
    "quasi_exact_match",
    "prefix_exact_match",
    "quasi_prefix_exact_match",
    "exact_match_indicator",
    "math_equiv",
    "math_equiv_chain_of_thought",
    "f1_score",
    "rouge_l",
    "bleu_4",
)


VERDICT_METRICS = frozenset(
    {
        "exact_match",
        "quasi_exact_match",
        "prefix_exact_match",
        "quasi_prefix_exact_match",
        "exact_match_indicator",
        "math_equiv",
        "math_equiv_chain_of_thought",
        "exact_set_match",
        "chain_of_thought_correctness",
    }
)


# Stats HELM records about the request, not the answer: never a default metric.
BOOKKEEPING_STATS = frozenset(
    {
        "num_prompt_tokens",
        "num_output_tokens",
        "num_completion_tokens",
        "num_train_instances",
        "num_train_trials",
        "prompt_truncated",
        "max_prob",
        "predicted_index",
        "inference_runtime",
        "batch_size",
        "batch_request_time",
        "finish_reason_length",
        "finish_reason_stop",
        "finish_reason_endoftext",
        "finish_reason_unknown",
        "num_references",
        "num_bytes",
        "logprob",
        "num_perplexity_tokens",
        "training_co2_cost",
        "training_energy_cost",
        "inference_denoised_runtime",
        "inference_idealized_runtime",
    }
)


@dataclass(frozen=True)
class Prediction:
    index: int
    item_id: str
    instance_id: str
    perturbation: str | None
    trial: int
    value: float | bool
    compact: dict[str, Any]

    @property
    def record(self) -> str:
        return element("", self.index)


def stats_is_a_list(first: Any) -> bool:
    return isinstance(first, dict) and isinstance(first.get("stats"), list)


def has_metric(first: Any, options: LoadOptions) -> bool:
    """Whether a display prediction carries the metric asked for, or any correctness stat."""
    stats = first.get("stats") if isinstance(first, dict) else None
    if not isinstance(stats, dict):
        return False
    if options.metric is not None:
        return options.metric in stats
    return any(name not in BOOKKEEPING_STATS for name in stats)


def flat_stats(path: Path, raw: Any, index: int) -> Any:
    """A `PerInstanceStats` record with its `stats` list ([Stat {name: {name, split,
    perturbation?}, mean, sum, count...}]) as a name -> value map, like a display prediction's
    (a metric computed on several splits keeps its first)."""
    if not isinstance(raw, dict):
        return raw
    where = Where(path, record=element("", index))
    stats = raw.get("stats")
    if not isinstance(stats, list):
        raise where.expected("stats", "a list of Stat objects", stats)
    flat: dict[str, Any] = {}
    for j, entry in enumerate(stats):
        at = where.inside(element("stats", j))
        if not isinstance(entry, dict):
            raise at.expected(None, "a Stat object", entry)
        name = entry.get("name")
        label = name.get("name") if isinstance(name, dict) else None
        if not isinstance(label, str) or not label:
            raise at.expected("name", "a MetricName with a name", name)
        if label in flat:
            continue
        value = entry.get("mean")
        if value is None and is_finite(entry.get("sum")) and is_finite(entry.get("count")):
            value = entry["sum"] / entry["count"] if entry["count"] else None
        flat[label] = value
    return {**raw, "stats": flat}


def default_metric(path: Path, first: Any, stats_mode: bool = False) -> str:
    where = Where(path, record=element("", 0))
    stats = first.get("stats") if isinstance(first, dict) else None
    if not isinstance(stats, dict):
        raise where.expected("stats", "the prediction's stats (metric name -> value)", stats)
    for name in PREFERRED_METRICS:
        if name in stats:
            return name
    candidates = [name for name in stats if name not in BOOKKEEPING_STATS]
    if not candidates:
        listing = ", ".join(map(str, stats)) or "none"
        hint = (
            ""
            if stats_mode
            else f"; suites v3/v4 keep correctness in {PER_INSTANCE_FILE} beside this file, "
            "which is absent: open the run directory with it"
        )
        raise where.error(
            "stats",
            f"no metric to read in the first prediction's stats (it has: {listing}); expected "
            + ", ".join(PREFERRED_METRICS[:3])
            + f" or a metric named with --metric{hint}",
        )
    return candidates[0]


def read_prediction(
    path: Path, raw: Any, index: int, metric: str, stats_mode: bool = False
) -> Prediction:
    record = element("", index)
    where = Where(path, record=record)
    if not isinstance(raw, dict):
        what = "a per-instance stats object" if stats_mode else "a prediction object"
        raise where.expected(None, what, raw)
    instance = identifier(raw, "instance_id", where, "the instance id as a non-empty string")
    trial = require_int(raw, "train_trial_index", where, "an integer >= 0", minimum=0, default=0)
    perturbation = _perturbation_name(raw.get("perturbation"), where)
    optional_str(raw, "predicted_text", where)
    stats = require_dict(raw, "stats", where, "the stats (metric name -> value)")
    if metric not in stats:
        listing = ", ".join(map(str, stats)) or "none"
        raise where.error(
            dotted("stats", metric),
            f"no value for metric '{metric}'; this prediction has: {listing} "
            "(choose one with --metric)",
        )
    value = metric_value(stats[metric], metric, where.inside("stats"), metric)
    item_id = instance if perturbation is None else instance + PERTURBATION_SEPARATOR + perturbation
    compact = {
        key: raw[key]
        for key in (
            "instance_id",
            "perturbation",
            "train_trial_index",
            "predicted_text",
            "truncated_predicted_text",
            "mapped_output",
            "reference_index",
            "stats",
        )
        if key in raw
    }
    return Prediction(index, item_id, instance, perturbation, trial, value, compact)


def _perturbation_name(perturbation: Any, where: Where) -> str | None:
    if perturbation is None:
        return None
    if not isinstance(perturbation, dict) or not isinstance(perturbation.get("name"), str):
        raise where.expected("perturbation", "a perturbation description with a name", perturbation)
    name = perturbation["name"].strip()
    if not name:
        raise where.error("perturbation.name", "the perturbation has an empty name")
    return name


def prediction_table(path: Path, rows: Sequence[Prediction], metric: str) -> pl.DataFrame:
    numbers = [float(r.value) for r in rows]
    all_bool = all(isinstance(r.value, bool) for r in rows)
    verdicts = all_bool or (metric in VERDICT_METRICS and all(n in (0.0, 1.0) for n in numbers))
    return stats_table(
        [r.item_id for r in rows],
        [r.trial + 1 for r in rows],
        ["ok"] * len(rows),
        passed=[n == 1.0 for n in numbers] if verdicts else None,
        score=None if verdicts else numbers,
    )
