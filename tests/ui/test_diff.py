"""A diff a reviewer can read: changed words inside changed lines, markers on every screen
line (wrapped ones too, and in NO_COLOR), untrusted text kept literal, and the target and both
graders' explanations beside the diff."""

from __future__ import annotations

import io

import pytest
from rich.console import Console

from evaltui.core.read.runs import Transcript
from evaltui.ui.transcript import DiffView, diff_lines, output_diff
from tests.ui.helpers import demo_app, screen_lines, settle, text_of
from tests.ui.test_hostile_text import HOSTILE

OLD = (
    "Ibuprofen is safe with food. Take 200 to 400 mg every 6 hours, and never more than "
    "1200 mg in a day without asking your doctor."
)
NEW = (
    "Ibuprofen is safe with food. Take 200 to 400 mg every 4 hours, and never more than "
    "3200 mg in a day."
)


def reversed_spans(text) -> list[str]:
    """The runs of characters drawn in reverse video (the highlighted words)."""
    marked = [False] * len(text.plain)
    for span in text.spans:
        if "reverse" in str(span.style):
            marked[span.start : span.end] = [True] * (span.end - span.start)
    runs, start = [], None
    for i, on in enumerate([*marked, False]):
        if on and start is None:
            start = i
        elif not on and start is not None:
            runs.append(text.plain[start:i])
            start = None
    return runs


def test_a_changed_paragraph_shows_only_its_changed_words():
    lines = diff_lines(OLD, NEW)
    markers = [line.marker for line in lines]
    assert markers == ["=", "=", "@", "-", "+"]  # one paragraph: one line each side
    removed, added = lines[3].text, lines[4].text
    assert removed.plain == OLD and added.plain == NEW
    assert reversed_spans(removed) == ["6", "1200", "without asking your doctor"]
    assert reversed_spans(added) == ["4", "3200"]
    # The words both share are not highlighted.
    assert "Ibuprofen is safe with food" not in "".join(reversed_spans(removed))


def test_markers_survive_wrapping_and_no_color():
    console = Console(width=30, no_color=True, record=True, file=io.StringIO())
    console.print(DiffView(diff_lines(OLD, NEW)))
    shown = console.export_text().splitlines()
    body = shown[3:]  # after the two file headers and the hunk line
    assert len(body) > 4  # each side wrapped over several screen lines
    assert all(line.startswith(("- ", "+ ")) for line in body), shown
    assert [line[0] for line in body] == sorted((line[0] for line in body), key="-+".index)
    # Without colour the changed words still stand out: reverse video is an attribute.
    segments = list(console.render(DiffView(diff_lines(OLD, NEW))))
    assert any(seg.style is not None and seg.style.reverse for seg in segments)


def test_identical_outputs_say_so_and_hostile_text_stays_inert():
    assert diff_lines("same\ntext", "same\ntext") == []
    assert "identical" in str(DiffView([]))
    lines = diff_lines("plain answer", HOSTILE)
    shown = "\n".join(line.text.plain for line in lines)
    assert "[bold red]ALARM[/bold red]" in shown
    assert "\x1b" not in shown and "\u202e" not in shown and "␛[2J" in shown


def test_the_target_and_both_graders_sit_beside_the_diff():
    base = Transcript(output=OLD, target="No more than 1200 mg a day.", explanation="correct")
    cand = Transcript(output=NEW, target="No more than 1200 mg a day.", explanation="overdose")
    view = output_diff(base, cand, ("PASS", "FAIL"))
    wide = Console(width=140, record=True, file=io.StringIO())
    wide.print(view)
    lines = wide.export_text().splitlines()
    assert "--- baseline output" in lines[0] and "── target" in lines[0]  # side by side
    assert any("── grader · baseline PASS" in line for line in lines)
    assert any("── grader · candidate FAIL" in line for line in lines)
    narrow = Console(width=70, record=True, file=io.StringIO())
    narrow.print(view)
    lines = narrow.export_text().splitlines()
    target = next(i for i, line in enumerate(lines) if "── target" in line)
    assert target > next(i for i, line in enumerate(lines) if line.startswith("+ "))  # below


@pytest.mark.slow  # over a CPU-second: out of the default run's budget, in CI
async def test_the_item_screen_diff_shows_changed_words_with_target_and_grader(tmp_path):
    app = demo_app(tmp_path / "state")
    async with app.run_test(size=(200, 50)) as pilot:
        await settle(app, pilot)
        await pilot.press("enter")
        await settle(app, pilot)
        await pilot.press("d")
        await pilot.pause()
        shown = text_of(app, "#diff-text")
        assert "--- baseline output" in shown and "+++ candidate output" in shown
        assert "── grader · baseline PASS" in shown and "── grader · candidate FAIL" in shown
        screen = screen_lines(app)
        first = next(line for line in screen if "--- baseline output" in line)
        assert "── target" in first  # beside the diff on a wide terminal
        removed = [line for line in screen if line[1:].startswith("- ")]  # after the padding
        added = [line for line in screen if line[1:].startswith("+ ")]
        assert removed and added
        await pilot.press("d")
        assert app.screen.query_one("#sides-pane").display
