"""The app on two runs of different items (`evaltui BASE CAND --design independent|auto`): the
independent (unpaired) comparison on a read-only screen instead of a refusal (issue 17).

Fixtures: tests/data/independent (its make_fixtures.py): baseline.jsonl and candidate.jsonl
share no item ids, 48/80 vs 56/70 passing, Newcombe's (1998) Table II example (a); the
`_scores` pair, graded scores on different items (40 and 45). The config is built as the CLI's
`_run_app` builds it (its parser and `spec_from_args`), with the state folder in the test's own
folder. The numbers on screen are checked against the text report's (`evaltui report ...
--design independent`, run in-process), the published example and scipy; the SVG snapshots
(80x24, 160x48, 16 colours) were looked at. Update with --snapshot-update, then look again.
"""

from __future__ import annotations

import io
import math
import shutil
import subprocess
import sys
import uuid
from pathlib import Path

import pytest
from rich.color import ColorSystem
from rich.console import Console
from scipy import stats
from textual.widgets import Static

from evaltui.cli.main import _app_parser, main, spec_from_args
from evaltui.core.analysis.independent import IndependentAnalysis
from evaltui.core.analysis.pipeline import compare_design
from evaltui.core.decide.independent import decide_independent
from evaltui.ui.app import ANSI_THEME, AppConfig, EvalTuiApp, create_app
from evaltui.ui.screens.help import HelpScreen
from evaltui.ui.screens.independent import NO_PAIRS, REPORT_COMMAND, IndependentScreen
from tests.ui.helpers import ROOT, screen_lines, settle, text_of
from tests.ui.test_no_color import assert_no_colour, assert_readable, find
from tests.ui.test_real_terminal import _stop, _tmux, _wait_for

FIXTURES = Path("tests/data/independent")  # relative to ROOT: the paths the screen shows
BASE, CAND = FIXTURES / "baseline.jsonl", FIXTURES / "candidate.jsonl"
BASE_SCORES, CAND_SCORES = FIXTURES / "baseline_scores.jsonl", FIXTURES / "candidate_scores.jsonl"
LABEL = "independent (unpaired) comparison"
REASON = "the runs share no item ids (baseline 80 items, candidate 70 items)"
WIDE = (200, 60)  # every line of the screen on one terminal line, nothing scrolled away


@pytest.fixture(autouse=True)
def _at_root(monkeypatch):
    """Run from the repository root, as the tmux test does: the screen shows the paths as
    given, so the snapshots hold no machine's folder."""
    monkeypatch.chdir(ROOT)


def independent_app(
    state: Path, base: Path = BASE, cand: Path = CAND, design: str = "independent"
) -> EvalTuiApp:
    """The app as `evaltui BASE CAND --design DESIGN` starts it (cli._run_app's config)."""
    args = _app_parser().parse_args([str(base), str(cand), "--design", design])
    spec = spec_from_args(args)
    config = AppConfig(
        spec=spec,
        tags=None,
        log_directory=None,
        fresh=args.fresh,
        reviewer=args.reviewer,
        run_set=None,
        state_root=state,
    )
    return create_app(config)


def flat(app: EvalTuiApp) -> str:
    """The screen as one line of words: lines wrapped at a space read as one text."""
    return " ".join(" ".join(line.split()) for line in screen_lines(app))


def words(text: str) -> str:
    return " ".join(text.split())


def report_text(capsys, base: Path, cand: Path, design: str = "independent") -> list[str]:
    """The lines `evaltui report BASE CAND --design DESIGN` prints (a wide pipe: one per fact)."""
    code = main(["report", str(base), str(cand), "--design", design])
    out = capsys.readouterr().out
    assert code == 0, out
    return out.splitlines()


def table_cells(line: str) -> list[str]:
    """The cells of one row: the text report's `│ a │ b │`, or the screen's columns."""
    if "│" in line:
        return [cell.strip() for cell in line.strip().strip("│").split("│")]
    return [cell for cell in line.strip().split("  ") if cell.strip()]


def screen_row(app: EvalTuiApp, arm: str) -> list[str]:
    rows = [line for line in screen_lines(app) if line.strip().startswith(f"{arm} ")]
    assert len(rows) == 1, rows
    return [cell.strip() for cell in table_cells(rows[0])]


def help_lines(app: EvalTuiApp) -> list[str]:
    """The help's tables as text, one key a line (read from its widgets, not the screen, where
    the dialog's border and the screen behind it share each line)."""
    console = Console(width=100, file=io.StringIO(), record=True)
    for static in app.screen.query(Static):
        console.print(static.content)
    return [words(line) for line in console.export_text().splitlines() if line.strip()]


