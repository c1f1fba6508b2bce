"""Shared helpers for driving the real app with Pilot.

The waits here are barriers, never sleeps: `settle` returns once no worker of the app is pending
or running, no timer the app's own code set is still to fire, every message those produced has
been handled and the screen has refreshed; checked again after each round, so a worker started
by another worker's result (the clusters after the first screen) is waited for too. A barrier
not reached within `BARRIER_TIMEOUT` fails the test naming what was still busy (it does not
carry on with a half-loaded screen); the bound is a guard against a hang, not a time assertion.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable
from pathlib import Path

import pytest
from textual import events
from textual.pilot import Pilot
from textual.timer import Timer
from textual.widgets import Static
from textual.worker import Worker, WorkerState

from evaltui.ui.app import AppConfig, EvalTuiApp, create_app
from evaltui.ui.widgets.item_table import ItemTable

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = (ROOT / "sample_runs" / "baseline.jsonl", ROOT / "sample_runs" / "candidate.jsonl")


def demo_app(state: Path, **kwargs) -> EvalTuiApp:
    return create_app(AppConfig.for_pair(SAMPLE[0], SAMPLE[1], state_root=state, **kwargs))


BARRIER_TIMEOUT = 60.0  # seconds a barrier may take before the test fails as hung
POLL = 0.02  # seconds between two looks at a condition `until` waits for
BUSY = (WorkerState.PENDING, WorkerState.RUNNING)


def busy_workers(app: EvalTuiApp, ignore: Iterable[str] = ()) -> list[Worker]:
    """Every worker of the app (any node's) not finished yet, but those of the groups in
    `ignore` (a test that holds a worker on purpose names its group)."""
    held = set(ignore)
    return [w for w in app.workers if w.state in BUSY and w.group not in held]


def pending_timers(app: EvalTuiApp) -> list[Timer]:
    """One-shot timers the app's own code set (`set_timer` on an evaltui widget, such as the
    preview's read once the cursor rests) that have not fired yet. Textual's own timers (toast
    expiry, cursor blink, tooltips) are not the app's work and are not waited for."""
    timers = []
    for node in [app, *app._registry]:
        if not type(node).__module__.startswith("evaltui."):
            continue
        for timer in list(node._timers):
            task = timer._task
            ours = timer._repeat == 0 and timer.name.startswith("set_timer#")
            if ours and task is not None and not task.done():
                timers.append(timer)
    return timers


# What a screen still has to do before it is drawn as the state says: a layout, a scroll, a
# repaint, a recompose, widgets to redraw, or callbacks waiting for the next refresh (such as
# the item screen's scroll to a search match).
REFRESH_FLAGS = ("_layout_required", "_scroll_required", "_repaint_required", "_recompose_required")


def screen_unsettled(app: EvalTuiApp) -> list[str]:
    """What the current screen has yet to do before it shows the app's state ([] when none)."""
    screen = app.screen
    left = [flag.strip("_") for flag in REFRESH_FLAGS if getattr(screen, flag, False)]
    if getattr(screen, "_dirty_widgets", None):
        left.append("widgets to redraw")
    if getattr(screen, "_callbacks", None):
        left.append("callbacks after the refresh")
    return left


def _busy_text(
    workers: Iterable[Worker], timers: Iterable[Timer], screen: Iterable[str] = ()
) -> str:
    named = [f"worker {w.name or w.group!r} ({w.state.name.lower()})" for w in workers]
    named += [f"timer {t.name} of {t._target_repr}" for t in timers]
    named += [f"the screen ({', '.join(screen)})"] if screen else []
    return ", ".join(named) or "nothing (the screen kept changing)"


async def settle(
    app: EvalTuiApp, pilot: Pilot, ignore: Iterable[str] = (), timeout: float = BARRIER_TIMEOUT
) -> None:
    """Wait until no worker of the app is pending or running (but the groups in `ignore`), no
    timer of the app's own is still to fire, the screen has handled everything they posted and
    has nothing left to lay out, redraw or call after its refresh; seen twice in a row, so a
    worker started by another's result is waited for too."""
    ignore = tuple(ignore)

    async def wait() -> None:
        quiet = 0
        while quiet < 2:
            await pilot.pause()  # handles the queued messages, then refreshes the screen
            workers, timers = busy_workers(app, ignore), pending_timers(app)
            if not workers and not timers:
                # An app that is ending (bad input, quit) draws nothing more: settled.
                ending = app._exit or not app.is_running
                quiet = quiet + 1 if ending or not screen_unsettled(app) else 0
                continue
            quiet = 0
            # The tasks themselves, awaited with asyncio.wait: a wait that is given up on
            # (the bound below) must never cancel the app's workers or timers.
            tasks = [w._task for w in workers if w._task is not None]
            tasks += [t._task for t in timers if t._task is not None]
            if tasks:
                await asyncio.wait(tasks)

    try:
        await asyncio.wait_for(wait(), timeout)
    except TimeoutError:
        busy = _busy_text(busy_workers(app, ignore), pending_timers(app), screen_unsettled(app))
        pytest.fail(f"the app did not settle within {timeout:.0f} s; still busy: {busy}")


async def written(app: EvalTuiApp, pilot: Pilot, ignore: Iterable[str] = ()) -> None:
    """Wait for the sign-off (the record is built and written by a worker, off the UI thread),
    the screen's handling of its result and whatever else the app had running: the whole-app
    barrier of `settle`, named for what the tests wait on."""
    await settle(app, pilot, ignore)


async def until(
    pilot: Pilot, condition: Callable[[], bool], what: str, timeout: float = BARRIER_TIMEOUT
) -> None:
    """Wait until `condition()` holds, looked at after every pass of the app's message loop:
    for a state reached while a test holds a worker on purpose (so `settle` cannot be used).
    Fails the test naming `what` if it never holds."""

    async def wait() -> None:
        await pilot.pause()
        while not condition():
            await pilot.pause(POLL)

    try:
        await asyncio.wait_for(wait(), timeout)
    except TimeoutError:
        busy = _busy_text(busy_workers(pilot.app), pending_timers(pilot.app))
        pytest.fail(f"never saw {what} within {timeout:.0f} s; busy: {busy}")


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
