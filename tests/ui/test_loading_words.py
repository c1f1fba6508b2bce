"""While a pair loads, the loading line says how long a step has stood unchanged ("· 6 s"), so
a long step without a count does not look like a hung program; the ticks stop once the pair
is shown."""

from __future__ import annotations

import threading

import pytest
from textual.widgets import Static

import evaltui.core.analysis.pipeline as compare_module
from evaltui.ui.loading_words import OPENING, LoadingWords
from tests.fake_clock import FakeClock
from tests.ui.helpers import demo_app, screen_lines, settle, until


def test_the_line_says_its_seconds_once_it_has_stood_two():
    clock = FakeClock()
    words = LoadingWords(clock)
    assert words.line() == OPENING
    clock.now += 1.9
    assert words.line() == OPENING  # (a moment: nothing said)
    clock.now += 0.1
    assert words.line() == f"{OPENING} · 2 s"
    assert words.said("pairing items") == "Opening the runs: pairing items…"  # new words
    clock.now += 3.5
    assert words.said("pairing items") == "Opening the runs: pairing items… · 3 s"  # the same


@pytest.mark.slow  # (an app flow of 0.7 s: .ci/run's slow stage)
async def test_the_loading_screen_says_how_long_its_step_has_stood(tmp_path, monkeypatch):
    release = threading.Event()
    real_compare = compare_module.compare

    def held_compare(*args, **kwargs):  # a load that stays on one step
        assert release.wait(30)
        return real_compare(*args, **kwargs)

    monkeypatch.setattr(compare_module, "compare", held_compare)
    app = demo_app(tmp_path / "state")
    try:
        async with app.run_test(size=(80, 24)) as pilot:
            await until(pilot, lambda: app.main_screen is not None, "the main screen")
            screen = app.main_screen
            clock = FakeClock()
            screen.loading_words = LoadingWords(clock)
            clock.now += 6.4
            screen._redraw_loading()  # (what its one-second timer does)
            await pilot.pause()
            label = str(screen.query_one("#loading-label", Static).content)
            assert label == "Opening the runs… · 6 s"
            assert "Opening the runs… · 6 s" in "\n".join(screen_lines(app))
            assert screen._loading_ticks._task is not None  # (ticking while it loads)
            release.set()
            await settle(app, pilot)
            assert app.loaded is not None
            assert screen._loading_ticks._task is None  # (stopped with the pair shown)
    finally:
        release.set()
