"""One promptfoo result -> the transcript drill-down shows: the rendered prompt (and its
messages), the output, the assertions and the grader's reason, as literal text.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from evaltui.core.read.formats.fields import dotted
from evaltui.core.read.formats.jsontext import as_text, loads, object_at, shorten
from evaltui.core.read.formats.native import content_text
from evaltui.core.read.runs import Message, Transcript

MAX_METADATA_CHARS = 2000


def result_transcript(result: Mapping[str, Any], record: str) -> Transcript:
    prompt = result.get("prompt")
    raw = prompt.get("raw") if isinstance(prompt, dict) else prompt
    response = object_at(result, "response")
    grading = object_at(result, "gradingResult")
    test_case = object_at(result, "testCase")
    output = response.get("output")
    explanation = grading.get("reason")
    error = result.get("error") or response.get("error")
    if result.get("_status") == "error" and error:
        explanation = as_text(error)
    metadata: dict[str, str] = {"record": record}
    description = test_case.get("description", result.get("description"))
    if description:
        metadata["description"] = as_text(description)
    variables = test_case.get("vars", result.get("vars"))
    if isinstance(variables, dict):
        for name, value in variables.items():
            metadata[dotted("var", name)] = _short(value)
    for key in ("testIdx", "promptIdx", "failureReason", "latencyMs", "cost", "score"):
        if result.get(key) is not None:
            metadata[key] = _short(result[key])
    if isinstance(result.get("namedScores"), dict):
        for name, value in result["namedScores"].items():
            metadata[dotted("namedScore", name)] = _short(value)
    if error:
        metadata["error"] = _short(error)
    return Transcript(
        input=None if raw is None else as_text(raw),
        output=None if output is None else as_text(output),
        target=_assertions_text(test_case.get("assert")),
        explanation=None if explanation is None else as_text(explanation),
        messages=_messages(raw),
        metadata=metadata,
    )


def _messages(raw: Any) -> tuple[Message, ...]:
    """A chat prompt is rendered by promptfoo as a JSON list of {role, content}."""
    if not isinstance(raw, str) or not raw.lstrip().startswith("["):
        return ()
    try:
        value = loads(raw)  # a prompt holding a duplicate key is shown as written
    except (ValueError, RecursionError):
        return ()
    if not isinstance(value, list) or not all(isinstance(m, dict) and "role" in m for m in value):
        return ()
    return tuple(
        Message(role=as_text(m.get("role")), content=content_text(m.get("content"))) for m in value
    )


def _assertions_text(assertions: Any) -> str | None:
    """What the test expected: one line per assertion, `type: value`."""
    if not isinstance(assertions, list) or not assertions:
        return None
    lines = []
    for assertion in assertions:
        if not isinstance(assertion, dict):
            lines.append(as_text(assertion))
            continue
        kind = as_text(assertion.get("type", "?"))
        value = assertion.get("value")
        lines.append(kind if value is None else f"{kind}: {as_text(value)}")
    return "\n".join(lines)


def _short(value: Any) -> str:
    return shorten(as_text(value), MAX_METADATA_CHARS)
