"""An Inspect pair the app opened with its sha256 deferred (hashed after the first screen):
the review journals the hashes once known, so reopening after a tagged file changed says so on
the first screen, in the decision line."""

from __future__ import annotations

import json
import shutil
import zipfile

import pytest

from evaltui.core.record.journal import INPUTS
from evaltui.ui.app import AppConfig, create_app
from tests.conftest import DATA
from tests.ui.helpers import listed_ids, screen_lines, settle

LOGS = DATA / "inspect_ai"
BASE = LOGS / "2025-09-15T15-04-34-04-00_popularity_jKN69eAYYpZFAZhRgMAztp.eval"
CAND = LOGS / "2025-09-15T15-04-34-04-00_popularity_CuCFPdqnwXupUkxp69nJ2a.eval"


@pytest.mark.slow
async def test_a_tagged_inspect_pair_whose_log_changed_says_so_on_the_reopened_first_screen(
    tmp_path,
):
    base, cand, state = tmp_path / "b.eval", tmp_path / "c.eval", tmp_path / "state"
    shutil.copy(BASE, base)
    shutil.copy(CAND, cand)
    app = create_app(AppConfig.for_pair(str(base), str(cand), state_root=state))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        assert app.loaded is not None
        tagged = listed_ids(app)[0]
        await pilot.press("1")
        await settle(app, pilot)
        assert "input changed" not in "\n".join(screen_lines(app))
    journal = next(state.rglob("journal.jsonl"))
    entries = [json.loads(line) for line in journal.read_text().splitlines()]
    assert entries[0]["candidate_sha256"] == ""  # (the app started before hashing the logs)
    assert [e for e in entries if e["kind"] == INPUTS][0]["candidate_sha256"]  # ... then did
    with zipfile.ZipFile(cand, "a") as archive:
        archive.comment = b"the candidate rewritten after the tags"
    app = create_app(AppConfig.for_pair(str(base), str(cand), state_root=state))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        assert app.loaded is not None and app.loaded.session.inputs_changed
        assert app.loaded.session.review(tagged).tag is not None
        assert "input changed" in app.loaded.decision.first_line.reasons
        assert "input changed" in screen_lines(app)[0]  # the decision line, on the first screen
