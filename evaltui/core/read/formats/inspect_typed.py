"""Inspect sample summaries decoded into typed Structs, the decode proved exact by a round trip.

Decoding a batch of summaries into dicts (`jsontext.fast_loads`) made six dicts a summary (the
summary, its scores and each score, its usage and each model's, its metadata) and their keys,
then freed them: on a 200,000-sample log about a fifth of the open. Here a batch is decoded by
msgspec into `Summary` Structs (the summary, each score and each model's usage a Struct: no
dict, no key strings), and the column-wise reader takes each field by `attrgetter`.

Why nothing is lost (`decode_batch`): every Struct declares the fields Inspect writes, in the
order its `EvalSampleSummary`, `Score` and `ModelUsage` declare them: the union of every version
in Inspect's git history and of the 0.3.285 release (`pip install inspect_ai`), which never
reorder, only insert fields (`choices`, `description`, `role_usage`, `started_at`,
`limit_reason`, a score's `reason`...) or append them (`token_limit`, `message_limit`,
`time_limit`, `total_cost`, `history`); the oldest `.eval` summaries, which wrote `completed`
before `scores`, are read as dicts. Every field is `Any` with the default None, omitted when
None (`omit_defaults`). Re-encoding the Structs (`msgspec.json.encode`) and comparing the bytes
with the batch's own (stripped of whitespace when it has any, `msgspec.json.format(indent=-1)`:
Inspect wrote `summaries.json` indented before, compact in 0.3.285) proves that the batch holds
exactly the tokens of these Structs: no key twice (a Struct encodes each field once), no key
the Structs do not declare (dropped on decode), no field written as null (omitted on encode),
the fields in Inspect's order, every number and escape as msgspec writes it. So any JSON reader
reads from the batch the values the Structs hold, and a field a Struct leaves at None is one
the summary does not have: `getattr` of a Struct is `dict.get` of the summary that
`jsontext.fast_loads` would have decoded (what `inspect_summaries` reads from dicts). Any batch
that fails (another field order, a field Inspect never wrote, an explicit null, a score that is
no object, a number written otherwise, a duplicate key anywhere) is decoded as dicts by the
path before, exactly as before: slower, never wrong.
"""

from __future__ import annotations

from typing import Any

import msgspec


class Score(msgspec.Struct, omit_defaults=True, gc=False):
    """Inspect's `Score` (scorer/_metric.py), as a summary writes it."""

    value: Any
    answer: Any = None
    explanation: Any = None
    reason: Any = None
    metadata: Any = None
    history: Any = None


class Usage(msgspec.Struct, omit_defaults=True, gc=False):
    """Inspect's `ModelUsage` (model/_model_output.py)."""

    input_tokens: Any = None
    output_tokens: Any = None
    total_tokens: Any = None
    input_tokens_cache_write: Any = None
    input_tokens_cache_read: Any = None
    reasoning_tokens: Any = None
    total_cost: Any = None


class Summary(msgspec.Struct, omit_defaults=True, gc=False):
    """Inspect's `EvalSampleSummary` (log/_log.py), fields in its order. `gc=False`: a decoded
    JSON value holds no reference back to its Struct, so no cycle can form; 200,000 Structs
    the collector need not track."""

    id: Any = None
    epoch: Any = None
    input: Any = None
    choices: Any = None
    target: Any = None
    description: Any = None
    metadata: Any = None
    scores: dict[str, Score] | None = None
    model_usage: dict[str, Usage] | None = None
    role_usage: Any = None
    model_fallbacks: Any = None
    started_at: Any = None
    completed_at: Any = None
    total_time: Any = None
    working_time: Any = None
    uuid: Any = None
    error: Any = None
    limit: Any = None
    limit_reason: Any = None
    retries: Any = None
    completed: Any = None
    message_count: Any = None
    turn_count: Any = None
    token_limit: Any = None
    token_limit_type: Any = None
    token_limit_usage: Any = None
    message_limit: Any = None
    time_limit: Any = None


_DECODER = msgspec.json.Decoder(list[Summary])
_ENCODE = msgspec.json.encode
_FORMAT = msgspec.json.format


def decode_batch(raw: bytes) -> list[Summary] | None:
    """The JSON array `raw` as Summaries, or None when the decode cannot be proved exact (see
    the module): the caller decodes it as dicts. Never raises."""
    try:
        value = _DECODER.decode(raw)
        encoded = _ENCODE(value)
        # compact already (Inspect's own writer): no stripped copy needed
        if encoded == raw or _FORMAT(raw, indent=-1) == encoded:
            return value
    except (msgspec.MsgspecError, UnicodeEncodeError, TypeError, ValueError, RecursionError):
        pass
    return None
