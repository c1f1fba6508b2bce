"""Three or more runs in the app: the matrix first, each pair's review from it, and back.

Pilot drives the real app through the whole flow: the set's decision line and every cell of the
matrix are core's (`judge_run_set`, `matrix_lines`), Enter opens the pair with the run set's
own (family-adjusted) analysis and never reads the files again, tags stay in each pair's own
journal, and `m` closes the pair's session (its lock) and decides the set anew with the tags
just made. Every journal lives in the test's own state folder."""

from __future__ import annotations

import fcntl
import json
import os
import shutil
from pathlib import Path

import pytest

from evaltui.core.analysis.run_set import RunSetSpec, compare_runs
from evaltui.core.record.journal import session_key
from evaltui.core.record.session import judge_run_set
from evaltui.core.report.run_set import matrix_lines
from evaltui.ui.app import AppConfig, create_app
from evaltui.ui.screens import matrix as matrix_module
from evaltui.ui.screens.help import HelpScreen
from evaltui.ui.screens.main import MainScreen
from evaltui.ui.screens.matrix import MatrixScreen
from evaltui.ui.widgets.item_table import ItemTable
from tests.ui.helpers import SAMPLE, screen_lines, settle, text_of

THIRD = SAMPLE[0].parent / "candidate2.jsonl"
RUNS = (*SAMPLE, THIRD)


def matrix_app(state: Path, runs=RUNS, **config_choices):
    """The app as `evaltui BASE CAND CAND2 ...` starts it, its journals in `state`."""
    spec = AppConfig.for_pair(runs[0], runs[1]).spec
    config = AppConfig(
        spec=spec, state_root=state, run_set=RunSetSpec.of(spec, runs[2:]), **config_choices
    )
    return create_app(config)


@pytest.fixture
def state(tmp_path, monkeypatch):
    """The test's own state folder, for the app and for core's default (read-only) reads."""
    folder = tmp_path / "state"
    monkeypatch.setenv("EVALTUI_STATE_DIR", str(folder))
    return folder


def lock_is_free(analysis, state: Path) -> bool:
    """Whether another process could take the pair's journal lock now: a new open file
    description's flock conflicts with the app's, as another process's would."""
    paired = analysis.paired
    key = session_key(Path(paired.baseline.source.path), Path(paired.candidate.source.path))
    fd = os.open(state / "sessions" / key / "lock", os.O_RDWR)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    finally:
        os.close(fd)  # (closing the descriptor gives a lock taken here back at once)
    return True


def screen_text(app) -> str:
    return "\n".join(screen_lines(app))


def matrix_table(app):
    return app.screen.query_one("#matrix-table")


async def open_cell(app, pilot, row: int, col: int) -> None:
    """Move the matrix's cursor to (row, col) with the arrow keys and press Enter."""
    assert isinstance(app.screen, MatrixScreen)
    here_row, here_col = app.screen.current_matrix_cell()
    keys = (["down"] * (row - here_row) if row > here_row else ["up"] * (here_row - row)) + (
        ["right"] * (col - here_col) if col > here_col else ["left"] * (here_col - col)
    )
    await pilot.press(*keys)
    assert app.screen.current_matrix_cell() == (row, col)
    await pilot.press("enter")
    await settle(app, pilot)
    assert isinstance(app.screen, MainScreen)


async def back_to_matrix(app, pilot, key: str = "m") -> None:
    await pilot.press(key)
    await settle(app, pilot)
    assert isinstance(app.screen, MatrixScreen)


