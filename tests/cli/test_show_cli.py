"""`evaltui show BASE CAND ITEM_ID`: the aligned transcripts of one item for a pipe or a PR
comment, the same turns and marks as the app, compared with a stored rendering."""

from __future__ import annotations

import json

from evaltui.cli.main import main
from tests.core.agent_fixtures import AGENT, BASE, CAND

EXPECTED = AGENT / "show_drug-2_w100.txt"


def show(capsys, *args: str) -> tuple[int, str, str]:
    code = main(["show", str(BASE), str(CAND), *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_drug_2_side_by_side_matches_the_stored_rendering(capsys):
    code, out, _ = show(capsys, "drug-2", "--width", "100")
    assert code == 0
    assert out == EXPECTED.read_text(encoding="utf-8")


def test_drug_2_final_answers_share_a_line_and_the_tool_error_is_marked(capsys):
    _, out, _ = show(capsys, "drug-2", "--width", "140")
    lines = out.splitlines()
    assert "9 vs 7 messages, 3 vs 2 tool calls, 1 vs 0 tool errors" in lines[3]
    assert "◆ first divergence at row 3 (baseline #3)" in lines[3]
    answer = next(line for line in lines if line.startswith("Avoid this combination"))
    assert "│ There is no significant interaction listed" in answer
    error = next(line for line in lines if "TOOL ERROR" in line)
    assert error.startswith("✗ TOOL ERROR (check_interaction): no entry for Zocor + Biaxin")
    title = next(line for line in lines if line.startswith("── #4 tool"))
    assert title.rstrip().endswith("│ ∅ (no matching turn in this run)")  # a gap, not a result
    # the turn's generation's count (the log's model event), then the size withheld
    assert "REASONING (SUMMARY) · redacted: 120 reasoning tokens; 3,200" in out
    assert not any(len(line) > 140 for line in lines)


def test_stacked_and_unfolded(capsys):
    _, folded, _ = show(capsys, "drug-2", "--stacked", "--width", "80")
    _, unfolded, _ = show(capsys, "drug-2", "--stacked", "--width", "80", "--unfold")
    assert "[baseline]" in folded and "[candidate]" in folded
    assert "folded: --unfold shows all" in folded and "folded:" not in unfolded
    assert len(unfolded) > len(folded) + 4 * 2000  # four reasoning blocks of 2,281 characters
    assert not any(len(line) > 80 for line in folded.splitlines())


def test_markdown_is_one_collapsible_block_with_the_text_fenced(capsys):
    code, out, _ = show(capsys, "drug-4", "--format", "markdown", "--epoch", "2")
    assert code == 0
    assert out.startswith("<details>\n<summary>drug-4: baseline 0% of 2 epochs pass")
    assert out.rstrip().endswith("</details>")
    assert out.count("```") == 2
    assert "item drug-4 · epoch 2" in out
    words = " ".join(out.split())  # the header wraps at the block's width
    assert "⛔ LIMIT token (20000)" in words and "⛔ LIMIT message (14)" in words


def test_markdown_names_the_redacted_reasoning_tokens(capsys):
    code, out, _ = show(capsys, "drug-2", "--format", "markdown", "--stacked", "--width", "120")
    assert code == 0
    assert "REASONING (SUMMARY) · redacted: 120 reasoning tokens; 3,200 encrypted" in out


def test_an_unknown_item_is_one_line_naming_it(capsys):
    code, out, err = show(capsys, "drug-9")
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "'drug-9' is not among the 5 paired items" in err


def test_hostile_text_stays_inert_in_text_and_markdown(capsys, write_jsonl):
    hostile = "\x1b[2J```\n</details><script>x</script>\u202e"
    records = [
        {"item_id": "a&b", "passed": True, "messages": [{"role": "user", "content": hostile}]},
    ]
    base = write_jsonl("b.jsonl", records)
    cand = write_jsonl("c.jsonl", [{**records[0], "passed": False}])
    assert main(["show", str(base), str(cand), "a&b", "--format", "markdown"]) == 0
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\u202e" not in out and "␛[2J" in out
    assert out.startswith("<details>\n<summary>a&amp;b:")
    fence = out.split("\n")[3]
    assert fence == "````text"  # longer than the run text's own ``` so it cannot close early
    body = out.split("\n")[4:-4]  # between the fence lines
    assert out.split("\n")[-4] == "````" and not any(line.startswith("````") for line in body)
    assert any("</details><script>" in line for line in body)  # inside the fence: inert
    assert main(["show", str(base), str(cand), "a&b"]) == 0
    assert "\x1b" not in capsys.readouterr().out
    json.dumps(out)  # (plain text, nothing binary)


def test_the_command_quotes_an_id_a_shell_would_split():
    import shlex

    from evaltui.core.report.item_show import command_for

    assert command_for("drug-2") == "evaltui show BASE CAND drug-2"
    assert command_for("drug-2", "runs/a.eval", "s3://b/c d.eval") == (
        "evaltui show runs/a.eval 's3://b/c d.eval' drug-2"
    )
    assert shlex.split(command_for("a b'c", "x y", "z")) == ["evaltui", "show", "x y", "z", "a b'c"]
    assert command_for("x;\x1b[2Jrm") == "evaltui show BASE CAND 'x;␛[2Jrm'"
