"""Kill rounds: the installed app in tmux, tagged as fast as keys go and SIGKILLed at a random
moment, round after round on the same pair (not CI: 200 rounds take several minutes).

Each round opens the demo pair with `--fresh` (so each round's journal counts only its own
tags), sends random tag keys and `j`, waits a random time, reads the screen, kills the app with
SIGKILL and checks what is left:

- acknowledged: tags the screen showed as triaged ("Triage: N of 9") when the kill came;
- lost: of those, how many the journal does not hold (must be 0);
- torn: rounds whose journal ended in an unfinished line (the kill came mid-write; the line is
  reported and ignored on the next open, never applied, never swallowing another);
- damaged: journal lines other than an unfinished last one that do not parse (must be 0);
- refused: opens (the next round's app) or sign-offs (right after every fifth kill) turned away
  because the killed app still held the pair (must be 0).

    .venv/bin/python bench/kill_rounds.py                 # 200 rounds
    .venv/bin/python bench/kill_rounds.py --rounds 20 --seed 7
"""

from __future__ import annotations

import argparse
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from evaltui.core.decide.notices import JOURNAL_DAMAGED  # noqa: E402
from evaltui.core.record.journal import ReviewSession  # noqa: E402

SCRIPT = Path(sys.executable).parent / "evaltui"  # run with this checkout's code (PYTHONPATH)
BASE, CAND = ROOT / "sample_runs" / "baseline.jsonl", ROOT / "sample_runs" / "candidate.jsonl"
TRIAGE = re.compile(r"Triage: (\d+) of 9")


class Tmux:
    """One tmux server for every round, kept up by an idle session; panes stay on exit so a
    refusal can be read."""

    def __init__(self) -> None:
        tmux = shutil.which("tmux")
        if tmux is None:
            sys.exit("kill_rounds: tmux is not installed")
        self.socket = Path(tempfile.gettempdir()) / f"evaltui-kill-{uuid.uuid4().hex[:8]}"
        self.base = [tmux, "-S", str(self.socket)]
        self.run("new-session", "-d", "-s", "keepalive", "sleep 100000")
        self.run("set-option", "-g", "remain-on-exit", "on")

    def run(self, *args: str) -> str:
        done = subprocess.run([*self.base, *args], capture_output=True, text=True, check=False)
        return done.stdout

    def screen(self, target: str) -> str:
        return self.run("capture-pane", "-p", "-t", target)

    def pane(self, target: str, field: str) -> str:
        return self.run("display-message", "-p", "-t", target, "#{" + field + "}").strip()

    def stop(self) -> None:
        self.run("kill-server")
        self.socket.unlink(missing_ok=True)


def wait_for(tmux: Tmux, target: str, needle: str, timeout: float = 30.0) -> str:
    """The screen once it shows `needle`, or once the app has ended (a refusal)."""
    deadline = time.monotonic() + timeout
    screen = ""
    while time.monotonic() < deadline:
        screen = tmux.screen(target)
        if needle in screen or tmux.pane(target, "pane_dead") == "1":
            return screen
        time.sleep(0.05)
    return screen


def journal_state(state: Path, regressions: list[str]) -> tuple[int, bool, int]:
    """(tagged regressions, last line unfinished, damaged lines before the last)."""
    session = ReviewSession.open(BASE, CAND, "", "", root=state, read_only=True)
    raw = session.path.read_bytes()
    torn = bool(raw) and not raw.endswith(b"\n")
    damaged = sum(
        1 for n in session.notices if n.kind == JOURNAL_DAMAGED and "unfinished" not in n.text
    )
    return session.triaged_count(regressions), torn, damaged


def signoff(state: Path, out: Path) -> bool:
    """A sign-off right after the kill; False when it was refused for the lock."""
    env = {**os.environ, "EVALTUI_STATE_DIR": str(state), "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [str(SCRIPT), "signoff", str(BASE), str(CAND), "--decision", "block", "--reviewer",
         "bench", "--rationale", "kill round", "--output", str(out)],
        capture_output=True, text=True, env=env, check=False,
    )  # fmt: skip
    if done.returncode != 0 and "another evaltui" not in done.stderr:
        sys.exit(f"kill_rounds: sign-off failed for another reason: {done.stderr.strip()}")
    return done.returncode == 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=200)
    parser.add_argument("--seed", type=int, default=20261201)
    parser.add_argument("--max-wait", type=float, default=0.8, help="longest wait before a kill")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    work = Path(tempfile.mkdtemp(prefix="evaltui-kill-rounds-"))
    state = work / "state"
    from evaltui.core.analysis.pipeline import compare_files

    regressions = list(compare_files(BASE, CAND).regressions)
    tmux = Tmux()
    counts = dict(acknowledged=0, lost=0, torn=0, damaged=0, refused=0, signoffs=0, opened=0)
    started = time.monotonic()
    try:
        for round_no in range(args.rounds):
            target = f"round{round_no}"
            command = (
                f"cd {ROOT} && PYTHONPATH={ROOT} EVALTUI_STATE_DIR={state} "
                f"exec {SCRIPT} --fresh {BASE} {CAND}"
            )
            tmux.run("new-session", "-d", "-s", target, "-x", "100", "-y", "30", command)
            screen = wait_for(tmux, target, "Triage: 0 of 9")
            if "Triage: 0 of 9" not in screen:
                if "another evaltui" in screen:
                    counts["refused"] += 1
                    tmux.run("kill-session", "-t", target)
                    continue
                sys.exit(f"kill_rounds: round {round_no} never opened:\n{screen}")
            counts["opened"] += 1
            pid = int(tmux.pane(target, "pane_pid"))
            keys: list[str] = []
            for _ in range(rng.randint(1, 9)):
                keys += [str(rng.randint(1, 5)), "j"]
            tmux.run("send-keys", "-t", target, *keys)
            time.sleep(rng.uniform(0.0, args.max_wait))
            screen = tmux.screen(target)
            os.kill(pid, signal.SIGKILL)
            shown = TRIAGE.search(screen)
            acknowledged = int(shown.group(1)) if shown else 0
            saved, torn, damaged = journal_state(state, regressions)
            counts["acknowledged"] += acknowledged
            counts["lost"] += max(0, acknowledged - saved)
            counts["torn"] += torn
            counts["damaged"] += damaged
            if round_no % 5 == 4:
                counts["signoffs"] += 1
                counts["refused"] += not signoff(state, work / f"so{round_no}")
            tmux.run("kill-session", "-t", target)
            if (round_no + 1) % 20 == 0:
                print(f"  {round_no + 1} rounds: {counts}", flush=True)
    finally:
        tmux.stop()
    print(
        f"{args.rounds} rounds ({counts['opened']} opened, {counts['signoffs']} sign-offs, "
        f"{time.monotonic() - started:.0f} s): acknowledged {counts['acknowledged']}, "
        f"lost {counts['lost']}, torn {counts['torn']}, damaged {counts['damaged']}, "
        f"refused {counts['refused']}"
    )
    shutil.rmtree(work, ignore_errors=True)
    return 1 if counts["lost"] or counts["damaged"] or counts["refused"] else 0


if __name__ == "__main__":
    sys.exit(main())