@pytest.mark.slow
async def test_three_runs_open_on_the_matrix_with_the_sets_decision_and_every_cell(state):
    app = matrix_app(state)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        assert isinstance(app.screen, MatrixScreen)
        expected = judge_run_set(compare_runs(app.config.run_set))
        # The first line is the set's decision, in the report's words, status word first.
        decision = text_of(app, "#matrix-decision")
        assert decision.strip() == expected.line
        assert decision.startswith(" NEEDS REVIEW ")
        assert "Cochran's Q (pass/fail, 200 items every run scored)" in text_of(
            app, "#matrix-omnibus"
        )
        # Every cell as the text report's matrix has it: mark, effect, interval; "—" diagonal.
        table = matrix_table(app)
        cells = {
            (r, c): " ".join(str(table.get_cell_at((r, c))).split())
            for r in range(3)
            for c in range(3)
        }
        report = "\n".join(matrix_lines(app.run_set, md=False))
        for (r, c), cell in cells.items():
            if r == c:
                assert cell == "—"
            else:
                assert cell in report, (r, c, cell)
        assert cells[(2, 0)] == "▲ +8.0 pts [+2.2, +13.7]"
        assert cells[(0, 2)] == "▼ -8.0 pts [-13.7, -2.2]"
        assert cells[(1, 0)] == "· +6.0 pts [-0.7, +12.4]"
        # The cursor starts on the first candidate against the baseline, said in words below.
        assert app.screen.current_matrix_cell() == (1, 0)
        words = text_of(app, "#matrix-pair")
        assert words.startswith("candidate vs baseline: · +6.0 pts [-0.7, +12.4], p 0.061")
        assert "Holm-adjusted 0.061: no significant difference" in words
        await pilot.press("down")
        words = text_of(app, "#matrix-pair")
        assert words.startswith(
            "candidate2 vs baseline: ▲ +8.0 pts [+2.2, +13.7], p 0.008 (wild cluster "
            "bootstrap-t), Holm-adjusted 0.015: improved"
        )
        assert "NEEDS REVIEW · 5 of 5 untriaged" in words  # the pair's own decision
        await pilot.press("up", "up", "right", "right")  # (0, 2): the same pair, read back
        assert app.screen.current_matrix_cell() == (0, 2)
        words = text_of(app, "#matrix-pair")
        assert words.startswith("baseline vs candidate2: ▼ -8.0 pts [-13.7, -2.2]")
        assert "worse (candidate2 improved)" in words
        await pilot.press("down")  # (1, 2): two candidates, not in the decision
        assert "two candidates, in the family but not in the decision" in text_of(
            app, "#matrix-pair"
        )
        # The loading screen showed the run set's own steps, the last one deciding the set.
        assert "deciding the set" in text_of_main_loading(app)


def text_of_main_loading(app) -> str:
    return str(app.main_screen.query_one("#loading-label").content)


@pytest.mark.slow  # over a CPU-second: out of the default run's budget, in CI
async def test_enter_reviews_the_pair_with_the_run_sets_analysis_without_reading_a_file(
    state, monkeypatch
):
    app = matrix_app(state)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(app, pilot)

        def refuse(*args, **kwargs):
            raise AssertionError("a pair of the run set was read or compared again")

        monkeypatch.setattr("evaltui.core.analysis.run_set.load_run", refuse)
        monkeypatch.setattr("evaltui.core.read.formats.load_run", refuse)
        monkeypatch.setattr("evaltui.core.analysis.pipeline.compare", refuse)
        monkeypatch.setattr("evaltui.core.analysis.pipeline.compare_loaded", refuse)
        monkeypatch.setattr("evaltui.core.analysis.pipeline.complete_analysis", refuse)
        await open_cell(app, pilot, 2, 0)
        pair = app.run_set.pair(0, 2)
        assert app.open_pair == (0, 2)
        # The very analysis the matrix shows: adjusted over the family of three pairs.
        assert app.loaded.analysis is pair.analysis
        assert app.loaded.analysis.paired.candidate.source.path.endswith("candidate2.jsonl")
        row = next(r for r in pair.analysis.metrics if r.metric == pair.analysis.metric)
        assert row.family_label == "2 baseline pairs" and row.p_adjusted == pair.p_adjusted
        assert [r.item_id for r in app.screen.query_one(ItemTable).rows] == list(
            pair.analysis.regressions
        )
        assert "Regressions (5)" in screen_text(app)
        assert "m Matrix" in screen_lines(app)[-1]
        await back_to_matrix(app, pilot)
        # The other cell of the same two runs opens the same pair, baseline first.
        await open_cell(app, pilot, 0, 2)
        assert app.open_pair == (0, 2) and app.loaded.analysis is pair.analysis
        await back_to_matrix(app, pilot)
        await open_cell(app, pilot, 1, 2)  # two candidates: the first given is the baseline
        assert app.open_pair == (1, 2)
        assert app.loaded.analysis.paired.baseline.source.path.endswith("/candidate.jsonl")
        assert app.unexpected_errors == []


