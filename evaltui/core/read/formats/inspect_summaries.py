"""Inspect sample summaries -> `SampleFacts`, a batch at a time, column-wise.

`inspect_common.sample_facts` checks one summary and keeps what the statistics need; run once
per sample of a 200,000-sample log, its Python (a dozen dict reads, type checks and calls per
sample) was the largest part of opening it. Here a batch of decoded summaries (`json_array`)
is read as columns: each field pulled out of every summary by C loops (`map(dict.get, ...)`),
each column's types checked at once (`set(map(type, column))`), the ids' and epochs' range by
`min`/`max`, the inputs' digests by a chain of C calls, the facts built by `map`.

Only the common shape is read this way: every summary an object, every id an integer in range
(or every id a non-empty string with no NUL or surrogate), every epoch an integer in range, no
error. When any of these columns holds anything else, the
whole batch goes through `sample_facts` one summary at a time, which makes every check in its
words and refuses the first bad summary, as before. Within that shape, the inputs' digests and
the costs are read column-wise when they are strings and one model's integer counts, float
times, integer retries and no limit; otherwise with `input_digest` and `cost_values` per
summary (neither refuses anything: a chat input, two models, a limit stay in the batch). The
facts are equal either way (`tests/core/read/test_eval_fast_open.py` compares them on
summaries of every shape).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from functools import partial
from hashlib import sha256
from itertools import repeat
from operator import itemgetter, methodcaller
from typing import Any

from evaltui.core.read.formats.fields import INT_MAX, INT_MIN, text_problem
from evaltui.core.read.formats.inspect_common import (
    INPUT_DIGEST_CHARS,
    TOKEN_KEYS,
    CostValues,
    SampleFacts,
    cost_values,
    input_digest,
    shared_scores,
)

NONE = type(None)
_NOTHING: frozenset[type] = frozenset({NONE})
_COUNTS: frozenset[type] = frozenset({int, NONE})  # token counts as `cost_values` sums them
_TIMES: frozenset[type] = frozenset({float, NONE})  # seconds as `cost_values` keeps them


def columnwise_facts(
    records: Sequence[str],
    summaries: Sequence[Any],
    members: Mapping[tuple[str, int], str],
    shared: dict[Any, Any],
) -> list[SampleFacts] | None:
    """`sample_facts(path, summary, record, members, shared)` of each summary, in order, or
    None when any summary is not of the common shape (see the module): the caller then reads
    the batch one summary at a time, which refuses a bad one in its words. Never raises."""
    found = columnwise_facts_and_members(records, summaries, members, shared)
    return None if found is None else found[0]


def columnwise_facts_and_members(
    records: Sequence[str],
    summaries: Sequence[Any],
    members: Mapping[tuple[str, int], str],
    shared: dict[Any, Any],
) -> tuple[list[SampleFacts], list[str | None]] | None:
    """`columnwise_facts`, with each summary's sample member (`members` of its (id, epoch),
    None when it has none), which the reader needs next: looked up once, not twice."""
    return _columnwise(records, summaries, members, shared) if summaries else ([], [])


def _column(summaries: Sequence[dict[str, Any]], key: str) -> list[Any]:
    return list(map(dict.get, summaries, repeat(key)))


def _types(column: Sequence[Any]) -> set[type]:
    return set(map(type, column))


def _columnwise(
    records: Sequence[str],
    summaries: Sequence[Any],
    members: Mapping[tuple[str, int], str],
    shared: dict[Any, Any],
) -> tuple[list[SampleFacts], list[str | None]] | None:
    """The facts and their members, or None when a column is not of the common shape (see
    the module)."""
    if _types(summaries) != {dict}:
        return None
    ids = _column(summaries, "id")
    epochs = _column(summaries, "epoch")
    if not _clean_ids(ids):
        return None
    if _types(epochs) != {int} or not 1 <= min(epochs) <= max(epochs) <= INT_MAX:
        return None
    errors = _column(summaries, "error")
    if not _types(errors) <= {str, NONE} or any(errors):  # no error: absent, null or ""
        return None  # (an error's words: `error_message`, one at a time)
    inputs = _column(summaries, "input")
    costs = _costs(summaries)
    if costs is None:
        return None
    keys = list(zip(map(str, ids), epochs, strict=True))
    found = list(map(members.get, keys))
    named = [r if m is None else f"{m} via {r}" for m, r in zip(found, records, strict=True)]
    digests: Iterable[str | None]
    if _types(inputs) == {str}:  # `input_digest` of a string, in C
        digests = map(
            methodcaller("hexdigest"),
            map(
                sha256,
                map(
                    methodcaller("encode", "utf-8", "surrogatepass"),
                    map(itemgetter(slice(None, INPUT_DIGEST_CHARS)), inputs),
                ),
            ),
        )
    else:  # chat messages (or nothing): each input's own digest (`input_digest` never raises)
        digests = map(input_digest, inputs)
    scores = shared_column(_column(summaries, "scores"), shared)
    columns = (map(itemgetter(0), keys), epochs, scores, [None] * len(keys), named, digests, costs)
    return list(map(_FACTS, zip(*columns, strict=True))), found  # SampleFacts(*values), in C


_FACTS = partial(tuple.__new__, SampleFacts)


def shared_column(column: list[Any], shared: dict[Any, Any]) -> list[Any]:
    """`shared_scores(scores, shared)` of each scores value in `column`, the same objects: by
    columns when every one is an object naming the same scorers in the same order, each score
    an object whose value is a word or a boolean (nearly every log), so that only each distinct
    tuple of values costs a Python step; otherwise one at a time. A step per sample was a tenth
    of reading a 200,000-sample log's summaries."""
    if column and _types(column) == {dict}:
        names = set(map(tuple, column))
        order = next(iter(names))
        if len(names) == 1 and order:
            values: list[list[Any]] = []
            for name in order:
                scores = _column(column, name)
                if _types(scores) != {dict}:
                    break
                found = _column(scores, "value")  # absent: None, which is neither type
                if not _types(found) <= _WORD_OR_BOOL:
                    break
                values.append(found)
            else:
                keys = list(zip(*values, strict=True))
                made: dict[tuple[Any, ...], Any] = {}
                for key in dict.fromkeys(keys):  # `shared_scores`' own key and dict
                    frozen = tuple(zip(order, key, strict=True))
                    found_dict = shared.get(frozen)
                    if found_dict is None:
                        found_dict = shared[frozen] = {n: {"value": v} for n, v in frozen}
                    made[key] = found_dict
                return list(map(made.__getitem__, keys))
    return list(map(shared_scores, column, repeat(shared)))


