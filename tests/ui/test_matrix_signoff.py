"""The sign-off of three or more runs from the app: `x` on the matrix writes one record naming
every baseline pair, each pair's own two-run record inside with its own tags, as
`evaltui signoff BASE CAND CAND2 ...` writes it (and `verify` checks it).

Pilot drives the real app on the three demo runs. No pair's session is open while the matrix
shows; the dialog's worker opens each baseline pair's (taking its lock), builds and writes, and
closes them all. The override rule is per pair, a pair locked by another process writes nothing,
and inside a pair `x` still refuses, naming the way back to the matrix. Every journal lives in
the test's own state folder. Snapshots: update with --snapshot-update, then look at the SVGs
(`rsvg-convert -w 1200 in.svg -o out.png`)."""

from __future__ import annotations

import csv
import fcntl
import io
import json
import os
from pathlib import Path

import pytest
from textual.widgets import Input, RadioButton, Static, TextArea

from evaltui.core.record.journal import session_key
from evaltui.core.record.run_set_signoff import RUN_SET_SIGNOFF_SCHEMA
from evaltui.core.record.signoff_markdown import decision_markdown
from evaltui.core.verify.run_set import verify_run_set_record
from evaltui.ui.screens.help import HelpScreen
from evaltui.ui.screens.main import MainScreen
from evaltui.ui.screens.matrix import MatrixScreen
from evaltui.ui.screens.signoff import RunSetSignoffScreen, SignoffScreen
from tests.ui.helpers import demo_app, screen_lines, settle, text_of, written
from tests.ui.test_matrix_flow import RUNS, back_to_matrix, lock_is_free, matrix_app, open_cell
from tests.ui.test_no_color import assert_no_colour, assert_readable, find

FIRST = "pharm-0020"  # the first regression of candidate against baseline
PAIRS = [(0, 1), (0, 2)]  # the baseline against each candidate: what the record covers


@pytest.fixture
def state(tmp_path, monkeypatch):
    """The test's own state folder, for the app and for core's default (read-only) reads; the
    reviewer named, so the dialog's default is known."""
    folder = tmp_path / "state"
    monkeypatch.setenv("EVALTUI_STATE_DIR", str(folder))
    monkeypatch.setenv("EVALTUI_REVIEWER", "dana")
    return folder


async def open_set_signoff(app, pilot) -> RunSetSignoffScreen:
    """x on the matrix, and the dialog once the journals were read."""
    assert isinstance(app.screen, MatrixScreen)
    await pilot.press("x")
    await settle(app, pilot)
    assert isinstance(app.screen, RunSetSignoffScreen)
    return app.screen


async def fill(pilot, screen, decision: str, prefix: Path, rationale: str = "") -> None:
    screen.query_one(f"#decision-{decision}", RadioButton).value = True
    screen.query_one("#rationale", TextArea).load_text(rationale)
    screen.query_one("#prefix", Input).value = str(prefix)
    await pilot.pause()


def error_of(screen) -> str:
    return str(screen.query_one("#signoff-error", Static).content)


def lock_file(state: Path, analysis) -> Path:
    paired = analysis.paired
    key = session_key(Path(paired.baseline.source.path), Path(paired.candidate.source.path))
    return state / "sessions" / key / "lock"


def pair_locks_free(app, state: Path) -> bool:
    """No baseline pair's journal is locked (a pair never opened has no lock file yet)."""
    analyses = [app.run_set.pair(*key).analysis for key in PAIRS]
    return all(not lock_file(state, a).exists() or lock_is_free(a, state) for a in analyses)


