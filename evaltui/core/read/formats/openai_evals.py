"""OpenAI evals (`oaieval`) record files: the JSON Lines its `LocalRecorder` writes.

Line 1 is `{"spec": RunSpec}` (completion_fns, eval_name, base_eval, split, run_config,
created_by, run_id, created_at); then one line per event, `{run_id, event_id, sample_id, type,
data, created_by, created_at}`, flushed in batches as threads finish (so samples interleave);
`{"final_report": {...}}` is appended when the run ends (events still unflushed then may follow
it). Event types: `match` (data: correct, expected, picked, ...), `sampling` (prompt, sampled),
`metrics`, `error` (type, message), `raw_sample`, `extra`, ...

A run's items are its sample ids. Each `match` event gives a verdict (`data.correct`, true or
false and nothing else); several for one sample are its epochs, numbered in event order. A sample
with an `error` event, or with no `match` at all, is one errored record (status "error", a
failure). `--metric NAME` reads `data.NAME` of the `match`/`metrics` events instead (true/false
-> verdicts, numbers -> a graded score), for evals that record no `match` (model-graded ones).

Every line is parsed once for the statistics; drill-down re-reads a record's events by offset.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import polars as pl

from evaltui.core.errors import InputError
from evaltui.core.read.formats.contract import (
    LoadOptions,
    NoOptions,
    check_row,
    check_text_field,
    ensure_same_file,
)
from evaltui.core.read.formats.fields import (
    Where,
    dotted,
    identifier,
    is_finite,
    require_bool,
    require_dict,
    require_str,
)
from evaltui.core.read.formats.harness_sniffs import openai_evals as light_sniff
from evaltui.core.read.formats.jsontext import (
    as_text,
    numbered_lines,
    object_at,
    parse_json_object_line,
    shorten,
)
from evaltui.core.read.formats.native import content_text, fingerprint
from evaltui.core.read.formats.openai_evals_options import NAME
from evaltui.core.read.formats.openai_evals_options import Options as Options
from evaltui.core.read.runs import (
    Message,
    Run,
    RunSource,
    Transcript,
    stats_table,
)

HARNESS = "openai_evals"
MATCH = "match"
SAMPLING = "sampling"
ERROR = "error"
METRICS = "metrics"
MAX_METADATA_CHARS = 2000


def sniff(path: Path, head: bytes) -> bool:
    """Whether the file is this format's (`harness_sniffs.openai_evals`: detection asks it there,
    without importing this reader)."""
    return light_sniff(path, head)


@dataclass(frozen=True)
class _Event:
    # (event_id, line): the recorder's order, whatever the flushes did; an event without an id
    # (event_id inf) sorts after those with one
    order: tuple[int | float, int]
    line: int
    offset: int
    sample_id: str
    type: str
    is_result: bool = False  # a verdict or a --metric value: one record of the table
    value: Any = None  # the verdict (`correct`) or the --metric value


@dataclass
class _Sample:
    sample_id: str
    events: list[_Event] = field(default_factory=list)


@dataclass(frozen=True)
class _Row:
    sample_id: str
    epoch: int
    status: str
    value: Any  # bool, number, or None for an errored record
    refs: tuple[tuple[int, int], ...]  # (offset, line) of the events its transcript shows


def load(path: Path, options: LoadOptions, own: NoOptions) -> Run:
    source = RunSource.of(path, NAME)
    stamp = fingerprint(path)
    metric = options.metric
    spec: dict[str, Any] | None = None
    spec_line = 0
    final_report: Any = None
    run_id: tuple[str, int] | None = None  # (run id, line it was first seen on)
    samples: dict[str, _Sample] = {}
    type_counts: dict[str, int] = {}
    metric_keys: dict[str, None] = {}  # keys seen in match/metrics data, for messages
    with path.open("rb") as handle:
        for number, start, raw in numbered_lines(handle):
            record = parse_json_object_line(path, raw, number)
            where = Where(path, line=number)
            if "spec" in record:
                if spec is not None:
                    raise where.error(
                        "spec",
                        f"a second spec line (the first is line {spec_line}); expected one "
                        "oaieval run per file",
                    )
                spec, spec_line = require_dict(record, "spec", where, "the run spec object"), number
                run_id = _check_run_id(spec, run_id, where.inside("spec"))
                continue
            if "final_report" in record and "type" not in record:
                final_report = record["final_report"]
                continue
            event = _event(record, where, start, metric)
            if "run_id" in record:
                run_id = _check_run_id(record, run_id, where)
            kind = str(record.get("type"))
            type_counts[kind] = type_counts.get(kind, 0) + 1
            if event is None:
                continue
            if event.type in (MATCH, METRICS) and isinstance(record.get("data"), dict):
                metric_keys.update(dict.fromkeys(map(str, record["data"])))
            samples.setdefault(event.sample_id, _Sample(event.sample_id)).events.append(event)
    if not samples:
        raise InputError(
            path,
            "holds no sample events; expected oaieval's record file (a spec line, then one "
            "event per line with a sample_id)",
        )
    _check_has_results(path, samples, type_counts, metric, list(metric_keys))
    rows = _rows(samples)
    table = _table(path, rows, metric)
    metadata = _metadata(spec, final_report, type_counts, metric, rows, run_id)
    return Run(
        source=source,
        table=table,
        transcripts=OpenAIEvalsTranscripts(path, [r.refs for r in rows], stamp),
        metadata=metadata,
    )


def _check_run_id(
    record: Mapping[str, Any], seen: tuple[str, int] | None, where: Where
) -> tuple[str, int] | None:
    """The run id of a spec or event (if it has one) must be the file's one run id."""
    if record.get("run_id") is None:
        return seen
    value = require_str(record, "run_id", where, "the run id as a string", nonempty=True)
    if seen is not None and seen[0] != value:
        raise where.error(
            "run_id",
            f"run_id {value!r} differs from {seen[0]!r} (line {seen[1]}); expected the events "
            "of one oaieval run per file",
        )
    assert where.line is not None
    return seen or (value, where.line)