@pytest.mark.slow  # a variant of a flow the default run covers (the suite's CPU budget); CI runs it
async def test_tags_stay_per_pair(state):
    app = matrix_app(state)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(app, pilot)
        await open_cell(app, pilot, 1, 0)
        first = app.screen.current_item_id()
        assert first == "pharm-0020"  # a regression of candidate against baseline
        await pilot.press("1")  # confirmed regression
        await settle(app, pilot)
        assert app.loaded.session.review(first).tag == "confirmed regression"
        await back_to_matrix(app, pilot)
        await open_cell(app, pilot, 2, 0)  # candidate2 against baseline: not tagged there
        assert first not in app.loaded.session.items or app.loaded.session.review(first).tag is None
        assert all(row.tag is None for rows in app.loaded.rows.values() for row in rows)
        await back_to_matrix(app, pilot)
        await open_cell(app, pilot, 1, 0)  # back to the first pair: the tag is there
        assert app.loaded.session.review(first).tag == "confirmed regression"
        rows = {row.item_id: row.tag for row in app.loaded.rows["regressions"]}
        assert rows[first] == "confirmed regression"
        assert "confirmed regression" in screen_text(app)
    # Written to the first pair's journal in the test's state folder, and only there.
    tags_by_candidate = {}
    for journal in sorted((state / "sessions").glob("*/journal.jsonl")):
        entries = [json.loads(line) for line in journal.read_text(encoding="utf-8").splitlines()]
        candidate = Path(entries[0]["candidate_path"]).name
        tags_by_candidate[candidate] = [
            (e["item_id"], e["tag"]) for e in entries if e.get("kind") == "tag"
        ]
    assert tags_by_candidate == {
        "candidate.jsonl": [(first, "confirmed regression")],
        "candidate2.jsonl": [],
    }


@pytest.mark.slow  # a variant of a flow the default run covers (the suite's CPU budget); CI runs it
async def test_back_to_the_matrix_frees_the_pairs_lock_and_redecides_with_the_new_tags(state):
    app = matrix_app(state)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(app, pilot)
        assert text_of(app, "#matrix-decision").startswith(" NEEDS REVIEW ")
        await open_cell(app, pilot, 1, 0)
        analysis = app.loaded.analysis
        assert not lock_is_free(analysis, state)  # the open review holds the pair's journal
        await pilot.press("1")  # a confirmed regression blocks the release
        await settle(app, pilot)
        await back_to_matrix(app, pilot)
        assert app.loaded is None and app.open_pair is None
        assert lock_is_free(analysis, state)  # given back: another evaltui may open the pair
        decision = text_of(app, "#matrix-decision")
        assert decision.startswith(" BLOCKED · 3 runs against baseline · candidate: blocked")
        assert decision.strip() == judge_run_set(app.run_set).line  # core's, from the journals
        pair_words = text_of(app, "#matrix-pair")
        assert " BLOCKED · 1 confirmed regression" in pair_words
        assert "8 of 9 untriaged" in pair_words
        assert app.state.matrix_cursor == (1, 0)  # the matrix comes back where it was left
        # Esc on the pair's list clears a filter first, then goes back to the matrix.
        await open_cell(app, pilot, 2, 0)
        await pilot.press("f")
        await settle(app, pilot)
        assert app.screen.filtered
        await pilot.press("escape")
        await settle(app, pilot)
        assert isinstance(app.screen, MainScreen) and not app.screen.filtered
        await back_to_matrix(app, pilot, "escape")
        # m from an item's screen goes back too.
        await open_cell(app, pilot, 2, 0)
        await pilot.press("enter")
        await settle(app, pilot)
        assert not isinstance(app.screen, MainScreen)
        await back_to_matrix(app, pilot)
        assert len(app.screen_stack) == 3  # the default screen, the pair's list, the matrix
        assert app.unexpected_errors == []