@pytest.mark.slow
async def test_x_on_the_matrix_writes_one_record_naming_every_pair_with_its_own_tags(
    state, tmp_path
):
    app = matrix_app(state)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(app, pilot)
        await open_cell(app, pilot, 1, 0)  # candidate against baseline
        assert app.screen.current_item_id() == FIRST
        await pilot.press("1")  # confirmed regression, in this pair's journal
        await settle(app, pilot)
        await back_to_matrix(app, pilot)
        screen = await open_set_signoff(app, pilot)
        # No pair's session is open while the dialog shows: both pairs' locks are free.
        assert app.loaded is None and pair_locks_free(app, state)
        # The set's decision first, then every pair the record covers, by name.
        decision = text_of(app, "#signoff-decision")
        assert decision.strip() == app.state.run_set_decision.line
        assert decision.startswith(" BLOCKED · 3 runs against baseline")
        covers = text_of(app, "#signoff-covers")
        assert covers == "covers: candidate vs baseline, candidate2 vs baseline"
        assert screen.query_one("#reviewer", Input).value == "dana"  # reviewer_identity's
        over = text_of(app, "#override-what")
        assert over == (  # pair by pair, as the override rule applies
            "Approving overrides: candidate vs baseline: 1 regression(s) are tagged as "
            "confirmed, 8 of 9 regressions are untriaged; candidate2 vs baseline: 5 of 5 "
            "regressions are untriaged"
        )
        prefix = tmp_path / "set"
        await fill(pilot, screen, "block", prefix, "candidate confirms a drug regression")
        await pilot.press("ctrl+s")
        await written(app, pilot)
        assert not isinstance(app.screen, SignoffScreen)  # written: the dialog closed
        assert isinstance(app.screen, MatrixScreen)
        paths = tuple(prefix.parent / f"set.{ext}" for ext in ("json", "md", "csv"))
        assert app.last_signoff == paths
        shown = [n.message for n in app._notifications]
        assert any(m.startswith("wrote ") and str(paths[0]) in m for m in shown), shown
        # The sessions the worker opened are closed again, their locks given back.
        assert app.loaded is None and pair_locks_free(app, state)
        assert app.unexpected_errors == []
    record = json.loads(paths[0].read_text(encoding="utf-8"))
    assert record["schema"] == RUN_SET_SIGNOFF_SCHEMA
    assert [(p["baseline"], p["candidate"]) for p in record["pairs"]] == PAIRS
    assert [r["name"] for r in record["runs"]] == ["baseline", "candidate", "candidate2"]
    assert record["reviewer"] == "dana" and record["reviewer_decision"] == "block"
    assert record["rationale"] == "candidate confirms a drug regression"
    assert record["decision"]["line"].startswith("BLOCKED · 3 runs against baseline")
    # The tag is in the pair it was made in, and only there.
    tags = {
        (p["baseline"], p["candidate"]): {
            i["item_id"]: i["tag"] for i in p["record"]["items"] if i["tag"] is not None
        }
        for p in record["pairs"]
    }
    assert tags == {(0, 1): {FIRST: "confirmed regression"}, (0, 2): {}}
    first_pair = record["pairs"][0]["record"]
    assert first_pair["triage"]["untriaged"] == [
        i for i in app.run_set.pair(0, 1).analysis.regressions if i != FIRST
    ]
    assert Path(first_pair["session_journal"]).is_relative_to(state)  # the test's journals
    # The record verifies against the three files: every pair rebuilt from them.
    verification = verify_run_set_record(record, list(RUNS))
    assert verification.ok, verification.reason
    # The Markdown opens with the set's decision and gives each pair under its own heading.
    markdown = paths[1].read_text(encoding="utf-8")
    assert markdown.splitlines()[0] == decision_markdown(record["decision"])
    assert markdown.startswith("**BLOCKED** · 3 runs against baseline")
    assert "## candidate against baseline" in markdown
    assert "## candidate2 against baseline" in markdown
    # The CSV: every pair's discordant items, a pair column first; the tag in its pair's row.
    rows = list(csv.DictReader(io.StringIO(paths[2].read_text(encoding="utf-8"))))
    assert {r["pair"] for r in rows} == {"candidate vs baseline", "candidate2 vs baseline"}
    tagged = [(r["pair"], r["item_id"]) for r in rows if r["tag"]]
    assert tagged == [("candidate vs baseline", FIRST)]


