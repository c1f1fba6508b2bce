"""While the inputs' sha256 are computed after the first screen (a remote pair's: both whole
objects read), the header says how far they are and the sign-off's refusal says it too; the
words go once the hashes are known."""

from __future__ import annotations

import threading

import pytest

from evaltui.core.read import meter
from evaltui.ui import app as app_module
from evaltui.ui import input_hashing
from evaltui.ui.app import AppConfig, create_app
from evaltui.ui.screens.signoff import SignoffScreen
from evaltui.ui.widgets.header_pane import HeaderPane
from tests.ui.helpers import screen_lines, settle, until, written
from tests.ui.test_scan_cache_app import cached_pair, sign_off

__all__ = ["cached_pair"]  # (the fixture, shared with the scan cache's tests)


@pytest.mark.slow  # (an app flow of 3 s: .ci/run's slow stage)
@pytest.mark.parametrize(
    "size", [(120, 40), (80, 30), (80, 20)], ids=["full-header", "narrow-header", "folded-header"]
)
async def test_the_header_and_the_sign_off_say_how_far_the_inputs_hashing_is(
    tmp_path, cached_pair, monkeypatch, size
):
    monkeypatch.setattr(input_hashing, "DELAY", 0.0)  # (said at once, and each count)
    monkeypatch.setattr(input_hashing, "INTERVAL", 0.0)
    halfway, release = threading.Event(), threading.Event()
    confirm = app_module.confirm_source

    def half_then_held(source):  # as a remote pair's hash reads its objects for minutes
        if not source.hash_checked and not halfway.is_set():
            meter.read(source.size // 2)
            halfway.set()
            assert release.wait(30)
        return confirm(source)

    monkeypatch.setattr(app_module, "confirm_source", half_then_held)
    total = sum(path.stat().st_size for path in cached_pair)
    half = cached_pair[0].stat().st_size // 2
    app = create_app(AppConfig.for_pair(*cached_pair, state_root=tmp_path / "state"))
    async with app.run_test(size=size) as pilot:
        await until(pilot, lambda: app.state.inputs_hashed is not None, "the hashing said")
        assert app.state.inputs_hashed == (half, total)
        how_far = f"{half / 1e6:.1f} of {total / 1e6:.1f} MB read"
        header = str(app.screen.query_one(HeaderPane).content)
        short = f"sign-off waits: sha256 {half / 1e6:.1f}/{total / 1e6:.1f} MB"
        header_rows = _header_height(app)
        if size[0] > 80:
            assert f"sign-off waits for the inputs' sha256 ({how_far})" in header
        else:  # the short words: the long ones would wrap the triage line (the folded
            # header's second line, whole up to its `h` hint; the full header's triage line)
            assert short in header and "the inputs' sha256 (" not in header
        screen = await sign_off(app, pilot, tmp_path / "early", held=("confirm",))
        assert isinstance(app.screen, SignoffScreen)
        refusal = str(screen.query_one("#signoff-error").content)
        assert "still checking the sha256 of" in refusal and f"({how_far})" in refusal
        assert not (tmp_path / "early.json").exists()
        await pilot.press("escape")
        release.set()
        await settle(app, pilot)
        assert app.state.inputs_hashed is None
        assert not any("sign-off waits" in line for line in screen_lines(app))
        assert _header_height(app) == header_rows  # the header kept its height
        await sign_off(app, pilot, tmp_path / "signed")
        await written(app, pilot)
        assert app.last_signoff is not None
    assert (tmp_path / "signed.json").exists()


def _header_height(app) -> int:
    """The rows the main screen's header takes (a dialog may be open over it)."""
    return app.main_screen.query_one(HeaderPane).size.height
