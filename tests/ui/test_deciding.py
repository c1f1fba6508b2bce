"""Nothing provisional looks final (issue 24, item 2): until the analysis that decides (the
cluster bootstrap, the metric family) has arrived, no surface of the app says a status or a
verdict, and nothing on the header is green or red; the sign-off dialog refuses to write and
follows the decision when it arrives.

The header is read at every frame the app draws (`FrameLog` wraps the app's `_display`, which
every compositor refresh calls), not sampled now and then; the slow cluster work is made slow
deterministically by holding it on an Event (`HeldClusters`) until the test releases it.
"""

from __future__ import annotations

import json
import re
import threading
from dataclasses import dataclass
from pathlib import Path

import pytest
from rich.color import ColorSystem
from rich.style import Style
from rich.text import Text
from textual.widgets import Button, Static

import evaltui.core.analysis.pipeline as pipeline
from evaltui.core.decide.deciding import waiting_for
from evaltui.core.decide.vocabulary import STATUS_WORDS, VERDICT_SHORT
from evaltui.ui.app import ANSI_THEME, AppConfig, EvalTuiApp, create_app
from evaltui.ui.screens.gates import GatesScreen
from evaltui.ui.screens.signoff import RunSetSignoffScreen, SignoffScreen
from evaltui.ui.widgets.header_pane import VERDICT_WORDS, HeaderPane
from tests.ui.helpers import BARRIER_TIMEOUT, SAMPLE, demo_app, screen_lines, settle, until

HELD = "complete"  # the worker group of the analysis that decides (`EvalTuiApp.complete_pair`)
# Words that say a status or a verdict: none may be on screen before the decision is final.
LOUD = (*STATUS_WORDS.values(), *VERDICT_WORDS.values())
SHORT = tuple(VERDICT_SHORT.values())  # the verdict as the first line says it, after the effect
RED_GREEN = {"red", "green", "bright_red", "bright_green"}


