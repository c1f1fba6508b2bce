"""Workers reach the screens through messages, and slow work stays off the UI thread."""

from __future__ import annotations

import dataclasses
import json
import re
import threading
from pathlib import Path

import pytest

import evaltui.ui.screens.signoff as signoff_screen
from evaltui.ui.messages import (
    GatesUpdated,
    LoadProgress,
    PairLoaded,
    PreviewsGrew,
)
from evaltui.ui.screens.signoff import SignoffScreen
from tests.ui.helpers import SAMPLE, demo_app, settle, written

UI = Path(__file__).resolve().parents[2] / "evaltui" / "ui"


def test_no_worker_calls_into_the_ui_thread_directly():
    """`call_from_thread`, a lookup of the main screen by type and `getattr(screen,
    "review_changed")` were how results reached the screens; messages replaced all three."""
    offenders = []
    for path in UI.rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        for pattern in (
            r"call_from_thread",
            r"\breview_changed\b",
            r"_main_screen\(",
        ):
            if re.search(pattern, text):
                offenders.append(f"{path.name}: {pattern}")
    assert offenders == []


def test_progress_like_messages_give_way_to_a_newer_one_of_their_kind():
    assert LoadProgress("reading", 0.1, 5).can_replace(LoadProgress("reading", 0.2, 5))
    assert PreviewsGrew().can_replace(PreviewsGrew())
    assert not LoadProgress("reading", 0.1, 5).can_replace(PreviewsGrew())
    assert not PairLoaded(None).can_replace(PairLoaded(None))  # results are never dropped


@pytest.mark.slow
async def test_the_loaded_state_is_replaced_not_mutated_when_gates_change(tmp_path):
    app = demo_app(tmp_path / "state", policy=SAMPLE[0].parent / "policy.toml")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        before = app.loaded
        gates_before = before.gates
        with pytest.raises(dataclasses.FrozenInstanceError):
            before.gates = ()  # type: ignore[misc]
        await pilot.press("1")  # tag the first regression: the gates are re-evaluated
        await settle(app, pilot)
        assert app.loaded is not before
        assert before.gates is gates_before
        assert app.loaded.session is before.session
        # A result computed for a pair that is no longer shown is dropped.
        current = app.loaded
        app.post_message(GatesUpdated(before, (), None))
        await pilot.pause()
        assert app.loaded is current


@pytest.mark.slow
async def test_the_signoff_record_is_built_and_written_off_the_ui_thread(tmp_path, monkeypatch):
    threads: list[int] = []
    real_build = signoff_screen.build_record

    def build(*args, **kwargs):
        threads.append(threading.get_ident())
        return real_build(*args, **kwargs)

    monkeypatch.setattr(signoff_screen, "build_record", build)
    app = demo_app(tmp_path / "state")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        ui_thread = threading.get_ident()
        await pilot.press("x")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, SignoffScreen)
        screen.query_one("#decision-block").value = True
        screen.query_one("#rationale").load_text("checked")
        screen.query_one("#prefix").value = str(tmp_path / "so")
        await pilot.press("ctrl+s")
        await written(app, pilot)
        assert not isinstance(app.screen, SignoffScreen)
    assert threads and all(t != ui_thread for t in threads)
    assert app.last_signoff == tuple(tmp_path / f"so.{ext}" for ext in ("json", "md", "csv"))
    assert json.loads((tmp_path / "so.json").read_text())["reviewer_decision"] == "block"
