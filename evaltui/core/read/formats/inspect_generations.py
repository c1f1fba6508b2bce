"""How many reasoning tokens the generation that wrote each assistant turn used.

Inspect keeps no token count on a reasoning block: a redacted block carries only its encrypted
blob and a summary. The count is on the generation that wrote the turn: each call to the model
is a `ModelEvent` in the sample's `events` (`event == "model"`), whose `output.usage` holds
`reasoning_tokens` (absent in logs older than the field, null when the provider did not say)
and whose `output.choices[0].message` is the assistant message the conversation kept, with the
same `id` (messages carry one since Inspect 0.3.16). A turn is matched to its generation by that
id. When the ids are missing on one side the turns are matched by order, and only when there is
exactly one generation per generated assistant turn: a model-graded scorer or a sub-agent adds
generations that wrote no turn of this conversation, and then nothing is guessed.

The count is the whole generation's: a turn with several reasoning blocks shares it. This is
read when an item is opened, never while a run loads (events are most of a sample's bytes).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

TurnTokens = int | str
"""A turn's reasoning tokens, or the words that say why they are not known."""

NOT_RECORDED = "token count not recorded"  # no events, no usage, or no reasoning_tokens
NOT_MATCHED = "token count not matched to a generation"  # events there, but no unambiguous match
NOT_READ = "token count not read (a chunked sample's events are not read)"


def reasoning_tokens_by_turn(
    messages: Sequence[Any], events: Any, *, events_read: bool = True
) -> list[TurnTokens | None]:
    """For each message: None unless it is an assistant message; else the reasoning tokens of
    the generation that wrote it, or why they are not known (`NOT_RECORDED`...)."""
    assistant = [
        i for i, m in enumerate(messages) if isinstance(m, dict) and m.get("role") == "assistant"
    ]
    out: list[TurnTokens | None] = [None] * len(messages)
    if not assistant:
        return out
    if not events_read:
        for i in assistant:
            out[i] = NOT_READ
        return out
    generations = _generations(events)
    generated = [i for i in assistant if messages[i].get("source") != "input"]
    for i in assistant:
        out[i] = NOT_RECORDED if not generations or i not in generated else NOT_MATCHED
    if not generations:
        return out
    by_id: dict[str, list[int | None]] = {}
    for message_id, tokens in generations:
        if message_id is not None:
            by_id.setdefault(message_id, []).append(tokens)
    matched_any = False
    for i in generated:
        found = by_id.get(_id_of(messages[i]) or "")
        if found is None:
            continue
        matched_any = True
        if len(set(found)) == 1:  # the same generation logged twice says the same
            out[i] = NOT_RECORDED if found[0] is None else found[0]
    ids_on_both = bool(by_id) and any(_id_of(messages[i]) for i in generated)
    if matched_any or ids_on_both or len(generations) != len(generated):
        return out
    for i, (_, tokens) in zip(generated, generations, strict=True):  # one for one, in order
        out[i] = NOT_RECORDED if tokens is None else tokens
    return out


def _generations(events: Any) -> list[tuple[str | None, int | None]]:
    """Each model event that wrote a message, in order: its message's id and its reasoning
    tokens (None: not recorded). An event still pending or with no choice wrote nothing."""
    if not isinstance(events, list):
        return []
    out = []
    for event in events:
        if not isinstance(event, dict) or event.get("event") != "model" or event.get("pending"):
            continue
        output = event.get("output")
        if not isinstance(output, dict):
            continue
        choices = output.get("choices")
        if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
            continue
        message = choices[0].get("message")
        usage = output.get("usage")
        tokens = usage.get("reasoning_tokens") if isinstance(usage, dict) else None
        valid = isinstance(tokens, int) and not isinstance(tokens, bool) and tokens >= 0
        out.append((_id_of(message), tokens if valid else None))
    return out


def _id_of(message: Any) -> str | None:
    if not isinstance(message, Mapping):
        return None
    value = message.get("id")
    return value if isinstance(value, str) and value else None


def slim_events(events: Any) -> list[dict[str, Any]]:
    """Of a sample's events, what `reasoning_tokens_by_turn` reads: each model event's message
    id and usage, no input or call (a `.json` log keeps its samples in memory without events)."""
    out: list[dict[str, Any]] = []
    if not isinstance(events, list):
        return out
    for message_id, tokens in _generations(events):
        usage = {} if tokens is None else {"reasoning_tokens": tokens}
        message = {} if message_id is None else {"id": message_id}
        output = {"choices": [{"message": message}], "usage": usage}
        out.append({"event": "model", "output": output})
    return out