class HeldClusters:
    """Holds the cluster bootstrap of the analysis that decides until `release` (a test hook
    on `pipeline.with_clusters`, which only `complete_analysis` calls)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.released = threading.Event()
        self.calls = 0
        real = pipeline.with_clusters

        def held(analysis):
            self.calls += 1
            self.released.wait(BARRIER_TIMEOUT)  # (bounded: a failing test never hangs)
            return real(analysis)

        monkeypatch.setattr(pipeline, "with_clusters", held)

    def release(self) -> None:
        self.released.set()


def colours(text: Text) -> set[str]:
    """The colour names the spans of `text` use (foreground and background)."""
    found = set()
    for span in [*text.spans, *([] if not text.style else [text.style])]:
        style = span.style if hasattr(span, "style") else span
        style = style if isinstance(style, Style) else Style.parse(str(style))
        for colour in (style.color, style.bgcolor):
            if colour is not None:
                found.add(colour.name)
    return found


@dataclass(frozen=True)
class Frame:
    decided: bool  # the analysis that decides had arrived when this frame was drawn
    lines: tuple[str, ...]  # the whole terminal
    header: tuple[str, ...]  # the lines of the header pane (empty while loading)
    header_colours: frozenset[str]  # colours the header's text uses


class FrameLog:
    """Every frame the app draws, with what the state said when it was drawn."""

    def __init__(self, app: EvalTuiApp) -> None:
        self.frames: list[Frame] = []
        self.app = app
        draw = app._display

        def display(screen, renderable) -> None:
            if renderable is not None:
                self.frames.append(self.look())
            draw(screen, renderable)

        app._display = display  # type: ignore[method-assign]

    def look(self) -> Frame:
        app = self.app
        loaded = app.state.loaded
        decided = loaded is not None and not waiting_for(loaded.analysis)
        lines = tuple(screen_lines(app))
        header: tuple[str, ...] = ()
        used: set[str] = set()
        panes = app.screen.query(HeaderPane)
        if panes and panes.first().display:
            pane = panes.first()
            region = pane.region
            header = lines[region.y : region.y + region.height]
            if isinstance(pane.content, Text):
                used = colours(pane.content)
        for shown in app.screen.query("#signoff-decision"):
            content = shown.content if isinstance(shown, Static) else None
            if isinstance(content, Text):
                used |= colours(content)
        return Frame(decided, lines, header, frozenset(used))

    def check(self) -> tuple[list[Frame], list[Frame]]:
        """The frames drawn before and after the decision; fails on any frame before it that
        says a status or a verdict, or whose header or decision line is green or red."""
        before = [f for f in self.frames if not f.decided]
        after = [f for f in self.frames if f.decided]
        for number, frame in enumerate(before):
            screen = "\n".join(frame.lines)
            loud = [word for word in LOUD if word in screen]
            header = "\n".join(frame.header)
            short = [word for word in SHORT if f", {word}" in header]
            assert not loud and not short, f"frame {number} says {loud + short}:\n{screen}"
            assert not frame.header_colours & RED_GREEN, (
                f"frame {number}: {sorted(frame.header_colours)} before the decision:\n{screen}"
            )
        return before, after


def deciding_shown(app: EvalTuiApp) -> bool:
    panes = app.screen.query(HeaderPane)
    return bool(panes) and "DECIDING…" in str(panes.first().content)


def write_clustered_pair(folder: Path) -> tuple[Path, Path]:
    """30 clusters of 4 items; the candidate fails the first item of 20 clusters: item-level
    and cluster-aware intervals both say regressed (BLOCKED, in red, once decided)."""
    folder.mkdir(parents=True, exist_ok=True)
    paths = folder / "base.jsonl", folder / "cand.jsonl"
    fails = (lambda c, k: c % 10 == 0 and k == 0, lambda c, k: k == 0 and c % 3 != 0)
    for path, fail in zip(paths, fails, strict=True):
        rows = [
            {"item_id": f"q{c:02d}-{k}", "passed": not fail(c, k), "cluster": f"doc{c:02d}"}
            for c in range(30)
            for k in range(4)
        ]
        path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return paths


def clustered_app(tmp_path: Path) -> EvalTuiApp:
    base, cand = write_clustered_pair(tmp_path / "runs")
    return create_app(AppConfig.for_pair(base, cand, state_root=tmp_path / "state"))


@pytest.mark.slow
async def test_the_demo_header_says_deciding_until_the_clusters_decide_at_every_frame(
    tmp_path, monkeypatch
):
    """The demo's item-level interval says improved and the clusters no significant
    difference: no frame before the clusters arrive says either, or any status. (The clusters
    are held until a deciding frame is on screen: the analysis starts with the headline, in a
    thread, and on a loaded machine could otherwise finish before the first paint.)"""
    held = HeldClusters(monkeypatch)
    app = demo_app(tmp_path / "state")
    log = FrameLog(app)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: deciding_shown(app), "the deciding header")
        await settle(app, pilot, ignore=[HELD])
        held.release()
        await settle(app, pilot)
        header = str(app.screen.query_one(HeaderPane).content)
    before, after = log.check()
    deciding = [f for f in before if any("DECIDING…" in line for line in f.header)]
    assert deciding, "no frame showed the pair deciding"
    # It says what it computes. Which step the first frame shows depends on how far the
    # analysis (a thread started with the headline) got before the first paint.
    progress = re.compile(r"DECIDING… \([a-z ]+, step \d of \d\)")
    assert any(progress.search(line) for line in deciding[0].header), deciding[0].header
    assert after and "NEEDS REVIEW" in header and "NO SIGNIFICANT DIFFERENCE" in header
    assert "IMPROVED" not in "\n".join(line for f in before for line in f.lines)


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["NO_COLOR", "16 colours"])
async def test_a_held_cluster_analysis_keeps_every_frame_deciding_then_blocks(
    tmp_path, monkeypatch, mode
):
    """A clustered pair that regresses: while the clusters are held, every frame says
    DECIDING… with what it computes (in words, so NO_COLOR reads it too), nothing red; once
    released the header says BLOCKED. (The default colours: the demo's and the dialog's.)"""
    if mode == "NO_COLOR":
        monkeypatch.setenv("NO_COLOR", "1")
    held = HeldClusters(monkeypatch)
    app = clustered_app(tmp_path)
    log = FrameLog(app)
    async with app.run_test(size=(80, 24)) as pilot:
        if mode == "16 colours":  # (as on mount in a real terminal Rich reads as 16-colour)
            app.console._color_system = ColorSystem.STANDARD
            app.use_terminal_colours()
            assert app.theme == ANSI_THEME
        await until(pilot, lambda: deciding_shown(app), "the deciding header")
        await settle(app, pilot, ignore=[HELD])
        assert held.calls == 1
        header = str(app.screen.query_one(HeaderPane).content)
        assert header.startswith(" DECIDING… (clusters, step 1 of 2) ")
        assert "18 of 18 untriaged" in header and "-14.2 pts (interval pending)" in header
        await pilot.press("h")  # the folded header says it too
        await settle(app, pilot, ignore=[HELD])
        folded = str(app.screen.query_one(HeaderPane).content)
        assert folded.startswith(" DECIDING… (clusters, step 1 of 2) ")
        assert "verdict: not yet" in folded
        held.release()
        await settle(app, pilot)
        header = str(app.screen.query_one(HeaderPane).content)
    before, after = log.check()
    assert len(before) >= 2 and after
    assert header.startswith(" BLOCKED ") and "regressed" in header


@pytest.mark.slow
async def test_the_signoff_dialog_refuses_to_write_while_deciding_and_follows_the_decision(
    tmp_path, monkeypatch
):
    """x while the clusters are held: the dialog's line says DECIDING…, the write is off and
    Ctrl+S says why; when the clusters arrive its line becomes the header's, and what an
    approval overrides appears (the regression the clusters confirmed)."""
    held = HeldClusters(monkeypatch)
    app = clustered_app(tmp_path)
    log = FrameLog(app)
    async with app.run_test(size=(100, 40)) as pilot:
        await until(pilot, lambda: deciding_shown(app), "the deciding header")
        await pilot.press("x")
        await settle(app, pilot, ignore=[HELD])
        screen = app.screen
        assert isinstance(screen, SignoffScreen)
        line = str(screen.query_one("#signoff-decision", Static).content)
        assert line.startswith(" DECIDING… (clusters")
        assert screen.query_one("#write", Button).disabled
        over = str(screen.query_one("#override-what", Static).content)
        assert over == "What an approval overrides is known once the decision is made."
        assert not screen.query_one("#override").display
        screen.query_one("#decision-approve").value = True
        screen.query_one("#rationale").load_text("looks fine")
        screen.query_one("#prefix").value = str(tmp_path / "so")
        await pilot.press("ctrl+s")
        await settle(app, pilot, ignore=[HELD])
        error = str(screen.query_one("#signoff-error", Static).content)
        assert "still being made" in error and "no record can be written" in error
        assert not list(tmp_path.glob("so.*"))
        held.release()
        await settle(app, pilot)
        assert app.screen is screen  # (the dialog stays open, with what was typed)
        line = str(screen.query_one("#signoff-decision", Static).content)
        assert line.strip() == app.loaded.decision.line
        assert line.startswith(" BLOCKED ")
        assert not screen.query_one("#write", Button).disabled
        over = str(screen.query_one("#override-what", Static).content)
        assert over.startswith("Approving overrides: ") and "regress" in over
        assert screen.query_one("#override").display
    log.check()


@pytest.mark.slow
async def test_the_gates_wait_for_the_decision(tmp_path, monkeypatch):
    """With a policy, while deciding: the header names no gate status and g says when the
    gates are evaluated instead of listing statuses that may change; once decided g opens."""
    held = HeldClusters(monkeypatch)
    app = demo_app(tmp_path / "state", policy=SAMPLE[0].parent / "policy.toml")
    async with app.run_test(size=(120, 40)) as pilot:
        await until(pilot, lambda: deciding_shown(app), "the deciding header")
        await settle(app, pilot, ignore=[HELD])
        header = str(app.screen.query_one(HeaderPane).content)
        assert "gates (g): evaluated once the decision is made" in header
        assert not any(word in header for word in ("passed", "failed", "✓", "✗"))
        await pilot.press("g")
        await settle(app, pilot, ignore=[HELD])
        assert not isinstance(app.screen, GatesScreen)
        held.release()
        await settle(app, pilot)
        assert "gates (g): " in str(app.screen.query_one(HeaderPane).content)
        await pilot.press("g")
        await settle(app, pilot)
        assert isinstance(app.screen, GatesScreen)


@pytest.mark.slow
async def test_a_tag_made_while_deciding_is_in_the_decision_once_decided(tmp_path, monkeypatch):
    """The tag's re-evaluation arrives before the clusters: the completed analysis is still
    adopted (the pair does not stay deciding) and its decision counts the tag."""
    held = HeldClusters(monkeypatch)
    app = clustered_app(tmp_path)
    async with app.run_test(size=(100, 40)) as pilot:
        await until(pilot, lambda: deciding_shown(app), "the deciding header")
        await pilot.press("1")  # the first regression tagged: judged on the held analysis
        await settle(app, pilot, ignore=[HELD])
        assert "17 of 18 untriaged" in app.loaded.decision.line
        assert app.loaded.decision.line.startswith("DECIDING…")
        held.release()
        await settle(app, pilot)
        line = app.loaded.decision.line
    assert not waiting_for(app.loaded.analysis)
    assert line.startswith("BLOCKED") and "17 of 18 untriaged" in line


@pytest.mark.slow  # (2.3 CPU-s: three runs, three pairs' analyses)
async def test_the_matrix_says_deciding_while_the_set_is_decided_anew(tmp_path, monkeypatch):
    """Back on the matrix after a pair's review (m), the set's last line is not shown as the
    answer while the set is decided again with the tags just made (held here); then it is."""
    from tests.ui.test_matrix_flow import matrix_app

    monkeypatch.setenv("EVALTUI_STATE_DIR", str(tmp_path / "state"))
    app = matrix_app(tmp_path / "state")
    released = threading.Event()
    decide = app._decide_run_set
    calls = []

    def held(run_set):
        calls.append(run_set)
        if len(calls) > 1:  # the first decides the set as it opens; hold the one after m
            released.wait(BARRIER_TIMEOUT)
        return decide(run_set)

    app._decide_run_set = held  # type: ignore[method-assign]
    log = FrameLog(app)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        final = str(app.screen.query_one("#matrix-decision", Static).content)
        await pilot.press("enter")  # the pair under the cursor's review
        await settle(app, pilot)
        await pilot.press("1")
        await settle(app, pilot)
        await pilot.press("m")  # back to the matrix: the set is decided anew (held)
        await until(pilot, lambda: len(calls) == 2, "the set decided anew")
        await settle(app, pilot, ignore=["decide-set"])
        shown = str(app.screen.query_one("#matrix-decision", Static).content)
        assert shown.startswith(" DECIDING… (each pair with the tags just made)")
        assert not any(word in shown for word in LOUD)
        pair = str(app.screen.query_one("#matrix-pair", Static).content)
        assert "DECIDING… (with the tags just made)" in pair
        await pilot.press("x")  # the whole set's sign-off, opened while it is decided anew
        await settle(app, pilot, ignore=["decide-set"])
        dialog = app.screen
        assert isinstance(dialog, RunSetSignoffScreen)
        line = str(dialog.query_one("#signoff-decision", Static).content)
        assert line.startswith(" DECIDING… (each pair with the tags just made)")
        assert dialog.query_one("#write", Button).disabled
        released.set()
        await settle(app, pilot)
        line = str(dialog.query_one("#signoff-decision", Static).content)
        assert line.strip() == app.state.run_set_decision.line
        assert not dialog.query_one("#write", Button).disabled
        await pilot.press("escape")
        await settle(app, pilot)
        shown = str(app.screen.query_one("#matrix-decision", Static).content)
    assert "DECIDING" not in final and "DECIDING" not in shown
    assert shown.split(" · ")[0].strip() in STATUS_WORDS.values()
    assert len(log.frames) > 2


def held_demo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[EvalTuiApp, HeldClusters]:
    """The demo with its clusters held; released when the snapshot's app exits (after the
    screenshot), so its worker thread ends with it."""
    held = HeldClusters(monkeypatch)
    app = demo_app(tmp_path / "state")
    leave = app.exit

    def exit_releasing(*args, **kwargs):
        held.release()
        return leave(*args, **kwargs)

    app.exit = exit_releasing  # type: ignore[method-assign]
    return app, held


async def _deciding(pilot) -> None:
    await until(pilot, lambda: deciding_shown(pilot.app), "the deciding header")
    await settle(pilot.app, pilot, ignore=[HELD])


async def _deciding_signoff(pilot) -> None:
    await _deciding(pilot)
    await pilot.press("x")
    await settle(pilot.app, pilot, ignore=[HELD])


async def _deciding_folded(pilot) -> None:
    await _deciding(pilot)
    await pilot.press("h")
    await settle(pilot.app, pilot, ignore=[HELD])


# A parametrized snapshot test never mixes default and slow parameters: the snapshot plugin
# matches a snapshot to a test by function name, so a deselected parameter's snapshot counts as
# unused and fails the run (exit 1 after every test passed). The slow variant is its own test.
@pytest.mark.slow
@pytest.mark.parametrize(
    ("size", "run_before"),
    [
        pytest.param((80, 24), _deciding_folded, id="80x24-folded"),
        pytest.param((200, 50), _deciding, id="200x50"),
    ],
)
def test_deciding_header_snapshot(snap_compare, tmp_path, monkeypatch, size, run_before):
    """The demo while its clusters are computed: DECIDING… and what it computes first in the
    status slot (never cut at 80 columns, folded or not), the estimate without an interval,
    no verdict."""
    app, _ = held_demo(tmp_path, monkeypatch)
    assert snap_compare(app, terminal_size=size, run_before=run_before)


@pytest.mark.slow  # the full header at 80x24 too; the folded one is where 80 columns cut
def test_deciding_full_header_80x24_snapshot(snap_compare, tmp_path, monkeypatch):
    app, _ = held_demo(tmp_path, monkeypatch)
    assert snap_compare(app, terminal_size=(80, 24), run_before=_deciding)


@pytest.mark.slow
def test_deciding_signoff_snapshot(snap_compare, tmp_path, monkeypatch):
    """The sign-off dialog opened while deciding: the deciding line, the write button off."""
    monkeypatch.setenv("EVALTUI_REVIEWER", "dana")  # the machine's git user is not in a snapshot
    app, _ = held_demo(tmp_path, monkeypatch)
    assert snap_compare(app, terminal_size=(80, 24), run_before=_deciding_signoff)


@pytest.mark.parametrize(
    ("clusters", "breakdowns", "words"),
    [
        (True, False, "the clusters decide it"),
        (False, True, "the metric family decides it"),
        (True, True, "the clusters and metric family decide it"),
    ],
)
def test_the_deciding_verdict_names_what_it_waits_for_in_agreement(clusters, breakdowns, words):
    """ "the metric family decide it" was said while the family alone was pending."""
    from types import SimpleNamespace

    from evaltui.ui.widgets.header_pane import _deciding_verdict

    pending = SimpleNamespace(clusters_pending=clusters, breakdowns_pending=breakdowns)
    said = _deciding_verdict(pending).plain  # type: ignore[arg-type]
    assert said == f"verdict: not yet ({words}: being computed)"
