"""The app opened with the two runs' read already started (the CLI's `start_reading`, before
Textual is imported): the loading worker takes it (one read), shows the read's progress,
and a bad input ends the app with the same one line and exit code as its own read did."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import evaltui.core.analysis.early_read as early_read
import evaltui.core.analysis.pipeline as pipeline
from evaltui.ui.app import AppConfig, EvalTuiApp, create_app
from tests.ui.helpers import SAMPLE, settle


def started(config: AppConfig) -> AppConfig:
    return replace(config, reading=pipeline.start_reading(config.spec))


async def test_the_app_takes_the_read_the_cli_started_and_shows_its_progress(tmp_path, monkeypatch):
    calls: list[str] = []
    real = early_read.load_both

    def counted(*args, **kwargs):
        calls.append("read")
        return real(*args, **kwargs)

    monkeypatch.setattr(early_read, "load_both", counted)
    told: list[str] = []  # what the worker tells the screen (a burst of messages is drawn once)
    tell = EvalTuiApp._progress

    def heard(app: EvalTuiApp, what: str, step: float) -> None:
        told.append(what)
        tell(app, what, step)

    monkeypatch.setattr(EvalTuiApp, "_progress", heard)
    app = create_app(started(AppConfig.for_pair(*SAMPLE, state_root=tmp_path / "state")))
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(app, pilot)
        assert app.loaded is not None and len(app.loaded.analysis.regressions) == 9
    assert calls == ["read"]  # the CLI's read, taken: the worker read nothing again
    assert told[0] == "reading the baseline and the candidate" and "pairing items" in told


async def app_error(config: AppConfig) -> tuple[str | None, int | None]:
    app = create_app(config)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(app, pilot)
    return app.load_error, app.return_code


async def test_a_bad_input_read_early_ends_with_the_same_line_and_exit_code(tmp_path: Path):
    bad = tmp_path / "candidate.jsonl"
    bad.write_text('{"item_id": "a", "passed": true}\n{"item_id": "b", "passed": \n')
    config = AppConfig.for_pair(SAMPLE[0], bad, state_root=tmp_path / "state")
    own = await app_error(config)
    early = await app_error(started(config))
    assert early == own and own[1] == 2 and own[0] is not None and "candidate.jsonl" in own[0]
