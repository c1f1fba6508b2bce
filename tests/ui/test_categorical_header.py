"""The header's one line for the outcome categories: the Stuart-Maxwell result in words (so it
reads under NO_COLOR), the categories that moved most, category names inert."""

from __future__ import annotations

import json

from evaltui.core.analysis.pipeline import compare_files
from evaltui.ui.app import AppConfig, create_app
from evaltui.ui.widgets.header_pane import header_text
from tests.conftest import DATA
from tests.ui.helpers import SAMPLE, screen_lines, settle
from tests.ui.test_no_color import assert_no_colour

BASE = DATA / "categorical" / "baseline.jsonl"
CAND = DATA / "categorical" / "candidate.jsonl"


def outcome_lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.startswith("outcomes: ")]


def test_the_header_names_the_stuart_maxwell_result_and_the_categories_that_moved():
    plain = header_text(compare_files(BASE, CAND), 0, ()).plain
    assert outcome_lines(plain) == [
        "outcomes: Stuart-Maxwell χ² 20.37 on 3 df, p = 1.4e-04 · mix CHANGED: "
        "refused +11.5 pts, incorrect -10.5 pts, error -1.0 pts"
    ]


def test_no_outcomes_line_without_categories_and_words_when_the_mix_held(tmp_path):
    assert outcome_lines(header_text(compare_files(*SAMPLE), 0, ()).plain) == []
    records = [
        {"item_id": i, "passed": i % 2 == 0, "outcome": ("C", "I", "N")[i % 3]} for i in range(60)
    ]
    text = "".join(json.dumps(r) + "\n" for r in records)
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    a.write_text(text)
    b.write_text(text)
    lines = outcome_lines(header_text(compare_files(a, b), 0, ()).plain)
    assert lines == ["outcomes: no item changed category (Stuart-Maxwell undefined)"]


def test_a_category_name_with_markup_is_shown_as_written(tmp_path):
    name = "[bold]refused[/bold]\x1b[2J"
    base = [{"item_id": i, "passed": i < 20, "outcome": "C" if i < 20 else "I"} for i in range(60)]
    cand = [dict(r, outcome=name) if 20 <= r["item_id"] < 50 else r for r in base]
    base[0] = dict(base[0], outcome="N")  # a third level
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    a.write_text("".join(json.dumps(r) + "\n" for r in base))
    b.write_text("".join(json.dumps(r) + "\n" for r in cand))
    (line,) = outcome_lines(header_text(compare_files(a, b), 0, ()).plain)
    assert "[bold]refused[/bold]" in line and "\x1b" not in line


async def test_the_outcomes_line_reads_without_colour_in_the_app(tmp_path, monkeypatch):
    monkeypatch.setenv("NO_COLOR", "1")  # before the app exists: Textual reads it at start
    app = create_app(AppConfig.for_pair(BASE, CAND, state_root=tmp_path / "state"))
    async with app.run_test(size=(160, 50)) as pilot:
        await settle(app, pilot)
        screen = "\n".join(screen_lines(app))
        assert "NEEDS REVIEW · outcome mix changed (Stuart-Maxwell p = 1.4e-04)" in screen
        assert "mix CHANGED: refused +11.5 pts, incorrect -10.5 pts" in screen
        assert_no_colour(app)
