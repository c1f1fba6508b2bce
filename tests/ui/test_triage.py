"""Triage at scale: a bulk tag over a filter or a slice (asked first, journalled, undoable),
undo of the last tag, and tag-and-advance in the item screen."""

from __future__ import annotations

import json

import pytest

from evaltui.core.record.journal import ReviewSession
from evaltui.ui.screens.bulk import BulkTagScreen
from evaltui.ui.screens.item import ItemScreen
from evaltui.ui.screens.main import MainScreen
from evaltui.ui.screens.slices import SlicesScreen
from tests.ui.helpers import SAMPLE, demo_app, listed_ids, settle, text_of
from tests.ui.test_policy_view import policy_app

DRUG = [
    "pharm-0020", "pharm-0103", "pharm-0112", "pharm-0130", "pharm-0156", "pharm-0172",
    "pharm-0187",
]  # fmt: skip


def journal_tags(app) -> list[dict]:
    lines = app.loaded.session.path.read_text().splitlines()
    return [e for e in map(json.loads, lines) if e.get("kind") == "tag"]


def reopened_tags(app, state) -> dict[str, str | None]:
    """The tags as another process reads the journal from disk."""
    paired = app.loaded.analysis.paired
    session = ReviewSession.open(
        SAMPLE[0], SAMPLE[1], paired.baseline.source.sha256, paired.candidate.source.sha256,
        root=state, read_only=True,
    )  # fmt: skip
    return {i: r.tag for i, r in session.items.items()}


@pytest.mark.slow  # a variant of a flow the default run covers (the suite's CPU budget); CI runs it
async def test_a_bulk_tag_over_a_slice_is_asked_journalled_and_undone(tmp_path):
    state = tmp_path / "state"
    app = policy_app(tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(app, pilot)
        await pilot.press("l")
        await pilot.pause()
        assert isinstance(app.screen, SlicesScreen)
        options = app.screen.query_one("#slice-list")
        prompts = [str(options.get_option_at_index(i).prompt) for i in range(options.option_count)]
        options.highlighted = next(i for i, p in enumerate(prompts) if p.startswith("drug_"))
        await pilot.press("T")
        await pilot.pause()
        assert isinstance(app.screen, BulkTagScreen)
        summary = text_of(app, "#bulk-summary")
        assert "Tag 7 items at once" in str(app.screen.query_one("Static").content)
        assert "regressions · slice drug_interactions" in summary
        assert ", ".join(DRUG[:5]) + " and 2 more" in summary
        await pilot.press("1")  # choose: confirmed regression
        assert "Tag all 7 as “confirmed regression”?" in text_of(app, "#bulk-hint")
        assert journal_tags(app) == []  # nothing written before the confirmation
        await pilot.press("y")
        await settle(app, pilot)
        assert isinstance(app.screen, SlicesScreen)
        entries = journal_tags(app)
        assert [e["item_id"] for e in entries] == DRUG
        assert all(e["tag"] == "confirmed regression" and e["bulk"] == 7 for e in entries)
        assert all(len(e["seen"]) == 2 for e in entries)  # the outcome the reviewer saw
        assert reopened_tags(app, state) == dict.fromkeys(DRUG, "confirmed regression")
        await pilot.press("escape")
        assert isinstance(app.screen, MainScreen)
        assert "Triage: 7 of 9 regressions triaged" in text_of(app, "#header")
        tags = {r.item_id: r.tag for r in app.views["regressions"].rows}
        assert all(tags[i] == "confirmed regression" for i in DRUG)
        # The gates follow the bulk tag like single tags.
        tag_gate = next(g for g in app.loaded.gates if g.kind == "no_tag")
        assert tag_gate.status == "failed"

        await pilot.press("z")  # undo the whole bulk tag
        await settle(app, pilot)
        assert "Triage: 0 of 9 regressions triaged" in text_of(app, "#header")
        undo = journal_tags(app)[7:]
        assert [e["item_id"] for e in undo] == DRUG
        assert all(e["tag"] is None and e["undo"] is True for e in undo)
        assert reopened_tags(app, state) == dict.fromkeys(DRUG)
        assert all(r.tag is None for r in app.views["regressions"].rows)


@pytest.mark.slow  # over a CPU-second: out of the default run's budget, in CI
async def test_a_bulk_tag_of_the_filtered_list_replaces_tags_and_undo_restores_them(tmp_path):
    state = tmp_path / "state"
    app = demo_app(state)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        await pilot.press("4")  # a single tag first: pharm-0020 flaky
        await pilot.press("f", "f")  # slice filter: drug_interactions
        assert listed_ids(app) == DRUG
        await pilot.press("T")
        await pilot.pause()
        assert isinstance(app.screen, BulkTagScreen)
        summary = text_of(app, "#bulk-summary")
        assert "regressions · slice=drug_interactions" in summary
        assert "1 of them already have a tag: it is replaced" in summary
        await pilot.press("escape")  # nothing chosen yet: Esc cancels
        assert isinstance(app.screen, MainScreen)
        assert len(journal_tags(app)) == 1
        await pilot.press("T")
        await pilot.pause()
        await pilot.press("j", "enter")  # the second tag, chosen with the list keys
        assert "“acceptable”" in text_of(app, "#bulk-hint")
        await pilot.press("escape")  # choose again
        assert isinstance(app.screen, BulkTagScreen)
        await pilot.press("2", "enter")
        await settle(app, pilot)
        assert isinstance(app.screen, MainScreen)
        assert reopened_tags(app, state) == dict.fromkeys(DRUG, "acceptable")
        await pilot.press("z")  # undo the bulk tag: pharm-0020 is flaky again
        assert reopened_tags(app, state) == {**dict.fromkeys(DRUG), "pharm-0020": "flaky"}
        await pilot.press("z")  # then the single tag
        assert reopened_tags(app, state) == dict.fromkeys(DRUG)
        await pilot.press("z")  # nothing left: says so, writes nothing
        assert len(journal_tags(app)) == 1 + 7 + 7 + 1


@pytest.mark.slow
async def test_tagging_in_the_item_screen_moves_to_the_next_untriaged_item(tmp_path):
    app = demo_app(tmp_path / "state")
    async with app.run_test(size=(100, 40)) as pilot:
        await settle(app, pilot)
        regressions = list(app.loaded.analysis.regressions)
        await pilot.press("j", "3", "home", "enter")  # the second one is triaged already
        await settle(app, pilot)
        assert isinstance(app.screen, ItemScreen)
        await pilot.press("1")
        await settle(app, pilot)
        assert app.screen.row.item_id == regressions[2]  # skipped the triaged second
        meta = text_of(app, "#item-meta")
        assert f"✓ {regressions[0]} tag: confirmed regression" in meta
        assert "tag: untriaged" in meta
        await pilot.press("z")  # undo: back to the item it was on, untagged again
        await settle(app, pilot)
        assert app.screen.row.item_id == regressions[0]
        assert app.loaded.session.review(regressions[0]).tag is None
        await pilot.press("A", "5")  # tag-and-advance off: the tag stays on this item
        await settle(app, pilot)
        assert app.screen.row.item_id == regressions[0]
        assert app.loaded.session.review(regressions[0]).tag == "needs investigation"
        await pilot.press("A")  # on again: re-tag this one, then one key per untriaged item
        for left in range(7, -1, -1):
            await pilot.press("2")
            await settle(app, pilot)
            assert app.triaged() == 9 - left
        assert app.screen.row.item_id == regressions[-1]  # nothing left to move on to
        await pilot.press("escape")
        assert "Triage: 9 of 9 regressions triaged" in text_of(app, "#header")
