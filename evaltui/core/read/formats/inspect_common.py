"""What Inspect AI's two log formats (`.eval` zip and `.json`) share: a sample's identity.

Both formats hold the same objects (Inspect's `EvalLog` header and `EvalSample`s); only the
container differs. This module checks a sample (or the lighter `EvalSampleSummary`) and keeps the
facts the statistics table needs (`SampleFacts`); the rest of the shared work has a module each:
scorers and score values (`inspect_scores`), the table and run metadata (`inspect_rows`), the
transcript (`inspect_transcript`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from hashlib import sha256
from typing import Any, NamedTuple

from evaltui.core.errors import InputError
from evaltui.core.read.formats.fields import (
    INT_MAX,
    INT_MIN,
    LogPath,
    Where,
    id_problem,
    identifier,
    require_int,
)
from evaltui.core.read.formats.jsontext import as_text

HARNESS = "inspect_ai"
MAX_METADATA_CHARS = 2000  # per transcript metadata value: sample metadata can be large
QUOTE_CHARS = 80  # how much of a wrong value an error message quotes


class SampleFacts(NamedTuple):
    """What the statistics need from one sample: its id, epoch, raw scores and error.

    Immutable like a frozen dataclass, but built in C: one per sample, 200,000 in a large
    log, and a frozen dataclass's `__init__` (a guarded `__setattr__` per field) was a
    twentieth of opening one."""

    item_id: str
    epoch: int
    scores: Any  # the raw `scores` value: a dict of scorer name -> Score, or None / missing
    error: str | None
    record: str  # where the sample lives: a zip member or "samples[i]"
    # sha256 of the sample's input as text (`input_digest`): which items' prompts changed
    input_hash: str | None = None
    # What the sample cost as the log records it (usage, times, retries, limit), as
    # `SampleCost`'s field values (`cost_values`), None when it records none: the statistics
    # table's cost columns (`inspect_rows.with_costs`). Values, not the summary's objects: a
    # fact of a 200,000-sample log keeps no part of its summary but its scores.
    cost: CostValues | None = None


def as_dict(path: LogPath, value: Any, what: str, *, record: str | None = None) -> dict[str, Any]:
    """`value` as the JSON object the field `what` must be."""
    if not isinstance(value, dict):
        raise sample_where(path, record).expected(what, "a JSON object", value)
    return value


def sample_facts(
    path: LogPath,
    sample: Any,
    record: str,
    members: Mapping[tuple[str, int], str] | None = None,
    shared: dict[tuple[tuple[Any, Any], ...], dict[str, Any]] | None = None,
) -> SampleFacts:
    """Check the identity fields of a sample or summary and keep what the statistics need.

    `members`: the sample members by (id, epoch), when `sample` is a summary: a summary with a
    member is recorded as `<member> via <record>` (the value at fault is the summary's copy).
    Run once per sample of a 200,000-sample log, so the error's `Where` is built only when a
    check fails (`identifier` and `require_int` say the same words as before).

    `shared` (one dict per load): the scores kept as `shared_scores` keeps them."""
    if not isinstance(sample, dict):
        raise sample_where(path, record).expected("sample", "a JSON object", sample)
    item_id = sample.get("id")
    epoch: Any = sample.get("epoch")
    # an integer id in range is the common case: `id_problem`'s checks, without the call
    if not (type(item_id) is int and INT_MIN <= item_id <= INT_MAX) and id_problem(item_id):
        where = sample_where(path, record)
        identifier(sample, "id", where, "the sample id as an integer or a non-empty string")
    if type(epoch) is not int or not 1 <= epoch <= INT_MAX:
        require_int(sample, "epoch", sample_where(path, record), EPOCH_WHAT, minimum=1)
    item_id = str(item_id)
    if members is not None and (member := members.get((item_id, epoch))) is not None:
        record = f"{member} via {record}"
    error = sample.get("error")
    return SampleFacts(
        item_id,
        epoch,
        sample.get("scores") if shared is None else shared_scores(sample.get("scores"), shared),
        None if error is None or error == "" else error_message(error),
        record,
        input_digest(sample.get("input")),
        cost_values(sample, with_error=False),
    )


EPOCH_WHAT = "the epoch as an integer >= 1"


def shared_scores(scores: Any, shared: dict[tuple[tuple[Any, Any], ...], dict[str, Any]]) -> Any:
    """A sample's scores as the statistics read them: when every score is an object whose
    value is a word or a boolean (C, I, P, N, true: nearly every log), one `{scorer: {"value":
    v}}` dict shared by every sample with the same values (`shared`, per load), else the scores
    as written. The statistics read only a score's `value` (`inspect_scores`,
    `inspect_consistency`) and never change a dict; the transcript reads the sample or summary
    itself. A 200,000-sample log's scores (answer, explanation, metadata, two dicts a sample)
    were a third of what its facts kept. Anything unusual (a score that is no object or has no
    value, a number, a dict of values) is kept as written, so every error quotes what the log
    holds."""
    if type(scores) is not dict:
        return scores
    key = []
    for name, score in scores.items():
        if type(score) is not dict or "value" not in score:
            return scores
        value = score["value"]
        if type(value) is not str and type(value) is not bool:
            return scores
        key.append((name, value))
    found = shared.get(frozen := tuple(key))
    if found is None:
        found = shared[frozen] = {name: {"value": value} for name, value in frozen}
    return found


INPUT_DIGEST_CHARS = 1000  # a summary's input may be thinned; its start is kept as written


def input_digest(value: Any) -> str | None:
    """sha256 of the first INPUT_DIGEST_CHARS of a sample's input as text: a string as it is,
    a list of chat messages as "role: text" lines (text parts only: a message's `id` is drawn
    afresh on every run, and an image is not text). None for anything else."""
    if type(value) is str:  # nearly every sample: one call, no branches
        return sha256(value[:INPUT_DIGEST_CHARS].encode("utf-8", "surrogatepass")).hexdigest()
    if isinstance(value, str):
        text = value
    elif isinstance(value, list):
        lines = []
        for message in value:
            if not isinstance(message, dict):
                return None
            lines.append(f"{message.get('role')}: {_content_text(message.get('content'))}")
        text = "\n".join(lines)
    else:
        return None
    return sha256(text[:INPUT_DIGEST_CHARS].encode("utf-8", "surrogatepass")).hexdigest()


def _content_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(
            str(part.get("text", "")) for part in content
            if isinstance(part, dict) and part.get("type") == "text"
        )  # fmt: skip
    return ""


def sample_where(path: LogPath, record: str | None) -> Where:
    return Where(path, record=record, quote=QUOTE_CHARS)


def error_message(error: Any) -> str | None:
    """A sample's error: a string in summaries, an `EvalError` object in samples."""
    if error is None or error == "" or error == {}:
        return None
    if isinstance(error, dict):
        message = error.get("message")
        return str(message) if message else "error (no message recorded)"
    return str(error)


