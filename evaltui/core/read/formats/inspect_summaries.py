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

The same columns are read from `inspect_typed`'s Structs (`typed_facts_and_members`: each field
by `attrgetter`, an absent one None as `dict.get` gives it), for a batch whose decode into
Structs was proved exact; a Struct batch that any column would read one summary at a time is
handed back instead, and decoded as dicts (`tests/core/read/test_inspect_typed.py`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from functools import partial
from hashlib import sha256
from itertools import repeat
from operator import attrgetter, itemgetter, methodcaller
from typing import Any, NamedTuple

from evaltui.core.read.formats.fields import INT_MAX, INT_MIN, text_problem
from evaltui.core.read.formats.inspect_chunked import SHELL
from evaltui.core.read.formats.inspect_common import (
    INPUT_DIGEST_CHARS,
    TOKEN_KEYS,
    CostValues,
    SampleFacts,
    cost_values,
    input_digest,
    shared_scores,
)
from evaltui.core.read.formats.inspect_typed import Score, Summary, Usage
from evaltui.core.read.formats.json_array import Numbered
from evaltui.core.read.zip_directory import Members, ZipEntry

NONE = type(None)
Columns = tuple[list[SampleFacts], list[str | None]]  # a batch's facts and sample members
SAMPLE_NAME = "samples/{}_epoch_{}.json".format  # the member Inspect writes for (id, epoch)


class NamesByKey:
    """A log's sample members found by building each (id, epoch)'s name as Inspect writes it
    (`samples/{id}_epoch_{epoch}.json`) and finding it in the archive's listing, where
    splitting every listed name (`inspect_eval._sample_members`) and looking up tuple keys
    took a tenth of a 200,000-sample log's open. Inspect lists the members in the order of
    the summaries, so a batch's names are first compared with the listing's next names at
    once (one string comparison when the batch has one epoch); otherwise each is looked up.
    It gives what the split names give only when the names under `samples/` are exactly the
    names built for the summaries' keys: `inspect_eval` checks that (their count, and the
    keys found) and reads the log again the other way when it does not hold (see
    `_eager_pass` there)."""

    __slots__ = ("_names", "_index", "_next")

    def __init__(self, names: Sequence[str], index: Mapping[str, int]) -> None:
        self._names = names  # the archive's names, in its order
        self._index = index  # each name's place in `names`
        self._next = 0  # where the last batch's names ended in `names`

    def found(self, ids: list[str], epochs: list[int]) -> list[str] | None:
        """Each (id, epoch)'s member name (ids without a line break), or None when any is not
        listed."""
        count = len(ids)
        if not count:
            return []
        first = SAMPLE_NAME(ids[0], epochs[0])
        at = self._next
        if self._names[at : at + 1] != [first]:
            at = self._index.get(first, -1)
        if at >= 0:
            window = list(self._names[at : at + count])
            if len(window) == count and self._listed_so(window, ids, epochs):
                self._next = at + count
                return window
        names = list(map(SAMPLE_NAME, ids, epochs))
        return names if all(map(self._index.__contains__, names)) else None

    @staticmethod
    def _listed_so(window: list[str], ids: list[str], epochs: list[int]) -> bool:
        """Whether `window` holds the names of (ids, epochs), in order. With one epoch, the
        names joined by line breaks against the ids joined between the name's two ends: equal
        only if every name is its id's, as no listed name holds a line break (so the ids hold
        none either: the two strings hold as many)."""
        epoch = epochs[0]
        if epochs.count(epoch) != len(epochs):
            return window == list(map(SAMPLE_NAME, ids, epochs))
        tail = f"_epoch_{epoch}.json"
        built = "samples/" + (tail + "\nsamples/").join(ids) + tail
        return "\n".join(window) == built


SampleMembers = Mapping[tuple[str, int], str] | NamesByKey  # what `_columnwise` looks up in
SAMPLE_MEMBER = re.compile(r"^samples/(?P<id>.+)_epoch_(?P<epoch>\d+)\.json$")


def names_by_key(
    members: Mapping[str, ZipEntry], summaries: Collection[tuple[str, Any]]
) -> NamesByKey | None:
    """`NamesByKey` of the archive when the log may be read by it (see `_eager_pass`): the
    consolidated summaries read in batches, as many as the names under `samples/`, and no
    name holding a line break (counted in C over the names joined)."""
    if not isinstance(summaries, Numbered) or not isinstance(members, Members):
        return None
    joined = "\n" + "\n".join(members)
    if joined.count("\n") != len(members) or joined.count("\nsamples/") != len(summaries):
        return None
    return NamesByKey(*members.listing())


def split_member_names(names: Iterable[str]) -> dict[tuple[str, int], str]:
    """The sample members (`samples/{id}_epoch_{n}.json`, or a chunked sample's shell) by
    (id, epoch). A plain member's name is split with string methods, as the pattern splits it
    (the id up to the last `_epoch_`, the epoch's decimal digits): the two patterns tried on
    each of a large log's 200,000 names were a twentieth of its open. Any other name (a shell,
    a line break, no digits) is matched by the patterns as before."""
    found: dict[tuple[str, int], str] = {}
    for name in names:
        if name[:8] != "samples/":
            continue  # neither pattern matches a name outside samples/
        if name[-5:] == ".json" and "\n" not in name:
            item_id, cut, epoch = name[8:-5].rpartition("_epoch_")
            if cut and item_id and epoch.isdecimal():
                found[(item_id, int(epoch))] = name
                continue
        if (m := SAMPLE_MEMBER.match(name) or SHELL.match(name)) is not None:
            found[(m["id"], int(m["epoch"]))] = name
    return found


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
) -> Columns | None:
    """`columnwise_facts`, with each summary's sample member (`members` of its (id, epoch),
    None when it has none), which the reader needs next: looked up once, not twice."""
    return _columnwise(records, summaries, members, shared, _DICTS) if summaries else ([], [])