def _event(record: dict[str, Any], where: Where, offset: int, metric: str | None) -> _Event | None:
    """The event on this line, or None for an event no sample owns (nothing to show)."""
    kind = require_str(
        record, "type", where, "the event type as a string (match, sampling, ...)", nonempty=True
    )
    if record.get("sample_id") is None:
        if kind == MATCH:
            raise where.error("sample_id", "a match event without a sample_id")
        return None
    sample_id = identifier(record, "sample_id", where, "the sample id as a string")
    event_id = record.get("event_id")
    order: int | float = math.inf  # no id: after the events with one
    if isinstance(event_id, int) and not isinstance(event_id, bool):
        order = event_id  # an int, not a float: exact however large
    data = record.get("data")
    in_data = where.inside("data")
    value: Any = None
    is_result = False
    if metric is None and kind == MATCH:
        if not isinstance(data, dict):
            raise in_data.expected("correct", "true or false", data)
        value, is_result = require_bool(data, "correct", in_data), True
    elif (
        metric is not None
        and kind in (MATCH, METRICS)
        and isinstance(data, dict)
        and metric in data
    ):
        value, is_result = data[metric], True
        if not isinstance(value, bool) and not is_finite(value):
            raise in_data.expected(metric, "true/false or a finite number", value)
    number = where.line
    assert number is not None
    return _Event((order, number), number, offset, sample_id, kind, is_result, value)


def _check_has_results(
    path: Path,
    samples: Mapping[str, _Sample],
    type_counts: Mapping[str, int],
    metric: str | None,
    keys: Sequence[str],
) -> None:
    if any(e.is_result for s in samples.values() for e in s.events):
        return
    found = ", ".join(f"{kind} ({count})" for kind, count in type_counts.items()) or "none"
    known = ", ".join(keys[:20]) or "none"
    if metric is None:
        raise InputError(
            path,
            f"no 'match' events, so no verdicts; events found: {found}. If this eval records "
            f"its results as metrics, choose one with --metric (keys seen: {known})",
            field="type",
        )
    raise InputError(
        path,
        f"no match or metrics event records '{metric}'; keys seen in those events: {known} "
        "(choose one with --metric)",
        field=f"data.{metric}",
    )


