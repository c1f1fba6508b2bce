"""What is on screen is what is saved: the keys typed just before Ctrl+S reach the field before
the note or the sign-off record is saved, even when they and Ctrl+S arrive in one burst (as a
laggy SSH link delivers them). Before, Ctrl+S was a priority binding that read the field while
the earlier keys were still queued for it: `'burst'` saved for a sentence.

The keys are queued at the driver in one go (no refresh, no wait between them); the real pty
version, 50 rounds per field through tmux, is tests/ui/test_burst_terminal.py (slow)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from textual import events
from textual.widgets import Input, RadioButton, TextArea

from evaltui.core.record.journal import session_key
from evaltui.ui.screens.note import NoteScreen
from evaltui.ui.screens.signoff import RunSetSignoffScreen, SignoffScreen
from tests.ui.helpers import SAMPLE, demo_app, listed_ids, settle, written
from tests.ui.test_matrix_flow import matrix_app

SENTENCE = "Blocked: seven confirmed regressions in drug_interactions, see pharm-0020."


def type_then_save(app, text: str) -> None:
    """Queue every character of `text` and then Ctrl+S at once, as one burst from the
    terminal: the app handles none of them before all are queued."""
    keys = [events.Key(_key_name(c), c) for c in text]
    keys.append(events.Key("ctrl+s", "\x13"))
    for event in keys:
        event.set_sender(app)
        app._driver.send_message(event)


def _key_name(character: str) -> str:
    named = {" ": "space", ":": "colon", ",": "comma", ".": "full_stop", "-": "minus"}
    return named.get(character, character)


async def _sign_in_one_burst(app, pilot, screen: SignoffScreen, prefix: Path | None) -> dict:
    screen.query_one("#decision-block", RadioButton).value = True
    if prefix is None:  # the dialog's default: the review's folder, named by runs and time
        prefix = Path(screen.query_one("#prefix", Input).value)
    else:
        screen.query_one("#prefix", Input).value = str(prefix)
    screen.query_one("#rationale", TextArea).focus()
    await settle(app, pilot)
    type_then_save(app, SENTENCE)
    await written(app, pilot)
    assert not isinstance(app.screen, SignoffScreen), "the dialog did not write the record"
    return json.loads(prefix.with_suffix(".json").read_text(encoding="utf-8"))


@pytest.mark.slow
async def test_a_note_and_a_rationale_typed_in_one_burst_with_ctrl_s_are_saved_whole(tmp_path):
    """One app for both (an app start is most of a UI test's time): the note, then the pair's
    sign-off record."""
    app = demo_app(tmp_path / "state")
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(app, pilot)
        first = listed_ids(app)[0]
        await pilot.press("e")
        await settle(app, pilot)
        assert isinstance(app.screen, NoteScreen)
        type_then_save(app, SENTENCE)
        await settle(app, pilot)
        assert not isinstance(app.screen, NoteScreen)
        assert app.loaded.session.review(first).note == SENTENCE
        await pilot.press("x")
        await settle(app, pilot)
        record = await _sign_in_one_burst(app, pilot, app.screen, None)
    assert record["rationale"] == SENTENCE
    folder = tmp_path / "state" / "sessions" / session_key(*SAMPLE) / "signoffs"
    assert [p.name for p in folder.glob("*.json")][0].startswith("signoff-baseline-vs-candidate-")


@pytest.mark.slow  # a variant of a flow the default run covers (the suite's CPU budget); CI runs it
async def test_a_run_set_rationale_typed_in_one_burst_with_ctrl_s_is_the_records_whole(
    tmp_path, monkeypatch
):
    monkeypatch.setenv("EVALTUI_STATE_DIR", str(tmp_path / "state"))
    app = matrix_app(tmp_path / "state")
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(app, pilot)
        await pilot.press("x")
        await settle(app, pilot)
        assert isinstance(app.screen, RunSetSignoffScreen)
        record = await _sign_in_one_burst(app, pilot, app.screen, tmp_path / "set")
    assert record["rationale"] == SENTENCE


def _burst(app, *parts: str) -> None:
    """Queue text and named keys ("<tab>", "<shift+tab>", "<ctrl+s>") at once, as one burst."""
    special = {"<tab>": ("tab", "\t"), "<shift+tab>": ("shift+tab", None)}
    special["<ctrl+s>"] = ("ctrl+s", "\x13")
    keys = []
    for part in parts:
        if part in special:
            keys.append(events.Key(*special[part]))
        else:
            keys += [events.Key(_key_name(c), c) for c in part]
    for event in keys:
        event.set_sender(app)
        app._driver.send_message(event)


@pytest.mark.slow  # a variant of a flow the default run covers (the suite's CPU budget); CI runs it
async def test_text_typed_after_tab_in_the_same_burst_goes_to_the_next_field(tmp_path):
    """Before, Tab moved the focus only once the old field had handled it, so the keys after it
    in the same burst went to the old field: 'abcdef' in the rationale, nothing beside it."""
    app = demo_app(tmp_path / "state")
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(app, pilot)
        await pilot.press("x")
        await settle(app, pilot)
        screen = app.screen
        assert isinstance(screen, SignoffScreen)
        screen.query_one("#rationale", TextArea).focus()
        await settle(app, pilot)
        _burst(app, "abc", "<tab>", "def", "<shift+tab>", "ghi")
        await settle(app, pilot)
        assert screen.query_one("#rationale", TextArea).text == "abcghi"
        assert screen.query_one("#override", Input).value == "def"
        await pilot.press("escape", "escape")
        await settle(app, pilot)
        await pilot.press("e")  # the note editor: one field, Tab stays in it, nothing is lost
        await settle(app, pilot)
        item = app.screen.item_id
        _burst(app, "abc", "<tab>", "def", "<ctrl+s>")
        await settle(app, pilot)
        assert app.loaded.session.review(item).note == "abcdef"


@pytest.mark.slow  # a variant of a flow the default run covers (the suite's CPU budget); CI runs it
async def test_text_typed_after_tab_from_the_choice_in_the_same_burst_reaches_the_next_field(
    tmp_path,
):
    """From the sign-off's decision list, Tab keeps Textual's order (the choice must act on the
    Down and Enter before it), so the letters read after it were forwarded to the list, which
    ignores them: the rationale typed at once after Tab was lost. They now reach the field the
    Tab moved the focus to, in order."""
    app = demo_app(tmp_path / "state")
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(app, pilot)
        await pilot.press("x")
        await settle(app, pilot)
        screen = app.screen
        assert isinstance(screen, SignoffScreen)
        assert screen.focused is screen.query_one("#decision")
        _burst(app, "<tab>", "Blocked, see pharm-0020")
        await settle(app, pilot)
        field = screen.focused
        assert isinstance(field, (Input, TextArea))
        typed = field.text if isinstance(field, TextArea) else field.value
        assert typed == "Blocked, see pharm-0020"