def typed_facts_and_members(
    records: Sequence[str],
    summaries: Sequence[Summary],
    members: SampleMembers,
    shared: dict[Any, Any],
) -> Columns | None:
    """`columnwise_facts_and_members` of the summaries `inspect_typed.decode_batch` decoded
    (Structs whose attributes are the dicts' `get`, see there), or None when the batch is not
    of the common shape, reads a column one summary at a time (a scores value or a cost
    `sample_facts` would read from a dict), or has a summary without a sample member (its row
    keeps the summary as a dict): the caller then decodes the batch as dicts. `shared` gains
    nothing when it returns None."""
    if not summaries:
        return [], []
    return _columnwise(records, summaries, members, shared, _STRUCTS)


class _Shape(NamedTuple):
    """How a batch's summaries hold their fields: dicts (`dict.get`) or `inspect_typed`'s
    Structs (`attrgetter`, an absent field None as `dict.get` gives it)."""

    column: Callable[[Sequence[Any], str], list[Any]]
    summary: type
    score: type
    usage: type
    one_at_a_time: bool  # whether a column may fall back to a per-summary read (dicts only)
    every_member: bool  # whether every summary must have its sample member


def _column(summaries: Sequence[dict[str, Any]], key: str) -> list[Any]:
    return list(map(dict.get, summaries, repeat(key)))


def _attributes(summaries: Sequence[Any], key: str) -> list[Any]:
    return list(map(attrgetter(key), summaries))


_DICTS = _Shape(_column, dict, dict, dict, one_at_a_time=True, every_member=False)
_STRUCTS = _Shape(_attributes, Summary, Score, Usage, one_at_a_time=False, every_member=True)


def _types(column: Sequence[Any]) -> set[type]:
    return set(map(type, column))