def _rows(samples: Mapping[str, _Sample]) -> list[_Row]:
    """One row per verdict, in the order the samples were first recorded."""
    ordered = sorted(samples.values(), key=lambda s: min(e.order for e in s.events))
    rows: list[_Row] = []
    for sample in ordered:
        events = sorted(sample.events, key=lambda e: e.order)
        results = [e for e in events if e.is_result]
        samplings = [e for e in events if e.type == SAMPLING]
        errors = [e for e in events if e.type == ERROR]
        others = [e for e in events if not e.is_result and e.type not in (SAMPLING, ERROR)]
        extra = tuple((e.offset, e.line) for e in errors + others)
        if not results:
            refs = tuple((e.offset, e.line) for e in samplings) + extra
            rows.append(_Row(sample.sample_id, 1, "error", None, refs))
            continue
        status = "error" if errors else "ok"
        for k, result in enumerate(results):
            if samplings:
                sampling = samplings[k] if len(samplings) == len(results) else samplings[-1]
                refs = ((sampling.offset, sampling.line), (result.offset, result.line))
            else:
                refs = ((result.offset, result.line),)
            rows.append(
                _Row(
                    sample.sample_id,
                    k + 1,
                    status,
                    None if status == "error" else result.value,
                    refs + extra,
                )
            )
    return rows


def _table(path: Path, rows: Sequence[_Row], metric: str | None) -> pl.DataFrame:
    values = [r.value for r in rows if r.status == "ok"]
    verdicts = all(isinstance(v, bool) for v in values)
    ok = [r.status == "ok" for r in rows]
    return stats_table(
        [r.sample_id for r in rows],
        [r.epoch for r in rows],
        [r.status for r in rows],
        passed=[bool(r.value) and fine for r, fine in zip(rows, ok, strict=True)]
        if verdicts
        else None,
        score=None
        if verdicts
        else [float(r.value) if fine else None for r, fine in zip(rows, ok, strict=True)],
    )


def _metadata(
    spec: Mapping[str, Any] | None,
    final_report: Any,
    type_counts: Mapping[str, int],
    metric: str | None,
    rows: Sequence[_Row],
    run_id: tuple[str, int] | None,
) -> dict[str, str]:
    meta: dict[str, str] = {"harness": HARNESS}
    spec = spec or {}
    for key in ("eval_name", "base_eval", "split", "created_by", "created_at"):
        if _scalar(spec.get(key)):
            meta[key] = str(spec[key])
    if run_id is not None:
        meta["run_id"] = run_id[0]
    fns = spec.get("completion_fns")
    if isinstance(fns, list) and fns:
        meta["completion_fns"] = ", ".join(map(str, fns))
        meta["model"] = meta["completion_fns"]
    elif _scalar(spec.get("model_name")):  # the first recorder versions
        meta["model"] = str(spec["model_name"])
    if "eval_name" in meta:
        meta["task"] = meta["eval_name"]
    config = spec.get("run_config")
    if isinstance(config, dict):
        eval_spec = config.get("eval_spec")
        if isinstance(eval_spec, dict) and _scalar(eval_spec.get("cls")):
            meta["eval_class"] = str(eval_spec["cls"])
        if _scalar(config.get("seed")):
            meta["seed"] = str(config["seed"])
    if isinstance(final_report, dict):
        for key, value in final_report.items():
            if _scalar(value):
                meta[dotted("final_report", key)] = str(value)
    meta["metric"] = metric or "match.correct"
    meta["events"] = ", ".join(f"{kind} ({count})" for kind, count in type_counts.items())
    meta["samples"] = str(len({r.sample_id for r in rows}))
    meta["sample_errors"] = str(len({r.sample_id for r in rows if r.status == "error"}))
    return meta


def _scalar(value: Any) -> bool:
    return isinstance(value, str | int | float) and not isinstance(value, bool) and value != ""


# ---------------------------------------------------------------------------------------------
# Transcripts