@pytest.mark.slow  # a variant of a flow the default run covers (the suite's CPU budget); CI runs it
async def test_approving_over_untriaged_regressions_without_a_reason_writes_nothing(
    state, tmp_path
):
    app = matrix_app(state)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(app, pilot)
        screen = await open_set_signoff(app, pilot)
        prefix = tmp_path / "approved"
        await fill(pilot, screen, "approve", prefix, "ship both")
        await pilot.press("ctrl+s")
        await written(app, pilot)
        assert app.screen is screen  # still open, saying why, the reason's field focused
        error = error_of(screen)
        assert error == (
            "Not written: candidate vs baseline: 9 of 9 regressions are untriaged; approving "
            "anyway needs an override reason (fill in the override reason in this dialog)"
        )
        assert app.focused is screen.query_one("#override", Input)
        assert not list(tmp_path.glob("approved*"))
        assert pair_locks_free(app, state)  # the sessions opened to build it are closed
        # With a reason the approval is written, the reason in every pair's record.
        screen.query_one("#override", Input).value = "triaged offline in the release doc"
        await pilot.press("ctrl+s")
        await written(app, pilot)
        assert isinstance(app.screen, MatrixScreen), error_of(screen)
    record = json.loads((tmp_path / "approved.json").read_text(encoding="utf-8"))
    assert record["reviewer_decision"] == "approve"
    reasons = [p["record"]["override"]["reason"] for p in record["pairs"]]
    assert reasons == ["triaged offline in the release doc"] * 2
    assert verify_run_set_record(record, list(RUNS)).ok


def hold_lock(state: Path, analysis) -> int:
    """Take the pair's journal lock as another process would (a new open file description's
    flock conflicts with the app's); the caller closes the descriptor to give it back."""
    path = lock_file(state, analysis)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    return fd


@pytest.mark.slow  # a variant of a flow the default run covers (the suite's CPU budget); CI runs it
async def test_a_pair_locked_by_another_process_is_named_and_nothing_is_written(state, tmp_path):
    app = matrix_app(state)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(app, pilot)
        screen = await open_set_signoff(app, pilot)
        fd = hold_lock(state, app.run_set.pair(0, 2).analysis)
        try:
            await fill(pilot, screen, "block", tmp_path / "locked", "not yet")
            await pilot.press("ctrl+s")
            await written(app, pilot)
            assert app.screen is screen
            error = error_of(screen)
            assert error.startswith("Not written: candidate2 vs baseline: another evaltui (")
            assert error.endswith("is reviewing this pair; close it first")
            assert "\n" not in error
            assert not list(tmp_path.glob("locked*"))
            # The first pair's session, opened before the refusal, was closed again.
            assert lock_is_free(app.run_set.pair(0, 1).analysis, state)
        finally:
            os.close(fd)
        await pilot.press("ctrl+s")  # the other evaltui closed: now it is written
        await written(app, pilot)
        assert isinstance(app.screen, MatrixScreen), error_of(screen)
        assert (tmp_path / "locked.json").is_file()


@pytest.mark.slow  # a variant of a flow the default run covers (the suite's CPU budget); CI runs it
async def test_x_inside_a_pair_of_the_matrix_names_the_way_back_and_the_command(state):
    app = matrix_app(state)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(app, pilot)
        await open_cell(app, pilot, 2, 0)
        await pilot.press("x")
        await settle(app, pilot)
        assert isinstance(app.screen, MainScreen)  # no dialog: a pair's record would not verify
        (notice,) = [n.message for n in app._notifications if "signed off together" in n.message]
        assert "go back to the matrix (m) and press x there" in notice
        assert "evaltui signoff BASE CAND CAND2" in notice
        assert app.last_signoff is None


@pytest.mark.slow  # a variant of a flow the default run covers (the suite's CPU budget); CI runs it
async def test_esc_over_typed_text_asks_first_and_a_second_esc_discards_it(state):
    app = matrix_app(state)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(app, pilot)
        await open_set_signoff(app, pilot)
        await pilot.press("escape")  # nothing typed: closes at once
        await settle(app, pilot)
        assert isinstance(app.screen, MatrixScreen)
        screen = await open_set_signoff(app, pilot)
        screen.query_one("#rationale", TextArea).focus()
        await pilot.press("o", "k")
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is screen
        assert error_of(screen).startswith("Discard what you typed? Esc again discards it")
        await pilot.press("!")  # typing again: the next Esc asks again
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is screen
        await pilot.press("escape")
        await settle(app, pilot)
        assert isinstance(app.screen, MatrixScreen)
        assert app.unexpected_errors == []


