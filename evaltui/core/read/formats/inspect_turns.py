"""An Inspect sample's structure: each message's blocks, every scorer's verdict, the cost.

Inspect records reasoning (readable or redacted with a summary), tool calls with their
arguments, tool results and tool errors, images and other media, per-sample token usage, time,
working time, retried errors and the limit that stopped a sample. These are read here so the
item view and `evaltui show` draw them as what they are; `inspect_transcript` keeps the flat
text every other reader (search, diff) uses.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from evaltui.core.read.formats.inspect_common import (
    MAX_METADATA_CHARS,
    cost_values,
)
from evaltui.core.read.formats.inspect_generations import NOT_RECORDED
from evaltui.core.read.formats.jsontext import as_text
from evaltui.core.read.turns import (
    Block,
    SampleCost,
    ScorerVerdict,
    call_signature,
    media_size,
    media_type,
    pretty_arguments,
)

ATTACHMENT_PROTOCOL = "attachment://"
LEGACY_CONTENT_PROTOCOL = "tc://"  # older logs; Inspect migrates it to attachment:// on read


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


def resolve_deep(value: Any, attachments: Mapping[str, Any]) -> Any:
    """`resolve` through lists and dicts (a tool call's arguments)."""
    if isinstance(value, str):
        return resolve(value, attachments)
    if isinstance(value, list):
        return [resolve_deep(v, attachments) for v in value]
    if isinstance(value, dict):
        return {k: resolve_deep(v, attachments) for k, v in value.items()}
    return value


MEDIA_KINDS = ("image", "audio", "video", "document", "data", "file")


def content_blocks(
    content: Any, attachments: Mapping[str, Any], tokens: int | str | None = None
) -> list[Block]:
    """A message's content as blocks: a string is one text block; a list is one block per
    part (text, reasoning, media), an unknown part named by its type. `tokens`: the reasoning
    tokens of the generation that wrote the message, given to its redacted blocks."""
    if content is None or content == "":
        return []
    if isinstance(content, str):
        return [Block("text", as_text(resolve(content, attachments)))]
    if not isinstance(content, list):
        return [Block("text", as_text(content))]
    out: list[Block] = []
    for part in content:
        if isinstance(part, str):
            out.append(Block("text", as_text(resolve(part, attachments))))
        elif not isinstance(part, dict):
            out.append(Block("text", as_text(part)))
        elif part.get("type") == "text":
            out.append(Block("text", as_text(resolve(part.get("text", ""), attachments))))
        elif part.get("type") == "reasoning":
            out.append(_reasoning(part, attachments, tokens))
        else:
            kind = str(part.get("type") or "content")
            data = resolve(part.get(kind), attachments) if kind in MEDIA_KINDS else None
            out.append(Block("media", "", name=media_type(kind, data), size=media_size(data)))
    return out


def _reasoning(
    part: Mapping[str, Any], attachments: Mapping[str, Any], tokens: int | str | None
) -> Block:
    """Readable reasoning as it is; redacted reasoning as its summary, the size of what was
    withheld (the encrypted blob itself is never kept) and its turn's reasoning tokens."""
    reasoning = resolve(part.get("reasoning"), attachments)
    summary = resolve(part.get("summary"), attachments)
    summary_text = as_text(summary) if isinstance(summary, str) else ""
    if part.get("redacted"):
        size = len(reasoning) if isinstance(reasoning, str) else 0
        known = tokens if tokens is not None else NOT_RECORDED
        return Block("redacted", summary_text, size=size, tokens=known)
    if isinstance(reasoning, str) and reasoning.strip():
        return Block("reasoning", as_text(reasoning))
    return Block("reasoning", summary_text)


def message_blocks(
    message: Mapping[str, Any],
    attachments: Mapping[str, Any],
    calls_by_id: dict[str, str],
    tokens: int | str | None = None,
) -> tuple[list[Block], tuple[str, ...]]:
    """A message's blocks and its call signatures: the calls an assistant makes (remembered in
    `calls_by_id`), or for a tool message the call it answers, so the result aligns with it.
    `tokens`: the reasoning tokens of the generation that wrote it (`inspect_generations`)."""
    role = str(message.get("role") or "")
    blocks = content_blocks(message.get("content"), attachments, tokens)
    calls: list[str] = []
    if role == "tool":
        function = as_text(message.get("function") or "tool")
        error = message.get("error")
        results = [
            b if b.kind != "text" else Block("tool_result", b.text, function) for b in blocks
        ]
        if isinstance(error, dict) and (error.get("message") or error.get("type")):
            text = as_text(error.get("message") or error.get("type"))
            results = [b for b in results if b.kind != "tool_result" or b.text.strip()]
            results.append(Block("tool_error", text, function))
        elif not results:
            results = [Block("tool_result", "", function)]
        blocks = results
        call_id = message.get("tool_call_id")
        calls.append(calls_by_id.get(str(call_id), function) if call_id else function)
    for call in message.get("tool_calls") or []:
        if not isinstance(call, dict):
            continue
        function = as_text(call.get("function") or "?")
        arguments = resolve_deep(call.get("arguments"), attachments)
        signature = call_signature(function, arguments)
        calls.append(signature)
        if call.get("id") is not None:
            calls_by_id[str(call["id"])] = signature
        blocks.append(Block("tool_call", pretty_arguments(arguments), function))
    return blocks, tuple(calls)


def sample_scorers(
    sample: Mapping[str, Any], attachments: Mapping[str, Any]
) -> list[ScorerVerdict]:
    """Every scorer's verdict on the sample, in the log's order."""
    scores = sample.get("scores")
    if not isinstance(scores, dict):
        return []
    out = []
    for name, score in scores.items():
        if not isinstance(score, dict):
            continue
        answer, explanation = score.get("answer"), score.get("explanation")
        out.append(
            ScorerVerdict(
                name=as_text(name),
                value=as_text(score.get("value"))[:MAX_METADATA_CHARS],
                answer=None if answer is None else as_text(resolve(answer, attachments)),
                explanation=None
                if explanation is None
                else as_text(resolve(explanation, attachments)),
            )
        )
    return out


def sample_cost(sample: Mapping[str, Any]) -> SampleCost | None:
    """Tokens (summed over the sample's models), time, working time, retries, the limit that
    stopped it and its error; None when the sample records none of them. A sample counts its
    retries as a list of errors (`error_retries`), a summary as a number (`retries`); a
    summary's limit is its type only."""
    values = cost_values(sample)
    return None if values is None else SampleCost(*values)
