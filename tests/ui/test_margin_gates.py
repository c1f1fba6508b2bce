"""The app with a policy margin: the header counts it with the gates, the first line says it,
and `g` shows it with its numbers and a bar of the interval against the margin."""

from __future__ import annotations

import pytest

from evaltui.ui.app import AppConfig, create_app
from evaltui.ui.screens.gates import GatesScreen
from tests.ui.helpers import SAMPLE, settle, text_of


def margin_app(tmp_path, text):
    policy = tmp_path / "policy.toml"
    policy.write_text(text)
    config = AppConfig.for_pair(SAMPLE[0], SAMPLE[1], state_root=tmp_path / "state", policy=policy)
    return create_app(config)


@pytest.mark.slow
async def test_gates_screen_shows_the_margin_with_its_bar(tmp_path):
    app = margin_app(tmp_path, "non_inferiority_margin = 0.01\n")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        assert app.loaded.decision.line.startswith(
            "NEEDS REVIEW · non-inferior: lower limit +0.4 pts > -1.0 pts"
        )
        assert "gates (g): ✓ 1 passed" in text_of(app, "#header")
        await pilot.press("g")
        await pilot.pause()
        assert isinstance(app.screen, GatesScreen)
        options = app.screen.query_one("#gate-list")
        (prompt,) = [options.get_option_at_index(i).prompt for i in range(options.option_count)]
        shown = "\n".join(str(line) for line in _plain(prompt))
        assert "PASSED" in shown and "non-inferiority (margin 1 pt)" in shown
        assert "┃" in shown and "●" in shown and "wild cluster bootstrap-t 90%" in shown


@pytest.mark.slow
async def test_an_undecided_margin_is_counted_and_marked_in_words(tmp_path, write_jsonl):
    # 18 items: too few for a verdict, so the margin is undecided: "?" and the word, no colour
    # needed; the decision is NOT ENOUGH DATA.
    cells = [(True, True)] * 10 + [(True, False)] + [(False, True)] * 2 + [(False, False)] * 5
    base = write_jsonl(
        "b.jsonl", [{"item_id": f"q{i}", "passed": b} for i, (b, _) in enumerate(cells)]
    )
    cand = write_jsonl(
        "c.jsonl", [{"item_id": f"q{i}", "passed": c} for i, (_, c) in enumerate(cells)]
    )
    policy = tmp_path / "policy.toml"
    policy.write_text("non_inferiority_margin = 0.05\n")
    app = create_app(AppConfig.for_pair(base, cand, state_root=tmp_path / "state", policy=policy))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        (gate,) = app.loaded.gates
        assert gate.status == "undecided"
        assert app.loaded.decision.status == "not_enough_data"
        assert "? 1 undecided" in text_of(app, "#header")
        await pilot.press("g")
        await pilot.pause()
        options = app.screen.query_one("#gate-list")
        shown = "\n".join(_plain(options.get_option_at_index(0).prompt))
        assert "? UNDECIDED" in shown and "no verdict on non-inferiority" in shown


def _plain(group):
    """The text lines of a gate's option (a Group of Text and Padding(Text))."""
    for part in group.renderables:
        inner = getattr(part, "renderable", part)
        yield getattr(inner, "plain", str(inner))
