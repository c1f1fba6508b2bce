"""The app on a shared review folder (issue 26, item 1): its tags go to the reviewer's own
journal there, its drafts stay local, and another reviewer's tags show up merged (a disputed
item stays untriaged)."""

from __future__ import annotations

import pytest

from evaltui.core.record.journal import ReviewSession
from tests.ui.helpers import demo_app, screen_lines, settle, text_of


@pytest.mark.slow  # a Pilot load (~3 s CPU); the merge itself is tested in core by default
async def test_the_app_writes_its_own_journal_and_shows_the_others_tags(tmp_path, monkeypatch):
    team = tmp_path / "team"
    monkeypatch.setenv("EVALTUI_REVIEW_DIR", str(team))
    app = demo_app(tmp_path / "state", reviewer="ana")
    async with app.run_test(size=(100, 40)) as pilot:
        await settle(app, pilot)
        session = app.loaded.session
        assert session.path.name == "ana.jsonl" and session.path.parent.name == "journals"
        assert team in session.path.parents
        assert tmp_path / "state" in app.state.draft_folder().parents  # drafts stay local
        first, second = app.loaded.analysis.regressions[:2]
        await pilot.press("2")  # ana: acceptable
        await settle(app, pilot)
        paired = app.loaded.analysis.paired
        ben = ReviewSession.open(
            paired.baseline.source.path, paired.candidate.source.path,
            paired.baseline.source.sha256, paired.candidate.source.sha256,
            root=tmp_path / "state-ben", review_dir=team, reviewer="ben",
        )  # fmt: skip
        ben.set_tag(first, "flaky")  # disagrees: disputed
        ben.set_tag(second, "acceptable")  # alone: triaged
        ben.close()
        app.refresh_team()  # (what the app's timer does every few seconds)
        await settle(app, pilot)
        assert session.review(first).disputed and session.review(first).tag is None
        assert "Triage: 1 of 9" in text_of(app, "#header")
        assert app.state.rows_by_id[first].disputed
        assert any(first in line and "disputed" in line for line in screen_lines(app))
        await pilot.press("q")
    assert sorted(p.name for p in session.path.parent.iterdir()) == ["ana.jsonl", "ben.jsonl"]
