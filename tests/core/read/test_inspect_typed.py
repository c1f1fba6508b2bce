"""Inspect summaries decoded into typed Structs read exactly what the dict path reads.

`inspect_typed.decode_batch` decodes a batch of summaries into Structs and proves the decode
exact by a round trip (re-encoded, byte for byte the batch's own, whitespace stripped); the
column-wise reader then takes the fields by attribute (`typed_facts_and_members`). These tests
hold both to the dict path they shortcut (`jsontext.loads`, `columnwise_facts_and_members`):
the same values, the same facts, the same shared scores, and no Struct for any batch the
checking decoder refuses or reads otherwise (a key twice, a field Inspect never wrote, a null,
another field order, a number written otherwise).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evaltui.core.errors import InputError
from evaltui.core.read.formats import inspect_eval, json_array, jsontext, load_run
from evaltui.core.read.formats.inspect_summaries import (
    columnwise_facts_and_members,
    typed_facts_and_members,
)
from evaltui.core.read.formats.inspect_typed import Score, Summary, Usage, decode_batch
from tests.conftest import examples
from tests.core.read.eval_members import with_member_changed

DATA = Path(__file__).resolve().parent.parent.parent / "data" / "inspect_ai"
GPT5 = DATA / "2025-09-15T15-04-34-04-00_popularity_CuCFPdqnwXupUkxp69nJ2a.eval"
REAL_LOGS = sorted(DATA.rglob("*.eval"))


def _ordered(value: dict, struct: type) -> dict:
    """`value`'s fields in the order Inspect declares them (the Struct's)."""
    return {k: value[k] for k in struct.__struct_fields__ if k in value}  # type: ignore[attr-defined]


def _in_inspects_order(summary: dict) -> dict:
    return _ordered(summary, Summary)


# A summary as Inspect writes it: its fields in `EvalSampleSummary`'s order, none null
_NUMBER = st.one_of(st.integers(-3, 300), st.floats(-3, 3, allow_nan=False), st.booleans())
_SCORE = st.fixed_dictionaries(
    {"value": st.one_of(st.sampled_from(["C", "I", "P", "N"]), st.booleans(), _NUMBER)},
    optional={"answer": st.text(max_size=3), "explanation": st.text(max_size=3)},
).map(lambda score: _ordered(score, Score))
_USAGE = st.fixed_dictionaries(
    {},
    optional={
        "input_tokens": st.one_of(st.integers(0, 9), _NUMBER),
        "output_tokens": st.integers(0, 9),
        "total_tokens": st.integers(0, 99),
        "input_tokens_cache_read": st.integers(0, 9),
        "reasoning_tokens": st.integers(0, 9),
    },
).map(lambda usage: _ordered(usage, Usage))
_SUMMARY = st.fixed_dictionaries(
    {
        "id": st.one_of(st.integers(-2, 4), st.sampled_from(["a", "b7", ""])),
        "epoch": st.one_of(st.integers(0, 3), st.just(1.0)),
        "input": st.one_of(st.text(max_size=4), st.just([{"role": "user", "content": "hi"}])),
        "target": st.sampled_from(["A", " No"]),
    },
    optional={
        "metadata": st.dictionaries(st.sampled_from(["k", "l"]), _NUMBER, max_size=2),
        "scores": st.one_of(
            st.dictionaries(st.sampled_from(["match", "judge"]), _SCORE, min_size=1, max_size=2),
            st.just({}),
        ),
        "model_usage": st.dictionaries(st.sampled_from(["m1", "m2"]), _USAGE, max_size=2),
        "total_time": st.one_of(st.floats(0, 9), st.integers(0, 9)),
        "working_time": st.floats(0, 9),
        "uuid": st.just("NzMc9bcwc97KVz3VwKMiz6"),
        "error": st.sampled_from(["", "boom"]),
        "limit": st.just({"type": "message", "limit": 3}),
        "retries": st.integers(0, 2),
        "completed": st.booleans(),
    },
).map(lambda s: _in_inspects_order(s))

# What other writers (or a hostile file) put in a summary, each a change to one summary's text
_CHANGES = st.sampled_from(
    [
        None,
        None,
        None,
        'key twice at the top: "epoch"',
        "key twice in a score",
        "key twice in the metadata",
        "a field Inspect never wrote",
        "a field written as null",
        "two fields swapped",
        "a number with an exponent",
        "an escaped letter",
        "a score that is no object",
    ]
)


def _text(summary: dict, change: str | None, spaced: bool) -> str:
    """One summary's JSON text, `change`d (see `_CHANGES`)."""
    text = json.dumps(
        summary, ensure_ascii=False, separators=(", ", ": ") if spaced else (",", ":")
    )
    body = text[1:-1]
    if change == 'key twice at the top: "epoch"':
        return "{" + body + ',"epoch":7}'
    if change == "key twice in a score" and summary.get("scores"):
        return text.replace('"value":', '"value":"I","value":', 1).replace(
            '"value": ', '"value": "I", "value": ', 1
        )
    if change == "key twice in the metadata" and summary.get("metadata"):
        key = next(iter(summary["metadata"]))
        return text.replace(f'"{key}":', f'"{key}":0,"{key}":', 1).replace(
            f'"{key}": ', f'"{key}": 0, "{key}": ', 1
        )
    if change == "a field Inspect never wrote":
        return "{" + body + ',"sandbox":"x"}'
    if change == "a field written as null":
        return "{" + body + ',"message_count":null}'
    separators = (", ", ": ") if spaced else (",", ":")
    if change == "two fields swapped":
        swapped = {"epoch": summary["epoch"], **summary}
        return json.dumps(swapped, ensure_ascii=False, separators=separators)
    if change == "a number with an exponent" and "total_time" not in summary:
        return "{" + body + ',"total_time":1E2}'
    if change == "an escaped letter":
        return json.dumps(
            {**summary, "target": "A"}, ensure_ascii=False, separators=separators
        ).replace('"A"', '"\\u0041"', 1)
    if change == "a score that is no object":
        return "{" + body.replace('"scores":', '"scores":{"m":"C"},"_":', 1) + "}"
    return text


