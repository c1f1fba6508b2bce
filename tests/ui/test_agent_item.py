"""An agent item in the app (the drug-2 case of issue 25): the turns aligned by content, the
two final answers on one screen row after `a`, the header's "9 vs 7 messages", the tool error
marked by a word and a symbol, D to the first divergence, J/K by aligned turn, f unfolds."""

from __future__ import annotations

import pytest

from evaltui.core.report import turn_lines as turn_lines_module
from evaltui.ui.app import AppConfig, create_app
from evaltui.ui.screens.item import ItemScreen
from tests.core.agent_fixtures import BASE, CAND
from tests.ui.helpers import settle, text_of
from tests.ui.test_item_screen import pane_lines


def agent_app(state):
    return create_app(AppConfig.for_pair(BASE, CAND, state_root=state))


async def open_drug_2(app, pilot):
    await settle(app, pilot)
    await pilot.press("enter")  # the first regression
    await settle(app, pilot)
    assert isinstance(app.screen, ItemScreen) and app.screen.row.item_id == "drug-2"


@pytest.mark.slow
async def test_drug_2_final_answers_on_one_row_and_the_tool_error_marked(tmp_path):
    app = agent_app(tmp_path / "s")
    async with app.run_test(size=(80, 24)) as pilot:
        await open_drug_2(app, pilot)
        meta = text_of(app, "#item-meta")
        assert "9 vs 7 messages, 3 vs 2 tool calls, 1 vs 0 tool errors" in meta
        assert "◆ diverge at #3 (D)" in meta
        await pilot.press("a")
        left, right = pane_lines(app)
        assert left[0].strip().startswith("── #9 assistant  (final answer)")
        assert right[0].strip().startswith("── #7 assistant  (final answer)")
        answer_row = next(y for y, line in enumerate(left) if "Avoid this combination" in line)
        assert "There is no significant" in right[answer_row]  # beside it, the same row
        await pilot.press("home", "D")  # the first divergence: the malformed call, then its error
        left, right = pane_lines(app)
        assert left[0].strip().startswith("── #3 assistant  ◆ runs diverge here")
        assert right[0].strip() == "∅ (no matching turn in this run)"
        assert any("REASONING (SUMMARY)" in line for line in left)  # not the base64 blob
        words = " ".join(app.screen.sides.plain(0).split())  # wherever the pane wraps it
        assert "redacted: 120 reasoning tokens; 3,200 encrypted characters not shown" in words
        await pilot.press("J")
        left, right = pane_lines(app)
        assert left[0].strip() == "── #4 tool ────────"
        assert left[1].strip().startswith("✗ TOOL ERROR (check_interaction):")
        assert right[0].strip() == "∅ (no matching turn in this run)"
        await pilot.press("J")  # the retry, beside the candidate's one call
        left, right = pane_lines(app)
        assert left[0].strip().startswith("── #5 assistant")
        assert right[0].strip().startswith("── #3 assistant")
        await pilot.press("K")
        assert pane_lines(app)[0][0].strip() == "── #4 tool ────────"
        await pilot.press("greater_than_sign")  # epoch 2: aligned again, every scorer shown
        await settle(app, pilot)
        assert "epoch 2/2" in app.screen.side_plain(0) and "epoch 2/2" in app.screen.side_plain(1)
        assert "9 vs 7 messages" in text_of(app, "#item-meta")
        left, right = app.screen.sides.plain(0), app.screen.sides.plain(1)
        assert "includes: C" in left and "cites_label: C" in left
        assert "includes: I" in right and "cites_label: C" in right
        assert "read 1 label(s); last: Contraindicated" in right  # its explanation too
        await pilot.press("n")  # drug-5: the candidate's sample error, retried
        await settle(app, pilot)
        assert app.screen.row.item_id == "drug-5"
        meta = text_of(app, "#item-meta")
        assert "0 vs 1 retries" in meta and "✗ error no vs yes" in meta
        cost_rows = [line for line in app.screen.sides.plain(1).splitlines() if "ERROR" in line]
        assert cost_rows and "✗ SAMPLE ERROR: RuntimeError('mock provider rejected" in cost_rows[0]