def check_has_samples(path: LogPath, facts: Sequence[SampleFacts]) -> None:
    if not facts:
        raise InputError(
            path,
            "the log holds no samples (was it written with --no-log-samples, or did the run "
            "stop before any sample finished?); expected one sample per item and epoch",
            field="samples",
        )


CostValues = tuple[
    int | None, int | None, int | None, int | None, float | None, float | None, int,
    str | None, str | None,
]  # fmt: skip


TOKEN_KEYS = ("input_tokens", "output_tokens", "reasoning_tokens", "total_tokens")


def cost_values(sample: Mapping[str, Any], *, with_error: bool = True) -> CostValues | None:
    """`sample_cost`'s fields in `SampleCost`'s order, without building it: the statistics
    table's cost columns read 200,000 of these (`inspect_rows.with_costs`)."""
    usage = sample.get("model_usage")
    totals: dict[str, int | None] = {}
    if type(usage) is dict and len(usage) == 1:
        # one model (nearly every log): its counts as the loop below reads them, without it
        for model in usage.values():
            if isinstance(model, dict):
                for key in TOKEN_KEYS:
                    if isinstance(value := model.get(key), (int, float)):  # noqa: UP038 - hot
                        totals[key] = int(value)
    elif isinstance(usage, dict) and usage:
        for model in usage.values():  # one pass: each key summed over the models that have it
            if not isinstance(model, dict):
                continue
            for key in TOKEN_KEYS:
                value = model.get(key)
                if isinstance(value, (int, float)):  # noqa: UP038 - hot
                    held = totals.get(key)
                    totals[key] = int(value) if held is None else held + int(value)
    retries = sample.get("error_retries")
    if not isinstance(retries, list):  # a summary counts them
        retries = sample.get("retries")
    # `_seconds` of each, inline: called 400,000 times for a 200,000-sample log
    total_time = sample.get("total_time")
    total_time = float(total_time) if type(total_time) is float else _seconds(total_time)
    working_time = sample.get("working_time")
    working_time = float(working_time) if type(working_time) is float else _seconds(working_time)
    count = (
        len(retries)
        if isinstance(retries, list)
        else (retries if isinstance(retries, int) and not isinstance(retries, bool) else 0)
    )
    limit = sample.get("limit")
    limit = None if limit is None else limit_text(limit)
    error = sample.get("error") if with_error else None
    error = None if error is None or error == "" else (error_message(error) or None)
    total_tokens = totals.get("total_tokens")
    # `SampleCost.recorded`, decided before building it: most samples of a large log record
    # something, but a frozen dataclass per sample that records nothing is not built at all
    if (total_tokens, total_time, working_time, limit, error) == (None,) * 5 and not count:
        return None
    return (
        totals.get("input_tokens"),
        totals.get("output_tokens"),
        totals.get("reasoning_tokens"),
        total_tokens,
        total_time,
        working_time,
        count,
        limit,
        error,
    )


def limit_text(limit: Any) -> str | None:
    """`message (14)` from `{"type": "message", "limit": 14}`; older logs store a string."""
    if isinstance(limit, dict) and limit.get("type"):
        value = limit.get("limit")
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        return f"{as_text(limit['type'])} ({as_text(value)})"
    if isinstance(limit, str) and limit:
        return as_text(limit)
    return None


def _seconds(value: Any) -> float | None:
    if isinstance(value, (int, float)) and not isinstance(value, bool):  # noqa: UP038 - hot
        return float(value)
    return None
