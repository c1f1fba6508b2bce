"""Pilot drives the real app over the demo pair through a reviewer's whole session."""

from __future__ import annotations

import hashlib
import json

import pytest
from rich.table import Table

from evaltui.core.record.journal import ReviewSession
from evaltui.ui.app import AppConfig, EvalTuiApp, create_app
from evaltui.ui.screens.help import HelpScreen
from evaltui.ui.screens.item import ItemScreen
from evaltui.ui.screens.main import MainScreen
from evaltui.ui.screens.note import NoteScreen
from evaltui.ui.screens.signoff import SignoffScreen
from evaltui.ui.widgets.item_table import ItemTable
from tests.ui.helpers import SAMPLE, demo_app, listed_ids, settle, side_text, text_of, written


@pytest.mark.slow
async def test_header_shows_the_paired_answer_and_lists_switch_by_key(tmp_path):
    app = demo_app(tmp_path / "state")
    async with app.run_test(size=(100, 40)) as pilot:
        await settle(app, pilot)
        header = text_of(app, "#header")
        assert "both pass 141" in header and "regressions 9" in header
        assert "improvements 21" in header and "both fail 29" in header
        # The first line is the decision; the demo's items cluster in 31 documents, so the
        # verdict rests on the cluster-aware interval and the item-level one is the contrast.
        assert header.lstrip().startswith("NEEDS REVIEW · 9 of 9 untriaged · overall +6.0 pts")
        assert "Candidate +6.0 pts" in header and "wild cluster bootstrap-t 95%" in header
        assert "item-level Tango [+0.7, +11.7] and exact McNemar p = 0.043" in header
        assert "baseline 75.0% [68.6%, 80.5%]" in header
        assert "errors/timeouts counted as failures: baseline 1, candidate 2" in header
        assert "Triage: 0 of 9 regressions triaged" in header
        assert len(listed_ids(app)) == 9
        await pilot.press("i")
        assert len(listed_ids(app)) == 21
        assert "Improvements (21)" in text_of(app, "#list-title")
        await pilot.press("r")
        assert len(listed_ids(app)) == 9


@pytest.mark.slow  # over a CPU-second: out of the default run's budget, in CI
async def test_filter_search_and_sort_narrow_the_list(tmp_path):
    app = demo_app(tmp_path / "state")
    async with app.run_test(size=(100, 40)) as pilot:
        await settle(app, pilot)
        view = app.views["regressions"]
        assert view.slices() == ["dosage", "drug_interactions", "prescriptions"]
        await pilot.press("f", "f")  # all -> dosage -> drug_interactions
        assert view.slice_filter == "drug_interactions"
        assert len(listed_ids(app)) == 7
        await pilot.press("escape")
        assert len(listed_ids(app)) == 9
        await pilot.press("slash", *"warfarin")
        rows = app.screen.query_one(ItemTable).rows
        assert 0 < len(rows) < 9
        assert all("warfarin" in r.search_text for r in rows)
        await pilot.press("enter", "escape")
        assert len(listed_ids(app)) == 9
        await pilot.press("s")  # sort by item id
        assert view.sort_key == "item id"
        assert listed_ids(app) == sorted(listed_ids(app))
        await pilot.press("S")
        assert listed_ids(app) == sorted(listed_ids(app), reverse=True)


