"""No keypress crashes the app: random key sequences on every screen, sent one at a time or in
bursts (as a terminal over SSH delivers them, while a screen is still being built or torn
down), leave the app running and its journal consistent with what the screen shows.

Hypothesis draws a session of sequences per example, seeded (derandomized) so CI runs the same
ones every time, and shrinks a failure to a short sequence. CI runs a few hundred sequences;
`bench/random_keys.py` runs thousands with fresh seeds. An unexpected error the app survives
still fails the test: the app's error handler keeps the review open and reports it, and the
test asserts none was reported.
"""

from __future__ import annotations

import asyncio
import json
import os
import unicodedata
from collections.abc import Sequence
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, seed, settings
from hypothesis import strategies as st
from textual import events
from textual.keys import _character_to_key, _get_unicode_name_from_key

from evaltui.core.record.journal import ReviewSession
from tests.ui.helpers import SAMPLE, demo_app, settle, until

POLICY = SAMPLE[0].parent / "policy.toml"
# Sessions per CI run (the slow marker), in CI_PARTS parts of a seed each, so that xdist (the
# slow run of `.ci/run`) runs them side by side: one test of 40 sessions was the slow run's
# longest (240 s wall here). 64 sessions in four parts send 380 sequences, 1,928 keys (every one
# of the 56); the 40 in one test sent 334 and 1,979 (a part's sessions start small).
CI_EXAMPLES = 64
CI_PARTS = 4
QUICK_EXAMPLES = 3  # sessions in the default test run: the same property, a few sessions
MIN_SEQUENCES, MAX_SEQUENCES = 5, 10
MAX_KEYS = 12
SESSION_TIMEOUT = 120.0  # seconds one example may take before it counts as wedged

# Every key a reviewer uses, weighted toward the ones that open, close and rebuild screens.
OPENERS = ["enter", "escape", "e", "x", "question_mark", "g", "l", "slash"]
REVIEW = ["1", "2", "3", "4", "5", "0", "n", "p", "d", "j", "k", "r", "i", "ctrl+s"]
OTHERS = [
    "right_square_bracket", "left_square_bracket", "down", "up", "pagedown", "pageup", "home",
    "end", "G", "J", "K", "a", "v", "space", "m", "f", "t", "u", "s", "S", "tab", "w", "9",
    "z", "b", "T", "c", "y", "A", "right", "left", "shift+tab", "backspace", "delete",
]  # fmt: skip
KEY = st.one_of(
    st.sampled_from(OPENERS), st.sampled_from(REVIEW), st.sampled_from(REVIEW),
    st.sampled_from(OTHERS),
)  # fmt: skip
# Between two keys of a burst: nothing (queued back to back), one turn of the event loop (0:
# the screens get to handle one message each, so a key lands while a screen is half built or
# half closed), or a few ms (worker results land between keys, as over a real terminal).
GAP = st.sampled_from([None, None, 0.0, 0.0, 0.0, 0.001, 0.003, 0.01])
# A sequence: its keys with their gaps, sent as a burst (not waiting for the app between them)
# or one at a time (Pilot's press); then sometimes a wait for every worker (transcripts read,
# gates re-evaluated, a record written).
SEQUENCE = st.tuples(
    st.lists(st.tuples(KEY, GAP), min_size=1, max_size=MAX_KEYS), st.booleans(), st.booleans()
)
SESSION = st.lists(SEQUENCE, min_size=MIN_SEQUENCES, max_size=MAX_SEQUENCES)


def key_event(app, key: str) -> events.Key:
    """The Key event Textual's Pilot sends for `key` (same character lookup)."""
    if len(key) == 1 and not key.isalnum():
        key = _character_to_key(key)
    try:
        char = unicodedata.lookup(_get_unicode_name_from_key(key))
    except KeyError:
        char = key if len(key) == 1 else None
    event = events.Key(key, char)
    event.set_sender(app)
    return event


def journal_problems(app) -> list[str]:
    """What is wrong between the journal on disk, the session in memory and the list rows."""
    session = app.loaded.session
    raw = session.path.read_bytes()
    problems = []
    if not raw.endswith(b"\n"):
        problems.append("the journal does not end with a whole line")
    for number, line in enumerate(raw.splitlines(), start=1):
        try:
            json.loads(line)
        except ValueError:
            problems.append(f"journal line {number} is not JSON: {line[:80]!r}")
    replayed = ReviewSession.open(
        Path(session.info.baseline_path), Path(session.info.candidate_path),
        session.info.baseline_sha256, session.info.candidate_sha256, read_only=True,
        root=session.path.parents[2],
    )  # fmt: skip
    on_disk = {i: (r.tag, r.note) for i, r in replayed.items.items()}
    in_memory = {i: (r.tag, r.note) for i, r in session.items.items()}
    if on_disk != in_memory:
        problems.append(f"journal {on_disk} != session {in_memory}")
    for rows in app.loaded.rows.values():
        for row in rows:
            if row.tag != session.review(row.item_id).tag:
                problems.append(f"list row {row.item_id} shows {row.tag!r}")
    return problems