async def opened(app: EvalTuiApp, pilot) -> IndependentScreen:
    await settle(app, pilot)
    assert isinstance(app.screen, IndependentScreen), app.load_error
    return app.screen


# -- what the screen shows -------------------------------------------------------------------


@pytest.mark.parametrize("design", ["independent", "auto"])
async def test_the_app_shows_the_independent_comparison_led_by_its_decision(tmp_path, design):
    app = independent_app(tmp_path / "state", design=design)
    async with app.run_test(size=WIDE) as pilot:
        await opened(app, pilot)
        expected = compare_design(app.config.spec)
        assert isinstance(expected, IndependentAnalysis)
        decision = decide_independent(expected)
        assert decision.line.startswith(f"NEEDS REVIEW · {LABEL} · overall +20.0 pts")
        lines = [line.strip() for line in screen_lines(app) if line.strip()]
        # The decision line first, in its words (the status word padded for reverse video).
        assert words(lines[0]) == words(decision.line)
        assert lines[0].startswith("NEEDS REVIEW ")
        assert words(text_of(app, "#independent-decision")) == words(decision.line)
        # Then the label, why the paired analysis was impossible, and nothing to triage.
        assert lines[1:4] == [LABEL, f"why not paired: {REASON}", NO_PAIRS]
        screen = flat(app)
        assert app.independent.report["design_choice"]["requested"] == design
        assert "Verdict: improved: the test finds a difference at alpha" in screen
        for name in ("regressions", "improvements", "Triage"):
            assert name not in screen  # no lists, no tags


async def test_the_arms_difference_and_tests_read_as_the_report_prints_them(tmp_path, capsys):
    report = report_text(capsys, BASE, CAND)
    app = independent_app(tmp_path / "state")
    async with app.run_test(size=WIDE) as pilot:
        await opened(app, pilot)
        for arm in ("baseline", "candidate"):
            (row,) = [line for line in report if line.startswith(f"│ {arm} ")]
            assert screen_row(app, arm) == table_cells(row)
        assert screen_row(app, "baseline") == ["baseline", "80", "48", "60.0%", "[49.0%, 70.0%]"]
        assert screen_row(app, "candidate") == ["candidate", "70", "56", "80.0%", "[69.2%, 87.7%]"]
        screen = flat(app)
        for start in ("Difference (candidate", "The test the verdict", "Beside it:", "Fisher's"):
            (line,) = [line for line in report if line.startswith(start)]
            assert words(line) in screen
        # Newcombe (1998), Table II example (a), method 10: 56/70 - 48/80, 0.0524 to 0.3339.
        assert "+20.0 pts, 95% CI [+5.2, +33.4] (Newcombe hybrid score interval" in screen
        assert "two-proportion z (pooled), z = 2.650, p = 0.008" in screen
        assert "Beside it: Fisher exact, p = 0.013" in screen
        # The inputs: the paths as given and the full sha256 the report records.
        for arm, path in (("baseline", BASE), ("candidate", CAND)):
            assert f"{arm}: {path}" in screen
            assert f"sha256 {app.independent.report['inputs'][arm]['sha256']}" in screen


def test_the_arms_numbers_on_screen_are_scipys():
    """The figures the previous test finds on screen, computed by scipy 1.x from the counts:
    Wilson intervals (binomtest), Fisher's exact p, the pooled two-proportion z."""
    for passes, n, shown in ((48, 80, (0.490, 0.700)), (56, 70, (0.692, 0.877))):
        ci = stats.binomtest(passes, n).proportion_ci(method="wilson")
        assert (round(ci.low, 3), round(ci.high, 3)) == shown
    assert round(stats.fisher_exact([[56, 14], [48, 32]]).pvalue, 3) == 0.013
    pooled = (56 + 48) / 150
    z = (56 / 70 - 48 / 80) / math.sqrt(pooled * (1 - pooled) * (1 / 70 + 1 / 80))
    assert (round(z, 3), round(2 * stats.norm.sf(z), 3)) == (2.650, 0.008)


async def test_graded_arms_show_mean_sd_and_welch_as_the_report_does(tmp_path, capsys):
    report = report_text(capsys, BASE_SCORES, CAND_SCORES, design="auto")
    app = independent_app(tmp_path / "state", BASE_SCORES, CAND_SCORES, design="auto")
    async with app.run_test(size=WIDE) as pilot:
        await opened(app, pilot)
        for arm in ("baseline", "candidate"):
            (row,) = [line for line in report if line.startswith(f"│ {arm} ")]
            assert screen_row(app, arm) == table_cells(row)
        screen = flat(app)
        assert "metric: score" in screen
        (line,) = [line for line in report if line.startswith("The test the verdict")]
        assert words(line) in screen
        assert "Welch t, t = 4.353, df 81.5, p = 3.9e-05" in screen
        assert "Beside it" not in screen  # Welch is the one test of scores


