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
from dataclasses import replace
from pathlib import Path
from typing import Any

from evaltui.core.errors import InputError
from evaltui.core.read.formats.contract import (
    LoadOptions,
    NoOptions,
    Recognised,
    check_row,
    check_text_field,
)
from evaltui.core.read.formats.harness_sniffs import helm as light_sniff
from evaltui.core.read.formats.helm_options import NAME
from evaltui.core.read.formats.helm_options import Options as Options
from evaltui.core.read.formats.helm_stats import (
    MAX_METADATA_CHARS,
    PER_INSTANCE_FILE,
    PREDICTIONS_FILE,
    Prediction,
    default_metric,
    flat_stats,
    has_metric,
    prediction_table,
    read_prediction,
    stats_is_a_list,
)
from evaltui.core.read.formats.helm_transcript import prediction_transcript, side_key, side_list
from evaltui.core.read.formats.jsontext import (
    describe,
    loads,
    read_json_file,
)
from evaltui.core.read.run_entry import RunEntry
from evaltui.core.read.runs import Run, RunSource, Transcript

HARNESS = "helm"
REQUESTS_FILE = "display_requests.json"
INSTANCES_FILE = "instances.json"
RUN_SPEC_FILE = "run_spec.json"
MAX_RUN_SPEC_BYTES = 16 << 20
# What a transcript takes from display_predictions.json when the stats came from elsewhere.
TRANSCRIPT_PREDICTION_KEYS = (
    "predicted_text",
    "truncated_predicted_text",
    "mapped_output",
    "reference_index",
)


def sniff(path: Path, head: bytes) -> bool:
    """Whether the file is this format's (`harness_sniffs.helm`: detection asks it there,
    without importing this reader)."""
    return light_sniff(path, head)


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
    stats_mode = path.name == PER_INSTANCE_FILE or stats_is_a_list(predictions[0])
    if not stats_mode and per_instance is not None and not has_metric(predictions[0], options):
        # Suites v3/v4 keep correctness out of display_predictions.json: read it beside.
        path, stats_mode = per_instance, True
        source = RunSource.of(path, NAME)
        predictions = read_json_file(path)
        if not isinstance(predictions, list) or not predictions:
            raise InputError(path, "expected a non-empty list of per-instance stats")
    first = flat_stats(path, predictions[0], 0) if stats_mode else predictions[0]
    metric = options.metric or default_metric(path, first, stats_mode)
    rows: list[Prediction] = []
    first_seen: dict[tuple[str, int], str] = {}
    for i, raw in enumerate(predictions):
        if stats_mode:
            raw = flat_stats(path, raw, i)
        prediction = read_prediction(path, raw, i, metric, stats_mode)
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
    table = prediction_table(path, rows, metric)
    metadata = _metadata(path, metric, first, rows)
    metadata["metrics_from"] = path.name
    return Run(
        source=source,
        table=table,
        transcripts=HelmTranscripts(path, rows, metric),
        metadata=metadata,
    )


def _metadata(
    path: Path, metric: str, first: Mapping[str, Any], rows: Sequence[Prediction]
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

    def __init__(self, path: Path, rows: Sequence[Prediction], metric: str) -> None:
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
        return prediction_transcript(prediction, request, instance)

    def _predictions(self) -> dict[tuple[str, str | None, int], Any]:
        with self._lock:
            if self._shown is None:
                self._shown = {}
                for entry in side_list(self._path.parent / PREDICTIONS_FILE):
                    key = side_key(entry)
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
                for entry in side_list(self._path.parent / REQUESTS_FILE):
                    key = side_key(entry)
                    if key is not None:
                        trial = entry.get("train_trial_index", 0)
                        if isinstance(trial, int) and not isinstance(trial, bool):
                            self._requests.setdefault((*key, trial), entry.get("request"))
            if self._instances is None:
                self._instances = {}
                for entry in side_list(self._path.parent / INSTANCES_FILE):
                    if isinstance(entry, dict) and "id" in entry:
                        perturbation = entry.get("perturbation")
                        name = perturbation.get("name") if isinstance(perturbation, dict) else None
                        self._instances.setdefault((str(entry["id"]), name), entry)
            return self._requests, self._instances


def recognise(path: Path) -> Recognised | None:
    return "run" if path.is_dir() and is_run_directory(path) else None


def describe_run(entry: RunEntry) -> RunEntry:
    """From `run_spec.json` (the scenario and its arguments, the model) and a count of the
    instances in the stats file, never the predictions."""
    from evaltui.core.read.run_entry import mtime, small_json

    directory = entry.path
    task, model = directory.name, "?"
    spec = small_json(directory / RUN_SPEC_FILE)
    if isinstance(spec, dict):
        scenario = spec.get("scenario_spec")
        if isinstance(scenario, dict) and isinstance(scenario.get("class_name"), str):
            task = scenario["class_name"].rsplit(".", 1)[-1]
            args = scenario.get("args")
            if isinstance(args, dict) and args:
                task += ":" + ",".join(f"{k}={v}" for k, v in sorted(args.items()))
        adapter = spec.get("adapter_spec")
        if isinstance(adapter, dict) and isinstance(adapter.get("model"), str):
            model = adapter["model"]
    stats, _ = run_files(directory)
    items = stats.read_bytes().count(b'"instance_id"') or None
    return replace(
        entry,
        format=NAME,
        task=task,
        model=model,
        date=mtime(stats),
        items=items,
        scorer=stats.name,
        status="complete",
    )
