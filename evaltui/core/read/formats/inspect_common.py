"""What Inspect AI's two log formats (`.eval` zip and `.json`) share: one sample -> one row.

Both formats hold the same objects (Inspect's `EvalLog` header and `EvalSample`s); only the
container differs. This module turns a sample (or the lighter `EvalSampleSummary`) into the facts
the statistics table needs, maps Inspect's score values to verdicts once, builds the table, and
renders a sample as a `Transcript`.

Score values (Inspect's `value_to_float`): "C" correct -> 1, "I" incorrect -> 0, "P" partial ->
0.5, "N" no answer -> 0. A log whose values are all C/I/N (or real booleans) gets a `passed`
column; a "P" or any number turns the whole column into a graded `score` (C=1, I=0, P=0.5, N=0).
Anything else is an error naming the record and the value: no guessing.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import polars as pl

from evaltui.core.errors import InputError
from evaltui.core.read.formats.contract import check_text_field
from evaltui.core.read.formats.fields import Where, dotted, identifier, is_finite, require_int
from evaltui.core.read.formats.jsontext import as_text, object_at
from evaltui.core.read.runs import (
    OUTCOME,
    SCORE_PREFIX,
    Message,
    Transcript,
    stats_table,
)

HARNESS = "inspect_ai"
ATTACHMENT_PROTOCOL = "attachment://"
LEGACY_CONTENT_PROTOCOL = "tc://"  # older logs; Inspect migrates it to attachment:// on read

VERDICT_WORDS: dict[str, bool] = {"C": True, "I": False, "N": False}
SCORE_WORDS: dict[str, float] = {"C": 1.0, "I": 0.0, "P": 0.5, "N": 0.0}
UNSCORED_HINT = "run `inspect score <log>` to score it first"
MAX_METADATA_CHARS = 2000  # per transcript metadata value: sample metadata can be large
QUOTE_CHARS = 80  # how much of a wrong value an error message quotes

# The parts of a sample a transcript needs; everything else (events, store...) is dropped when a
# whole log has to be kept in memory (the .json format).
TRANSCRIPT_KEYS = (
    "id",
    "epoch",
    "input",
    "target",
    "messages",
    "output",
    "scores",
    "error",
    "limit",
    "metadata",
    "attachments",
)


@dataclass(frozen=True)
class SampleFacts:
    """What the statistics need from one sample: its id, epoch, raw scores and error."""

    item_id: str
    epoch: int
    scores: Any  # the raw `scores` value: a dict of scorer name -> Score, or None / missing
    error: str | None
    record: str  # where the sample lives: a zip member or "samples[i]"


def as_dict(path: Path, value: Any, what: str, *, record: str | None = None) -> dict[str, Any]:
    """`value` as the JSON object the field `what` must be."""
    if not isinstance(value, dict):
        raise _where(path, record).expected(what, "a JSON object", value)
    return value


def sample_facts(path: Path, sample: Any, record: str) -> SampleFacts:
    """Check the identity fields of a sample or summary and keep what the statistics need."""
    sample = as_dict(path, sample, "sample", record=record)
    where = _where(path, record)
    item_id = identifier(sample, "id", where, "the sample id as an integer or a non-empty string")
    epoch = require_int(sample, "epoch", where, "the epoch as an integer >= 1", minimum=1)
    return SampleFacts(
        item_id=item_id,
        epoch=epoch,
        scores=sample.get("scores"),
        error=error_message(sample.get("error")),
        record=record,
    )


def _where(path: Path, record: str | None) -> Where:
    return Where(path, record=record, quote=QUOTE_CHARS)


def error_message(error: Any) -> str | None:
    """A sample's error: a string in summaries, an `EvalError` object in samples."""
    if error is None or error == "" or error == {}:
        return None
    if isinstance(error, dict):
        message = error.get("message")
        return str(message) if message else "error (no message recorded)"
    return str(error)


def has_scores(facts: SampleFacts) -> bool:
    return isinstance(facts.scores, dict) and len(facts.scores) > 0