def test_the_graded_welch_on_screen_is_scipys():
    """scipy's Welch t on the graded fixtures gives the t, df and p the previous test reads."""
    values = []
    for path in (CAND_SCORES, BASE_SCORES):
        lines = (ROOT / path).read_text(encoding="utf-8").splitlines()
        values.append([float(line.split('"score": ')[1].rstrip("}")) for line in lines])
    result = stats.ttest_ind(*values, equal_var=False)
    assert (round(result.statistic, 3), round(result.df, 1)) == (4.353, 81.5)
    assert f"{result.pvalue:.2g}" == "3.9e-05"


async def test_a_path_with_markup_prints_as_written(tmp_path):
    base, cand = tmp_path / "[bold]x.jsonl", tmp_path / "[red]y [on blue]z.jsonl"
    shutil.copy(ROOT / BASE, base)
    shutil.copy(ROOT / CAND, cand)
    app = independent_app(tmp_path / "state", base, cand)
    async with app.run_test(size=WIDE) as pilot:
        await opened(app, pilot)
        screen = flat(app)
        assert f"baseline: {base}" in screen and f"candidate: {cand}" in screen


# -- keys ------------------------------------------------------------------------------------


@pytest.mark.slow  # a variant of a flow the default run covers (the suite's CPU budget); CI runs it
async def test_q_exits_zero_and_nothing_is_written_to_the_state_folder(tmp_path):
    state = tmp_path / "state"
    app = independent_app(state)
    async with app.run_test(size=(80, 24)) as pilot:
        await opened(app, pilot)
        # The pair's keys have nothing to act on: no tag, note, gate, slice, metric or undo.
        await pilot.press("1", "0", "z", "e", "g", "l", "m", "T", "enter", "escape")
        await settle(app, pilot)
        assert isinstance(app.screen, IndependentScreen)
        assert not app._notifications
        await pilot.press("q")
        await pilot.pause()
    assert app.return_code == 0
    assert not state.exists() or not any(state.rglob("*"))


@pytest.mark.slow  # a variant of a flow the default run covers (the suite's CPU budget); CI runs it
async def test_x_explains_there_is_no_signoff_record_and_names_the_report(tmp_path):
    state = tmp_path / "state"
    app = independent_app(state)
    async with app.run_test(size=(80, 24)) as pilot:
        await opened(app, pilot)
        await pilot.press("x")
        await pilot.pause()
        (notice,) = [n.message for n in app._notifications]
        assert "no sign-off record" in notice and REPORT_COMMAND in notice
        assert isinstance(app.screen, IndependentScreen)  # no dialog opened
        titles = [c.title for c in app.get_system_commands(app.screen)]
        assert "Sign off" in titles and "Help" in titles
        assert not [t for t in titles if t.startswith(("Tag", "Edit note", "Export"))]
    assert not state.exists() or not any(state.rglob("*"))


@pytest.mark.slow  # a variant of a flow the default run covers (the suite's CPU budget); CI runs it
async def test_help_lists_this_screens_keys_first(tmp_path):
    app = independent_app(tmp_path / "state")
    async with app.run_test(size=(100, 40)) as pilot:
        await opened(app, pilot)
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        lines = help_lines(app)
        everywhere = lines.index("Everywhere")
        assert lines[everywhere + 1 : everywhere + 5] == [
            "q Quit",
            "? Help: every key, the words on screen",
            "Ctrl+P Command palette: every action, by name",
            "Two runs of different items",  # (no x sign-off, tag, note or metric key here)
        ]
        assert (
            lines[everywhere + 5] == "x Sign off: why there is no record, and the report for a PR"
        )
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, IndependentScreen)


@pytest.mark.slow  # a variant of a flow the default run covers (the suite's CPU budget); CI runs it
async def test_j_and_k_scroll_to_the_inputs_at_80x24(tmp_path):
    app = independent_app(tmp_path / "state")
    async with app.run_test(size=(80, 24)) as pilot:
        await opened(app, pilot)
        assert "sha256" not in flat(app)  # below the fold at 80x24
        await pilot.press(*"jjjjjjjjjjjj")
        await pilot.pause()
        assert f"baseline: {BASE}" in flat(app) and "sha256" in flat(app)
        await pilot.press(*"kkkkkkkkkkkk")
        await pilot.pause()
        assert flat(app).startswith("NEEDS REVIEW")


# -- drawn: snapshots, NO_COLOR, 16 colours ------------------------------------------------------


async def _shown(pilot):
    await opened(pilot.app, pilot)


