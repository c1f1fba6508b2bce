"""One Inspect AI sample -> the `Transcript` drill-down shows.

Messages, input, completion and target are kept as literal text, attachments resolved; nothing
in a sample's content can make rendering raise.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from evaltui.core.read.formats.contract import check_text_field
from evaltui.core.read.formats.fields import dotted
from evaltui.core.read.formats.inspect_common import MAX_METADATA_CHARS, error_message
from evaltui.core.read.formats.inspect_generations import (
    TurnTokens,
    reasoning_tokens_by_turn,
    slim_events,
)
from evaltui.core.read.formats.inspect_turns import (
    ATTACHMENT_PROTOCOL,
    LEGACY_CONTENT_PROTOCOL,
    message_blocks,
    resolve,
    resolve_deep,
    sample_cost,
    sample_scorers,
)
from evaltui.core.read.formats.jsontext import as_text
from evaltui.core.read.runs import Message, Transcript
from evaltui.core.read.turns import reasoning_tokens_words

__all__ = ["ATTACHMENT_PROTOCOL", "LEGACY_CONTENT_PROTOCOL", "resolve", "sample_transcript"]

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
    "model_usage",  # what the sample cost (`inspect_turns.sample_cost`)
    "total_time",
    "working_time",
    "error_retries",
    "retries",
)


def compact_sample(sample: dict[str, Any]) -> dict[str, Any]:
    """Drop the parts of a sample no transcript shows (events are most of a sample's bytes):
    of the events, only what names the reasoning tokens of a turn with redacted reasoning
    is kept (`inspect_generations.slim_events`), and only for a sample that has one."""
    kept = {key: sample[key] for key in TRANSCRIPT_KEYS if key in sample}
    messages = sample.get("messages")
    if isinstance(messages, list) and any(
        isinstance(m, dict) and _has_redacted(m) for m in messages
    ):
        kept["events"] = slim_events(sample.get("events"))
    return kept


def sample_transcript(
    sample: Mapping[str, Any], scorer: str | None, record: str, *, events_read: bool = True
) -> Transcript:
    """Render one `EvalSample` (or `EvalSampleSummary`) for drill-down. Never raises on content.
    `events_read`: False when the sample's events were left unread (a chunked sample), so a
    redacted block's token count says it was not read rather than not recorded."""
    attachments = sample.get("attachments")
    if not isinstance(attachments, dict):
        attachments = {}
    calls_by_id: dict[str, str] = {}  # a tool call's id -> its signature, for its result
    raw = [m for m in _as_list(sample.get("messages")) if isinstance(m, dict)]
    tokens: list[TurnTokens | None] = [None] * len(raw)
    if any(_has_redacted(m) for m in raw):  # the events are walked only when one is shown
        tokens = reasoning_tokens_by_turn(raw, sample.get("events"), events_read=events_read)
    messages = tuple(
        message_of(m, attachments, calls_by_id, n) for m, n in zip(raw, tokens, strict=True)
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
        scorers=tuple(sample_scorers(sample, attachments)),
        cost=sample_cost(sample),
    )


def transcript_field(transcript: Transcript, name: str) -> str | None:
    check_text_field(name)
    return getattr(transcript, name)


def _has_redacted(message: Mapping[str, Any]) -> bool:
    content = message.get("content")
    return isinstance(content, list) and any(
        isinstance(part, dict) and part.get("type") == "reasoning" and part.get("redacted")
        for part in content
    )


def message_of(
    message: Mapping[str, Any],
    attachments: Mapping[str, Any],
    calls_by_id: dict[str, str] | None = None,
    tokens: TurnTokens | None = None,
) -> Message:
    """One message: its flat text (search, diff) and its blocks and call signatures (the
    structured view, the alignment). `tokens`: the reasoning tokens of the generation that
    wrote it, or why they are not known (`inspect_generations`)."""
    role = str(message.get("role") or "unknown")
    parts = [content_text(message.get("content"), attachments, tokens)]
    for call in _as_list(message.get("tool_calls")):
        if isinstance(call, dict):
            arguments = call.get("arguments")
            rendered = json.dumps(resolve_deep(arguments, attachments), ensure_ascii=False)
            parts.append(f"[tool call] {call.get('function', '?')}({rendered})")
    if role == "tool" and message.get("function"):
        parts.insert(0, f"[tool result: {message['function']}]")
    error = message.get("error")
    if isinstance(error, dict) and error.get("message"):
        parts.append(f"[tool error] {error['message']}")
    by_id = {} if calls_by_id is None else calls_by_id
    blocks, calls = message_blocks(message, attachments, by_id, tokens)
    return Message(
        role=role, content="\n".join(p for p in parts if p), blocks=tuple(blocks), calls=calls
    )


def content_text(
    content: Any, attachments: Mapping[str, Any], tokens: TurnTokens | None = None
) -> str:
    """A message's content: a string, or a list of content blocks (text, reasoning, media...);
    `tokens` are named on a redacted reasoning block."""
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
            parts.append(_reasoning_text(block, attachments, tokens))
        else:
            parts.append(f"[{block.get('type') or 'content'}]")
    return "\n".join(p for p in parts if p)


def _reasoning_text(
    block: Mapping[str, Any], attachments: Mapping[str, Any], tokens: TurnTokens | None
) -> str:
    text = resolve(block.get("reasoning"), attachments)
    if block.get("redacted") or not (isinstance(text, str) and text.strip()):
        # A redacted block's `reasoning` is an encrypted blob: its summary is the readable part.
        text = resolve(block.get("summary"), attachments)
    head = "[reasoning]"
    if block.get("redacted"):
        head = f"[reasoning, redacted: {reasoning_tokens_words(tokens)}]"
    if isinstance(text, str) and text.strip():
        return f"{head} {text}"
    return head if block.get("redacted") else "[reasoning] (not recorded)"


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


def _as_list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _short(value: Any) -> str:
    return as_text(value)[:MAX_METADATA_CHARS]