def _batch(summaries: list[dict], changes: list[str | None], spaced: bool) -> bytes:
    joined = (", " if spaced else ",").join(
        _text(s, c, spaced) for s, c in zip(summaries, changes, strict=True)
    )
    return ("[" + joined + "]").encode("utf-8")


def _shared_alike(ours: list, theirs: list) -> bool:
    return [[a.scores is b.scores for b in ours] for a in ours] == [
        [a.scores is b.scores for b in theirs] for a in theirs
    ]


def _same_either_way(raw: bytes, members: dict) -> tuple[bool, bool]:
    """Hold the typed path to the dict path on the batch `raw`; (whether the Structs were
    proved exact, whether the facts came from them)."""
    try:
        expected_values = jsontext.loads(raw)
    except ValueError:  # the checking decoder refuses it: no Struct may stand for it
        assert decode_batch(raw) is None
        return False, False
    typed = decode_batch(raw)
    if typed is None:
        return False, False
    # the Structs hold exactly the value the checking decoder reads: each field as written,
    # in its order, `true` no `1`, `1.0` no `1`
    assert json.dumps(msgspec.to_builtins(typed)) == json.dumps(expected_values)
    records = [f"summaries.json[{i}]" for i in range(len(typed))]
    theirs_shared: dict = {}
    expected = columnwise_facts_and_members(records, expected_values, members, theirs_shared)
    ours_shared: dict = {}
    got = typed_facts_and_members(records, typed, members, ours_shared)
    if got is None:
        assert ours_shared == {}  # nothing kept from a batch handed back
        return True, False
    assert expected is not None  # the typed path reads column-wise only what the dicts would
    assert got == expected
    assert [type(f.cost) for f in got[0]] == [type(f.cost) for f in expected[0]]
    assert _shared_alike(got[0], expected[0])
    assert ours_shared == theirs_shared
    return True, True