class OpenAIEvalsTranscripts:
    """Seeks to a record's event lines and renders them; the file is opened per read."""

    def __init__(
        self, path: Path, refs: Sequence[tuple[tuple[int, int], ...]], stamp: tuple[int, int]
    ) -> None:
        self._path = path
        self._refs = list(refs)
        self._stamp = stamp
        self._lock = threading.Lock()

    def read(self, row: int) -> Transcript:
        check_row(row, len(self._refs))
        refs = self._refs[row]
        events: list[tuple[int, dict[str, Any]]] = []
        with self._lock:
            ensure_same_file(self._path, self._stamp, line=refs[0][1] if refs else None)
            try:
                with self._path.open("rb") as handle:
                    for offset, number in refs:
                        handle.seek(offset)
                        events.append(
                            (number, parse_json_object_line(self._path, handle.readline(), number))
                        )
            except OSError as exc:
                raise InputError(self._path, f"cannot read the file: {exc}") from None
        return _transcript(events)

    def read_field(self, rows: Sequence[int], name: str) -> list[str | None]:
        check_text_field(name)
        return [getattr(self.read(row), name) for row in rows]


def _transcript(events: Sequence[tuple[int, dict[str, Any]]]) -> Transcript:
    prompt: Any = None
    sampled: Any = None
    target: Any = None
    explanation: str | None = None
    metadata: dict[str, str] = {}
    errors: list[str] = []
    for number, event in events:
        kind = event.get("type")
        data = object_at(event, "data")
        if not metadata:
            metadata["sample_id"] = as_text(event.get("sample_id"))
        metadata[f"line {number}"] = f"{kind} (event {event.get('event_id')})"
        if kind == SAMPLING:
            prompt = data.get("prompt", prompt)
            sampled = data.get("sampled", sampled)
        elif kind == MATCH:
            target = data.get("expected", target)
            if sampled is None and "sampled" in data:
                sampled = data["sampled"]
            if "picked" in data:
                picked = data["picked"]
                explanation = (
                    "picked: nothing (no expected answer found in the output)"
                    if picked is None
                    else f"picked: {as_text(picked)}"
                )
            for key, value in data.items():
                if key not in ("expected", "sampled", "prompt"):
                    metadata[dotted(MATCH, key)] = _short(value)
            if prompt is None and "prompt" in data:
                prompt = data["prompt"]
        elif kind == ERROR:
            message = data.get("message") if data else event.get("data")
            kind_name = data.get("type") if data else None
            errors.append(f"{kind_name}: {message}" if kind_name else as_text(message))
        else:
            for key, value in data.items():
                metadata[f"{kind}.{key}"] = _short(value)
        if event.get("created_at") and "created_at" not in metadata:
            metadata["created_at"] = as_text(event["created_at"])
    if errors:
        metadata["error"] = _short("\n".join(errors))
        explanation = "\n".join(errors)
    elif not any(e.get("type") in (MATCH, METRICS) for _, e in events):
        explanation = "no match event was recorded for this sample"
    messages = _messages(prompt)
    return Transcript(
        input=_input_text(prompt, messages),
        output=_sampled_text(sampled),
        target=None if target is None else _target_text(target),
        explanation=explanation,
        messages=messages,
        metadata=metadata,
    )


def _messages(prompt: Any) -> tuple[Message, ...]:
    """A chat prompt: a list of {role, content}."""
    if not isinstance(prompt, list) or not all(isinstance(m, dict) and "role" in m for m in prompt):
        return ()
    return tuple(
        Message(role=as_text(m.get("role")), content=content_text(m.get("content"))) for m in prompt
    )


def _input_text(prompt: Any, messages: Sequence[Message]) -> str | None:
    if prompt is None:
        return None
    if messages:
        users = [m for m in messages if m.role == "user"] or list(messages)
        return users[-1].content
    return as_text(prompt)


def _sampled_text(sampled: Any) -> str | None:
    if sampled is None:
        return None
    if isinstance(sampled, list) and all(isinstance(s, str) for s in sampled):
        return "\n".join(sampled)
    return as_text(sampled)


def _target_text(target: Any) -> str:
    if isinstance(target, list) and all(isinstance(t, str) for t in target):
        return "\n".join(target)
    return as_text(target)


def _short(value: Any) -> str:
    return shorten(as_text(value), MAX_METADATA_CHARS)
