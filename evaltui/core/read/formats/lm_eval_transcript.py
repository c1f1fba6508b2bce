"""One lm-eval sample line -> the transcript drill-down shows, re-read by its byte offset.

The requests (`arguments`), the model's responses (raw and filtered, log-likelihoods as
numbers) and the target are kept as literal text; the document and the metric values go to the
metadata.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from typing import Any

import numpy as np

from evaltui.core.read.formats.fields import dotted
from evaltui.core.read.formats.jsontext import as_text
from evaltui.core.read.formats.lm_eval_records import metric_names
from evaltui.core.read.formats.lm_eval_results import MAX_METADATA_CHARS
from evaltui.core.read.runs import Transcript


class LineTable(Sequence[tuple[int, int, int]]):
    """(offset, length, line) per row, kept as three numpy arrays: 200,000 rows as Python
    tuples cost the first screen a quarter of a second of the GIL."""

    def __init__(self, offsets: np.ndarray, lengths: np.ndarray, numbers: np.ndarray) -> None:
        self._columns = (offsets, lengths, numbers)

    def __len__(self) -> int:
        return int(self._columns[0].shape[0])

    def __getitem__(self, row):
        offsets, lengths, numbers = self._columns
        return int(offsets[row]), int(lengths[row]), int(numbers[row])


def sample_transcript(record: dict[str, Any], number: int) -> Transcript:
    """Render one sample line (line `number`) for drill-down. Never raises on content."""
    requests = _requests(record.get("arguments"))
    metadata: dict[str, str] = {"line": str(number), "doc_id": str(record.get("doc_id"))}
    for key in ("filter", "doc_hash", "prompt_hash", "target_hash"):
        if record.get(key) is not None:
            metadata[key] = as_text(record[key])
    for name in metric_names(record):
        metadata[dotted("metric", name)] = as_text(record[name])
    if "doc" in record:
        metadata["doc"] = as_text(record["doc"])[:MAX_METADATA_CHARS]
    return Transcript(
        input=_input_text(requests),
        output=_output_text(record, requests),
        target=_target_text(record.get("target")),
        metadata=metadata,
    )


def sample_field(record: dict[str, Any], name: str) -> str | None:
    """One text field of `sample_transcript(record, ...)` without rendering the rest (the
    document, the metrics): the previews and the search index read one field of every
    regression, where the whole transcript cost the first screen its GIL."""
    if name == "input":
        return _input_text(_requests(record.get("arguments")))
    if name == "output":
        return _output_text(record, _requests(record.get("arguments")))
    if name == "target":
        return _target_text(record.get("target"))
    return None  # (explanation: lm-eval records none; Transcript's default)


def _input_text(requests: list[list[Any]]) -> str | None:
    prompt = requests[0][0] if requests and requests[0] else None
    return None if prompt is None else as_text(prompt)


def _output_text(record: dict[str, Any], requests: list[list[Any]]) -> str | None:
    responses = record.get("filtered_resps")
    if responses is None:
        responses = record.get("resps")
    return _render_responses(responses, requests)


def _requests(arguments: Any) -> list[list[Any]]:
    """The requests' arguments as lists: {"gen_args_0": {"arg_0": .., "arg_1": ..}} (lm-eval
    >= 0.4.3) or [[arg_0, arg_1], ...] (older)."""
    if isinstance(arguments, dict):
        found = []
        for _, request in sorted(arguments.items(), key=lambda kv: _suffix_number(kv[0])):
            if isinstance(request, dict):
                found.append(
                    [v for _, v in sorted(request.items(), key=lambda kv: _suffix_number(kv[0]))]
                )
            else:
                found.append([request])
        return found
    if isinstance(arguments, list):
        return [list(a) if isinstance(a, list | tuple) else [a] for a in arguments]
    if arguments is None:
        return []
    return [[arguments]]


@functools.lru_cache(maxsize=1024)
def _suffix_number(key: str) -> int:
    """The number a request key ends with (`gen_args_12`: 12), else 0. Kept per key: a
    run's few keys (`gen_args_0`, `arg_0`, `arg_1`...) come back on every line, and the
    previews read 2,000 lines at a time (half of their GIL was this regular expression)."""
    match = _SUFFIX.search(key)
    return int(match.group(1)) if match else 0


_SUFFIX = re.compile(r"(\d+)$")


def _render_responses(responses: Any, requests: list[list[Any]]) -> str | None:
    """Generation: the text(s). Loglikelihood (one [logprob, is_greedy] per choice): one line
    per choice with its continuation and log-likelihood, the most likely marked with '*'."""
    if responses is None:
        return None
    if not isinstance(responses, list):
        return as_text(responses)
    if responses and all(isinstance(r, str) for r in responses):
        return "\n".join(responses)
    pairs = [_loglikelihood(r) for r in responses]
    if responses and all(p is not None for p in pairs):
        best = max(range(len(pairs)), key=lambda i: pairs[i][0])  # type: ignore[index]
        lines = []
        for i, pair in enumerate(pairs):
            assert pair is not None
            logprob, greedy = pair
            continuation = (
                as_text(requests[i][1]) if i < len(requests) and len(requests[i]) > 1 else f"#{i}"
            )
            marker = "*" if i == best else " "
            extra = ", greedy" if greedy else ""
            lines.append(f"{marker} [{i}] {continuation!r}  loglikelihood {logprob:g}{extra}")
        return "\n".join(lines)
    return as_text(responses)


def _loglikelihood(response: Any) -> tuple[float, bool] | None:
    # filtered_resps holds [logprob, is_greedy]; resps wraps it once more: [[logprob, is_greedy]]
    if isinstance(response, list) and len(response) == 1 and isinstance(response[0], list):
        response = response[0]
    if not (isinstance(response, list) and len(response) == 2):
        return None
    try:
        logprob = float(response[0])
    except (TypeError, ValueError):
        return None
    greedy = response[1]
    return logprob, greedy is True or greedy == "True"


def _target_text(target: Any) -> str | None:
    if target is None:
        return None
    if isinstance(target, list):
        return "\n".join(as_text(t) for t in target)
    return as_text(target)
