"""Issue 26, item 4, in a real terminal: the INSTALLED `evaltui` opened as the adjudicator on a
shared `--review-dir` where two reviewers' journals disagree on one regression. The first line
says `1 disputed`; `C` on the item opens the dialog; the tag chosen, the reason typed and Ctrl+S
pressed, the first line no longer says disputed and the adjudicator's own journal holds the
adjudication line. Every wait is a barrier on the screen or the file, never a fixed sleep."""

from __future__ import annotations

import json
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from evaltui.core.record.journal import ReviewSession
from tests.ui.test_real_terminal import ROOT, _capture, _once_sized, _stop, _tmux
from tests.ui.test_team_terminal import _keys, _until

SCRIPT = Path(sys.executable).parent / "evaltui"
BASE, CAND = ROOT / "sample_runs" / "baseline.jsonl", ROOT / "sample_runs" / "candidate.jsonl"
WIDTH, HEIGHT = 110, 32


def _ben_and_cy_disagree(tmp_path: Path, team: Path) -> tuple[str, Path]:
    """ben and cy's journals in the shared folder, disagreeing on the demo pair's first
    regression (the row the app's cursor starts on): its id, and the pair's journals folder."""
    from evaltui.core.analysis.pipeline import compare
    from evaltui.core.compare.spec import CompareSpec
    from evaltui.core.read.runs import sha256_of

    first = compare(CompareSpec(BASE, CAND), complete=False).regressions[0]
    for who, tag in (("ben", "acceptable"), ("cy", "confirmed regression")):
        session = ReviewSession.open(
            BASE, CAND, sha256_of(BASE), sha256_of(CAND), root=tmp_path / f"state-{who}",
            review_dir=team, reviewer=who,
        )  # fmt: skip
        session.set_tag(first, tag)
        session.close()
    return first, session.path.parent


def _first_line(screen: str) -> str:
    """The decision's first line: the screen's first line that is not blank."""
    return next((line for line in screen.splitlines() if line.strip()), "")


def _adjudications(journal: Path) -> list[dict]:
    if not journal.exists():
        return []
    lines = [json.loads(x) for x in journal.read_text().splitlines() if x.strip()]
    return [x for x in lines if x.get("kind") == "adjudication"]


@pytest.mark.slow  # the installed app in tmux (~10 s)
def test_the_adjudicator_settles_a_dispute_in_the_installed_app(tmp_path):
    team = tmp_path / "team"
    first, journals = _ben_and_cy_disagree(tmp_path, team)
    tmux = _tmux()
    session = f"adjudicate-{uuid.uuid4().hex[:6]}"
    # COLUMNS/LINES unset, as tests/ui/test_team_terminal.py explains (Textual would size itself
    # by pytest's 80x24 rather than the pane's).
    command = _once_sized(
        f"unset COLUMNS LINES; cd {ROOT} && EVALTUI_STATE_DIR={tmp_path / 'state-ana'} "
        f"EVALTUI_REVIEWER=ana TERM=xterm-256color exec {SCRIPT} {BASE} {CAND} "
        f"--review-dir {team} --adjudicator ana",
        WIDTH,
        HEIGHT,
    )
    subprocess.run(
        [*tmux, "new-session", "-d", "-s", session, "-x", str(WIDTH), "-y", str(HEIGHT), command],
        check=True,
    )
    screen = lambda: _capture(tmux, session)  # noqa: E731
    journal = journals / "ana.jsonl"  # the adjudicator's own journal, beside ben's and cy's
    try:
        _until(lambda: f"{first}" in screen(), "the regressions list", shown=screen)
        _until(lambda: "1 disputed" in _first_line(screen()), "`1 disputed`", shown=screen)
        _keys(tmux, session, "C")
        _until(lambda: "ben: acceptable" in screen(), "the adjudicate dialog", shown=screen)
        assert "cy: confirmed regression" in screen()
        _keys(tmux, session, "Enter")  # the first tag offered: confirmed regression
        _until(lambda: "▐●▌ confirmed regression" in screen(), "the tag chosen", shown=screen)
        _keys(tmux, session, "Tab")
        subprocess.run(
            [*tmux, "send-keys", "-t", session, "-l", "cy read the transcript"], check=True
        )
        _until(lambda: "cy read the transcript" in screen(), "the reason typed", shown=screen)
        _keys(tmux, session, "C-s")
        _until(lambda: _adjudications(journal), "the adjudication in ana's journal", shown=screen)
        _until(
            lambda: "ben: acceptable" not in screen() and "disputed" not in _first_line(screen()),
            "the first line without `disputed`",
            shown=screen,
        )
        _keys(tmux, session, "q")
    finally:
        _stop(tmux)
    (entry,) = _adjudications(journal)
    assert entry["item_id"] == first and entry["tag"] == "confirmed regression"
    assert entry["by"] == "ana" and entry["reason"] == "cy read the transcript"
