"""Issue 28's bench: `evaltui report` against a floor that computes the same answer (not a test).

One call generates (once, under $EVALTUI_BENCH_DIR/floor, default /tmp/evaltui-bench/floor)
pairs of small-record files, ``item_id, passed`` and ``item_id, passed, score`` (the score a
graded metric in [0, 1] on a 0.001 grid, as the issue's workload), at 100k and 1M items (10M
with ``--10m``), in JSONL and Parquet, and for each workload runs

  A  ``evaltui report BASE CAND --format json`` (a fresh scan cache per run: a first open), and
  B  the floor (bench/floor_stats.py): polars reads the columns and joins them, scipy's
     ``binomtest`` on the discordant counts, plus ``ttest_rel`` when there is a score column,

alternating A B A B (three pairs by default), each in its own process (each evaltui tree
byte-compiled first, as an installed copy is), and prints the medians
of wall time, CPU time (user + system, from wait4) and peak RSS, and the ratios A / B. The
issue's targets: time and CPU <= 1.5x at 100k and 1M, 10M Parquet <= 2x time and <= 1.5x memory.

    .venv/bin/python bench/floor_ratio.py                       # 100k and 1M, both formats
    .venv/bin/python bench/floor_ratio.py --sizes 1m --formats parquet --pairs 3
    .venv/bin/python bench/floor_ratio.py --10m                 # adds 10M (about 1 GB JSONL)
    .venv/bin/python bench/floor_ratio.py --tree /tmp/old-src   # evaltui from another source
                                                                # tree (e.g. `git archive REV`)
    .venv/bin/python bench/floor_ratio.py --evalsig             # and evalsig, a third side

With ``--evalsig`` the published evalsig package (bench/evalsig_side.py: what it is and what it
computes of the same answer) is installed in its own venv on first use and run third in each
round, A B C A B C, its ratios printed after the floor's (evaltui / evalsig). ``--ids N|all``
passes evaltui's bound on its lists of ids (default its own, 10,000).

With ``--app`` it measures the app instead (the issue's items 3 and 4): the installed
``evaltui BASE CAND`` started in a tmux pane (120x40, its own state folder), the screen read
every 20 ms until the header's first line says a decision (a status word, no ``DECIDING…``),
against the floor's whole headless run, in turn, A B A' per round: A a first open (an empty scan
cache), B the floor, A' the same pair reopened (the scan cache and the review session A left).
After each decision line it presses Enter and times the item screen's first transcript line.
CPU is the app process's user + system time when the decision line was read (/proc).

    .venv/bin/python bench/floor_ratio.py --app --sizes 1m --formats jsonl
    .venv/bin/python bench/floor_ratio.py --app --sizes 1m --formats jsonl --before /tmp/old-src
    .venv/bin/python bench/floor_ratio.py --app --sizes 1m --formats jsonl --before /tmp/old-src \
        --reopens 8                     # reopens only, the two trees alternated reopen by reopen

Tests never run this; nothing here asserts on time.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import evalsig_side
import numpy as np
import polars as pl

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
PY = ROOT / ".venv" / "bin" / "python"
DATA = Path(os.environ.get("EVALTUI_BENCH_DIR", "/tmp/evaltui-bench")) / "floor"
SIZES = {"100k": 100_000, "1m": 1_000_000, "10m": 10_000_000}
FORMATS = ("jsonl", "parquet")
KINDS = ("pass", "score")  # pass/fail only; pass/fail and a score column


def paths(size: str, kind: str, fmt: str) -> tuple[Path, Path]:
    folder = DATA / size / kind
    return folder / f"baseline.{fmt}", folder / f"candidate.{fmt}"


def generate(size: str) -> None:
    """Deterministic id/passed/score pairs; written once, reused by later calls."""
    if all(p.is_file() for k in KINDS for f in FORMATS for p in paths(size, k, f)):
        return
    n = SIZES[size]
    print(f"generating {size} under {DATA / size} ...", flush=True)
    rng = np.random.default_rng(28)
    a = np.round(np.clip(rng.beta(5, 2, n), 0, 1), 3)
    b = np.round(np.clip(a + rng.normal(0.004, 0.2, n), 0, 1), 3)
    ids = pl.Series("item_id", np.arange(n)).cast(pl.String).str.zfill(8)
    ids = "item-" + ids
    for kind in KINDS:
        for arm, score in (("baseline", a), ("candidate", b)):
            frame = pl.DataFrame({"item_id": ids, "passed": score >= 0.6})
            if kind == "score":
                frame = frame.with_columns(pl.Series("score", score))
            folder = DATA / size / kind
            folder.mkdir(parents=True, exist_ok=True)
            frame.write_ndjson(folder / f"{arm}.jsonl")
            frame.write_parquet(folder / f"{arm}.parquet")


def warm(files: tuple[Path, ...]) -> None:
    """Read the files once so every timed run starts from the page cache."""
    for path in files:
        with path.open("rb") as handle:
            while handle.read(64 << 20):
                pass


def run(argv: list[str], env: dict[str, str]) -> dict[str, float]:
    """Wall time, CPU time and peak RSS of one child process (wait4's rusage)."""
    start = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    code = os.waitstatus_to_exitcode(status)
    err = proc.stderr.read().decode(errors="replace") if proc.stderr else ""
    proc.returncode = code
    if code not in (0, 1):  # evaltui exits 1 on a regression: still a report
        raise RuntimeError(f"{argv[:4]} exited {code}: {err[-2000:]}")
    return {"wall": wall, "cpu": usage.ru_utime + usage.ru_stime, "rss": usage.ru_maxrss * 1024}


def byte_compile(trees: list[str | None]) -> None:
    """Write each tree's `evaltui` bytecode before timing it, as an installed copy has it: this
    machine sets PYTHONDONTWRITEBYTECODE=1, so otherwise every run compiles evaltui's sources
    again (~1 s of a first screen's GIL) and the figures are not what a user gets."""
    for tree in trees:
        package = Path(tree or ROOT) / "evaltui"
        subprocess.run([PY, "-m", "compileall", "-q", str(package)], check=True)


def evaltui_argv(
    tree: str | None, base: Path, cand: Path, ids: str | None = None, app: bool = False
) -> list[str]:
    args = [str(base), str(cand)] if app else ["report", str(base), str(cand), "--format", "json"]
    args += ["--ids", ids] if ids is not None and not app else []
    if tree is None:
        return [str(ROOT / ".venv" / "bin" / "evaltui"), *args]
    code = (
        f"import sys; sys.path.insert(0, {tree!r}); from evaltui.cli.main import main; "
        "sys.exit(main(sys.argv[1:]))"
    )
    return [str(PY), "-c", code, *args]


def measure(
    size: str,
    kind: str,
    fmt: str,
    pairs: int,
    tree: str | None,
    evalsig: list[str] | None = None,
    ids: str | None = None,
) -> dict[str, dict]:
    """Medians per side, the commands run in turn: evaltui, the floor (and evalsig)."""
    base, cand = paths(size, kind, fmt)
    warm((base, cand))
    floor = [str(PY), str(BENCH / "floor_stats.py"), str(base), str(cand)]
    ours: list[dict[str, float]] = []
    theirs: list[dict[str, float]] = []
    others: list[dict[str, float]] = []
    for _ in range(pairs):
        cache = tempfile.mkdtemp(prefix="floor-ratio-cache-")
        try:
            env = {**os.environ, "EVALTUI_CACHE_DIR": cache}
            ours.append(run(evaltui_argv(tree, base, cand, ids), env))
        finally:
            shutil.rmtree(cache, ignore_errors=True)
        theirs.append(run(floor, dict(os.environ)))
        if evalsig is not None:
            others.append(run(evalsig, dict(os.environ)))
    sides = [("evaltui", ours), ("floor", theirs)] + ([("evalsig", others)] if others else [])
    return {
        side: {key: statistics.median(r[key] for r in runs) for key in ("wall", "cpu", "rss")}
        for side, runs in sides
    }


# -- the app in tmux (--app) -----------------------------------------------------------------

STATUS_WORDS = ("READY TO APPROVE", "NEEDS REVIEW", "BLOCKED", "NOT ENOUGH DATA", "NOT COMPARABLE")
DECIDED = re.compile(r"\s*(" + "|".join(STATUS_WORDS) + r")\b")  # never "DECIDING…"
ITEM_OPEN = re.compile(r"\s*(Regression|Improvement) 1/")
POLL = 0.02  # seconds between two reads of the screen
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


class Tmux:
    """A private tmux server (its own socket) whose panes run the installed app."""

    def __init__(self, folder: Path) -> None:
        tmux = shutil.which("tmux")
        if tmux is None:
            sys.exit("floor_ratio --app: tmux is not installed")
        self.base = [tmux, "-S", str(folder / "tmux.sock")]

    def run(self, *args: str) -> str:
        done = subprocess.run([*self.base, *args], capture_output=True, text=True, check=False)
        return done.stdout

    def screen(self) -> str:
        return self.run("capture-pane", "-p", "-t", "app")

    def stop(self) -> None:
        self.run("kill-server")


def cpu_of(pid: int) -> float:
    """User + system seconds of a live process, all its threads (/proc/PID/stat)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS


def wait_screen(tmux: Tmux, pattern: re.Pattern[str], start: float, timeout: float) -> str:
    """The screen once its first line matches `pattern` (the app's first line is the header's
    decision line, or an item screen's title)."""
    while time.perf_counter() - start < timeout:
        screen = tmux.screen()
        if pattern.match(screen):
            return screen
        if not tmux.run("list-sessions", "-F", "#{session_name}").split():
            raise RuntimeError("the app ended before the screen showed it")
        time.sleep(POLL)
    raise RuntimeError(f"no {pattern.pattern!r} after {timeout:.0f} s:\n{tmux.screen()}")


def app_run(tmux: Tmux, argv: list[str], cache: Path, state: Path) -> dict[str, float]:
    """One app session: time and CPU until the decision line, then an item's first screen."""
    env = f"EVALTUI_CACHE_DIR={cache} EVALTUI_STATE_DIR={state}"
    command = f"exec env {env} {shlex.join(argv)}"
    start = time.perf_counter()
    tmux.run("new-session", "-d", "-s", "app", "-x", "120", "-y", "40", command)
    pid = int(tmux.run("list-panes", "-t", "app", "-F", "#{pane_pid}").split()[0])
    wait_screen(tmux, DECIDED, start, 600)
    decided = time.perf_counter() - start
    cpu = cpu_of(pid)
    pressed = time.perf_counter()
    tmux.run("send-keys", "-t", "app", "Enter")
    wait_screen(tmux, ITEM_OPEN, pressed, 60)
    item = time.perf_counter() - pressed
    tmux.run("send-keys", "-t", "app", "Escape")  # (q on the item screen reopens it next time)
    wait_screen(tmux, DECIDED, time.perf_counter(), 60)
    tmux.run("send-keys", "-t", "app", "q")
    while Path(f"/proc/{pid}").exists():  # the next run takes the review's lock
        time.sleep(POLL)
    tmux.run("kill-session", "-t", "app")
    return {"wall": decided, "cpu": cpu, "item": item}


def measure_app(
    size: str, kind: str, fmt: str, pairs: int, trees: dict[str, str | None]
) -> dict[str, dict]:
    """Per round: each tree's first open, the floor, each tree's reopen (A B A' in turn; with
    `--before`, both trees' in each round, so before and after share the machine's load)."""
    base, cand = paths(size, kind, fmt)
    warm((base, cand))
    floor = [str(PY), str(BENCH / "floor_stats.py"), str(base), str(cand)]
    runs: dict[str, list[dict[str, float]]] = {"floor": []}
    for name in trees:
        runs[f"{name} first"], runs[f"{name} reopen"] = [], []
    for _ in range(pairs):
        folder = Path(tempfile.mkdtemp(prefix="floor-ratio-app-"))
        tmux = Tmux(folder)
        try:
            apps = {name: evaltui_argv(tree, base, cand, app=True) for name, tree in trees.items()}
            for name, app in apps.items():
                cache, state = folder / name / "cache", folder / name / "state"
                runs[f"{name} first"].append(app_run(tmux, app, cache, state))
            runs["floor"].append(run(floor, dict(os.environ)))
            for name, app in apps.items():
                cache, state = folder / name / "cache", folder / name / "state"
                runs[f"{name} reopen"].append(app_run(tmux, app, cache, state))
        finally:
            tmux.stop()
            shutil.rmtree(folder, ignore_errors=True)
    return {
        side: {key: statistics.median(r[key] for r in found) for key in found[0]}
        for side, found in runs.items()
    }


def reopens_only(size: str, kind: str, fmt: str, count: int, trees: dict[str, str | None]) -> None:
    """`--reopens N`: each tree's first open once, then N reopens of each, the trees
    alternated one reopen at a time (the order swapped every round), so before and after share
    the machine's load reopen by reopen; prints each tree's wall median, range and how many
    were under 1 s, and its CPU median and range."""
    base, cand = paths(size, kind, fmt)
    warm((base, cand))
    folder = Path(tempfile.mkdtemp(prefix="floor-ratio-reopens-"))
    tmux = Tmux(folder)
    found: dict[str, list[dict[str, float]]] = {name: [] for name in trees}
    try:
        apps = {name: evaltui_argv(tree, base, cand, app=True) for name, tree in trees.items()}
        where = {name: (folder / name / "cache", folder / name / "state") for name in trees}
        for name, app in apps.items():
            app_run(tmux, app, *where[name])  # (the first open: keeps the entries)
        for round_ in range(count):
            for name in list(apps)[:: 1 if round_ % 2 == 0 else -1]:
                found[name].append(app_run(tmux, apps[name], *where[name]))
    finally:
        tmux.stop()
        shutil.rmtree(folder, ignore_errors=True)
    for name, runs in found.items():
        wall, cpu = [r["wall"] for r in runs], [r["cpu"] for r in runs]
        label = f"{size} {fmt} {kind} ({name})"
        print(
            f"{label:<30} reopened {statistics.median(wall):6.3f}s ({min(wall):.2f}-"
            f"{max(wall):.2f}), {sum(w < 1 for w in wall)} of {len(wall)} under 1 s;"
            f" cpu {statistics.median(cpu):6.3f}s ({min(cpu):.2f}-{max(cpu):.2f})",
            flush=True,
        )


def main_app(args: argparse.Namespace, sizes: list[str]) -> int:
    print(
        f"{'workload':<30} {'decision line: first open':>26} {'reopened':>18} "
        f"{'floor wall/cpu':>16}  {'first/floor time, cpu':>22}  {'item open first/reopen':>22}",
        flush=True,
    )
    trees: dict[str, str | None] = {"this": args.tree}
    if args.before:
        trees["before"] = args.before
    byte_compile(list(trees.values()))
    if args.reopens:
        for size in sizes:
            generate(size)
            for fmt in args.formats.split(","):
                for kind in args.kinds.split(","):
                    reopens_only(size, kind, fmt, args.reopens, trees)
        return 0
    rows = []
    for size in sizes:
        generate(size)
        for fmt in args.formats.split(","):
            for kind in args.kinds.split(","):
                med = measure_app(size, kind, fmt, args.pairs, trees)
                b = med["floor"]
                for name in trees:
                    a, r = med[f"{name} first"], med[f"{name} reopen"]
                    label = f"{size} {fmt} {kind} ({name})"
                    print(
                        f"{label:<30} {a['wall']:11.2f}s {a['cpu']:7.2f}s cpu"
                        f" {r['wall']:6.2f}s {r['cpu']:5.2f}s cpu"
                        f" {b['wall']:7.2f}s {b['cpu']:6.2f}s"
                        f"   {a['wall'] / b['wall']:8.2f}x {a['cpu'] / b['cpu']:6.2f}x"
                        f"   {a['item'] * 1000:8.0f} ms {r['item'] * 1000:6.0f} ms",
                        flush=True,
                    )
                rows.append({"workload": f"{size} {fmt} {kind}", **med})
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1))
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="100k,1m")
    parser.add_argument("--formats", default=",".join(FORMATS))
    parser.add_argument("--kinds", default=",".join(KINDS))
    parser.add_argument("--pairs", type=int, default=3, help="A B pairs per workload (median)")
    parser.add_argument("--10m", dest="ten", action="store_true", help="add the 10M pair")
    parser.add_argument("--tree", help="run evaltui from this source tree instead")
    parser.add_argument("--json", help="also write the medians to this file")
    parser.add_argument(
        "--evalsig",
        action="store_true",
        help="also run evalsig (PyPI; installed in its own venv on first use: "
        "bench/evalsig_side.py says what it computes of the same answer)",
    )
    parser.add_argument(
        "--evalsig-max", default="1m", help="largest size evalsig runs at (its reader is slow)"
    )
    parser.add_argument("--ids", help="evaltui's --ids (default: its own, 10,000)")
    parser.add_argument("--app", action="store_true", help="the app's decision line (tmux)")
    parser.add_argument("--before", help="--app: also this source tree, in the same rounds")
    parser.add_argument(
        "--reopens",
        type=int,
        default=0,
        help="--app: only reopens, N of each tree, alternated one at a time",
    )
    args = parser.parse_args(argv)
    sizes = [s for s in args.sizes.split(",") if s] + (["10m"] if args.ten else [])
    if args.app:
        return main_app(args, sizes)
    script = evalsig_side.ensure_venv(DATA.parent) if args.evalsig else None
    byte_compile([args.tree])
    rows = []
    print(
        f"{'workload':<22} {'evaltui wall/cpu/rss':>28} {'floor wall/cpu/rss':>28}"
        f"  {'ratio time / cpu / mem':>24}"
        + (f"  {'evalsig wall/cpu/rss':>28}  {'evaltui/evalsig':>22}" if script else ""),
        flush=True,
    )
    for size in sizes:
        generate(size)
        for fmt in args.formats.split(","):
            for kind in args.kinds.split(","):
                other = None
                if script is not None and SIZES[size] <= SIZES[args.evalsig_max]:
                    calls = evalsig_side.convert(*paths(size, kind, fmt), kind)
                    other = evalsig_side.argv(script, calls)
                med = measure(size, kind, fmt, args.pairs, args.tree, other, args.ids)
                a, b = med["evaltui"], med["floor"]
                label = f"{size} {fmt} {kind}"
                line = f"{label:<22} {_side(a)}   {_side(b)}   {_ratios(a, b)}"
                if other is not None:
                    c = med["evalsig"]
                    line += f"   {_side(c)}   {_ratios(a, c)}"
                print(line, flush=True)
                rows.append({"workload": label, **med})
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1))
    return 0


def _side(m: dict[str, float]) -> str:
    return f"{m['wall']:7.2f}s {m['cpu']:7.2f}s {m['rss'] / 2**20:7.0f}MiB"


def _ratios(a: dict[str, float], b: dict[str, float]) -> str:
    return f"{a['wall'] / b['wall']:5.2f}x {a['cpu'] / b['cpu']:5.2f}x {a['rss'] / b['rss']:5.2f}x"


if __name__ == "__main__":
    sys.exit(main())