def scorer_candidates(header: Mapping[str, Any]) -> list[str]:
    """Scorer names in the order the log's header lists them (results first, then the spec)."""
    names: list[str] = []
    results = header.get("results")
    if isinstance(results, dict) and isinstance(results.get("scores"), list):
        for entry in results["scores"]:
            if isinstance(entry, dict):
                for key in ("name", "scorer"):
                    if isinstance(entry.get(key), str):
                        names.append(entry[key])
    spec = header.get("eval")
    if isinstance(spec, dict) and isinstance(spec.get("scorers"), list):
        for entry in spec["scorers"]:
            if isinstance(entry, dict) and isinstance(entry.get("name"), str):
                names.append(entry["name"])
    return list(dict.fromkeys(names))


def available_scorers(facts: Iterable[SampleFacts]) -> list[str]:
    seen: dict[str, None] = {}
    for fact in facts:
        if isinstance(fact.scores, dict):
            for name in fact.scores:
                seen.setdefault(str(name), None)
    return list(seen)


def check_has_samples(path: Path, facts: Sequence[SampleFacts]) -> None:
    if not facts:
        raise InputError(
            path,
            "the log holds no samples (was it written with --no-log-samples, or did the run "
            "stop before any sample finished?); expected one sample per item and epoch",
            field="samples",
        )


def check_scored(path: Path, header: Mapping[str, Any], facts: Sequence[SampleFacts]) -> None:
    """A log written without scoring (`inspect eval --no-score`) has `"scores": {}` everywhere."""
    if any(has_scores(f) for f in facts):
        return
    if all(f.error is not None for f in facts):
        return  # every sample errored: they load as failures, not as an unscored log
    results = header.get("results")
    detail = ""
    if isinstance(results, dict) and results.get("scores") == []:
        detail = " and results.scores is empty"
    raise InputError(
        path,
        f"the log is unscored: none of its {len(facts)} samples has a score{detail}; "
        f"{UNSCORED_HINT}",
        field="scores",
    )


def choose_scorer(
    path: Path, header: Mapping[str, Any], facts: Sequence[SampleFacts], requested: str | None
) -> str | None:
    """The scorer whose values become the verdicts: the requested one, else the header's first."""
    available = available_scorers(facts)
    if facts and all(f.error is not None for f in facts):
        # A crashed run: no sample got as far as a scorer, so there is nothing to check the
        # name against. Every sample is a failure whatever the scorer; keep the name asked for.
        return requested if requested is not None else next(iter(scorer_candidates(header)), None)
    if requested is not None:
        if requested in available:
            return requested
        keys = scorer_keys(facts)
        scorer, slash, key = requested.partition(KEY_SEPARATOR)
        if slash and scorer in keys:  # "scorer/key": the key is checked by build_table
            return scorer
        owners = [name for name, names in keys.items() if requested in names]
        if len(owners) == 1:  # a key of one dict-valued scorer, named alone
            return owners[0]
        listing = ", ".join(_with_keys(name, keys) for name in available) if available else "none"
        raise InputError(
            path,
            f"no scorer named '{requested}' in this log; available scorers: {listing} "
            "(choose one with --metric, a key of a dict-valued scorer as SCORER/KEY)",
            field="scores",
        )
    for name in scorer_candidates(header):
        if name in available:
            return name
    return available[0] if available else None


KEY_SEPARATOR = "/"  # --metric SCORER/KEY: one key of a scorer whose value is a dict


def scorer_keys(facts: Iterable[SampleFacts]) -> dict[str, list[str]]:
    """The keys of each dict-valued scorer (SciCode's returns {"Problem Correctness": ...,
    "Subproblem Correctness": ...}), in order of first appearance."""
    found: dict[str, dict[str, None]] = {}
    for fact in facts:
        if not isinstance(fact.scores, dict):
            continue
        for name, score in fact.scores.items():
            value = score.get("value") if isinstance(score, dict) else None
            if isinstance(value, dict):
                names = found.setdefault(str(name), {})
                for key in value:
                    names.setdefault(str(key), None)
    return {name: list(names) for name, names in found.items()}


def _with_keys(name: str, keys: Mapping[str, list[str]]) -> str:
    if name not in keys:
        return name
    return f"{name} (keys: {', '.join(f'{name}{KEY_SEPARATOR}{k}' for k in keys[name])})"