@pytest.mark.slow
async def test_item_header_splits_each_runs_tokens_and_names_the_limit_hit_at_80_columns(
    tmp_path,
):
    # Issue 25 item 3: per sample in the header, tokens (input, output, reasoning), time and
    # working time, one line per run that reads without colour and does not wrap at 80x24;
    # the figures are `show`'s (tests/data/inspect_ai/agent/show_drug-2_w100.txt).
    app = agent_app(tmp_path / "s")
    async with app.run_test(size=(80, 24)) as pilot:
        await open_drug_2(app, pilot)
        lines = text_of(app, "#item-meta").splitlines()
        assert lines[3:5] == [
            "baseline  tok 4,730 (in 4,100 · out 630 · reas 420) · 0.59 s (0.59 working)",
            "candidate tok 3,650 (in 3,200 · out 450 · reas 300) · 0.35 s (0.35 working)",
        ]
        assert lines[5].startswith("note:")  # nothing stopped or retried drug-2
        assert app.screen.query_one("#item-meta").size.height == len(lines)  # none wrapped
        await pilot.press("escape", "B")  # both runs fail drug-4: each stopped by a limit
        await settle(app, pilot)
        await pilot.press("enter")
        await settle(app, pilot)
        assert isinstance(app.screen, ItemScreen) and app.screen.row.item_id == "drug-4"
        lines = text_of(app, "#item-meta").splitlines()
        assert lines[3:6] == [
            "baseline  tok 27,540 (in 27,000 · out 540 · reas 360) · 0.21 s (0.21 working)",
            "candidate tok 4,680 (in 3,600 · out 1,080 · reas 720) · 0.65 s (0.65 working)",
            "⛔ limit token (20000) vs message (14)",
        ]
        assert app.screen.query_one("#item-meta").size.height == len(lines)


@pytest.mark.slow
async def test_f_unfolds_the_turn_at_the_top_and_F_every_reasoning_block(tmp_path):
    app = agent_app(tmp_path / "s")
    async with app.run_test(size=(160, 48)) as pilot:
        await open_drug_2(app, pilot)
        folded = app.screen.sides.plain(0)
        assert "folded: f unfolds" in folded and "(2,281 characters" in folded
        await pilot.press("a", "f")  # the final answers' row
        await settle(app, pilot)
        left, right = app.screen.sides.plain(0), app.screen.sides.plain(1)
        assert left.count("▾ reasoning (2,281 characters)") == 1  # that turn only
        assert right.count("▾ reasoning (2,281 characters)") == 1
        assert left.count("folded: f unfolds") == folded.count("folded: f unfolds") - 1
        assert pane_lines(app)[0][0].strip().startswith("── #9 assistant")  # still there
        await pilot.press("F")
        await settle(app, pilot)
        unfolded = app.screen.sides.plain(0)
        assert "folded:" not in unfolded and len(unfolded) > len(folded) + 3 * 2000
        await pilot.press("F")
        await settle(app, pilot)
        assert app.screen.sides.plain(0) == folded


async def _drug_2(pilot):
    await open_drug_2(pilot.app, pilot)


@pytest.mark.slow
@pytest.mark.parametrize("size", [(80, 24), (160, 48)], ids=["80x24", "160x48"])
def test_agent_item_snapshot(snap_compare, tmp_path, size):
    assert snap_compare(agent_app(tmp_path / "s"), terminal_size=size, run_before=_drug_2)


async def _drug_2_answer(pilot):
    await open_drug_2(pilot.app, pilot)
    await pilot.press("a")
    await pilot.pause()


@pytest.mark.slow
def test_agent_item_final_answers_snapshot(snap_compare, tmp_path):
    assert snap_compare(
        agent_app(tmp_path / "s"), terminal_size=(80, 24), run_before=_drug_2_answer
    )


