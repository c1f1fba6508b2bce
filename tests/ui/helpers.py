"""Shared helpers for driving the real app with Pilot."""

from __future__ import annotations

from pathlib import Path

from textual import events
from textual.pilot import Pilot
from textual.widgets import Static

from evaltui.ui.app import AppConfig, EvalTuiApp, create_app
from evaltui.ui.widgets.item_table import ItemTable

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = (ROOT / "sample_runs" / "baseline.jsonl", ROOT / "sample_runs" / "candidate.jsonl")


def demo_app(state: Path, **kwargs) -> EvalTuiApp:
    return create_app(AppConfig.for_pair(SAMPLE[0], SAMPLE[1], state_root=state, **kwargs))


async def settle(app: EvalTuiApp, pilot: Pilot) -> None:
    """Wait for the loading/transcript workers and the screen refresh they trigger."""
    await pilot.pause()
    await app.workers.wait_for_complete()
    await pilot.pause()


async def written(app: EvalTuiApp, pilot: Pilot) -> None:
    """Wait for the sign-off worker (the record is built and written off the UI thread) and
    the screen's handling of its result; other workers may still run."""
    await pilot.pause()
    await app.workers.wait_for_complete([w for w in app.workers if w.group == "signoff"])
    await pilot.pause()


def text_of(app: EvalTuiApp, selector: str) -> str:
    return str(app.screen.query_one(selector, Static).content)


def side_text(app: EvalTuiApp, arm: str) -> str:
    """One side of the item screen as plain text: its label line, then its sections."""
    return app.screen.side_plain(0 if arm == "baseline" else 1)


def listed_ids(app: EvalTuiApp) -> list[str]:
    return [row.item_id for row in app.screen.query_one(ItemTable).rows]


def screen_lines(app: EvalTuiApp) -> list[str]:
    """The terminal as the reviewer sees it, one string per line."""
    update = app.screen._compositor.render_full_update()
    return ["".join(strip.text for strip in line) for line in update.strips]


def burst(app: EvalTuiApp, key: str, times: int) -> None:
    """Queue `times` presses of `key` at once, as a terminal over SSH delivers a burst: no
    refresh runs between them (Pilot's `press` waits for the app after every key)."""
    for _ in range(times):
        event = events.Key(key, key if len(key) == 1 else None)
        event.set_sender(app)
        app._driver.send_message(event)