def key_column(scorer: str, key: str) -> str:
    """The score column of one key of a dict-valued scorer: `score:<scorer>/<key>`."""
    return f"{SCORE_PREFIX}{scorer}{KEY_SEPARATOR}{key}"


def build_table(
    path: Path, facts: Sequence[SampleFacts], scorer: str | None, requested: str | None = None
) -> pl.DataFrame:
    """The statistics table: one row per sample, in `facts` order (`row` = index in `facts`).

    A scorer whose values are dicts gives one score column per key (`key_column`), the key
    `requested` names (SCORER/KEY or KEY) first, so it is the metric compared by default and
    the others join the metric family."""
    keys = scorer_keys(facts).get(scorer) if scorer is not None else None
    if scorer is not None and keys:
        return _keyed_table(path, facts, scorer, keys, requested)
    kinds: list[str] = []  # per row: "verdict", "partial", "number", or "error"
    values: list[Any] = []
    for fact in facts:
        if fact.error is not None:
            kinds.append("error")
            values.append(None)
            continue
        value = _score_value(path, fact, scorer)
        kinds.append(_value_kind(path, fact, scorer, value))
        values.append(value)
    ids = [f.item_id for f in facts]
    epochs = [f.epoch for f in facts]
    statuses = ["error" if kind == "error" else "ok" for kind in kinds]
    pairs = list(zip(kinds, values, strict=True))
    if any(kind in ("partial", "number") for kind in kinds):  # graded: C=1, I=0, P=0.5, N=0
        scores = [None if kind == "error" else _as_float(value) for kind, value in pairs]
        table = stats_table(ids, epochs, statuses, score=scores)
    else:
        passed = [False if kind == "error" else _as_verdict(value) for kind, value in pairs]
        table = stats_table(ids, epochs, statuses, passed=passed)
    return _with_outcomes(table, pairs)


def _with_outcomes(table: pl.DataFrame, pairs: list[tuple[str, Any]]) -> pl.DataFrame:
    """The raw letter as the item's outcome category (C, I, P, N; an errored sample's is
    "error"), when every scored sample's value is a letter: the mix of outcomes is compared
    beside the verdict (a P or N the score mapping folds into 0.5 or a failure stays itself)."""
    if not all(kind == "error" or value in SCORE_WORDS for kind, value in pairs):
        return table  # numbers or booleans: no categories to keep
    outcomes = ["error" if kind == "error" else value for kind, value in pairs]
    return table.with_columns(pl.Series(OUTCOME, outcomes, dtype=pl.String))


def _keyed_table(
    path: Path,
    facts: Sequence[SampleFacts],
    scorer: str,
    keys: list[str],
    requested: str | None,
) -> pl.DataFrame:
    chosen = _chosen_key(path, scorer, keys, requested)
    ordered = [chosen, *(k for k in keys if k != chosen)] if chosen else keys
    columns: dict[str, list[float | None]] = {key: [] for key in ordered}
    for fact in facts:
        if fact.error is not None:
            for key in ordered:
                columns[key].append(None)
            continue
        value = _score_value(path, fact, scorer)
        where = _where(path, fact.record)
        if not isinstance(value, dict):
            raise where.expected(
                dotted("scores", scorer, "value"),
                f"a dict of values, as in the log's other samples (keys {', '.join(keys)})",
                value,
            )
        for key in ordered:
            if key not in value:
                present = ", ".join(map(str, value)) or "none"
                raise where.error(
                    dotted("scores", scorer, "value", key),
                    f"this sample (id {fact.item_id}, epoch {fact.epoch}) has no value for key "
                    f"'{key}' of scorer '{scorer}' (its keys: {present})",
                )
            item = value[key]
            if not (isinstance(item, bool) or item in SCORE_WORDS or is_finite(item)):
                raise where.error(
                    dotted("scores", scorer, "value", key),
                    f'cannot read the value {where.quoted(item)}; expected "C", "I", '
                    '"P" or "N", true/false, or a finite number',
                )
            columns[key].append(_as_float(item))
    statuses = ["error" if f.error is not None else "ok" for f in facts]
    table = stats_table([f.item_id for f in facts], [f.epoch for f in facts], statuses)
    return table.with_columns(
        pl.Series(key_column(scorer, key), values, dtype=pl.Float64)
        for key, values in columns.items()
    )


