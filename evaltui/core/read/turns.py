"""The parts of one message of an agent transcript, kept apart so they can be drawn apart.

A format that knows the structure of its messages (Inspect: reasoning blocks, tool calls, tool
results and errors, images) gives each `Message` its `blocks`; a format that does not gives
only the flat `content`, which is then one text block. The item view, the headless `show`
command and the alignment of two trajectories read blocks, never the raw JSON, so an encrypted
reasoning blob or a 1 MB image is named, never dumped.

Every `text` here is untrusted run text, stored as written; whoever draws it makes it inert.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Literal

BlockKind = Literal[
    "text",  # what the role said
    "reasoning",  # readable reasoning (folded by default: long, and not the answer)
    "redacted",  # encrypted reasoning: `text` its summary ("" if none), `size` the blob's length,
    # `tokens` the reasoning tokens of the generation that wrote the turn (or why not known)
    "tool_call",  # a call the assistant made: `name` the function, `text` its arguments (JSON)
    "tool_result",  # what a tool returned: `name` the function
    "tool_error",  # a tool call that failed: `name` the function, `text` the error
    "media",  # an image, audio, video, document: `name` its type, `size` its bytes (0: unknown)
]


@dataclass(frozen=True)
class Block:
    """One part of a message, of one kind."""

    kind: BlockKind
    text: str
    name: str = ""
    size: int = 0
    tokens: int | str | None = None
    """Redacted reasoning: the reasoning tokens its turn's generation used (the count is the
    turn's, shared by all its reasoning blocks), or the words saying why they are not known
    (`token count not recorded`...); None on every other block."""


def reasoning_tokens_words(tokens: int | str | None) -> str:
    """A redacted block's `tokens` in words: `120 reasoning tokens`, or why not known."""
    if isinstance(tokens, int):
        return f"{tokens:,} reasoning token{'' if tokens == 1 else 's'}"
    return tokens or "token count not recorded"


def call_signature(function: str, arguments: Any) -> str:
    """A tool call as one comparable string: its function and its arguments, keys sorted, so
    the same call made by both runs aligns whatever order the model wrote the keys in."""
    try:
        args = json.dumps(arguments, sort_keys=True, ensure_ascii=False, default=str)
    except (TypeError, ValueError):
        args = str(arguments)
    return f"{function}({args})"


def pretty_arguments(arguments: Any) -> str:
    """A call's arguments laid out one per line (pretty JSON); a string stays a string."""
    if isinstance(arguments, str):
        return arguments
    try:
        return json.dumps(arguments, indent=2, ensure_ascii=False, default=str)
    except (TypeError, ValueError):
        return str(arguments)


def media_size(data: Any) -> int:
    """The size in bytes of a base64 `data:` URI's payload (0 for a URL or anything else)."""
    if not isinstance(data, str) or not data.startswith("data:") or "," not in data:
        return 0
    header, payload = data.split(",", 1)
    if not header.endswith(";base64"):
        return len(payload)
    payload = payload.strip()
    return max(len(payload) * 3 // 4 - payload[-2:].count("="), 0)


def media_type(kind: str, data: Any) -> str:
    """`image/png` from a data URI's header, else the block's kind (`image`, `audio`...)."""
    if isinstance(data, str) and data.startswith("data:") and ";" in data:
        return data[5 : data.index(";")] or kind
    return kind


@dataclass(frozen=True)
class ScorerVerdict:
    """One scorer's verdict on a sample, as the log records it (every scorer, not only the
    one compared): its value in words, the answer it extracted and its explanation."""

    name: str
    value: str
    answer: str | None = None
    explanation: str | None = None


@dataclass(frozen=True)
class SampleCost:
    """What one sample cost and what stopped it, as the log records them (None: not recorded).

    Tokens are summed over the sample's models; `retries` counts the attempts that errored and
    were run again; `limit` names the limit that stopped the sample and its value."""

    input_tokens: int | None = None
    output_tokens: int | None = None
    reasoning_tokens: int | None = None
    total_tokens: int | None = None
    total_time: float | None = None
    working_time: float | None = None
    retries: int = 0
    limit: str | None = None
    error: str | None = None

    @property
    def recorded(self) -> bool:
        return any(
            v is not None
            for v in (self.total_tokens, self.total_time, self.working_time, self.limit, self.error)
        ) or bool(self.retries)


# The statistics table's cost columns (`cost:<name>`): these numbers per sample, and `limit`
# (the type of the limit that stopped it, null if none). Read by `analysis.cost`.
NUMERIC_COSTS = (
    "input_tokens",
    "output_tokens",
    "reasoning_tokens",
    "total_tokens",
    "total_time",
    "working_time",
    "retries",
)
COST_PREFIX = "cost:"
# The figures a policy's `max_cost_growth` gate can name (retries are counted, not compared).
COST_FIGURES = NUMERIC_COSTS[:-1]
# `--metric limit_hits`: each sample as a verdict, "not stopped by a limit" passing (the column
# `passed:no_limit_hit`), so the headline is the paired test on hit/not-hit per item (exact
# McNemar when each item's epochs agree), as for any pass/fail metric.
LIMIT_HITS = "limit_hits"
LIMIT_VERDICT = "passed:no_limit_hit"
# Every per-sample cost `--metric` can choose: the numbers (retries too, compared as a graded
# loss per item) and the limit hits.
METRIC_COSTS = (*NUMERIC_COSTS, LIMIT_HITS)


def cost_metric(requested: str | None) -> str | None:
    """The per-sample cost a `--metric` names (`working_time`, `retries`, `limit_hits`...),
    else None."""
    return requested if requested in METRIC_COSTS else None


def cost_column(name: str) -> str:
    return COST_PREFIX + name
