"""Issue 26's Done-when for a team, in real terminals: two, then three installed `evaltui`
apps in tmux as different reviewers ($EVALTUI_REVIEWER) on one pair with one shared
`--review-dir`, tagging at the same time (the same items too: each regression is assigned to
two of them), one of the three killed with SIGKILL mid-way. Every tag a reviewer's screen
acknowledged is in the merged view (a fresh `report --format json` reading every journal) and
in a sign-off record, and nothing of the others is lost. The counts are printed (`-s`)."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from tests.ui.test_real_terminal import ROOT, _capture, _once_sized, _pane_pid, _stop, _tmux

SCRIPT = Path(sys.executable).parent / "evaltui"
BASE, CAND = ROOT / "sample_runs" / "baseline.jsonl", ROOT / "sample_runs" / "candidate.jsonl"
KEY = {"ana": ("2", "acceptable"), "ben": ("4", "flaky"), "cy": ("2", "acceptable")}
ROW = re.compile(r"(pharm-\d{4})\s")
SHOWN = ("acceptable", "flaky", "disputed")  # a row this reviewer tagged (else "—")
WIDTH, HEIGHT = 110, 32


def _start(tmux: list[str], name: str, team: Path, state: Path, reviewers: str) -> str:
    session = f"team-{name}-{uuid.uuid4().hex[:6]}"
    # COLUMNS/LINES unset: under pytest the tmux server's environment holds COLUMNS=80 and
    # LINES=24 (readline, once imported, puts them in the C environment the server copies), and
    # Textual sizes itself by them (shutil.get_terminal_size) over the pane's real 110x32.
    command = _once_sized(
        f"unset COLUMNS LINES; cd {ROOT} && EVALTUI_STATE_DIR={state / name} "
        f"EVALTUI_REVIEWER={name} TERM=xterm-256color exec {SCRIPT} {BASE} {CAND} "
        f"--review-dir {team} --reviewers {reviewers} --reviews-per-item 2",
        WIDTH,
        HEIGHT,
    )
    subprocess.run(
        [*tmux, "new-session", "-d", "-s", session, "-x", str(WIDTH), "-y", str(HEIGHT), command],
        check=True,
    )
    return session


def _until(check, what: str, timeout: float = 30.0, shown=lambda: ""):
    """A barrier: poll `check` (the screen, a file) until it holds; never a fixed sleep.
    `shown`: what to print when it never does (the screen)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = check()
        if found:
            return found
        time.sleep(0.1)
    raise AssertionError(f"never saw {what}; last screen:\n{shown()}")


def _tagged_rows(screen: str) -> dict[str, str]:
    """The rows this reviewer's screen shows as tagged by them: item id -> what the tag
    column says (their tag, or "disputed"); the id, `for`, slice and tag columns only."""
    out = {}
    for line in screen.splitlines():
        match = ROW.search(line)
        if match is None:
            continue
        columns = line[: line.find(match.group(1)) + 60]
        for word in SHOWN:
            if f" {word}" in columns:
                out[match.group(1)] = word
    return out


def _mine(screen: str) -> list[str]:
    """The item ids of the rows marked `you`, top to bottom."""
    return [m.group(1) for m in re.finditer(r"(pharm-\d{4}) you ", screen)]


def _process(tmux: list[str], session: str) -> str:
    """The app's process state, for a failure's message (stopped? waiting on what?)."""
    try:
        pid = _pane_pid(tmux, session)
        status = Path(f"/proc/{pid}/status").read_text().splitlines()[:3]
        return f"\npid {pid}: {status} wchan {Path(f'/proc/{pid}/wchan').read_text()}"
    except (OSError, subprocess.CalledProcessError, ValueError) as exc:
        return f"\n(no process: {exc})"


def _keys(tmux: list[str], session: str, *keys: str) -> None:
    subprocess.run([*tmux, "send-keys", "-t", session, *keys], check=True)


def _merged(team: Path, reviewers: str, tmp_path: Path, prefix: Path) -> tuple[dict, dict]:
    """A fresh report of the merged view, and a sign-off record made from every journal."""
    env = {**os.environ, "EVALTUI_STATE_DIR": str(tmp_path / "state-lead")}
    common = [str(BASE), str(CAND), "--review-dir", str(team)]
    report = subprocess.run(
        [str(SCRIPT), "report", *common, "--reviewers", reviewers, "--reviews-per-item", "2",
         "--format", "json"],
        capture_output=True, text=True, env=env, check=False,
    )  # fmt: skip
    assert report.returncode in (0, 1), report.stderr
    signed = subprocess.run(
        [str(SCRIPT), "signoff", *common, "--decision", "block", "--reviewer", "lead",
         "--rationale", "team round", "--output", str(prefix)],
        capture_output=True, text=True, env=env, check=False,
    )  # fmt: skip
    assert signed.returncode == 0, signed.stderr
    return json.loads(report.stdout), json.loads(prefix.with_suffix(".json").read_text())