def _chosen_key(path: Path, scorer: str, keys: list[str], requested: str | None) -> str | None:
    if requested is None or requested == scorer:
        return None
    name, slash, key = requested.partition(KEY_SEPARATOR)
    wanted = key if slash and name == scorer else requested
    if wanted in keys:
        return wanted
    raise InputError(
        path,
        f"scorer '{scorer}' has no key '{wanted}'; its keys: "
        + ", ".join(f"{scorer}{KEY_SEPARATOR}{k}" for k in keys)
        + " (choose one with --metric SCORER/KEY)",
        field=dotted("scores", scorer, "value"),
    )


def _score_value(path: Path, fact: SampleFacts, scorer: str | None) -> Any:
    where = _where(path, fact.record)
    if not isinstance(fact.scores, dict):
        raise where.error(
            "scores",
            f"expected the sample's scores (an object of scorer name -> score), got "
            f"{where.quoted(fact.scores)} (sample id {fact.item_id}, epoch {fact.epoch})",
        )
    field = dotted("scores", scorer)
    if scorer is None or scorer not in fact.scores:
        present = ", ".join(map(str, fact.scores)) or "none"
        raise where.error(
            field,
            f"expected a score from scorer '{scorer}', but this sample (id {fact.item_id}, epoch "
            f"{fact.epoch}) has scores from: {present}",
        )
    score = fact.scores[scorer]
    if not isinstance(score, dict) or "value" not in score:
        raise where.expected(field, "a Score object with a 'value'", score)
    return score["value"]


def _value_kind(path: Path, fact: SampleFacts, scorer: str | None, value: Any) -> str:
    if isinstance(value, bool):
        return "verdict"
    if isinstance(value, str):
        if value in VERDICT_WORDS:
            return "verdict"
        if value == "P":
            return "partial"
    elif is_finite(value):
        return "number"
    where = _where(path, fact.record)
    raise where.error(
        dotted("scores", scorer, "value"),
        f'cannot read the score value {where.quoted(value)}; expected "C", "I", "P" or "N", '
        "true/false, or a finite number",
    )


def _as_verdict(value: Any) -> bool:
    if isinstance(value, bool):
        return value
    return VERDICT_WORDS[value]


def _as_float(value: Any) -> float:
    if isinstance(value, str):
        return SCORE_WORDS[value]
    return float(value)


# ---------------------------------------------------------------------------------------------
# Run metadata


def run_metadata(
    header: Mapping[str, Any],
    scorer: str | None,
    facts: Sequence[SampleFacts],
    *,
    default_status: str,
) -> dict[str, str]:
    """Strings for `Run.metadata`: model, task, dataset, scorer, harness and the run's status."""
    spec = object_at(header, "eval")
    meta: dict[str, str] = {"harness": HARNESS}
    packages = spec.get("packages")
    if isinstance(packages, dict) and packages.get(HARNESS):
        meta["harness_version"] = str(packages[HARNESS])
    for key in (
        "model",
        "task",
        "task_version",
        "task_id",
        "task_file",
        "eval_id",
        "eval_set_id",
        "run_id",
        "created",
    ):
        if _scalar(spec.get(key)):
            meta[key] = str(spec[key])
    dataset = spec.get("dataset")
    if isinstance(dataset, dict):
        for key, value in dataset.items():
            if key == "name" and _scalar(value):
                meta["dataset"] = str(value)
            elif key != "sample_ids" and _scalar(value):
                meta[f"dataset_{key}"] = str(value)
    config = spec.get("config")
    if isinstance(config, dict):
        for key in ("epochs", "limit"):
            if _scalar(config.get(key)):
                meta[key] = str(config[key])
        if isinstance(config.get("epochs_reducer"), list):
            meta["epochs_reducer"] = ", ".join(map(str, config["epochs_reducer"]))
    revision = spec.get("revision")
    if isinstance(revision, dict):
        for key in ("origin", "commit"):
            if _scalar(revision.get(key)):
                meta[f"revision_{key}"] = str(revision[key])
    if _scalar(header.get("version")):
        meta["log_version"] = str(header["version"])
    status = header.get("status")
    meta["run_status"] = str(status) if _scalar(status) else default_status
    run_error = error_message(header.get("error"))
    if run_error:
        meta["run_error"] = run_error[:MAX_METADATA_CHARS]
    if scorer is not None:
        meta["scorer"] = scorer
    available = available_scorers(facts)
    if available:
        meta["scorers"] = ", ".join(available)
    keys = scorer_keys(facts).get(scorer or "")
    if keys:
        meta["scorer_keys"] = ", ".join(keys)
    errors = sum(1 for f in facts if f.error is not None)
    meta["samples"] = str(len(facts))
    meta["sample_errors"] = str(errors)
    if facts and errors == len(facts):
        meta["warning.all_errored"] = (
            f"every one of its {errors} samples errored (the run crashed?), so no sample has a "
            "score: each counts as a failure (--on-error fail), or is excluded with "
            "--on-error exclude"
        )
    return meta


