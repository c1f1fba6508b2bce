"""Model output is untrusted: markup, escapes and bidi controls must show as inert text."""

from __future__ import annotations

import json

import pytest

from evaltui.ui.app import AppConfig, create_app
from evaltui.ui.screens.item import ItemScreen
from evaltui.ui.transcript import transcript_text
from evaltui.ui.widgets.item_table import ItemTable
from tests.ui.helpers import settle, side_text

HOSTILE = (
    "[bold red]ALARM[/bold red] "
    "\x1b[2J\x1b[31mred?\x1b[0m "
    "\x1b]52;c;ZWNobyBwd25lZA==\x07 "
    "abc\u202edcba"
)


def hostile_pair(tmp_path):
    rows = []
    for i in range(40):
        base = {"item_id": f"[b]item-{i}[/b]", "passed": i % 4 != 0, "input": HOSTILE}
        rows.append(base)
    cand = [{**r, "passed": not r["passed"] if i < 6 else r["passed"]} for i, r in enumerate(rows)]
    for r in cand:
        r["output"] = HOSTILE
        r["messages"] = [
            {"role": "user", "content": HOSTILE},
            {"role": "assistant", "content": HOSTILE},
        ]
    paths = []
    for name, records in (("base.jsonl", rows), ("cand.jsonl", cand)):
        path = tmp_path / name
        path.write_text("".join(json.dumps(r) + "\n" for r in records))
        paths.append(path)
    return paths


def test_transcript_text_keeps_markup_literal_and_escapes_visible():
    from evaltui.core.read.runs import Message, Transcript

    text = transcript_text(Transcript(messages=(Message("user", HOSTILE),), output=HOSTILE))
    plain = text.plain
    assert "[bold red]ALARM[/bold red]" in plain
    assert "\x1b" not in plain and "\x07" not in plain and "\u202e" not in plain
    assert "␛[2J" in plain and "␛]52;c;" in plain and "<U+202E>" in plain
    # No style comes from the content: the only styled spans are our own section headers.
    content_start = plain.index("[bold red]")
    for span in text.spans:
        assert not (span.start <= content_start < span.end and "red" in str(span.style))


@pytest.mark.slow
async def test_hostile_ids_and_transcripts_render_inert_in_the_app(tmp_path):
    base, cand = hostile_pair(tmp_path)
    app = create_app(AppConfig.for_pair(base, cand, state_root=tmp_path / "state"))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        table = app.screen.query_one(ItemTable)
        assert table.rows[0].item_id.startswith("[b]item-")
        svg = app.export_screenshot()
        assert "[b]item-" in svg  # shown literally in the list
        await pilot.press("enter")
        await settle(app, pilot)
        assert isinstance(app.screen, ItemScreen)
        shown = side_text(app, "candidate")
        assert "[bold red]ALARM[/bold red]" in shown
        assert "\x1b" not in shown and "\u202e" not in shown
        svg = app.export_screenshot()
        assert "\x1b" not in svg and "\x07" not in svg
        assert "ALARM[/bold" in svg.replace("&#160;", " ")


@pytest.mark.slow  # over a CPU-second: out of the default run's budget, in CI
async def test_a_one_megabyte_output_opens_and_stays_responsive(tmp_path):
    big = ("word " * 200_000) + "\x1b[2J"  # 1 MB on one line, an escape at the very end
    rows = [{"item_id": f"q{i}", "passed": i % 2 == 0, "output": "short"} for i in range(40)]
    cand = [{**r, "passed": not r["passed"] if i == 0 else r["passed"]} for i, r in enumerate(rows)]
    cand[0]["output"] = big
    paths = []
    for name, records in (("b.jsonl", rows), ("c.jsonl", cand)):
        path = tmp_path / name
        path.write_text("".join(json.dumps(r) + "\n" for r in records))
        paths.append(path)
    app = create_app(AppConfig.for_pair(paths[0], paths[1], state_root=tmp_path / "state"))
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(app, pilot)
        await pilot.press("enter")
        await settle(app, pilot)
        shown = side_text(app, "candidate")
        assert "more characters not shown" in shown
        assert len(shown) < 200_000
        await pilot.press("d", "j", "j", "pagedown", "escape")  # still answers keys
        await pilot.pause()
        assert app.screen.__class__.__name__ == "MainScreen"