def _check(acknowledged: dict[str, dict[str, str]], report: dict, record: dict) -> int:
    """Every acknowledged (reviewer, item, tag) in the report's merged view and the record;
    the number of reviews the merged view holds."""
    merged = {item["item_id"]: item for item in report["review"]["items"]}
    in_record = {item["item_id"]: item for item in record["items"]}
    for name, rows in acknowledged.items():
        tag = KEY[name][1]
        for item_id in rows:
            reviews = merged[item_id]["reviews"]
            assert {"reviewer": name, "tag": tag} in reviews, (name, item_id, reviews)
            entry = in_record[item_id]
            assert name in (entry["tagged_by"] or ""), (name, entry)
            assert entry["tag"] == merged[item_id]["tag"]  # None when disputed, in both
    return sum(len(item["reviews"]) for item in merged.values())


def _round(tmp_path: Path, names: tuple[str, ...], kill: str | None) -> dict[str, int]:
    tmux = _tmux()
    team, state = tmp_path / "team", tmp_path / "state"
    reviewers = ",".join(names)
    sessions = {name: _start(tmux, name, team, state, reviewers) for name in names}
    try:
        mine = {
            name: _until(lambda s=session: _mine(_capture(tmux, s)), f"{name}'s assigned rows")
            for name, session in sessions.items()
        }
        sent = dict.fromkeys(names, 0)
        acknowledged: dict[str, dict[str, str]] = {}
        steps = max(len(items) for items in mine.values())
        for step in range(steps):  # every reviewer tags their next item, all at once
            for name, session in sessions.items():
                if step < len(mine[name]):
                    _keys(tmux, session, KEY[name][0], "j")
                    sent[name] += 1
            if kill is not None and step == steps // 2:  # mid-way: what it showed, then -9
                session, most = sessions[kill], sent[kill] - 1
                acknowledged[kill] = _until(  # (all but the last key sent, at least)
                    lambda s=session, m=most: (
                        rows if len(rows := _tagged_rows(_capture(tmux, s))) >= m else None
                    ),
                    f"{kill} acknowledging {most} tags",
                )
                _keys(tmux, session, "j", KEY[kill][0])  # one more tag, maybe in flight
                os.kill(_pane_pid(tmux, session), signal.SIGKILL)
                sessions = {n: s for n, s in sessions.items() if n != kill}
        for name, session in sessions.items():  # the survivors: every one of theirs shown
            acknowledged[name] = _until(
                lambda s=session, n=name: (
                    rows if len(rows := _tagged_rows(_capture(tmux, s))) >= len(mine[n]) else None
                ),
                f"{name}'s {len(mine[name])} tags on screen",
                shown=lambda s=session: _capture(tmux, s) + _process(tmux, s),
            )
        for session in sessions.values():
            _keys(tmux, session, "q")
        report, record = _merged(team, reviewers, tmp_path, tmp_path / f"record-{len(names)}")
        reviews = _check(acknowledged, report, record)
    finally:
        _stop(tmux)
    counts = {
        "sent": sum(sent.values()) + (1 if kill else 0),
        "acknowledged": sum(len(rows) for rows in acknowledged.values()),
        "merged": reviews,
    }
    print(f"\n{len(names)} reviewers{f', {kill} killed' if kill else ''}: {counts}")
    return counts


@pytest.mark.slow  # three apps in tmux (~30-60 s)
def test_two_then_three_reviewers_tagging_at_once_lose_no_acknowledged_tag(tmp_path):
    two = _round(tmp_path / "two", ("ana", "ben"), kill=None)
    assert two["acknowledged"] == two["sent"] == two["merged"] == 18  # 9 items each, all shared
    three = _round(tmp_path / "three", ("ana", "ben", "cy"), kill="ben")
    assert three["acknowledged"] <= three["merged"] <= three["sent"]
    assert three["merged"] >= 12  # ana's 6 and cy's 6 whole, and what ben had acknowledged