@pytest.mark.slow  # a variant of a flow the default run covers (the suite's CPU budget); CI runs it
async def test_the_palettes_sign_off_on_the_matrix_opens_the_sets_dialog(state):
    app = matrix_app(state)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(app, pilot)
        app.action_export()  # what the palette's "Sign off" runs
        await settle(app, pilot)
        assert isinstance(app.screen, RunSetSignoffScreen)


@pytest.mark.slow  # a variant of a flow the default run covers (the suite's CPU budget); CI runs it
async def test_the_matrix_footer_and_help_name_x(state):
    app = matrix_app(state)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        assert "x Sign off" in screen_lines(app)[-1]
    app = matrix_app(state)
    async with app.run_test(size=(120, 200)) as pilot:
        await settle(app, pilot)
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        lines = screen_lines(app)
        start = next(i for i, line in enumerate(lines) if "The matrix of 3+ runs" in line)
        matrix_section = "\n".join(lines[start : start + 12])
        assert "Sign off the whole set: one record naming every baseline pair" in matrix_section


async def _set_dialog(pilot):
    await settle(pilot.app, pilot)
    await pilot.press("enter")  # candidate against baseline
    await settle(pilot.app, pilot)
    await pilot.press("1")  # its first regression: confirmed
    await settle(pilot.app, pilot)
    await pilot.press("m")
    await settle(pilot.app, pilot)
    pilot.app.clear_notifications()
    await pilot.press("x")
    await settle(pilot.app, pilot)
    assert isinstance(pilot.app.screen, RunSetSignoffScreen)
    pilot.app.screen.query_one("#prefix", Input).value = "signoff-set"
    await pilot.pause()


# Each size its own function: a slow parameter beside a default one would leave its snapshot
# "unused" in the default run, which the snapshot plugin fails.
@pytest.mark.slow
def test_set_signoff_dialog_snapshot(snap_compare, state):
    app = matrix_app(state)
    assert snap_compare(app, terminal_size=(80, 24), run_before=_set_dialog)


@pytest.mark.slow  # the larger size: in CI
def test_set_signoff_dialog_large_snapshot(snap_compare, state):
    app = matrix_app(state)
    assert snap_compare(app, terminal_size=(120, 40), run_before=_set_dialog)


@pytest.mark.slow  # a variant of a flow the default run covers (the suite's CPU budget); CI runs it
async def test_the_set_signoff_dialog_reads_without_colour(state, monkeypatch):
    monkeypatch.setenv("NO_COLOR", "1")  # before the app exists: Textual reads it at start
    app = matrix_app(state)
    async with app.run_test(size=(80, 24)) as pilot:
        await _set_dialog(pilot)
        assert app.no_color and app.native_ansi_color
        assert_no_colour(app)
        assert_readable(app, "Sign off the whole set", "BLOCKED", "3 runs against baseline")
        assert_readable(app, "covers: candidate vs baseline, candidate2 vs baseline")
        assert all(style.reverse for _, style in find(app, " BLOCKED ")[0])  # the status word
        assert_readable(app, "approve", "block", "needs-more-data")
        assert find(app, "○▌ approve") and find(app, "○▌ needs-more-data")  # (○ is drawn dim)
        await pilot.press("down", "enter")  # the decision under the cursor chosen: ●
        await pilot.pause()
        assert_readable(app, "●▌ block")


@pytest.mark.slow  # a variant of a flow the default run covers (the suite's CPU budget); CI runs it
async def test_the_two_run_dialog_also_asks_before_esc_throws_typed_text_away(tmp_path):
    app = demo_app(tmp_path / "state")
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(app, pilot)
        await pilot.press("x")
        await settle(app, pilot)
        screen = app.screen
        assert type(screen) is SignoffScreen
        screen.query_one("#prefix", Input).value = str(tmp_path / "typed")
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is screen and error_of(screen).startswith("Discard what you typed?")
        await pilot.press("escape")
        await settle(app, pilot)
        assert app.screen is app.main_screen
