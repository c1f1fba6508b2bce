"""One HELM prediction -> the transcript drill-down shows: the request's prompt and messages
(`display_requests.json`), the instance's input and references (`instances.json`), the output.

The side files are read whole once (up to MAX_SIDE_FILE_BYTES); an entry missing from them
only leaves its part of the transcript empty.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from evaltui.core.errors import InputError
from evaltui.core.read.formats.fields import dotted
from evaltui.core.read.formats.helm_stats import MAX_METADATA_CHARS, Prediction
from evaltui.core.read.formats.jsontext import as_text, describe, read_json_file, shorten
from evaltui.core.read.formats.native import content_text
from evaltui.core.read.runs import Message, Transcript

MAX_SIDE_FILE_BYTES = 1 << 30  # requests/instances files larger than this are not read


def side_list(side_path: Path) -> list[Any]:
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


def side_key(entry: Any) -> tuple[str, str | None] | None:
    if not isinstance(entry, dict) or entry.get("instance_id") is None:
        return None
    perturbation = entry.get("perturbation")
    name = perturbation.get("name") if isinstance(perturbation, dict) else None
    return str(entry["instance_id"]), name


def prediction_transcript(prediction: Prediction, request: Any, instance: Any) -> Transcript:
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
