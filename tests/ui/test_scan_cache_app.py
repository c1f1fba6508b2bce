"""The app's first screen may take a cached run's sha256 on trust; the sign-off may not."""

from __future__ import annotations

import hashlib
import json
import shutil
import threading

import pytest

from evaltui.core.read.formats import LoadOptions, entry_seal, load_run, scan_cache
from evaltui.ui import app as app_module
from evaltui.ui.app import AppConfig, create_app
from evaltui.ui.screens.signoff import SignoffScreen
from tests.ui.helpers import SAMPLE, settle, until, written


@pytest.fixture
def cached_pair(tmp_path, monkeypatch):
    """The demo pair copied aside, with both runs already in a scan cache."""
    monkeypatch.setenv(scan_cache.ENV, str(tmp_path / "cache"))
    monkeypatch.setattr(scan_cache, "MIN_BYTES", 0)
    paths = []
    for source in SAMPLE:
        path = tmp_path / source.name
        shutil.copyfile(source, path)
        load_run(path, None, LoadOptions())  # a first open fills the cache
        paths.append(path)
    return paths


async def sign_off(app, pilot, prefix, held=()):
    await pilot.press("x")
    await pilot.pause()
    screen = app.screen
    assert isinstance(screen, SignoffScreen)
    screen.query_one("#decision-block").value = True
    screen.query_one("#rationale").load_text("checked")
    screen.query_one("#prefix").value = str(prefix)
    await pilot.press("ctrl+s")
    await written(app, pilot, ignore=held)
    return screen


@pytest.mark.slow
async def test_a_reopened_pair_shows_cached_hashes_then_confirms_them_before_signing(
    tmp_path, cached_pair
):
    app = create_app(AppConfig.for_pair(*cached_pair, state_root=tmp_path / "state"))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        paired = app.loaded.analysis.paired
        assert not paired.baseline.source.hash_checked  # taken from the cache entry
        assert app.state.confirmed_paths == {str(p) for p in cached_pair}  # re-hashed after
        assert app.state.inputs_problem is None
        await sign_off(app, pilot, tmp_path / "so")
        assert app.last_signoff is not None
    record = json.loads((tmp_path / "so.json").read_text())
    for arm, path in zip(("baseline", "candidate"), cached_pair, strict=True):
        assert record["inputs"][arm]["sha256"] == hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.mark.slow
async def test_a_cache_entry_that_no_longer_matches_the_bytes_blocks_the_sign_off(
    tmp_path, cached_pair
):
    # As if the candidate's bytes changed while its identity (inode, times, size) did not.
    root = tmp_path / "cache"
    for entry in root.iterdir():
        meta = json.loads((entry / scan_cache.META).read_text())
        if meta["path"].endswith("candidate.jsonl"):
            meta["sha256"] = "f" * 64
            (entry / scan_cache.META).write_text(json.dumps(meta))
            entry_seal.seal(entry)  # (an intact entry of other bytes, not a damaged one)
    app = create_app(AppConfig.for_pair(*cached_pair, state_root=tmp_path / "state"))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        assert app.state.inputs_problem is not None
        assert "candidate.jsonl: changed since it was opened" in app.state.inputs_problem
        screen = await sign_off(app, pilot, tmp_path / "so")
        assert isinstance(app.screen, SignoffScreen)  # refused, with the reason shown
        assert "changed since it was opened" in str(screen.query_one("#signoff-error").content)
    assert not (tmp_path / "so.json").exists()
    # The entry that no longer matched is gone: the next open parses the bytes afresh.
    remaining = [json.loads((e / scan_cache.META).read_text())["path"] for e in root.iterdir()]
    assert remaining and not any(p.endswith("candidate.jsonl") for p in remaining)


@pytest.mark.slow
async def test_a_sign_off_before_the_inputs_are_re_hashed_is_refused_not_frozen(
    tmp_path, cached_pair, monkeypatch
):
    release = threading.Event()
    confirm = app_module.confirm_source

    def slow_confirm(source):  # as hashing two big files takes seconds
        release.wait(10)
        return confirm(source)

    monkeypatch.setattr(app_module, "confirm_source", slow_confirm)
    app = create_app(AppConfig.for_pair(*cached_pair, state_root=tmp_path / "state"))
    async with app.run_test(size=(120, 40)) as pilot:
        await until(pilot, lambda: app.loaded is not None, "the pair loaded")
        screen = await sign_off(app, pilot, tmp_path / "early", held=("confirm",))
        assert isinstance(app.screen, SignoffScreen)
        assert "still checking the sha256" in str(screen.query_one("#signoff-error").content)
        assert not (tmp_path / "early.json").exists()
        release.set()
        await settle(app, pilot)
        await pilot.press("ctrl+s")
        await written(app, pilot)
        assert app.last_signoff is not None
    assert (tmp_path / "early.json").exists()
