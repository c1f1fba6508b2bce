"""Shared helpers for driving the real app with Pilot."""

from __future__ import annotations

from pathlib import Path

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


def listed_ids(app: EvalTuiApp) -> list[str]:
    return [row.item_id for row in app.screen.query_one(ItemTable).rows]
