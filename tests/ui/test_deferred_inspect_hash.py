"""The app defers a local Inspect `.eval` log's sha256 to after its first screen (issue 27
item 5: hashing a 968 MB pair beside the parse cost the first screen seconds), then confirms
it: the record gets the hash of the bytes on disk, and a log changed since it was read is
refused before anything is signed."""

from __future__ import annotations

import os

from evaltui.core.read.runs import sha256_of
from evaltui.ui.app import AppConfig, create_app
from tests.conftest import DATA
from tests.ui.helpers import settle

INSPECT = DATA / "inspect_ai"
GPT5 = INSPECT / "2025-09-15T15-04-34-04-00_popularity_CuCFPdqnwXupUkxp69nJ2a.eval"
CLAUDE = INSPECT / "2025-09-15T15-04-34-04-00_popularity_jKN69eAYYpZFAZhRgMAztp.eval"


async def test_the_first_screen_comes_before_the_hash_and_the_hash_is_of_the_bytes(tmp_path):
    app = create_app(AppConfig.for_pair(GPT5, CLAUDE, state_root=tmp_path / "state"))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)  # the first screen, then confirm_inputs's worker
        loaded = app.loaded
        assert loaded is not None
        paired = loaded.analysis.paired
        assert paired.baseline.source.sha256 == ""  # shown before it was hashed
        app.state.check_inputs_confirmed(loaded)  # confirmed: signing is allowed
        recorded = app.state.with_confirmed_hashes(loaded).analysis.paired
        assert recorded.baseline.source.sha256 == sha256_of(GPT5)
        assert recorded.candidate.source.sha256 == sha256_of(CLAUDE)


async def test_a_log_changed_after_its_first_screen_is_refused_before_signing(tmp_path):
    base = tmp_path / GPT5.name
    base.write_bytes(GPT5.read_bytes())
    app = create_app(AppConfig.for_pair(base, CLAUDE, state_root=tmp_path / "state"))
    original = app.confirm_inputs

    def touched_first(loaded):  # the log rewritten between its read and its hashing
        stat = base.stat()
        os.utime(base, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))
        return original(loaded)

    app.confirm_inputs = touched_first  # type: ignore[method-assign]
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        assert app.state.inputs_problem is not None
        assert "changed since it was opened" in app.state.inputs_problem