def _scalar(value: Any) -> bool:
    return isinstance(value, str | int | float | bool) and value != ""


# ---------------------------------------------------------------------------------------------
# Transcripts


def compact_sample(sample: dict[str, Any]) -> dict[str, Any]:
    """Drop the parts of a sample no transcript shows (events are most of a sample's bytes)."""
    return {key: sample[key] for key in TRANSCRIPT_KEYS if key in sample}


def sample_transcript(sample: Mapping[str, Any], scorer: str | None, record: str) -> Transcript:
    """Render one `EvalSample` (or `EvalSampleSummary`) for drill-down. Never raises on content."""
    attachments = sample.get("attachments")
    if not isinstance(attachments, dict):
        attachments = {}
    messages = tuple(
        message_of(m, attachments) for m in _as_list(sample.get("messages")) if isinstance(m, dict)
    )
    score = None
    scores = sample.get("scores")
    if isinstance(scores, dict) and scorer is not None and isinstance(scores.get(scorer), dict):
        score = scores[scorer]
    metadata: dict[str, str] = {"record": record}
    if "id" in sample:
        metadata["id"] = str(sample["id"])
    if "epoch" in sample:
        metadata["epoch"] = str(sample["epoch"])
    if score is not None:
        metadata["score_value"] = _short(score.get("value"))
        if score.get("answer") is not None:
            metadata["answer"] = _short(resolve(score["answer"], attachments))
    error = error_message(sample.get("error"))
    if error:
        metadata["error"] = error[:MAX_METADATA_CHARS]
    limit = sample.get("limit")
    if isinstance(limit, dict) and limit.get("type"):
        metadata["limit"] = f"{limit.get('type')} ({limit.get('limit')})"
    elif isinstance(limit, str) and limit:
        metadata["limit"] = limit
    sample_meta = sample.get("metadata")
    if isinstance(sample_meta, dict):
        for key, value in sample_meta.items():
            metadata[dotted("metadata", key)] = _short(value)
    explanation = None
    if score is not None and score.get("explanation") is not None:
        explanation = as_text(resolve(score["explanation"], attachments))
    return Transcript(
        input=input_text(sample.get("input"), attachments),
        output=completion_of(sample.get("output"), attachments),
        target=target_text(sample.get("target")),
        explanation=explanation,
        messages=messages,
        metadata=metadata,
    )


def transcript_field(transcript: Transcript, name: str) -> str | None:
    check_text_field(name)
    return getattr(transcript, name)


def resolve(value: Any, attachments: Mapping[str, Any]) -> Any:
    """Replace an `attachment://<hash>` reference by the text the sample stores for it."""
    if isinstance(value, str):
        if value.startswith(LEGACY_CONTENT_PROTOCOL):
            value = ATTACHMENT_PROTOCOL + value[len(LEGACY_CONTENT_PROTOCOL) :]
        if value.startswith(ATTACHMENT_PROTOCOL):
            found = attachments.get(value[len(ATTACHMENT_PROTOCOL) :])
            if isinstance(found, str):
                return found
    return value


