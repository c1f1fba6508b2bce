"""An Inspect agent log read as structured turns: reasoning (readable, or redacted with a
summary), tool calls with their arguments, results answering their call, tool errors, media,
every scorer and the sample's cost, from logs Inspect itself wrote."""

from __future__ import annotations

import json

from evaltui.core.read.formats.inspect_transcript import sample_transcript
from evaltui.core.read.turns import media_size
from tests.core.agent_fixtures import transcripts


def kinds(message) -> list[str]:
    return [block.kind for block in message.blocks]


def test_redacted_reasoning_is_its_summary_never_the_encrypted_blob():
    base, _ = transcripts("drug-2")
    first_turn = base.messages[2]
    redacted = [b for b in first_turn.blocks if b.kind == "redacted"]
    assert len(redacted) == 1
    assert redacted[0].text.startswith("Identify the generic names (Zocor = simvastatin")
    assert redacted[0].size == 3200  # the blob's length, named, not shown
    # The flat text (search, diff) carries the summary, not 3,200 characters of base64.
    assert "Identify the generic names" in first_turn.content
    assert len(first_turn.content) < 600


def test_tool_calls_results_and_errors_are_blocks_with_their_function():
    base, cand = transcripts("drug-2")
    assert kinds(base.messages[2])[-1] == "tool_call"
    call = base.messages[2].blocks[-1]
    assert call.name == "check_interaction"
    assert json.loads(call.text) == {"drug_a": "Zocor + Biaxin"}
    assert "\n" in call.text  # laid out, one argument per line
    error = base.messages[3]
    assert kinds(error) == ["tool_error"]
    assert error.blocks[0].name == "check_interaction"
    assert error.blocks[0].text == "no entry for Zocor + Biaxin"
    # A result carries the signature of the call it answers: the retry's result and the
    # candidate's single call's result are the same turn.
    assert base.messages[5].calls == cand.messages[3].calls
    assert base.messages[3].calls != base.messages[5].calls
    assert kinds(cand.messages[3]) == ["tool_result"]


def test_readable_reasoning_is_kept_whole_for_unfolding():
    base, _ = transcripts("drug-2")
    reasoning = base.messages[4].blocks[0]
    assert reasoning.kind == "reasoning" and len(reasoning.text) == 2281


def test_an_image_in_the_input_is_named_by_type_and_size():
    base, _ = transcripts("drug-1")
    user = base.messages[1]
    assert kinds(user) == ["text", "media", "text"]
    media = user.blocks[1]
    assert media.name == "image/png" and media.size == 70  # the 1x1 PNG: 70 bytes decoded


def test_every_scorer_with_its_explanation():
    base, cand = transcripts("drug-2")
    assert [(s.name, s.value) for s in base.scorers] == [("includes", "C"), ("cites_label", "C")]
    assert [(s.name, s.value) for s in cand.scorers] == [("includes", "I"), ("cites_label", "C")]
    assert cand.scorers[1].explanation.startswith("read 1 label(s)")


def test_the_sample_cost_limit_error_and_retries():
    base, cand = transcripts("drug-4")
    assert base.cost.limit == "token (20000)" and cand.cost.limit == "message (14)"
    assert (base.cost.input_tokens, base.cost.output_tokens) == (27000, 540)
    assert base.cost.reasoning_tokens == 360 and base.cost.total_tokens == 27540
    _, errored = transcripts("drug-5")
    assert errored.cost.error.startswith("RuntimeError('mock provider rejected")
    assert errored.cost.retries == 1 and errored.cost.total_tokens is None


def test_odd_content_never_raises():
    sample = {
        "messages": [
            {"role": "assistant", "content": [{"type": "reasoning", "redacted": True}, 7, None]},
            {"role": "tool", "content": None, "error": {"type": "timeout"}},
            {"role": "assistant", "tool_calls": [{"function": "f", "arguments": "raw"}, "x"]},
            {"role": "user", "content": [{"type": "audio", "audio": "https://x/a.mp3"}]},
        ],
        "model_usage": {"m": {"input_tokens": "many"}},
        "limit": "custom",
    }
    t = sample_transcript(sample, None, "record 1")
    assert [b.kind for b in t.messages[0].blocks] == ["redacted", "text", "text"]
    error = t.messages[1].blocks[-1]
    assert error.kind == "tool_error" and error.text == "timeout"
    assert t.messages[2].blocks[0].text == "raw"
    assert t.messages[3].blocks[0].name == "audio" and t.messages[3].blocks[0].size == 0
    assert t.cost is not None and t.cost.limit == "custom" and t.cost.total_tokens is None


def test_media_size_of_data_uris():
    assert media_size("data:image/png;base64,AAAA") == 3
    assert media_size("data:image/png;base64,AA==") == 1
    assert media_size("data:text/plain,hello") == 5
    assert media_size("https://example.com/x.png") == 0 and media_size(None) == 0


def test_a_public_logs_tool_errors_are_each_marked():
    """Inspect's own test log (tests/data/inspect_ai/agent/README.md): every tool message
    carries a tool error, each drawn with its word and symbol; a result that came with its
    error keeps its text."""
    import json

    from evaltui.core.report.turn_lines import turn_lines
    from tests.core.agent_fixtures import AGENT

    log = json.loads((AGENT / "log_tool_call_error.json").read_text(encoding="utf-8"))
    t = sample_transcript(log["samples"][0], None, "samples[0]")
    assert len(t.messages) == 11
    errors = [b for m in t.messages for b in m.blocks if b.kind == "tool_error"]
    assert [b.name for b in errors] == ["bash"] * 11
    assert errors[-1].text == "The tool output limit of 10 MiB was exceeded."
    last = t.messages[-1]
    assert [b.kind for b in last.blocks] == ["tool_result", "tool_error"]
    lines = turn_lines(last, 11)
    assert lines[0].text == "#11 tool"
    assert lines[-1].text == ("✗ TOOL ERROR (bash): The tool output limit of 10 MiB was exceeded.")
    # No assistant turn records the calls: each result is keyed by its function alone.
    assert all(m.calls == ("bash",) for m in t.messages)
