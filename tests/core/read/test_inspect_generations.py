"""A redacted reasoning block's token count comes from the generation that wrote its turn (the
sample's model event, matched by message id, else by order only when that is unambiguous), and
says plainly when the log does not record it."""

from __future__ import annotations

import copy

import pytest

from evaltui.core.read.formats.inspect_generations import (
    NOT_MATCHED,
    NOT_READ,
    NOT_RECORDED,
    reasoning_tokens_by_turn,
    slim_events,
)
from evaltui.core.read.formats.inspect_json import JsonTranscripts
from evaltui.core.read.formats.inspect_transcript import compact_sample, sample_transcript
from tests.core.agent_fixtures import BASE, raw_sample, transcripts

MEMBER = "samples/drug-2_epoch_1.json"


def redacted(t) -> list:
    return [b for m in t.messages for b in m.blocks if b.kind == "redacted"]


def test_drug_2_redacted_block_carries_its_generations_reasoning_tokens():
    base, _ = transcripts("drug-2")
    (block,) = redacted(base)
    assert block.tokens == 120  # make_agent_logs.py: 120 reasoning tokens per tool-calling turn
    assert base.messages[2].content.startswith("[reasoning, redacted: 120 reasoning tokens] ")


def test_the_count_equals_inspects_own_reader():
    """What Inspect's reader gives for the model event that wrote the redacted turn (skips
    when Inspect is not installed; the test above pins the same number from the fixture)."""
    log_module = pytest.importorskip("inspect_ai.log")
    log = log_module.read_eval_log(str(BASE))
    sample = next(s for s in log.samples if s.id == "drug-2" and s.epoch == 1)
    turn = sample.messages[2]
    assert turn.role == "assistant" and any(getattr(c, "redacted", False) for c in turn.content)
    (event,) = [e for e in sample.events if e.event == "model" and e.output.message.id == turn.id]
    base, _ = transcripts("drug-2")
    assert redacted(base)[0].tokens == event.output.usage.reasoning_tokens


def test_a_log_without_events_says_not_recorded():
    sample = raw_sample(BASE, MEMBER)
    del sample["events"]
    (block,) = redacted(sample_transcript(sample, None, MEMBER))
    assert block.tokens == NOT_RECORDED and block.size == 3200
    assert "[reasoning, redacted: token count not recorded]" in (
        sample_transcript(sample, None, MEMBER).messages[2].content
    )


def test_usage_absent_or_null_says_not_recorded():
    sample = raw_sample(BASE, MEMBER)
    for event in sample["events"]:
        if event["event"] == "model":
            event["output"]["usage"]["reasoning_tokens"] = None  # a provider that did not say
    assert redacted(sample_transcript(sample, None, MEMBER))[0].tokens == NOT_RECORDED
    for event in sample["events"]:
        if event["event"] == "model":
            event["output"]["usage"] = None  # older logs, or no usage at all
    assert redacted(sample_transcript(sample, None, MEMBER))[0].tokens == NOT_RECORDED


def without_ids(sample: dict) -> dict:
    sample = copy.deepcopy(sample)
    for event in sample["events"]:
        if event["event"] == "model":
            event["output"]["choices"][0]["message"].pop("id", None)
    return sample


def test_without_ids_turns_match_by_order_only_one_for_one():
    sample = without_ids(raw_sample(BASE, MEMBER))
    for event in sample["events"]:  # tell the first generation apart from the others
        if event["event"] == "model":
            event["output"]["usage"]["reasoning_tokens"] = 77
            break
    assert redacted(sample_transcript(sample, None, MEMBER))[0].tokens == 77
    # A scorer's own generation makes one more generation than turns: nothing is guessed.
    grader = copy.deepcopy(next(e for e in sample["events"] if e["event"] == "model"))
    sample["events"].append(grader)
    assert redacted(sample_transcript(sample, None, MEMBER))[0].tokens == NOT_MATCHED


def test_ids_on_both_sides_that_do_not_match_are_not_matched_by_order():
    messages = [{"role": "assistant", "id": "a"}, {"role": "assistant", "id": "b"}]
    events = [
        {"event": "model", "output": {"choices": [{"message": {"id": "x"}}], "usage": u}}
        for u in ({"reasoning_tokens": 5}, {"reasoning_tokens": 6})
    ]
    assert reasoning_tokens_by_turn(messages, events) == [NOT_MATCHED, NOT_MATCHED]
    events[1]["output"]["choices"][0]["message"]["id"] = "b"
    assert reasoning_tokens_by_turn(messages, events) == [NOT_MATCHED, 6]


def test_input_turns_pending_and_odd_events():
    messages = [
        {"role": "user"},
        {"role": "assistant", "source": "input"},  # a turn of the prompt: no generation
        {"role": "assistant"},
        "not a message",
    ]
    events = [
        {"event": "model", "pending": True, "output": {"choices": [{"message": {}}]}},
        {"event": "model", "output": {"choices": []}},  # wrote nothing
        {"event": "model", "output": {"choices": [{}], "usage": {"reasoning_tokens": True}}},
        {"event": "tool"},
        7,
    ]  # fmt: skip
    assert reasoning_tokens_by_turn(messages, events) == [None, NOT_RECORDED, NOT_RECORDED, None]
    assert reasoning_tokens_by_turn(messages, "junk") == [None, NOT_RECORDED, NOT_RECORDED, None]
    assert reasoning_tokens_by_turn(messages, events, events_read=False)[2] == NOT_READ


def test_a_json_log_keeps_only_the_slim_model_events():
    sample = raw_sample(BASE, MEMBER)
    compact = compact_sample(sample)
    assert compact["events"] == slim_events(sample["events"])
    assert all(set(e) == {"event", "output"} for e in compact["events"])  # no input, no call
    assert len(compact["events"]) == 4
    (block,) = redacted(JsonTranscripts([compact], None).read(0))
    assert block.tokens == 120
    # A sample without redacted reasoning keeps no events at all.
    plain = raw_sample(BASE, "samples/drug-1_epoch_1.json")
    assert "events" not in compact_sample(plain)