def message_of(message: Mapping[str, Any], attachments: Mapping[str, Any]) -> Message:
    role = str(message.get("role") or "unknown")
    parts = [content_text(message.get("content"), attachments)]
    for call in _as_list(message.get("tool_calls")):
        if isinstance(call, dict):
            arguments = call.get("arguments")
            rendered = json.dumps(_resolve_deep(arguments, attachments), ensure_ascii=False)
            parts.append(f"[tool call] {call.get('function', '?')}({rendered})")
    if role == "tool" and message.get("function"):
        parts.insert(0, f"[tool result: {message['function']}]")
    error = message.get("error")
    if isinstance(error, dict) and error.get("message"):
        parts.append(f"[tool error] {error['message']}")
    return Message(role=role, content="\n".join(p for p in parts if p))


def content_text(content: Any, attachments: Mapping[str, Any]) -> str:
    """A message's content: a string, or a list of content blocks (text, reasoning, media...)."""
    if content is None:
        return ""
    if isinstance(content, str):
        return as_text(resolve(content, attachments))
    if not isinstance(content, list):
        return as_text(content)
    parts: list[str] = []
    for block in content:
        if isinstance(block, str):
            parts.append(as_text(resolve(block, attachments)))
        elif not isinstance(block, dict):
            parts.append(as_text(block))
        elif block.get("type") == "text":
            parts.append(as_text(resolve(block.get("text", ""), attachments)))
        elif block.get("type") == "reasoning":
            parts.append(_reasoning_text(block, attachments))
        else:
            parts.append(f"[{block.get('type') or 'content'}]")
    return "\n".join(p for p in parts if p)


def _reasoning_text(block: Mapping[str, Any], attachments: Mapping[str, Any]) -> str:
    text = resolve(block.get("reasoning"), attachments)
    if not (isinstance(text, str) and text.strip()):
        text = resolve(block.get("summary"), attachments)
    if isinstance(text, str) and text.strip():
        return "[reasoning] " + text
    if block.get("redacted"):
        return "[reasoning] (redacted)"
    return "[reasoning] (not recorded)"


def input_text(value: Any, attachments: Mapping[str, Any]) -> str | None:
    """The sample's input: a string, or a list of messages (-> the last user message's text)."""
    if value is None:
        return None
    if isinstance(value, str):
        return as_text(resolve(value, attachments))
    if isinstance(value, list):
        messages = [m for m in value if isinstance(m, dict)]
        users = [m for m in messages if m.get("role") == "user"] or messages
        if not users:
            return None
        return content_text(users[-1].get("content"), attachments)
    return as_text(value)


def completion_of(output: Any, attachments: Mapping[str, Any]) -> str | None:
    """`output.completion`; older logs omit it, so fall back to the first choice's text."""
    if not isinstance(output, dict):
        return None
    completion = output.get("completion")
    if isinstance(completion, str):
        return as_text(resolve(completion, attachments))
    choices = output.get("choices")
    if isinstance(choices, list) and choices and isinstance(choices[0], dict):
        message = choices[0].get("message")
        if isinstance(message, dict):
            content = message.get("content")
            if isinstance(content, list):  # the completion is the text blocks only
                content = [
                    b
                    for b in content
                    if isinstance(b, str) or (isinstance(b, dict) and b.get("type") == "text")
                ]
            return content_text(content, attachments)
    return None


def target_text(target: Any) -> str | None:
    if target is None:
        return None
    if isinstance(target, list):
        return "\n".join(as_text(t) for t in target)
    return as_text(target)


def _resolve_deep(value: Any, attachments: Mapping[str, Any]) -> Any:
    if isinstance(value, str):
        return resolve(value, attachments)
    if isinstance(value, list):
        return [_resolve_deep(v, attachments) for v in value]
    if isinstance(value, dict):
        return {k: _resolve_deep(v, attachments) for k, v in value.items()}
    return value


def _as_list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _short(value: Any) -> str:
    return as_text(value)[:MAX_METADATA_CHARS]
