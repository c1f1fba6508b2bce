"""HELM run directories: `display_predictions.json` (+ `display_requests.json` beside it).

`helm-summarize` writes, per run (`benchmark_output/runs/<suite>/<run name>/`), the files its web
frontend reads: `display_predictions.json`, a list of `DisplayPrediction` {instance_id,
perturbation?, train_trial_index, predicted_text, truncated_predicted_text?, mapped_output?,
reference_index?, stats: {metric name: value}, annotations?}; `display_requests.json`, a list
of `DisplayRequest` {instance_id, perturbation?, train_trial_index, request: {prompt,
messages?, model, ...}} in the same order; and `instances.json` (the `Instance`s: input,
references with their tags, split, id). `(instance_id, perturbation, train_trial_index)` is
the unique key. `run_spec.json` in the same folder names the run and its model.

A record is one prediction. Item id: the `instance_id`, plus `/<perturbation name>` for a
perturbed copy (so the copies do not collide with the original). Epoch: `train_trial_index + 1`.
The metric is `--metric`, else the first of PREFERRED_METRICS in the first prediction's stats;
values 0/1 of a verdict metric (exact_match...) become `passed`, anything else a graded
`score`. The predictions file is parsed once; requests and instances (the prompt and the
reference) are read the first time a transcript is opened.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import polars as pl

from evaltui.core.errors import InputError
from evaltui.core.read.formats.contract import LoadOptions, NoOptions, check_row, check_text_field
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
from evaltui.core.read.formats.jsontext import (
    UTF8_BOM,
    as_text,
    describe,
    loads,
    object_keys,
    read_json_file,
    shorten,
)
from evaltui.core.read.formats.native import content_text
from evaltui.core.read.runs import (
    Message,
    Run,
    RunSource,
    Transcript,
    stats_table,
)

NAME = "helm"
Options = NoOptions  # no options of its own: only the common --metric
HARNESS = "helm"
PREDICTIONS_FILE = "display_predictions.json"
PER_INSTANCE_FILE = "per_instance_stats.json"
REQUESTS_FILE = "display_requests.json"
INSTANCES_FILE = "instances.json"
RUN_SPEC_FILE = "run_spec.json"
MAX_SIDE_FILE_BYTES = 1 << 30  # requests/instances files larger than this are not read
MAX_RUN_SPEC_BYTES = 16 << 20
MAX_METADATA_CHARS = 2000
PERTURBATION_SEPARATOR = "/"
# What a transcript takes from display_predictions.json when the stats came from elsewhere.
TRANSCRIPT_PREDICTION_KEYS = (
    "predicted_text",
    "truncated_predicted_text",
    "mapped_output",
    "reference_index",
)
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


def sniff(path: Path, head: bytes) -> bool:
    """A JSON list whose first object has `instance_id` and `predicted_text` (display
    predictions) or `instance_id` and a `stats` list (per-instance stats)."""
    return _kind(head) is not None


def _kind(head: bytes) -> str | None:
    text = head.removeprefix(UTF8_BOM).lstrip()
    if not text.startswith(b"["):
        return None
    keys: set[str] = set()
    stats_list = False
    for where, key in object_keys(text):
        if where == (0,):
            keys.add(key)
        elif where[:2] == (0, "stats") and len(where) == 3 and isinstance(where[2], int):
            stats_list = True  # stats is a list of Stat objects, not a name -> value map
    if "instance_id" not in keys:
        return None
    if "predicted_text" in keys:
        return PREDICTIONS_FILE
    if "stats" in keys and stats_list and "request" not in keys:
        return PER_INSTANCE_FILE
    return None


def run_files(path: Path) -> tuple[Path, Path | None]:
    """The file a HELM run is read from and its per-instance stats (None when absent): a run
    directory gives its `per_instance_stats.json` (the correctness stats of every suite) or
    else its `display_predictions.json`; a file gives itself."""
    if path.is_dir():
        stats = path / PER_INSTANCE_FILE
        if stats.is_file():
            return stats, stats
        predictions = path / PREDICTIONS_FILE
        if predictions.is_file():
            return predictions, None
        raise InputError(
            path,
            f"is a directory without {PER_INSTANCE_FILE} or {PREDICTIONS_FILE}; expected an "
            "eval run file, a HELM run directory or a log directory",
        )
    beside = path.parent / PER_INSTANCE_FILE
    return path, (beside if beside.is_file() else None)


def is_run_directory(path: Path) -> bool:
    return path.is_dir() and any(
        (path / name).is_file() for name in (PER_INSTANCE_FILE, PREDICTIONS_FILE)
    )


@dataclass(frozen=True)
class _Prediction:
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


def load(path: Path, options: LoadOptions, own: NoOptions) -> Run:
    path, per_instance = run_files(path)
    source = RunSource.of(path, NAME)
    predictions = read_json_file(path)
    if not isinstance(predictions, list):
        raise InputError(
            path, f"expected a list of predictions, got {describe(predictions)}", record="(top)"
        )
    if not predictions:
        raise InputError(path, "holds no predictions; expected one per instance and trial")
    stats_mode = path.name == PER_INSTANCE_FILE or _stats_is_a_list(predictions[0])
    if not stats_mode and per_instance is not None and not _has_metric(predictions[0], options):
        # Suites v3/v4 keep correctness out of display_predictions.json: read it beside.
        path, stats_mode = per_instance, True
        source = RunSource.of(path, NAME)
        predictions = read_json_file(path)
        if not isinstance(predictions, list) or not predictions:
            raise InputError(path, "expected a non-empty list of per-instance stats")
    first = _flat_stats(path, predictions[0], 0) if stats_mode else predictions[0]
    metric = options.metric or _default_metric(path, first, stats_mode)
    rows: list[_Prediction] = []
    first_seen: dict[tuple[str, int], str] = {}
    for i, raw in enumerate(predictions):
        if stats_mode:
            raw = _flat_stats(path, raw, i)
        prediction = _prediction(path, raw, i, metric, stats_mode)
        key = (prediction.item_id, prediction.trial)
        if key in first_seen:
            raise InputError(
                path,
                f"instance {prediction.item_id!r} train_trial_index {prediction.trial} appears "
                f"twice (first at {first_seen[key]}); expected one prediction per instance, "
                "perturbation and trial",
                record=prediction.record,
                field="instance_id",
            )
        first_seen[key] = prediction.record
        rows.append(prediction)
    table = _table(path, rows, metric)
    metadata = _metadata(path, metric, first, rows)
    metadata["metrics_from"] = path.name
    return Run(
        source=source,
        table=table,
        transcripts=HelmTranscripts(path, rows, metric),
        metadata=metadata,
    )


def _stats_is_a_list(first: Any) -> bool:
    return isinstance(first, dict) and isinstance(first.get("stats"), list)


def _has_metric(first: Any, options: LoadOptions) -> bool:
    """Whether a display prediction carries the metric asked for, or any correctness stat."""
    stats = first.get("stats") if isinstance(first, dict) else None
    if not isinstance(stats, dict):
        return False
    if options.metric is not None:
        return options.metric in stats
    return any(name not in BOOKKEEPING_STATS for name in stats)


def _flat_stats(path: Path, raw: Any, index: int) -> Any:
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


def _default_metric(path: Path, first: Any, stats_mode: bool = False) -> str:
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


def _prediction(
    path: Path, raw: Any, index: int, metric: str, stats_mode: bool = False
) -> _Prediction:
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
    return _Prediction(index, item_id, instance, perturbation, trial, value, compact)


def _perturbation_name(perturbation: Any, where: Where) -> str | None:
    if perturbation is None:
        return None
    if not isinstance(perturbation, dict) or not isinstance(perturbation.get("name"), str):
        raise where.expected("perturbation", "a perturbation description with a name", perturbation)
    name = perturbation["name"].strip()
    if not name:
        raise where.error("perturbation.name", "the perturbation has an empty name")
    return name


def _table(path: Path, rows: Sequence[_Prediction], metric: str) -> pl.DataFrame:
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


def _metadata(
    path: Path, metric: str, first: Mapping[str, Any], rows: Sequence[_Prediction]
) -> dict[str, str]:
    meta: dict[str, str] = {"harness": HARNESS, "metric": metric, "scorer": metric}
    stats = first.get("stats")
    if isinstance(stats, dict):
        meta["stats"] = ", ".join(map(str, stats))
    meta["run"] = path.parent.name
    meta["predictions"] = str(len(rows))
    meta["instances"] = str(len({r.instance_id for r in rows}))
    perturbations = sorted({r.perturbation for r in rows if r.perturbation is not None})
    if perturbations:
        meta["perturbations"] = ", ".join(perturbations)
    meta["train_trials"] = str(len({r.trial for r in rows}))
    meta.update(_run_spec_metadata(path.parent / RUN_SPEC_FILE))
    for name in (REQUESTS_FILE, INSTANCES_FILE):
        meta[name] = "present" if (path.parent / name).is_file() else "absent (no prompt shown)"
    return meta


def _run_spec_metadata(spec_path: Path) -> dict[str, str]:
    """Run name, model and scenario from `run_spec.json` beside the predictions, if any."""
    try:
        if not spec_path.is_file() or spec_path.stat().st_size > MAX_RUN_SPEC_BYTES:
            return {}
        spec = loads(spec_path.read_bytes())
    except (OSError, ValueError, RecursionError):
        return {"run_spec": f"{spec_path.name} (unreadable, ignored)"}
    if not isinstance(spec, dict):
        return {}
    meta: dict[str, str] = {"run_spec": spec_path.name}
    if isinstance(spec.get("name"), str):
        meta["run"] = spec["name"]
    adapter = spec.get("adapter_spec")
    if isinstance(adapter, dict):
        for key in ("model", "model_deployment", "method", "max_train_instances"):
            value = adapter.get(key)
            if isinstance(value, str | int) and not isinstance(value, bool) and value != "":
                meta[key if key != "method" else "adapter_method"] = str(value)
    scenario = spec.get("scenario_spec")
    if isinstance(scenario, dict) and isinstance(scenario.get("class_name"), str):
        meta["scenario"] = scenario["class_name"]
        meta["task"] = scenario["class_name"].rsplit(".", 1)[-1]
        args = scenario.get("args")
        if isinstance(args, dict) and args:
            meta["scenario_args"] = json.dumps(args, sort_keys=True)[:MAX_METADATA_CHARS]
    groups = spec.get("groups")
    if isinstance(groups, list) and groups:
        meta["groups"] = ", ".join(map(str, groups))
    return meta


# ---------------------------------------------------------------------------------------------
# Transcripts


class HelmTranscripts:
    """Predictions are in memory; requests and instances are read on the first transcript."""

    def __init__(self, path: Path, rows: Sequence[_Prediction], metric: str) -> None:
        self._path = path
        self._rows = list(rows)
        self._metric = metric
        self._lock = threading.Lock()
        self._requests: dict[tuple[str, str | None, int], Any] | None = None
        self._instances: dict[tuple[str, str | None], Any] | None = None
        self._shown: dict[tuple[str, str | None, int], Any] | None = None

    def read(self, row: int) -> Transcript:
        check_row(row, len(self._rows))
        prediction = self._rows[row]
        requests, instances = self._side_files()
        key = (prediction.instance_id, prediction.perturbation, prediction.trial)
        request = requests.get(key)
        instance = instances.get((prediction.instance_id, prediction.perturbation))
        if instance is None:  # perturbed copies may be listed under the original only
            instance = instances.get((prediction.instance_id, None))
        if self._path.name == PER_INSTANCE_FILE:  # the model's output is in the predictions
            shown = self._predictions().get(key)
            if isinstance(shown, dict):
                extra = {k: shown[k] for k in TRANSCRIPT_PREDICTION_KEYS if k in shown}
                prediction = replace(prediction, compact={**prediction.compact, **extra})
        return _transcript(prediction, request, instance)

    def _predictions(self) -> dict[tuple[str, str | None, int], Any]:
        with self._lock:
            if self._shown is None:
                self._shown = {}
                for entry in _side_list(self._path.parent / PREDICTIONS_FILE):
                    key = _side_key(entry)
                    if key is None:
                        continue
                    trial = entry.get("train_trial_index", 0)
                    if isinstance(trial, int) and not isinstance(trial, bool):
                        self._shown.setdefault((*key, trial), entry)
            return self._shown

    def read_field(self, rows: Sequence[int], name: str) -> list[str | None]:
        check_text_field(name)
        return [getattr(self.read(row), name) for row in rows]

    def _side_files(self) -> tuple[dict, dict]:
        with self._lock:
            if self._requests is None:
                self._requests = {}
                for entry in _side_list(self._path.parent / REQUESTS_FILE):
                    key = _side_key(entry)
                    if key is not None:
                        trial = entry.get("train_trial_index", 0)
                        if isinstance(trial, int) and not isinstance(trial, bool):
                            self._requests.setdefault((*key, trial), entry.get("request"))
            if self._instances is None:
                self._instances = {}
                for entry in _side_list(self._path.parent / INSTANCES_FILE):
                    if isinstance(entry, dict) and "id" in entry:
                        perturbation = entry.get("perturbation")
                        name = perturbation.get("name") if isinstance(perturbation, dict) else None
                        self._instances.setdefault((str(entry["id"]), name), entry)
            return self._requests, self._instances


def _side_list(side_path: Path) -> list[Any]:
    """A side file's list; a missing file is no text, a broken one is an error naming it."""
    if not side_path.is_file():
        return []
    if side_path.stat().st_size > MAX_SIDE_FILE_BYTES:
        raise InputError(
            side_path, f"is larger than {MAX_SIDE_FILE_BYTES} bytes; not read for transcripts"
        )
    data = read_json_file(side_path)
    if not isinstance(data, list):
        raise InputError(side_path, f"expected a list, got {describe(data)}", record="(top)")
    return data