@pytest.mark.slow  # a variant of a flow the default run covers (the suite's CPU budget); CI runs it
async def test_f_unfolds_the_one_block_at_the_top_not_the_whole_turn(tmp_path, monkeypatch):
    # Arguments over 12 characters count as long here, so the retry turn (#5 vs #3) holds
    # three blocks that fold on each side: its reasoning, "drug_a" and "drug_b".
    monkeypatch.setattr(turn_lines_module, "LONG_VALUE", 12)
    app = agent_app(tmp_path / "s")
    async with app.run_test(size=(120, 40)) as pilot:
        await open_drug_2(app, pilot)
        folded = app.screen.sides.plain(0), app.screen.sides.plain(1)
        await pilot.press("home", "D", "J", "J")  # the retry's row, at the top
        assert pane_lines(app)[0][0].strip().startswith("── #5 assistant")
        await pilot.press("f")  # the title is at the top: the first block below it
        await settle(app, pilot)
        unfolded = app.screen.sides.plain(0), app.screen.sides.plain(1)
        for before, after in zip(folded, unfolded, strict=True):
            assert after.count("▾ reasoning (2,281 characters)") == 1  # that block only
            assert after.count("folded: f unfolds") == before.count("folded: f unfolds") - 1
            assert after.count("characters, f unfolds)") == before.count("characters, f unfolds)")
        assert pane_lines(app)[0][0].strip().startswith("── #5 assistant")  # still there
        await pilot.press("f")  # the same block folds again
        await settle(app, pilot)
        assert (app.screen.sides.plain(0), app.screen.sides.plain(1)) == folded
        for _ in range(12):  # down, line by line, to the retry's "drug_a" argument
            if '"drug_a"' in pane_lines(app)[0][0]:
                break
            await pilot.press("j")
        left_top = pane_lines(app)[0][0]
        assert '"drug_a": … (+14 characters, f unfolds)' in left_top
        await pilot.press("f")
        await settle(app, pilot)
        left = app.screen.sides.plain(0)
        assert '"drug_a": "simvastatin",' in left  # that argument, whole
        assert left.count("characters, f unfolds)") == folded[0].count("characters, f unfolds)") - 1
        assert left.count("folded: f unfolds") == folded[0].count("folded: f unfolds")
        assert '"drug_b": … (+16 characters, f unfolds)' in left  # the next argument: folded
        await pilot.press("F")  # every block, every turn
        await settle(app, pilot)
        assert "f unfolds" not in app.screen.sides.plain(0)


@pytest.mark.slow  # a variant of a flow the default run covers (the suite's CPU budget); CI runs it
async def test_f_unfolds_a_long_tool_result_and_F_every_one(tmp_path, monkeypatch):
    # Results over 20 characters count as long here: drug-2's "check_interaction" result
    # ("major: CYP3A4 inhibition raises simvastatin levels") folds on both sides.
    monkeypatch.setattr(turn_lines_module, "FOLDED_RESULT_CHARS", 20)
    app = agent_app(tmp_path / "s")
    async with app.run_test(size=(120, 40)) as pilot:
        await open_drug_2(app, pilot)
        folded = app.screen.sides.plain(0)
        assert "← result: check_interaction (1 line, 50 characters, folded: f unfolds)" in folded
        assert "raises simvastatin levels" not in folded
        for _ in range(40):  # down, line by line, to that result's head
            if "← result: check_interaction" in pane_lines(app)[0][0]:
                break
            await pilot.press("j")
        await pilot.press("f")
        await settle(app, pilot)
        left = app.screen.sides.plain(0)
        assert "major: CYP3A4 inhibition raises simvastatin levels" in left  # whole
        assert left.count("folded: f unfolds") == folded.count("folded: f unfolds") - 1
        await pilot.press("F")  # every block of every turn, results too
        await settle(app, pilot)
        assert "f unfolds" not in app.screen.sides.plain(0)