@pytest.mark.slow  # a variant of a flow the default run covers (the suite's CPU budget); CI runs it
async def test_fresh_starts_each_pair_anew_once_not_each_time_it_is_opened(state):
    app = matrix_app(state, fresh=True)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(app, pilot)
        await open_cell(app, pilot, 1, 0)
        await pilot.press("2")  # acceptable
        await settle(app, pilot)
        await back_to_matrix(app, pilot)
        await open_cell(app, pilot, 1, 0)
        assert app.loaded.session.review("pharm-0020").tag == "acceptable"


@pytest.mark.slow  # a variant of a flow the default run covers (the suite's CPU budget); CI runs it
async def test_sign_off_in_a_pair_names_the_run_set_command_and_writes_nothing(state, tmp_path):
    app = matrix_app(state)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(app, pilot)
        await open_cell(app, pilot, 2, 0)
        await pilot.press("x")
        await settle(app, pilot)
        assert isinstance(app.screen, MainScreen)  # no two-run sign-off dialog
        shown = [n.message for n in app._notifications]
        assert any("evaltui signoff BASE CAND CAND2" in m for m in shown), shown
        assert app.last_signoff is None


@pytest.mark.slow  # a variant of a flow the default run covers (the suite's CPU budget); CI runs it
async def test_the_matrix_footer_names_its_keys_and_pair_keys_do_nothing_there(state):
    app = matrix_app(state)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        assert screen_lines(app)[-1].rstrip() == (
            "⏎ Review pair ←↑↓→ Move x Sign off ? Help q Quit ^p Commands"
        )
        # (x here signs off the whole set: tests/ui/test_matrix_signoff.py)
        await pilot.press("m", "1", "0", "z", "g", "e")  # no pair is open on the matrix
        await settle(app, pilot)
        assert isinstance(app.screen, MatrixScreen) and app.loaded is None
        assert app.unexpected_errors == []
        assert not list((state / "sessions").glob("*/journal.jsonl"))  # nothing written


@pytest.mark.slow  # a variant of a flow the default run covers (the suite's CPU budget); CI runs it
async def test_with_two_runs_m_is_still_the_next_metric_and_no_matrix_shows(tmp_path):
    config = AppConfig.for_pair(*SAMPLE, state_root=tmp_path / "state")
    app = create_app(config)
    async with app.run_test(size=(200, 50)) as pilot:
        await settle(app, pilot)
        assert app.run_set is None and isinstance(app.screen, MainScreen)
        assert "Matrix" not in screen_lines(app)[-1]
        await pilot.press("m")  # one metric: says so (it does not look for a matrix)
        await settle(app, pilot)
        assert "these runs carry a single metric (passed)" in [
            n.message for n in app._notifications
        ]
        await pilot.press("escape")  # nothing to clear: stays on the list
        await settle(app, pilot)
        assert isinstance(app.screen, MainScreen)


@pytest.mark.slow  # a variant of a flow the default run covers (the suite's CPU budget); CI runs it
async def test_the_diagonal_is_no_pair(state):
    app = matrix_app(state)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(app, pilot)
        await pilot.press("right")  # (1, 1)
        assert "candidate against itself: no pair" in text_of(app, "#matrix-pair")
        await pilot.press("enter")
        await settle(app, pilot)
        assert isinstance(app.screen, MatrixScreen) and app.loaded is None