def _side_key(entry: Any) -> tuple[str, str | None] | None:
    if not isinstance(entry, dict) or entry.get("instance_id") is None:
        return None
    perturbation = entry.get("perturbation")
    name = perturbation.get("name") if isinstance(perturbation, dict) else None
    return str(entry["instance_id"]), name


def _transcript(prediction: _Prediction, request: Any, instance: Any) -> Transcript:
    raw = prediction.compact
    metadata: dict[str, str] = {
        "record": prediction.record,
        "instance_id": prediction.instance_id,
        "train_trial_index": str(prediction.trial),
    }
    if prediction.perturbation:
        metadata["perturbation"] = _short(raw.get("perturbation"))
    for key in ("mapped_output", "truncated_predicted_text", "reference_index"):
        if raw.get(key) is not None:
            metadata[key] = _short(raw[key])
    stats = raw.get("stats")
    if isinstance(stats, dict):
        for name, value in stats.items():
            metadata[dotted("stat", name)] = _short(value)
    prompt: str | None = None
    messages: tuple[Message, ...] = ()
    if isinstance(request, dict):
        if isinstance(request.get("prompt"), str):
            prompt = request["prompt"]
        chat = request.get("messages")
        if isinstance(chat, list):
            messages = tuple(
                Message(role=as_text(m.get("role", "?")), content=content_text(m.get("content")))
                for m in chat
                if isinstance(m, dict)
            )
            if not prompt and messages:
                users = [m for m in messages if m.role == "user"] or list(messages)
                prompt = users[-1].content
        for key in ("model", "model_deployment", "temperature", "max_tokens"):
            if request.get(key) is not None:
                metadata[dotted("request", key)] = _short(request[key])
    target = None
    if isinstance(instance, dict):
        target = _references(instance.get("references"))
        if prompt is None:
            instance_input = instance.get("input")
            if isinstance(instance_input, dict) and isinstance(instance_input.get("text"), str):
                prompt = instance_input["text"]
        if isinstance(instance.get("split"), str):
            metadata["split"] = instance["split"]
    output = raw.get("predicted_text")
    return Transcript(
        input=prompt,
        output=output if isinstance(output, str) else None,
        target=target,
        explanation=None,
        messages=messages,
        metadata=metadata,
    )


def _references(references: Any) -> str | None:
    """The correct references' texts (tag "correct"), one per line."""
    if not isinstance(references, list):
        return None
    texts = []
    for reference in references:
        if not isinstance(reference, dict):
            continue
        tags = reference.get("tags")
        output = reference.get("output")
        text = output.get("text") if isinstance(output, dict) else output
        if isinstance(tags, list) and "correct" in tags and isinstance(text, str):
            texts.append(text)
    return "\n".join(texts) if texts else None


def _short(value: Any) -> str:
    return shorten(as_text(value), MAX_METADATA_CHARS)