async def test_whole_review_flow_tags_notes_resume_and_export(tmp_path):
    state = tmp_path / "state"
    app = demo_app(state)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        regressions = list(app.loaded.analysis.regressions)
        # Open the first regression: both transcripts side by side.
        await pilot.press("enter")
        await settle(app, pilot)
        assert isinstance(app.screen, ItemScreen)
        assert app.screen.row.item_id == regressions[0]
        baseline_text = side_text(app, "baseline")
        candidate_text = side_text(app, "candidate")
        assert "BASELINE" in baseline_text and "user ──" in baseline_text
        assert "CANDIDATE" in candidate_text and "assistant  (final answer)" in candidate_text
        # Tag it: tag-and-advance opens the next untriaged item without going back; toggle the
        # diff, tag again (on to the third), and step back to the second with p.
        await pilot.press("1")
        await settle(app, pilot)
        assert app.screen.row.item_id == regressions[1]
        await pilot.press("d")
        assert app.screen.query_one("#diff-pane").display
        assert "--- baseline output" in text_of(app, "#diff-text")
        await pilot.press("d", "3")
        await settle(app, pilot)
        assert app.screen.row.item_id == regressions[2]
        await pilot.press("p")
        await settle(app, pilot)
        assert app.screen.row.item_id == regressions[1]
        # Write a note on it.
        await pilot.press("e")
        assert isinstance(app.screen, NoteScreen)
        await pilot.press(*"grader misread the dose")
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert isinstance(app.screen, ItemScreen)
        assert "grader misread the dose" in text_of(app, "#item-meta")
        # Back to the list, tag a third regression from the list itself.
        await pilot.press("escape")
        assert isinstance(app.screen, MainScreen)
        await pilot.press("j", "j", "5")
        await settle(app, pilot)  # the tag is journalled and the header redrawn
        # "needs investigation" (5) leaves its item open: two of the three tags close theirs.
        assert "Triage: 2 of 9 regressions triaged" in text_of(app, "#header")
        assert "needs investigation 1" in text_of(app, "#header")
        tags = {r.item_id: r.tag for r in app.screen.query_one(ItemTable).rows}
        assert tags[regressions[0]] == "confirmed regression"
        assert tags[regressions[1]] == "grader error"
        assert tags[regressions[2]] == "needs investigation"
        # `u` lists the set the decision line counts as untriaged: the six untagged and the
        # one tagged "needs investigation" (one word, one set).
        await pilot.press("u")
        shown = listed_ids(app)
        assert len(shown) == 7 == app.loaded.decision.untriaged and regressions[2] in shown
        assert "7 of 9 untriaged" in app.loaded.decision.line
        await pilot.press("q")

    # Reopen the same pair: the session resumes with tags and note.
    again = demo_app(state)
    async with again.run_test(size=(120, 40)) as pilot:
        await settle(again, pilot)
        assert "Triage: 2 of 9 regressions triaged" in text_of(again, "#header")
        assert again.loaded.session.review(regressions[1]).note == "grader misread the dose"
        # Export: block, with a rationale, to a prefix in tmp_path.
        await pilot.press("x")
        await pilot.pause()
        assert isinstance(again.screen, SignoffScreen)
        screen = again.screen
        screen.query_one("#decision-block").value = True
        screen.query_one("#rationale").load_text("drug interactions regressed 25 -> 19")
        screen.query_one("#reviewer").value = "dana"
        screen.query_one("#prefix").value = str(tmp_path / "signoff")
        await pilot.press("ctrl+s")
        await written(again, pilot)
        assert not isinstance(again.screen, SignoffScreen)
        assert again.last_signoff is not None

    record = json.loads((tmp_path / "signoff.json").read_text())
    assert record["reviewer_decision"] == "block" and record["reviewer"] == "dana"
    assert record["results"]["table"] == {
        "both_pass": 141,
        "regressions": 9,
        "improvements": 21,
        "both_fail": 29,
    }
    assert abs(record["results"]["mcnemar"]["exact_p"] - 0.0428) < 5e-5
    assert record["triage"]["triaged"] == 2
    items = {i["item_id"]: i for i in record["items"]}
    assert items[regressions[0]]["tag"] == "confirmed regression"
    assert items[regressions[1]]["note"] == "grader misread the dose"
    for arm, path in zip(("baseline", "candidate"), SAMPLE, strict=True):
        assert record["inputs"][arm]["sha256"] == hashlib.sha256(path.read_bytes()).hexdigest()
    markdown = (tmp_path / "signoff.md").read_text()
    assert markdown.startswith("**BLOCKED** · 1 confirmed regression (drug\\_interactions) · ")
    assert "**Reviewer's decision: block** by dana" in markdown
    assert "exact p = 0.043" in markdown
    assert "grader misread the dose" in markdown and "Regressions triaged: 2 of 9" in markdown


@pytest.mark.slow  # over a CPU-second: out of the default run's budget, in CI
async def test_approving_with_untriaged_regressions_is_refused_without_override(tmp_path):
    app = demo_app(tmp_path / "state")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        await pilot.press("x")
        await pilot.pause()
        screen = app.screen
        screen.query_one("#decision-approve").value = True  # nothing is chosen for the reviewer
        screen.query_one("#rationale").load_text("ship it")
        screen.query_one("#prefix").value = str(tmp_path / "so")
        await pilot.press("ctrl+s")
        await written(app, pilot)
        assert isinstance(app.screen, SignoffScreen)  # still open, with the reason shown
        assert "untriaged" in str(screen.query_one("#signoff-error").content)
        assert not (tmp_path / "so.json").exists()
        screen.query_one("#override").value = "hotfix for an outage, triage follows"
        await pilot.press("ctrl+s")
        await written(app, pilot)
    record = json.loads((tmp_path / "so.json").read_text())
    assert record["reviewer_decision"] == "approve"
    assert record["override"]["reason"] == "hotfix for an outage, triage follows"