@pytest.mark.slow  # a variant of a flow the default run covers (the suite's CPU budget); CI runs it
async def test_help_names_the_matrix_keys(state):
    app = matrix_app(state)
    async with app.run_test(size=(120, 200)) as pilot:
        await settle(app, pilot)
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        text = screen_text(app)
        assert "The matrix of 3+ runs" in text
        assert "Review the pair under the cursor" in text
        assert "From a pair's review: back to the matrix" in text
        assert "omnibus test" in text


async def test_a_run_that_cannot_be_read_ends_the_app_with_one_line_and_exit_2(state, tmp_path):
    bad = tmp_path / "broken.jsonl"
    bad.write_text('{"item_id": "q1", "passed": true}\n{"item_id": "q2", "passed": "maybe"}\n')
    app = matrix_app(state, runs=(*SAMPLE, bad))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
    assert app.return_code == 2
    assert "broken.jsonl" in app.load_error and "\n" not in app.load_error


HOSTILE_NAMES = ("baseline", "\x1b[31mred", "[bold]x")


@pytest.mark.slow  # a variant of a flow the default run covers (the suite's CPU budget); CI runs it
async def test_run_names_from_file_names_are_shown_literally(state, monkeypatch):
    """The names come from file names (`multirun.run_names`): markup stays text, escapes are
    made visible. (Given here: the loaders cannot read such files yet, see below.)"""
    monkeypatch.setattr("evaltui.core.analysis.run_set.run_names", lambda paths: HOSTILE_NAMES)
    app = matrix_app(state)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        assert app.run_set.names == HOSTILE_NAMES
        text = screen_text(app)
        assert "[bold]x" in text  # as written, in the labels, the decision line and the words
        assert "[bold]x: needs review" in text_of(app, "#matrix-decision")
        assert "␛[31mred" in text and "\x1b" not in text  # the escape made visible
        await pilot.press("down")
        assert text_of(app, "#matrix-pair").startswith("[bold]x vs baseline")
        for label in (c.label for c in matrix_table(app).columns.values()):
            assert not label.spans or all(span.style == "bold" for span in label.spans)


async def test_a_run_file_named_like_markup_opens_in_the_matrix(state, tmp_path):
    hostile = tmp_path / "[bold]x.jsonl"
    shutil.copyfile(THIRD, hostile)
    app = matrix_app(state, runs=(*SAMPLE, hostile))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        assert app.load_error is None, app.load_error
        assert "[bold]x" in screen_text(app)


def _graded_runs(tmp_path) -> tuple[Path, ...]:
    """Three runs of 60 graded items: the third clearly better, the second a little."""
    paths = []
    for name, shift in (("g_base", 0.0), ("g_cand", 0.01), ("g_cand2", 0.08)):
        rows = [
            {"item_id": f"i{i}", "score": round(0.4 + 0.005 * (i % 40) + shift * (i % 3), 4)}
            for i in range(60)
        ]
        path = tmp_path / f"{name}.jsonl"
        path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
        paths.append(path)
    return tuple(paths)


@pytest.mark.slow  # a variant of a flow the default run covers (the suite's CPU budget); CI runs it
async def test_graded_runs_show_friedman_and_the_wilcoxon_adjusted_p(state, tmp_path):
    runs = _graded_runs(tmp_path)
    app = matrix_app(state, runs=runs)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        assert text_of(app, "#matrix-omnibus").startswith("Friedman")
        await pilot.press("down")  # (2, 0)
        pair = app.run_set.pair(0, 2)
        words = text_of(app, "#matrix-pair")
        assert f"Wilcoxon Holm-adjusted {_p(pair.p_rank_adjusted)}" in words
        assert words.startswith("g_cand2 vs g_base: ▲ +")
        await pilot.press("enter")
        await settle(app, pilot)
        assert app.loaded.analysis is pair.analysis