_WORD_OR_BOOL: frozenset[type] = frozenset({str, bool})


def _clean_ids(ids: list[Any]) -> bool:
    """Whether `id_problem` finds nothing in any id: all integers in range, or all non-empty
    strings with no NUL or surrogate (`text_problem` of them joined by a line break, which is
    neither and cannot pair with one)."""
    kinds = _types(ids)
    if kinds == {int}:
        return INT_MIN <= min(ids) <= max(ids) <= INT_MAX
    return kinds == {str} and "" not in ids and text_problem("\n".join(ids)) is None


def _costs(summaries: Sequence[dict[str, Any]]) -> list[CostValues | None] | None:
    """`cost_values(summary, with_error=False)` of each: column-wise when every summary has
    one model's usage (an object of integer counts), times as floats or none, retries as
    integers or none, no `error_retries` and no limit; otherwise one summary at a time (None
    when that raises: a count `int` refuses, which the one-at-a-time read raises in its place)."""
    costs = _costs_columnwise(summaries)
    if costs is not None:
        return costs
    try:
        return [cost_values(summary, with_error=False) for summary in summaries]
    except (ValueError, OverflowError):  # int() of a NaN or an infinity read as a count
        return None


def _costs_columnwise(summaries: Sequence[dict[str, Any]]) -> list[CostValues | None] | None:
    """`_costs` of the common shape, or None."""
    if not _types(_column(summaries, "error_retries")) <= _NOTHING:
        return None
    if not _types(_column(summaries, "limit")) <= _NOTHING:
        return None
    usages = _column(summaries, "model_usage")
    if _types(usages) != {dict} or set(map(len, usages)) != {1}:
        return None
    models = list(map(next, map(iter, map(dict.values, usages))))
    if _types(models) != {dict}:
        return None
    counts = []
    for key in TOKEN_KEYS:  # absent, null: no count; an integer: itself (`int` of an int)
        column = _column(models, key)
        if not _types(column) <= _COUNTS:
            return None
        counts.append(column)
    total_time = _column(summaries, "total_time")
    working_time = _column(summaries, "working_time")
    if not _types(total_time) <= _TIMES or not _types(working_time) <= _TIMES:
        return None
    retries = _column(summaries, "retries")
    if not _types(retries) <= {int, NONE}:
        return None
    if None in retries:
        retries = [0 if r is None else r for r in retries]
    rows: list[CostValues | None] = list(
        zip(*counts, total_time, working_time, retries, repeat(None), repeat(None))
    )
    if None in total_time:  # (a sample with a time records a cost: nearly every one)
        recorded = map(_recorded, counts[3], total_time, working_time, retries)
        rows = [row if keep else None for row, keep in zip(rows, recorded, strict=True)]
    return rows


def _recorded(total_tokens: Any, total_time: Any, working_time: Any, retries: int) -> bool:
    """`cost_values`'s test (limit and error are None here): does the sample record a cost?"""
    return not (total_tokens is None and total_time is None and working_time is None) or bool(
        retries
    )