async def drive(state: Path, sequences: Sequence[tuple[list, bool, bool]]) -> None:
    """Open the demo pair (with its policy, so every screen exists), send the sequences, and
    check after each that the app runs, reported no error and its journal is consistent."""
    app = demo_app(state, policy=POLICY)
    async with app.run_test(size=(100, 32)) as pilot:
        await settle(app, pilot)
        for number, (keyed, at_once, wait) in enumerate(sequences, start=1):
            keys = [key for key, _ in keyed]
            if at_once:
                for key, gap in keyed:
                    app._driver.send_message(key_event(app, key))
                    if gap is not None:
                        await asyncio.sleep(gap)
                await pilot.pause()
            else:
                await pilot.press(*keys)
            if wait:
                await settle(app, pilot)
            await pilot.pause()
            where = f"after sequence {number} {keys!r} ({'burst' if at_once else 'paced'})"
            assert app.is_running and app.return_code is None, f"the app ended {where}"
            assert not app.unexpected_errors, f"{app.unexpected_errors} {where}"
            assert not journal_problems(app), f"{journal_problems(app)} {where}"
        await settle(app, pilot)
        assert not journal_problems(app)
        assert not app.unexpected_errors, app.unexpected_errors


def run_session(state: Path, sequences) -> None:
    asyncio.run(asyncio.wait_for(drive(state, sequences), SESSION_TIMEOUT))


@pytest.fixture
def workdir(tmp_path_factory, monkeypatch) -> Path:
    """A folder of the run's own as the working directory: Ctrl+S in the sign-off dialog
    writes its record under the default prefix there."""
    folder = tmp_path_factory.mktemp("random-keys")
    monkeypatch.chdir(folder)
    return folder


def random_sessions(workdir: Path, examples: int, part: int | None = None) -> None:
    """`examples` sessions of random sequences, each on a fresh state folder. Derandomized (the
    same sessions every run); a `part` of the CI sessions draws from a seed of its own, so the
    parts are different sessions."""
    counter = iter(range(10**9))

    @settings(
        max_examples=examples,
        derandomize=True, database=None, deadline=None, print_blob=True,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )  # fmt: skip
    @given(SESSION)
    def sessions(sequences) -> None:
        run_session(workdir / f"state{next(counter)}", sequences)

    (sessions if part is None else seed(f"random-keys-part-{part}")(sessions))()