def _p(value) -> str:
    from evaltui.core.words import format_p

    return format_p(value)


class _Terminal:
    """stdin/stdout as a terminal, for the app's command line."""

    def isatty(self) -> bool:
        return True

    def fileno(self) -> int:
        return 0


def test_the_command_line_starts_the_app_with_the_run_set(monkeypatch, capsys):
    from evaltui.cli import main as cli

    started = []

    def fake_create_app(config):
        started.append(config)
        raise SystemExit(0)  # (the app itself is driven by the tests above)

    monkeypatch.setattr("sys.stdin", _Terminal())
    monkeypatch.setattr("sys.stdout", _Terminal())
    monkeypatch.setattr("evaltui.ui.app.create_app", fake_create_app)
    assert cli.main([*map(str, RUNS)]) == 0
    assert cli.main([*map(str, SAMPLE)]) == 0
    three, two = started
    assert three.run_set is not None and three.run_set.runs == tuple(RUNS)
    assert (three.spec.baseline, three.spec.candidate) == SAMPLE
    assert two.run_set is None  # two runs: the familiar review, unchanged


def test_the_same_run_twice_is_refused_before_the_app_starts(monkeypatch, capsys):
    from evaltui.cli import main as cli

    monkeypatch.setattr("sys.stdin", _Terminal())
    monkeypatch.setattr("sys.stdout", _Terminal())
    monkeypatch.setattr("evaltui.ui.app.create_app", lambda config: pytest.fail("started"))
    assert cli.main([str(SAMPLE[0]), str(SAMPLE[1]), str(SAMPLE[0])]) == 2
    err = capsys.readouterr().err
    assert "is given twice" in err and err.count("\n") == 1


@pytest.mark.slow  # a variant of a flow the default run covers (the suite's CPU budget); CI runs it
async def test_a_bug_in_the_matrix_screen_is_reported_and_m_brings_the_matrix_back(
    state, monkeypatch
):
    app = matrix_app(state)
    with pytest.raises(RuntimeError, match="drawing the words"):  # run_test re-raises it
        async with app.run_test(size=(100, 30)) as pilot:
            await settle(app, pilot)

            def broken(*args):
                raise RuntimeError("drawing the words")

            working = matrix_module.pair_text
            monkeypatch.setattr(matrix_module, "pair_text", broken)
            await pilot.press("down")
            await settle(app, pilot)
            assert app.unexpected_errors and "matrix screen" in app.unexpected_errors[0]
            assert not isinstance(app.screen, MatrixScreen)  # closed: its loop stopped
            monkeypatch.setattr(matrix_module, "pair_text", working)
            await pilot.press("m")
            await settle(app, pilot)
            assert isinstance(app.screen, MatrixScreen)
            await open_cell(app, pilot, 2, 0)  # and the review goes on
            assert app.open_pair == (0, 2)


@pytest.mark.slow  # (an app flow over a second: .ci/run's slow stage)
async def test_a_team_reviewing_a_pair_of_the_run_set_gets_its_split_and_agreement(
    state, tmp_path, monkeypatch
):
    """A run set's pair opened by a team member (`--reviewers`) is dealt as a pair opened
    alone is: the regressions split among the team (yours first, `assigned to you`) and the
    header's agreement line; the split was once handed over as the agreement line."""
    from evaltui.core.record.assignment import Assignment

    monkeypatch.setenv("EVALTUI_REVIEW_DIR", str(tmp_path / "team"))
    app = matrix_app(state, reviewer="ana", team=("ana,ben,cy", 2))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        await open_cell(app, pilot, 1, 0)
        loaded = app.loaded
        assert isinstance(loaded.assignment, Assignment)
        assert loaded.agreement is None or isinstance(loaded.agreement, str)
        mine = loaded.assignment.of("ana")
        assert mine and f"assigned to you: {len(mine)} of" in text_of(app, "#list-title")
        assert "Assignment(" not in screen_text(app)
        assert app.unexpected_errors == []