@pytest.mark.slow
async def test_tag_is_on_disk_when_the_screen_says_saved(tmp_path):
    state = tmp_path / "state"
    app = demo_app(state)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(app, pilot)
        first = app.loaded.analysis.regressions[0]
        await pilot.press("2")
        paired = app.loaded.analysis.paired
        # Read the journal as another process would: the tag is there already.
        reopened = ReviewSession.open(
            SAMPLE[0],
            SAMPLE[1],
            paired.baseline.source.sha256,
            paired.candidate.source.sha256,
            root=state,
        )
        assert reopened.review(first).tag == "acceptable"
        assert app.loaded.session.path.read_text().count('"kind":"tag"') == 1


@pytest.mark.slow
async def test_help_screen_lists_every_key(tmp_path):
    app = demo_app(tmp_path / "state")
    async with app.run_test(size=(100, 40)) as pilot:
        await settle(app, pilot)
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        cells = set()
        for static in app.screen.query("Static"):
            if isinstance(static.content, Table):
                for column in static.content.columns:
                    cells.update(str(c) for c in column._cells)
        bindings = [*EvalTuiApp.BINDINGS, *MainScreen.BINDINGS, *ItemScreen.BINDINGS]
        for binding in bindings:
            if binding.action == "matrix":  # two runs: m is the next metric, there is no matrix
                assert binding.description not in cells
            elif not binding.action.startswith("tag("):
                assert binding.description in cells, binding
        for tag in app.loaded.session.info.tags:
            assert f"tag: {tag}" in cells
        await pilot.press("escape")
        assert isinstance(app.screen, MainScreen)


async def test_bad_input_closes_the_app_with_a_one_line_error(tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"item_id": "a", "passed": "yes"}\n')
    app = create_app(AppConfig.for_pair(SAMPLE[0], bad, state_root=tmp_path / "state"))
    async with app.run_test() as pilot:
        await settle(app, pilot)
    assert app.return_code == 2
    assert "bad.jsonl:1: field 'passed'" in app.load_error


@pytest.mark.slow
async def test_command_palette_lists_every_action(tmp_path):
    app = demo_app(tmp_path / "state")
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(app, pilot)
        titles = {c.title for c in app.get_system_commands(app.screen)}
        for word in ("export", "save", "markdown"):  # the sign-off under the words users try
            assert any(word in t.lower() and "sign-off" in t.lower() for t in titles), word
        for title in (
            "Help",
            "Sign off",
            "Edit note",
            "Clear tag",
            "Show regressions",
            "Show improvements",
            "Search",
            "Filter by slice",
            "Filter by tag",
            "Untriaged only",
            "Sort",
            "Reverse sort",
            "Clear filters",
            "Quit",
        ):
            assert title in titles, title
        for tag in app.loaded.session.info.tags:
            assert f"Tag: {tag}" in titles
        await pilot.press("enter")
        await settle(app, pilot)
        titles = {c.title for c in app.get_system_commands(app.screen)}
        for word in ("export", "save", "markdown"):  # the sign-off under the words users try
            assert any(word in t.lower() and "sign-off" in t.lower() for t in titles), word
        assert {"Next item", "Previous item", "Toggle diff", "Back to the list"} <= titles


@pytest.mark.slow  # a variant of a flow the default run covers (the suite's CPU budget); CI runs it
async def test_app_works_in_a_no_color_terminal(tmp_path, monkeypatch):
    monkeypatch.setenv("NO_COLOR", "1")
    app = demo_app(tmp_path / "state")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        assert "NO SIGNIFICANT DIFFERENCE" in text_of(app, "#header")  # folded to fit 80x24
        await pilot.press("h")  # the full header, one key away
        assert "both pass 141" in text_of(app, "#header")
        await pilot.press("enter")
        await settle(app, pilot)
        assert isinstance(app.screen, ItemScreen)
        await pilot.press("d", "escape", "x")
        await pilot.pause()
        assert isinstance(app.screen, SignoffScreen)
