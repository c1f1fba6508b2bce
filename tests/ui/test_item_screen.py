"""The item screen reads two transcripts side by side: every scrolling key moves both sides
together, bursts of keys are not lost, the labels stay put and keys jump between sections."""

from __future__ import annotations

import pytest
from textual import events

from evaltui.ui.app import AppConfig, create_app
from evaltui.ui.screens.item import ItemScreen, Pane
from tests.ui.helpers import burst, demo_app, screen_lines, settle, side_text


def long_pair(write_jsonl, lines=120):
    """Two runs whose answers are long (scrolling needs something to scroll) and differ in
    length, so a side that scrolled alone would drift from the other."""
    base, cand = [], []
    for i in range(4):
        messages = [
            {"role": "system", "content": "You answer questions about medicines."},
            {"role": "user", "content": f"question {i}: is it safe?"},
        ]
        short = "\n".join(f"baseline line {n}" for n in range(lines // 2))
        long = "\n".join(f"candidate line {n}" for n in range(lines))
        record = {"item_id": f"q{i}", "target": "no, never", "explanation": "judged on safety"}
        for arm, passed, answer in ((base, True, short), (cand, False, long)):
            turns = [*messages, {"role": "assistant", "content": answer}]
            arm.append({**record, "passed": passed, "messages": turns})
    return write_jsonl("b.jsonl", base), write_jsonl("c.jsonl", cand)


def pane_lines(app) -> tuple[list[str], list[str]]:
    """The left and right columns of the side-by-side pane as they are on screen."""
    pane = app.screen.query_one("#sides-pane", Pane)
    region = pane.content_region
    lines = screen_lines(app)[region.y : region.bottom]
    split = [line[region.x : region.right] for line in lines]
    left_width = app.screen.sides.split(app.screen.sides.drawn_width)[0]
    return [s[:left_width] for s in split], [s[left_width + 3 :] for s in split]


def header_rows(column: list[str]) -> list[int]:
    return [y for y, line in enumerate(column) if line.lstrip().startswith("── ")]


def assert_sides_in_step(app) -> None:
    """Both columns show the same stretch: each section starts on the same screen line."""
    left, right = pane_lines(app)
    assert header_rows(left) == header_rows(right), (left, right)


async def open_first(app, pilot):
    await settle(app, pilot)
    await pilot.press("enter")
    await settle(app, pilot)
    assert isinstance(app.screen, ItemScreen)
    return app.screen.query_one("#sides-pane", Pane)


@pytest.mark.slow
async def test_paging_keys_move_both_sides_together(tmp_path, write_jsonl):
    app = create_app(AppConfig.for_pair(*long_pair(write_jsonl), state_root=tmp_path / "s"))
    async with app.run_test(size=(80, 24)) as pilot:
        pane = await open_first(app, pilot)
        page = pane.scrollable_content_region.height - 1
        assert pane.max_scroll_y > 3 * page
        expected = 0
        for key, move in (("pagedown", page), ("space", page), ("pageup", -page)):
            await pilot.press(key)
            expected += move
            assert pane.scroll_y == expected, key
            assert_sides_in_step(app)
        await pilot.press("end")
        assert pane.scroll_y == pane.max_scroll_y
        left, right = pane_lines(app)
        assert left[-1].strip() == right[-1].strip() == "judged on safety"  # the grader's
        assert_sides_in_step(app)
        await pilot.press("pageup")
        left, right = pane_lines(app)
        assert any("candidate line 1" in line for line in right)  # the longer answer...
        assert all("baseline line" not in line for line in left)  # ...the shorter one ended
        await pilot.press("home")
        assert pane.scroll_y == 0
        assert_sides_in_step(app)
        left, right = pane_lines(app)
        assert left[0].strip().startswith("── #1 system")
        assert right[0].strip().startswith("── #1 system")


@pytest.mark.slow
async def test_the_mouse_wheel_over_one_side_moves_both(tmp_path, write_jsonl):
    app = create_app(AppConfig.for_pair(*long_pair(write_jsonl), state_root=tmp_path / "s"))
    async with app.run_test(size=(80, 24)) as pilot:
        pane = await open_first(app, pilot)
        await pilot.press("J", "J")  # the assistant turns start together
        before = pane.scroll_y
        region = pane.content_region
        for _ in range(3):  # over the baseline column
            pane.post_message(
                events.MouseScrollDown(
                    widget=pane, x=2, y=2, delta_x=0, delta_y=1, button=0,
                    shift=False, meta=False, ctrl=False,
                    screen_x=region.x + 2, screen_y=region.y + 2,
                )
            )  # fmt: skip
        await pilot.pause()
        assert pane.scroll_y > before
        left, right = pane_lines(app)
        assert left[0].split()[:2] == ["baseline", "line"]
        assert right[0].split()[:2] == ["candidate", "line"]
        assert left[0].split()[2] == right[0].split()[2]  # the same line of both answers


@pytest.mark.slow
async def test_a_burst_of_twenty_j_scrolls_twenty_lines(tmp_path, write_jsonl):
    app = create_app(AppConfig.for_pair(*long_pair(write_jsonl), state_root=tmp_path / "s"))
    async with app.run_test(size=(80, 24)) as pilot:
        pane = await open_first(app, pilot)
        assert pane.max_scroll_y > 40
        burst(app, "j", 20)
        await pilot.pause()
        await pilot.pause()
        assert pane.scroll_y == 20
        burst(app, "k", 5)
        await pilot.pause()
        await pilot.pause()
        assert pane.scroll_y == 15
        assert_sides_in_step(app)


@pytest.mark.slow
async def test_labels_verdicts_and_tag_stay_on_screen_while_the_text_scrolls(tmp_path):
    app = demo_app(tmp_path / "state")
    async with app.run_test(size=(80, 24)) as pilot:
        await open_first(app, pilot)
        await pilot.press("end")
        screen = "\n".join(screen_lines(app))
        assert "BASELINE" in screen and "CANDIDATE" in screen
        assert "baseline PASS" in screen and "candidate FAIL" in screen
        assert "tag: untriaged" in screen
        assert "BASELINE" in side_text(app, "baseline")


@pytest.mark.slow
async def test_keys_jump_to_the_next_message_the_final_answer_and_the_grader(tmp_path, write_jsonl):
    app = create_app(AppConfig.for_pair(*long_pair(write_jsonl), state_root=tmp_path / "s"))
    async with app.run_test(size=(80, 24)) as pilot:
        pane = await open_first(app, pilot)

        def top() -> tuple[str, str]:
            left, right = pane_lines(app)
            return left[0].strip(), right[0].strip()

        await pilot.press("J")
        assert top()[0].startswith("── #2 user") and top()[1].startswith("── #2 user")
        await pilot.press("J")
        assert top()[0].startswith("── #3 assistant") and top()[1].startswith("── #3 assistant")
        await pilot.press("K")
        assert top()[0].startswith("── #2 user")
        await pilot.press("home", "a")  # the final answer
        assert top()[1].startswith("── #3 assistant")
        await pilot.press("home", "v")  # the target, then the grader's explanation
        left, right = pane_lines(app)
        for title in ("── target", "── grader"):
            rows = [y for y, line in enumerate(left) if line.strip().startswith(title)]
            assert rows and rows == [
                y for y, line in enumerate(right) if line.strip().startswith(title)
            ]
        assert pane.scroll_y > 0
        await pilot.press("home", "d", "v")  # from the diff view too: back to the sides
        assert app.screen.query_one("#sides-pane").display
        assert any(line.strip().startswith("── target") for line in pane_lines(app)[0])