@pytest.mark.slow
@pytest.mark.parametrize("part", range(CI_PARTS), ids=lambda part: f"part{part + 1}of{CI_PARTS}")
def test_random_key_sequences_on_every_screen_never_crash_or_desync_the_journal(workdir, part):
    """A part of the CI_EXAMPLES sessions (EVALTUI_RANDOM_KEY_SESSIONS sets another total)."""
    total = int(os.environ.get("EVALTUI_RANDOM_KEY_SESSIONS", CI_EXAMPLES))
    random_sessions(workdir, -(-total // CI_PARTS), part)


@pytest.mark.slow  # a variant of a flow the default run covers (the suite's CPU budget); CI runs it
def test_a_few_random_key_sequences_never_crash_or_desync_the_journal_quick(workdir):
    """The fast version the default run keeps: the same property over a few sessions."""
    random_sessions(workdir, QUICK_EXAMPLES)


# -- the one handler for errors nothing else caught -------------------------------------------


def _said(app) -> list[str]:
    return [n.message for n in app._notifications]


async def _open_first_item(app, pilot) -> None:
    await settle(app, pilot)
    await pilot.press("enter")
    await settle(app, pilot)


@pytest.mark.slow
async def test_keys_for_a_screen_still_being_built_or_already_closed_are_ignored(tmp_path):
    """What the random sequences found: a key handled between `push_screen` and the screen's
    mount (or after it was closed) ran an action whose widgets were not there."""
    from evaltui.ui.screens.item import ItemScreen

    app = demo_app(tmp_path / "state")
    async with app.run_test(size=(100, 32)) as pilot:
        await settle(app, pilot)
        screen = ItemScreen(app.state, app.loaded.rows["regressions"], 0, "regressions")
        app.push_screen(screen)  # not awaited: on top, not mounted yet
        assert app.screen is screen and not screen.is_mounted
        for action in ("scroll(1)", "toggle_diff", "step(1)", "back"):
            assert await app.run_action(action, screen) is False
        await settle(app, pilot)
        assert screen.is_mounted and app.screen is screen
        assert await app.run_action("toggle_diff", screen) is True  # on top and built: runs
        await app.pop_screen()
        await pilot.pause()
        for action in ("scroll(1)", "toggle_diff", "step(1)"):
            assert await app.run_action(action, screen) is False
        assert app.is_running and app.unexpected_errors == []


@pytest.mark.slow
async def test_a_failing_key_action_is_reported_and_the_review_stays_open(tmp_path, monkeypatch):
    from evaltui.ui.screens.item import ItemScreen

    def broken(self) -> None:
        raise RuntimeError("injected fault in toggle_diff")

    monkeypatch.setattr(ItemScreen, "action_toggle_diff", broken)
    app = demo_app(tmp_path / "state")
    async with app.run_test(size=(100, 32)) as pilot:
        await _open_first_item(app, pilot)
        app.clear_notifications()
        await pilot.press("d")
        await pilot.pause()
        assert app.is_running and isinstance(app.screen, ItemScreen)
        assert app.unexpected_errors == [
            "the toggle_diff key: RuntimeError: injected fault in toggle_diff"
        ]
        [said] = _said(app)
        assert said.startswith(
            "internal error in the toggle_diff key: RuntimeError: injected fault in toggle_diff."
            " The review is still open"
        ), said
        log = tmp_path / "state" / "errors.log"
        assert f"traceback in {log}" in said
        assert "Traceback" in log.read_text() and "injected fault" in log.read_text()
        item_id = app.current_item()
        await pilot.press("1")  # the app still answers: the tag is written
        await pilot.pause()
        assert app.loaded.session.review(item_id).tag == "confirmed regression"
        assert app._exception is not None  # Pilot would raise it at the end: tests see bugs
        app._exception = None


@pytest.mark.slow  # over a CPU-second: out of the default run's budget, in CI
async def test_a_screen_that_fails_in_a_message_handler_is_closed_and_the_review_goes_on(
    tmp_path, monkeypatch
):
    from evaltui.ui.screens.item import ItemScreen
    from evaltui.ui.screens.main import MainScreen

    def broken(self, message) -> None:
        raise RuntimeError("injected fault in on_review_changed")

    monkeypatch.setattr(ItemScreen, "on_review_changed", broken)
    app = demo_app(tmp_path / "state")
    async with app.run_test(size=(100, 32)) as pilot:
        await _open_first_item(app, pilot)
        item_id = app.current_item()
        await pilot.press("4")
        # The broken screen is closed on the next callbacks.
        await until(pilot, lambda: isinstance(app.screen, MainScreen), "the main screen back")
        assert app.is_running and isinstance(app.screen, MainScreen)
        assert app.loaded.session.review(item_id).tag == "flaky"  # saved before it failed
        assert app.unexpected_errors == [
            "the item screen: RuntimeError: injected fault in on_review_changed"
        ]
        await pilot.press("enter")  # the list works and opens items again
        await settle(app, pilot)
        assert isinstance(app.screen, ItemScreen)
        app._exception = None


@pytest.mark.slow  # a variant of a flow the default run covers (the suite's CPU budget); CI runs it
async def test_a_failing_background_task_is_reported_and_the_review_stays_open(
    tmp_path, monkeypatch
):
    import evaltui.ui.app as app_module

    def broken(*args, **kwargs) -> None:
        raise OSError("injected fault reading previews")

    monkeypatch.setattr(app_module, "fill_previews", broken)
    app = demo_app(tmp_path / "state")
    async with app.run_test(size=(100, 32)) as pilot:
        await until(pilot, lambda: bool(app.unexpected_errors), "the failure reported")
        assert app.is_running
        assert app.unexpected_errors == [
            "a background task: OSError: injected fault reading previews"
        ]
        app._exception = None


@pytest.mark.slow
async def test_a_failure_of_the_main_screen_ends_the_app_with_one_line_and_the_log(
    tmp_path, monkeypatch
):
    from evaltui.ui.screens.main import MainScreen

    def broken(self, message) -> None:
        raise RuntimeError("injected fault in the main screen")

    monkeypatch.setattr(MainScreen, "on_review_changed", broken)
    app = demo_app(tmp_path / "state")
    with pytest.raises(RuntimeError, match="injected fault in the main screen"):
        async with app.run_test(size=(100, 32)) as pilot:
            await settle(app, pilot)
            await pilot.press("1")
            await pilot.pause()
    log = tmp_path / "state" / "errors.log"
    assert app.return_code == 3
    assert app.load_error == (
        f"internal error: RuntimeError: injected fault in the main screen (traceback in {log})"
    )
    assert "injected fault in the main screen" in log.read_text()


@pytest.mark.slow  # a variant of a flow the default run covers (the suite's CPU budget); CI runs it
async def test_with_evaltui_debug_a_failing_action_ends_the_app_with_its_traceback(
    tmp_path, monkeypatch
):
    from evaltui.ui.screens.item import ItemScreen

    def broken(self) -> None:
        raise RuntimeError("injected fault, debugging")

    monkeypatch.setattr(ItemScreen, "action_toggle_diff", broken)
    monkeypatch.setenv("EVALTUI_DEBUG", "1")
    app = demo_app(tmp_path / "state")
    with pytest.raises(RuntimeError, match="injected fault, debugging"):
        async with app.run_test(size=(100, 32)) as pilot:
            await _open_first_item(app, pilot)
            await pilot.press("d")
            await pilot.pause()
    assert app.unexpected_errors == [] and app.return_code == 3
