"""One turn drawn as lines whose kind a word or a symbol says (never colour alone), folded
where long, and inert whatever the run wrote."""

from __future__ import annotations

from evaltui.core.read.runs import Message
from evaltui.core.read.turns import Block, SampleCost
from evaltui.core.report.turn_lines import (
    FOLDED_REASONING,
    FOLDED_RESULT_CHARS,
    FOLDED_RESULT_LINES,
    LONG_VALUE,
    cost_words,
    time_words,
    token_words,
    turn_lines,
)

HOSTILE = "\x1b[2J[bold red]x[/]\u202e"


def texts(message: Message, unfold: bool = False) -> list[str]:
    return [line.text for line in turn_lines(message, 3, unfold)]


def test_each_block_kind_is_said_by_a_word_and_a_symbol():
    message = Message(
        "assistant",
        "",
        blocks=(
            Block("redacted", "the summary", size=3200, tokens=120),
            Block("text", "Calling."),
            Block("tool_call", '{\n  "q": "x"\n}', "lookup"),
            Block("media", "", "image/png", 70),
        ),
    )
    assert texts(message) == [
        "#3 assistant",
        "▸ REASONING (SUMMARY) · redacted: 120 reasoning tokens; 3,200 encrypted characters"
        " not shown",
        "the summary",
        "Calling.",
        "→ tool call: lookup",
        "{",
        '  "q": "x"',
        "}",
        "▣ [image/png, 70 bytes]",
    ]
    tool = Message("tool", "", blocks=(Block("tool_result", "42", "lookup"),))
    assert texts(tool)[1:] == ["← result: lookup", "42"]
    failed = Message("tool", "", blocks=(Block("tool_error", "timed out", "lookup"),))
    assert texts(failed)[1:] == ["✗ TOOL ERROR (lookup): timed out"]


def test_redacted_reasoning_says_plainly_when_its_token_count_is_not_known():
    def head(block: Block) -> str:
        return texts(Message("assistant", "", blocks=(block,)))[1]

    assert head(Block("redacted", "s", size=10)) == (
        "▸ REASONING (SUMMARY) · redacted: token count not recorded; 10 encrypted characters"
        " not shown"
    )
    assert head(Block("redacted", "", tokens=1)) == (
        "▸ REASONING (SUMMARY) · redacted: 1 reasoning token"
    )
    unmatched = Block("redacted", "s", size=10, tokens="token count not matched to a generation")
    assert "redacted: token count not matched to a generation;" in head(unmatched)


def test_reasoning_and_long_arguments_fold_and_unfold():
    long = "word " * 200
    message = Message(
        "assistant",
        "",
        blocks=(Block("reasoning", long), Block("tool_call", "x" * 500, "f")),
    )
    folded = texts(message)
    assert folded[1] == "▸ reasoning (1,000 characters, folded: f unfolds)"
    assert len(folded[2]) <= FOLDED_REASONING + 2 and folded[2].endswith(" …")
    assert folded[4] == "x" * LONG_VALUE + "… (+340 characters, f unfolds)"
    unfolded = texts(message, unfold=True)
    assert unfolded[1] == "▾ reasoning (1,000 characters)" and unfolded[2] == long
    assert unfolded[4] == "x" * 500


def test_a_plain_message_is_one_text_block():
    assert texts(Message("user", "hello\nthere")) == ["#3 user", "hello\nthere"]


def test_run_text_is_inert_in_every_part():
    message = Message(
        HOSTILE,
        "",
        blocks=(
            Block("reasoning", HOSTILE),
            Block("tool_call", HOSTILE, HOSTILE),
            Block("tool_error", HOSTILE, HOSTILE),
            Block("redacted", HOSTILE, size=1),
            Block("media", "", HOSTILE, 1),
        ),
    )
    for line in texts(message, unfold=True):
        assert "\x1b" not in line and "\u202e" not in line, line
    assert any("␛[2J[bold red]x[/]<U+202E>" in line for line in texts(message, unfold=True))


def test_a_long_tool_result_folds_to_its_first_lines_and_unfolds_by_its_unit():
    page = "\n".join(f"[{k}] link {k}" for k in range(40))
    message = Message(
        "tool",
        "",
        blocks=(
            Block("reasoning", "r" * (FOLDED_REASONING + 10)),
            Block("tool_result", page, "web_browser_go"),
        ),
    )
    folded = turn_lines(message, 4)
    head = next(line for line in folded if line.kind == "result")
    assert head.text == (
        f"← result: web_browser_go (40 lines, {len(page):,} characters, folded: f unfolds)"
    )
    assert head.unit == 1  # after the reasoning block's unit 0: the same key unfolds it
    body = folded[folded.index(head) + 1].text
    assert body == "\n".join(page.splitlines()[:FOLDED_RESULT_LINES]) + " …"
    opened = turn_lines(message, 4, frozenset({1}))
    assert page in [line.text for line in opened]
    assert any("folded" in line.text for line in opened if line.kind == "fold")  # reasoning
    one_long_line = Message("tool", "", blocks=(Block("tool_result", "x" * 5000, "read"),))
    shown = turn_lines(one_long_line, 1)[2].text
    assert len(shown) == FOLDED_RESULT_CHARS + 2  # a one-line page folds too
    short = Message("tool", "", blocks=(Block("tool_result", "42", "add"),))
    assert texts(short) == ["#3 tool", "← result: add", "42"]


def test_a_recorded_zero_of_reasoning_tokens_is_shown_and_an_unrecorded_count_is_not():
    zero = SampleCost(input_tokens=10, output_tokens=5, reasoning_tokens=0, total_tokens=15)
    assert cost_words(zero) == "15 tokens (10 in, 5 out, 0 reasoning)"
    unknown = SampleCost(input_tokens=10, output_tokens=5, total_tokens=15)
    assert cost_words(unknown) == "15 tokens (10 in, 5 out)"


def test_short_token_and_time_words_carry_the_same_split_as_show():
    # The app's item header uses the short words; `show` (cost_words) the full ones: one
    # formatter, so a recorded 0 is said and an unrecorded count left out in both.
    zero = SampleCost(input_tokens=10, output_tokens=5, reasoning_tokens=0, total_tokens=15)
    assert token_words(zero, short=True) == "tok 15 (in 10 · out 5 · reas 0)"
    unknown = SampleCost(input_tokens=4800, output_tokens=290, total_tokens=5090)
    assert token_words(unknown, short=True) == "tok 5,090 (in 4,800 · out 290)"
    assert token_words(SampleCost(total_tokens=7), short=True) == "tok 7"
    assert token_words(SampleCost(total_time=1.0)) is None
    timed = SampleCost(total_time=12.345, working_time=10.0)
    assert time_words(timed) == "12.35 s (10.00 s working)"
    assert time_words(timed, short=True) == "12.35 s (10.00 working)"
    assert time_words(SampleCost(total_tokens=7)) is None