def _members(summaries: list[dict]) -> dict:
    return {
        (str(s["id"]), s["epoch"]): f"samples/{s['id']}_epoch_{s['epoch']}.json"
        for s in summaries
        if isinstance(s.get("epoch"), int)
    }


@settings(max_examples=examples(400), deadline=None)
@given(
    st.lists(st.tuples(_SUMMARY, _CHANGES), min_size=1, max_size=5),
    st.booleans(),
    st.booleans(),
)
def test_typed_summaries_read_what_the_dict_path_reads_or_are_handed_back(
    pairs, spaced, with_members
):
    summaries = [s for s, _ in pairs]
    raw = _batch(summaries, [c for _, c in pairs], spaced)
    _same_either_way(raw, _members(summaries) if with_members else {})


_COMMON = st.fixed_dictionaries(
    {
        "id": st.integers(1, 10**6),
        "epoch": st.integers(1, 3),
        "input": st.text(max_size=4),
        "target": st.just("A"),
        "metadata": st.just({}),
        "scores": st.sampled_from(
            [{"match": {"value": v, "answer": "x"}} for v in ("C", "I", True)]
        ),
        "model_usage": st.fixed_dictionaries(
            {
                "openai/gpt-5": _USAGE.filter(
                    lambda u: "input_tokens" not in u or type(u["input_tokens"]) is int
                )
            }
        ),
        "total_time": st.floats(0, 9).map(lambda t: round(t, 3)),  # (no exponent: `1e-08`
        "working_time": st.floats(0, 9).map(lambda t: round(t, 3)),  # Python, `1e-8` msgspec)
        "uuid": st.just("u"),
        "retries": st.integers(0, 2),
        "completed": st.just(True),
    }
).map(_in_inspects_order)


@settings(max_examples=examples(200), deadline=None)
@given(st.lists(_COMMON, min_size=1, max_size=6, unique_by=lambda s: (s["id"], s["epoch"])))
def test_inspects_own_summaries_are_read_from_structs_to_the_same_facts(summaries):
    for spaced in (False, True):
        assert _same_either_way(_batch(summaries, [None] * len(summaries), spaced),
                                _members(summaries)) == (True, True)  # fmt: skip


@pytest.mark.parametrize(
    "text",
    [
        b'[{"id":1,"epoch":1,"epoch":2}]',  # a key twice: msgspec keeps the last, silently
        b'[{"id":1,"epoch":1,"scores":{"m":{"value":"C","value":"I"}}}]',
        b'[{"id":1,"epoch":1,"metadata":{"k":1,"k":2}}]',
        b'[{"id":1,"epoch":1,"sandbox":null}]',  # a field Inspect never wrote
        b'[{"id":1,"epoch":1,"error":null}]',  # a null: `dict.get` gives None either way,
        b'[{"epoch":1,"id":1}]',  # but the proof is of the text as Inspect writes it
        b'[{"id":1,"epoch":1,"total_time":1E2}]',
        b'[{"id":1,"epoch":1,"input":"\\u00e9"}]',
        b'[{"id":1,"epoch":1,"scores":{"m":"C"}}]',
        b'[{"id":1,"epoch":1,"scores":{"m":{"answer":"C"}}}]',  # a score without its value
        b'[{"id":1,"epoch":1,"total_time":NaN}]',
        b'[{"id":1,"epoch":1}',
    ],
)
def test_a_batch_the_round_trip_cannot_prove_is_handed_back(text):
    assert decode_batch(text) is None


