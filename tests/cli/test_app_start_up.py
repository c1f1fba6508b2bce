"""What `evaltui BASE CAND` does before the app runs (`cli/main.py`): the cyclic collector is
paused through the start-up's imports, and what they made is frozen (never walked by a
collection) before the app runs."""

from __future__ import annotations

import gc
import sys

import pytest

from evaltui.cli import main as cli
from evaltui.cli import parser
from evaltui.core.analysis import analysis_cache
from evaltui.core.analysis.pipeline import compare, keep_analysis
from evaltui.core.read.formats import scan_cache
from evaltui.core.read.remote.cache import NO_CACHE_ENV
from tests.core.analysis.test_sealed_entries import graded_pair


class Terminal:
    """A stream that says it is a terminal (the app's check), the real one otherwise."""

    def __init__(self, stream) -> None:
        self._stream = stream

    def isatty(self) -> bool:
        return True

    def __getattr__(self, name: str):
        return getattr(self._stream, name)


class StubApp:
    """In place of the review app: notes what `run` finds, and ends."""

    quit_without_waiting = False
    hung_up = False
    load_error = None
    return_code = 0
    loaded = None

    def __init__(self, config, seen: dict) -> None:
        self.config, self.seen = config, seen

    def run(self) -> None:
        frozen = gc.get_freeze_count()
        self.config.reading.take(None)  # (the early read pauses the collector while it runs)
        self.seen["run"] = (gc.isenabled(), frozen)

    def finish_keeping(self) -> None:
        pass


@pytest.fixture
def started(tmp_path, monkeypatch):
    """`evaltui BASE CAND` on a pair opened once before, the app a stub; what it saw."""
    monkeypatch.setenv(scan_cache.ENV, str(tmp_path / "cache"))
    monkeypatch.setenv("EVALTUI_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.delenv(NO_CACHE_ENV, raising=False)
    monkeypatch.setattr(analysis_cache, "MIN_ITEMS", 0)
    monkeypatch.setattr(scan_cache, "MIN_BYTES", 0)
    spec = graded_pair(tmp_path / "runs")
    keep_analysis(compare(spec, cached=True))
    seen: dict = {}
    real_spec = parser.spec_from_args

    def spec_from_args(args):  # (the spec's imports: polars, numpy)
        seen["spec"] = gc.isenabled()
        return real_spec(args)

    import evaltui.ui.app as ui_app

    monkeypatch.setattr(cli, "spec_from_args", spec_from_args)
    monkeypatch.setattr(ui_app, "create_app", lambda config: StubApp(config, seen))
    monkeypatch.setattr(sys, "stdin", Terminal(sys.stdin))
    monkeypatch.setattr(sys, "stdout", Terminal(sys.stdout))
    # (other tests' threads may still run: the CLI's exit without them must not end pytest)
    monkeypatch.setattr(cli, "_leave_without_waiting_for_workers", lambda app, code: None)
    was_enabled = gc.isenabled()
    try:
        code = cli.main([str(spec.baseline), str(spec.candidate), "--metric", "score"])
    finally:
        gc.unfreeze()  # (the rest of the test session collects as before)
    assert code == 0
    return seen, was_enabled


def test_the_collector_pauses_before_the_spec_is_made(started):
    seen, was_enabled = started
    assert was_enabled
    assert seen["spec"] is False


def test_the_app_runs_with_the_collector_back_and_the_start_up_frozen(started):
    seen, _ = started
    enabled, frozen = seen["run"]
    assert enabled
    assert frozen > 10_000  # (every module, class and function the start-up made)
    assert gc.isenabled()
