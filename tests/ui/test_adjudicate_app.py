"""The adjudicator's key on a shared review (issue 26, item 4): C on a disputed item opens a
dialog with every reviewer's tag and note, the settled tag and a reason; Ctrl+S journals the
adjudication in the adjudicator's own journal and the item is triaged; anyone else is told in
one line who may settle it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evaltui.core.record.adjudication import ADJUDICATORS_VARIABLE
from evaltui.core.record.journal import ReviewSession
from evaltui.ui.screens.adjudicate import AdjudicateScreen
from tests.conftest import SAMPLE_RUNS
from tests.ui.helpers import demo_app, settle, text_of


def _disputed_by_ben_and_cy(tmp_path: Path, team: Path) -> str:
    """ben and cy disagree on the demo pair's first regression (cy with a note): its id."""
    from evaltui.core.analysis.pipeline import compare
    from evaltui.core.compare.spec import CompareSpec
    from evaltui.core.read.runs import sha256_of

    base, cand = SAMPLE_RUNS / "baseline.jsonl", SAMPLE_RUNS / "candidate.jsonl"
    first = compare(CompareSpec(base, cand), complete=False).regressions[0]
    for who, tag in (("ben", "acceptable"), ("cy", "confirmed regression")):
        session = ReviewSession.open(
            base, cand, sha256_of(base), sha256_of(cand), root=tmp_path / f"state-{who}",
            review_dir=team, reviewer=who,
        )  # fmt: skip
        session.set_tag(first, tag)
        if who == "cy":
            session.set_note(first, "the answer is wrong, [bold]not[/bold] a grader slip")
        session.close()
    return first


def _team_app(tmp_path: Path, monkeypatch, adjudicators: str):
    team = tmp_path / "team"
    first = _disputed_by_ben_and_cy(tmp_path, team)
    monkeypatch.setenv("EVALTUI_REVIEW_DIR", str(team))
    monkeypatch.setenv(ADJUDICATORS_VARIABLE, adjudicators)  # (what --adjudicator sets)
    return demo_app(tmp_path / "state", reviewer="ana"), first


@pytest.mark.slow  # a Pilot load of the demo pair (~3 s CPU); the replay is tested in core
async def test_the_adjudicator_settles_a_disputed_item_in_the_dialog_and_it_is_journalled(
    tmp_path, monkeypatch
):
    app, first = _team_app(tmp_path, monkeypatch, "ana")
    async with app.run_test(size=(100, 40)) as pilot:
        await settle(app, pilot)
        session = app.loaded.session
        assert session.review(first).disputed
        assert "1 disputed" in text_of(app, "#header")
        assert "agreement: " in text_of(app, "#header")
        await pilot.press("C")
        await settle(app, pilot)
        assert isinstance(app.screen, AdjudicateScreen)
        shown = text_of(app, "#adjudicate-reviews")
        assert "ben: acceptable" in shown and "cy: confirmed regression" in shown
        assert "[bold]not[/bold]" in shown  # a note is shown literally, never as markup
        await pilot.press("ctrl+s")  # nothing chosen yet: said, nothing written
        await settle(app, pilot)
        assert "choose the settled tag first" in text_of(app, "#adjudicate-error")
        await pilot.press("enter")  # the first tag: confirmed regression
        await pilot.press("tab", *"cy read the transcript", "ctrl+s")
        await settle(app, pilot)
        assert not isinstance(app.screen, AdjudicateScreen)
        merged = session.review(first)
        assert merged.tag == "confirmed regression" and not merged.disputed
        assert "disputed" not in text_of(app, "#header").split("\n")[0]
        await pilot.press("q")
    lines = [json.loads(x) for x in session.path.read_text().splitlines()]
    (entry,) = [x for x in lines if x["kind"] == "adjudication"]
    assert entry["item_id"] == first and entry["tag"] == "confirmed regression"
    assert entry["by"] == "ana" and entry["reason"] == "cy read the transcript"
    assert session.path.name == "ana.jsonl"  # the adjudicator's own journal


@pytest.mark.slow  # a Pilot load of the demo pair (~3 s CPU)
async def test_a_reviewer_who_is_no_adjudicator_is_told_who_may_settle(tmp_path, monkeypatch):
    app, first = _team_app(tmp_path, monkeypatch, "dee, eve")
    async with app.run_test(size=(100, 40)) as pilot:
        await settle(app, pilot)
        await pilot.press("C")
        await settle(app, pilot)
        assert not isinstance(app.screen, AdjudicateScreen)
        said = [n.message for n in app._notifications]
        assert any(
            f"ana cannot settle {first}: only dee, eve may settle a dispute" in m for m in said
        ), said
        await pilot.press("q")
    assert "adjudication" not in app.loaded.session.path.read_text()


async def _dialog_open(pilot):
    await settle(pilot.app, pilot)
    await pilot.press("C")
    await settle(pilot.app, pilot)


@pytest.mark.slow  # a Pilot load of the demo pair per size
@pytest.mark.parametrize(
    "size", [pytest.param((80, 24), id="80x24"), pytest.param((120, 40), id="120x40")]
)
def test_adjudicate_dialog_snapshot(snap_compare, tmp_path, monkeypatch, size):
    app, _first = _team_app(tmp_path, monkeypatch, "ana")
    assert snap_compare(app, terminal_size=size, run_before=_dialog_open)


@pytest.mark.slow  # a Pilot load of the demo pair (~3 s CPU)
async def test_the_signoff_dialog_refuses_approval_over_a_dispute_even_with_an_override(
    tmp_path, monkeypatch
):
    from evaltui.ui.screens.signoff import SignoffScreen
    from tests.ui.helpers import written

    app, _first = _team_app(tmp_path, monkeypatch, "ana")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        await pilot.press("x")
        await settle(app, pilot)
        screen = app.screen
        said_first = str(screen.query_one("#override-what").content)  # before anything typed
        assert said_first.startswith("Cannot approve: 1 regression disputed"), said_first
        screen.query_one("#decision-approve").value = True
        screen.query_one("#rationale").load_text("ship it")
        screen.query_one("#override").value = "the release cannot wait"
        screen.query_one("#prefix").value = str(tmp_path / "so")
        await pilot.press("ctrl+s")
        await written(app, pilot)
        assert isinstance(app.screen, SignoffScreen)  # still open, with the reason shown
        said = str(screen.query_one("#signoff-error").content)
        assert "cannot approve: 1 regression disputed" in said and "settle it first" in said
        assert not (tmp_path / "so.json").exists()
        await pilot.press("escape", "escape")
        await pilot.press("q")