def test_a_batch_inspect_wrote_is_decoded_into_structs():
    raw = (
        b'[{"id":1,"epoch":1,"input":"q","target":"A","metadata":{},'
        b'"scores":{"match":{"value":"C","answer":"A","explanation":"A","history":[]}},'
        b'"model_usage":{"m":{"input_tokens":5,"output_tokens":7,"total_tokens":12}},'
        b'"total_time":1.5,"working_time":1.25,"uuid":"u","retries":0,"completed":true}]'
    )
    typed = decode_batch(raw)
    assert typed is not None and typed[0].scores is not None
    assert typed[0].scores["match"].value == "C" and typed[0].error is None
    indented = json.dumps(json.loads(raw), indent=2).encode()  # as Inspect writes it
    assert decode_batch(indented) == typed


def _counting(monkeypatch) -> list[bool]:
    """Record, per batch, whether `decode_batch` proved it (the reader's own calls)."""
    seen: list[bool] = []
    real = inspect_eval.decode_batch

    def counted(raw: bytes):
        typed = real(raw)
        seen.append(typed is not None)
        return typed

    monkeypatch.setattr(inspect_eval, "decode_batch", counted)
    return seen


def _as_dicts(monkeypatch) -> None:
    monkeypatch.setattr(inspect_eval, "decode_batch", lambda raw: None)


@pytest.mark.parametrize("path", REAL_LOGS, ids=lambda p: str(p.relative_to(DATA))[-40:])
def test_real_logs_read_the_same_run_typed_or_as_dicts(path, monkeypatch):
    monkeypatch.setattr(json_array, "BATCH", 7)  # several batches, the last one short
    seen = _counting(monkeypatch)
    try:
        typed = load_run(path)
    except InputError as refused:
        _as_dicts(monkeypatch)
        with pytest.raises(InputError) as before:
            load_run(path)
        assert str(refused) == str(before.value)
        return
    monkeypatch.undo()
    monkeypatch.setattr(json_array, "BATCH", 7)
    _as_dicts(monkeypatch)
    dicts = load_run(path)
    assert typed.table.equals(dicts.table)
    assert typed.metadata == dicts.metadata
    rows = range(typed.n_records)
    assert [typed.transcripts.read(r) for r in rows] == [dicts.transcripts.read(r) for r in rows]
    if path == GPT5 or path.parent.name == "agent":  # written by Inspect itself (indented
        assert seen and all(seen)  # in 2025-09, compact by 0.3.285): every batch typed


def _rewritten(tmp_path: Path, change) -> Path:
    """GPT5's log with its summaries.json text changed by `change` (a function of the text)."""
    return with_member_changed(GPT5, tmp_path, "summaries.json", change)


@pytest.mark.parametrize(
    "change",
    [
        lambda d: re.sub(rb'"epoch": 1,', b'"epoch": 1, "epoch": 2,', d, count=30),
        lambda d: re.sub(rb'"value": "C"', b'"value": "I", "value": "C"', d),
        lambda d: re.sub(rb'"retries": 0', b'"retries": 0, "retries": "x"', d),
    ],
    ids=["epoch twice", "value twice", "retries twice"],
)
def test_a_key_twice_in_inspects_own_summaries_is_refused_in_the_same_words(
    tmp_path, monkeypatch, change
):
    path = _rewritten(tmp_path, change)
    monkeypatch.setattr(json_array, "BATCH", 4)
    seen = _counting(monkeypatch)
    with pytest.raises(InputError) as typed:
        load_run(path)
    assert not all(seen)  # the batch with the key twice was not proved
    _as_dicts(monkeypatch)
    with pytest.raises(InputError) as dicts:
        load_run(path)
    assert str(typed.value) == str(dicts.value)
    assert "appears twice" in str(typed.value)


def test_an_unknown_field_in_inspects_own_summaries_is_read_as_dicts(tmp_path, monkeypatch):
    path = _rewritten(
        tmp_path, lambda d: d.replace(b'"completed": true', b'"completed": true, "x": 1')
    )
    seen = _counting(monkeypatch)
    run = load_run(path)
    assert seen and not any(seen)
    _as_dicts(monkeypatch)
    assert run.table.equals(load_run(path).table)