async def _sixteen_colours(pilot):
    pilot.app.console._color_system = ColorSystem.STANDARD  # what TERM=xterm makes Rich say
    pilot.app.use_terminal_colours()
    await opened(pilot.app, pilot)
    assert pilot.app.theme == ANSI_THEME


SIZES = [pytest.param((80, 24), id="80x24"), pytest.param((160, 48), id="160x48")]


@pytest.mark.parametrize("size", SIZES)
def test_independent_screen_snapshot(snap_compare, tmp_path, size):
    app = independent_app(tmp_path / "state")
    assert snap_compare(app, terminal_size=size, run_before=_shown)


def test_independent_graded_snapshot(snap_compare, tmp_path):
    app = independent_app(tmp_path / "state", BASE_SCORES, CAND_SCORES, design="auto")
    assert snap_compare(app, terminal_size=(100, 30), run_before=_shown)


def test_independent_16_colours_snapshot(snap_compare, tmp_path):
    app = independent_app(tmp_path / "state")
    assert snap_compare(app, terminal_size=(80, 24), run_before=_sixteen_colours)


@pytest.fixture
def no_color(monkeypatch):
    monkeypatch.setenv("NO_COLOR", "1")  # before the app exists: Textual reads it at start


@pytest.mark.parametrize("size", [(80, 24), (160, 48)])
async def test_the_independent_screen_reads_without_colour(tmp_path, no_color, size):
    app = independent_app(tmp_path / "state")
    async with app.run_test(size=size) as pilot:
        await opened(app, pilot)
        assert app.no_color and app.native_ansi_color
        assert_no_colour(app)
        (status,) = find(app, " NEEDS REVIEW ")  # the status word in reverse video
        assert all(style.reverse for _, style in status)
        assert_readable(app, "NEEDS REVIEW", LABEL, "why not paired", NO_PAIRS, "Verdict")
        assert_readable(app, "baseline", "60.0%", "[49.0%, 70.0%]", "80.0%", "+20.0 pts")


# -- the installed command in a real terminal ------------------------------------------------


@pytest.mark.slow  # a variant of a flow the default run covers (the suite's CPU budget); CI runs it
def test_installed_command_shows_the_independent_comparison_in_tmux(tmp_path):
    tmux = _tmux()
    script = Path(sys.executable).parent / "evaltui"
    assert script.exists(), "the evaltui console script is not installed"
    state = tmp_path / "state"
    session = f"evaltui-{uuid.uuid4().hex[:8]}"
    command = (
        f"cd {ROOT} && EVALTUI_STATE_DIR={state} TERM=xterm-256color {script} {BASE} {CAND} "
        "--design independent; echo EXIT=$?; sleep 30"
    )
    subprocess.run(
        [*tmux, "new-session", "-d", "-s", session, "-x", "80", "-y", "24", command], check=True
    )
    keys = [*tmux, "send-keys", "-t", session]
    try:
        screen = _wait_for(tmux, session, "NEEDS REVIEW", NO_PAIRS, "x Sign-off?")
        assert "independent (unpaired) comparison · overall +20.0 pts [+5.2," in screen
        assert "why not paired: the runs share no item ids" in screen
        assert "baseline       80       48   60.0%   [49.0%, 70.0%]" in screen
        assert "candidate      70       56   80.0%   [69.2%, 87.7%]" in screen
        subprocess.run([*keys, "x"], check=True)
        _wait_for(tmux, session, "No sign-off record")
        subprocess.run([*keys, "q"], check=True)
        _wait_for(tmux, session, "EXIT=0")
    finally:
        _stop(tmux)
    assert not state.exists() or not any(state.rglob("*"))


async def test_auto_on_runs_that_pair_opens_the_review_as_fast_as_the_paired_default(
    tmp_path, monkeypatch
):
    """`--design auto` on runs of the same items is the paired review, and its first screen
    waits neither for the cluster bootstrap nor for re-hashing a cached run (as the default)."""
    import evaltui.core.analysis.pipeline as compare_module
    from evaltui.ui.screens.main import MainScreen

    seen = {}
    original = compare_module.compare_design

    def spy(spec, **kwargs):
        seen.update(kwargs)
        return original(spec, **kwargs)

    monkeypatch.setattr(compare_module, "compare_design", spy)
    sample = ROOT / "sample_runs"
    app = independent_app(
        tmp_path / "state", sample / "baseline.jsonl", sample / "candidate.jsonl", "auto"
    )
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(app, pilot)
        assert isinstance(app.screen, MainScreen), app.load_error
        assert seen["complete"] is False and seen["defer_hash_check"] is True
        assert app.loaded.analysis.clusters_done  # completed in the background after it
