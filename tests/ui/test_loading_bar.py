"""The loading bar stands where the load is: the read, nearly all of a pair's load, fills most
of it (with the five steps equal it stood at 10% with half of a 1 GB pair's samples read, and
leapt from 20% to the end in a fifth of a second)."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from evaltui.ui.loading import BAR_STEPS, LOAD_STEPS, READING_SHARE, load_position
from evaltui.ui.messages import LoadProgress
from tests.ui.helpers import demo_app


def test_the_read_fills_most_of_the_loading_bar_and_the_steps_after_it_the_rest():
    assert load_position(0.0) == 0.0
    assert load_position(0.5) == READING_SHARE / 2 == 0.4
    assert load_position(1.0) == READING_SHARE
    assert load_position(len(LOAD_STEPS) - 1) == pytest.approx(0.95)
    assert load_position(len(LOAD_STEPS)) == 1.0
    grid = [k / 20 for k in range(20 * len(LOAD_STEPS) + 1)]
    positions = list(map(load_position, grid))
    assert positions == sorted(positions) and min(positions) >= 0.0 and max(positions) <= 1.0


def test_the_apps_load_progress_is_posted_at_the_weighted_position(tmp_path):
    app = demo_app(tmp_path)
    posted: list[LoadProgress] = []
    app.main_screen = SimpleNamespace(post_message=posted.append)  # type: ignore[assignment]
    app._progress("reading the baseline and the candidate", 0.5)
    app._progress(LOAD_STEPS[3], 3)
    assert [m.step for m in posted] == pytest.approx([40.0, 90.0])
    assert {m.total for m in posted} == {BAR_STEPS}
