"""A public multi-turn agent log from Inspect AI's own repository (the `browser` task,
openai/gpt-4o-mini, inspect_ai 0.3.95; provenance in tests/data/inspect_ai/agent/README.md)
read through the normal reader: its turns come out structured, it aligns with itself as the
identity, `evaltui show` prints the stored text and its per-sample cost is read."""

from __future__ import annotations

import hashlib
import json
import shutil

import pytest

from evaltui.cli.main import main
from evaltui.core.compare.trajectory import align
from evaltui.core.read.turns import cost_column
from tests.core.agent_fixtures import AGENT

BROWSER = AGENT / "2025-05-12T20-27-36-04-00_browser.json"
SHOWN = AGENT / "show_browser_w100.txt"
CALLS = [
    ("web_browser_go", {"url": "https://www.aisi.gov.uk/"}),
    ("web_browser_click", {"element_id": 151}),
    ("web_browser_click", {"element_id": 884}),
    ("web_browser_click", {"element_id": 903}),
]


@pytest.fixture(scope="module")
def pair(tmp_path_factory):
    """The log as both runs (two copies: one path given twice is refused)."""
    from evaltui.core.analysis.pipeline import compare_files

    where = tmp_path_factory.mktemp("browser")
    base, cand = where / "base.json", where / "cand.json"
    shutil.copy(BROWSER, base)
    shutil.copy(BROWSER, cand)
    return base, cand, compare_files(base, cand, complete=False).paired


def test_the_copy_is_the_one_the_readme_names():
    data = BROWSER.read_bytes()
    assert len(data) == 405_566
    digest = "e19b39ad6bf6358cd79ab3b71495b27cafde6835df72648b2988ef0af326d327"
    assert hashlib.sha256(data).hexdigest() == digest
    assert digest in (AGENT / "README.md").read_text(encoding="utf-8")


def test_its_turns_are_structured_calls_each_followed_by_its_result(pair):
    _, _, paired = pair
    assert paired.items["item_id"].to_list() == ["1"]
    t = paired.baseline.transcripts.read(0)
    assert [m.role for m in t.messages] == ["user"] + ["assistant", "tool"] * 4 + ["assistant"]
    for k, (function, arguments) in enumerate(CALLS):
        call, result = t.messages[1 + 2 * k], t.messages[2 + 2 * k]
        (block,) = call.blocks  # the turn's text is empty: the call alone
        assert (block.kind, block.name) == ("tool_call", function)
        assert json.loads(block.text) == arguments and "\n" in block.text  # laid out
        assert [(b.kind, b.name) for b in result.blocks] == [("tool_result", function)]
        assert result.blocks[0].text.startswith("[")  # the page's accessibility tree
        assert result.calls == call.calls  # the result answers that call
    final = t.messages[-1]
    assert [b.kind for b in final.blocks] == ["text"] and not final.calls
    assert final.blocks[0].text.startswith("The AI Security Institute (AISI) is the premier")
    assert [(s.name, s.value) for s in t.scorers] == [("includes", "C")]


def test_paired_with_itself_the_alignment_is_the_identity(pair):
    _, _, paired = pair
    base = paired.baseline.transcripts.read(0)
    cand = paired.candidate.transcripts.read(0)
    alignment = align(base.messages, cand.messages)
    assert [(r.base, r.cand, r.same) for r in alignment.rows] == [(i, i, True) for i in range(10)]
    assert alignment.first_divergence is None and alignment.final_row == 9
    assert alignment.counts.words() == "10 vs 10 messages, 4 vs 4 tool calls"


def test_its_per_sample_cost_is_read_from_model_usage(pair):
    _, _, paired = pair
    cost = paired.baseline.transcripts.read(0).cost
    assert (cost.input_tokens, cost.output_tokens, cost.total_tokens) == (15_235, 281, 15_516)
    assert cost.reasoning_tokens == 0  # recorded as 0 by gpt-4o-mini, not absent
    assert (cost.total_time, cost.working_time) == (18.517, 18.36)
    assert cost.retries == 0 and cost.limit is None and cost.error is None
    names = ("total_tokens", "input_tokens", "working_time")
    row = paired.baseline.table.select([cost_column(n) for n in names]).row(0)
    assert row == (15_516, 15_235, 18.36)


def test_inspects_own_reader_gives_the_same_cost(pair):
    log_module = pytest.importorskip("inspect_ai.log")
    (sample,) = log_module.read_eval_log(str(BROWSER)).samples
    (usage,) = sample.model_usage.values()
    _, _, paired = pair
    cost = paired.baseline.transcripts.read(0).cost
    assert (cost.input_tokens, cost.output_tokens, cost.total_tokens) == (
        usage.input_tokens,
        usage.output_tokens,
        usage.total_tokens,
    )
    assert cost.working_time == sample.working_time and len(sample.messages) == 10


def test_show_prints_the_stored_text(pair, capsys):
    base, cand, _ = pair
    assert main(["show", str(base), str(cand), "1", "--width", "100"]) == 0
    out = capsys.readouterr().out
    assert out == SHOWN.read_text(encoding="utf-8")
    assert "10 vs 10 messages, 4 vs 4 tool calls" in out and "◆" not in out