def _columnwise(
    records: Sequence[str],
    summaries: Sequence[Any],
    members: SampleMembers,
    shared: dict[Any, Any],
    shape: _Shape,
) -> Columns | None:
    """The facts and their members, or None when a column is not of the common shape (see
    the module)."""
    column = shape.column
    if _types(summaries) != {shape.summary}:
        return None
    ids = column(summaries, "id")
    epochs = column(summaries, "epoch")
    if not _clean_ids(ids):
        return None
    if _types(epochs) != {int} or not 1 <= min(epochs) <= max(epochs) <= INT_MAX:
        return None
    errors = column(summaries, "error")
    if not _types(errors) <= {str, NONE} or any(errors):  # no error: absent, null or ""
        return None  # (an error's words: `error_message`, one at a time)
    inputs = column(summaries, "input")
    costs = _costs(summaries, shape)
    if costs is None:
        return None
    item_ids = list(map(str, ids))
    found: list[str | None]
    if isinstance(members, NamesByKey):  # (only for Structs: every sample has its member)
        built = members.found(item_ids, epochs)
        if built is None:
            return None
        found = list(built)
    else:
        found = list(map(members.get, zip(item_ids, epochs, strict=True)))
    if shape.every_member and None in found:
        return None
    scores = shared_column(column(summaries, "scores"), shared, shape)
    if scores is None:
        return None
    named: list[str]
    if None in found:
        named = [r if m is None else f"{m} via {r}" for m, r in zip(found, records, strict=True)]
    else:  # every sample has its member (a finished log): named in C
        named = list(map("{} via {}".format, found, records))
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
    columns = (item_ids, epochs, scores, [None] * len(item_ids), named, digests, costs)
    return list(map(_FACTS, zip(*columns, strict=True))), found  # SampleFacts(*values), in C


_FACTS = partial(tuple.__new__, SampleFacts)


def shared_column(column: list[Any], shared: dict[Any, Any], shape: _Shape = _DICTS) -> Any:
    """`shared_scores(scores, shared)` of each scores value in `column`, the same objects: by
    columns when every one is an object naming the same scorers in the same order, each score
    an object whose value is a word or a boolean (nearly every log), so that only each distinct
    tuple of values costs a Python step; otherwise one at a time (dicts), or None (Structs,
    `shared` untouched). A step per sample was a tenth of reading a 200,000-sample log's
    summaries."""
    if column and _types(column) == {dict}:
        names = set(map(tuple, column))
        order = next(iter(names))
        if len(names) == 1 and order:
            values: list[list[Any]] = []
            for name in order:
                scores = _column(column, name)
                if _types(scores) != {shape.score}:
                    break
                found = shape.column(scores, "value")  # absent: None, neither type
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
    if not shape.one_at_a_time:
        return None
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


def _costs(summaries: Sequence[Any], shape: _Shape) -> list[CostValues | None] | None:
    """`cost_values(summary, with_error=False)` of each: column-wise when every summary has
    one model's usage (an object of integer counts), times as floats or none, retries as
    integers or none, no `error_retries` and no limit; otherwise one summary at a time (None
    when that raises: a count `int` refuses, which the one-at-a-time read raises in its place)."""
    costs = _costs_columnwise(summaries, shape)
    if costs is not None or not shape.one_at_a_time:
        return costs
    try:
        return [cost_values(summary, with_error=False) for summary in summaries]
    except (ValueError, OverflowError):  # int() of a NaN or an infinity read as a count
        return None


def _costs_columnwise(summaries: Sequence[Any], shape: _Shape) -> list[CostValues | None] | None:
    """`_costs` of the common shape, or None."""
    column = shape.column
    if shape.one_at_a_time and not _types(column(summaries, "error_retries")) <= _NOTHING:
        return None  # (a Struct has no such field: a summary holding one is not decoded so)
    if not _types(column(summaries, "limit")) <= _NOTHING:
        return None
    usages = column(summaries, "model_usage")
    if _types(usages) != {dict} or set(map(len, usages)) != {1}:
        return None
    models = list(map(next, map(iter, map(dict.values, usages))))
    if _types(models) != {shape.usage}:
        return None
    counts = []
    for key in TOKEN_KEYS:  # absent, null: no count; an integer: itself (`int` of an int)
        values = column(models, key)
        if not _types(values) <= _COUNTS:
            return None
        counts.append(values)
    total_time = column(summaries, "total_time")
    working_time = column(summaries, "working_time")
    if not _types(total_time) <= _TIMES or not _types(working_time) <= _TIMES:
        return None
    retries = column(summaries, "retries")
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
