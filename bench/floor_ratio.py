"""Issue 28's bench: `evaltui report` against a floor that computes the same answer (not a test).

One call generates (once, under $EVALTUI_BENCH_DIR/floor, default /tmp/evaltui-bench/floor)
pairs of small-record files, ``item_id, passed`` and ``item_id, passed, score`` (the score a
graded metric in [0, 1] on a 0.001 grid, as the issue's workload), at 100k and 1M items (10M
with ``--10m``), in JSONL and Parquet, and for each workload runs

  A  ``evaltui report BASE CAND --format json`` (a fresh scan cache per run: a first open), and
  B  the floor (bench/floor_stats.py): polars reads the columns and joins them, scipy's
     ``binomtest`` on the discordant counts, plus ``ttest_rel`` when there is a score column,

alternating A B A B (three pairs by default), each in its own process, and prints the medians
of wall time, CPU time (user + system, from wait4) and peak RSS, and the ratios A / B. The
issue's targets: time and CPU <= 1.5x at 100k and 1M, 10M Parquet <= 2x time and <= 1.5x memory.

    .venv/bin/python bench/floor_ratio.py                       # 100k and 1M, both formats
    .venv/bin/python bench/floor_ratio.py --sizes 1m --formats parquet --pairs 3
    .venv/bin/python bench/floor_ratio.py --10m                 # adds 10M (about 1 GB JSONL)
    .venv/bin/python bench/floor_ratio.py --tree /tmp/old-src   # evaltui from another source
                                                                # tree (e.g. `git archive REV`)

Tests never run this; nothing here asserts on time.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

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


def evaltui_argv(tree: str | None, base: Path, cand: Path) -> list[str]:
    args = ["report", str(base), str(cand), "--format", "json"]
    if tree is None:
        return [str(ROOT / ".venv" / "bin" / "evaltui"), *args]
    code = (
        f"import sys; sys.path.insert(0, {tree!r}); from evaltui.cli.main import main; "
        "sys.exit(main(sys.argv[1:]))"
    )
    return [str(PY), "-c", code, *args]


def measure(size: str, kind: str, fmt: str, pairs: int, tree: str | None) -> dict[str, dict]:
    base, cand = paths(size, kind, fmt)
    warm((base, cand))
    floor = [str(PY), str(BENCH / "floor_stats.py"), str(base), str(cand)]
    ours: list[dict[str, float]] = []
    theirs: list[dict[str, float]] = []
    for _ in range(pairs):
        cache = tempfile.mkdtemp(prefix="floor-ratio-cache-")
        try:
            env = {**os.environ, "EVALTUI_CACHE_DIR": cache}
            ours.append(run(evaltui_argv(tree, base, cand), env))
        finally:
            shutil.rmtree(cache, ignore_errors=True)
        theirs.append(run(floor, dict(os.environ)))
    med = {
        side: {key: statistics.median(r[key] for r in runs) for key in ("wall", "cpu", "rss")}
        for side, runs in (("evaltui", ours), ("floor", theirs))
    }
    return med


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="100k,1m")
    parser.add_argument("--formats", default=",".join(FORMATS))
    parser.add_argument("--kinds", default=",".join(KINDS))
    parser.add_argument("--pairs", type=int, default=3, help="A B pairs per workload (median)")
    parser.add_argument("--10m", dest="ten", action="store_true", help="add the 10M pair")
    parser.add_argument("--tree", help="run evaltui from this source tree instead")
    parser.add_argument("--json", help="also write the medians to this file")
    args = parser.parse_args(argv)
    sizes = [s for s in args.sizes.split(",") if s] + (["10m"] if args.ten else [])
    rows = []
    print(
        f"{'workload':<22} {'evaltui wall/cpu/rss':>28} {'floor wall/cpu/rss':>28}"
        f"  {'ratio time / cpu / mem':>24}",
        flush=True,
    )
    for size in sizes:
        generate(size)
        for fmt in args.formats.split(","):
            for kind in args.kinds.split(","):
                med = measure(size, kind, fmt, args.pairs, args.tree)
                a, b = med["evaltui"], med["floor"]
                label = f"{size} {fmt} {kind}"
                print(
                    f"{label:<22} {a['wall']:7.2f}s {a['cpu']:7.2f}s {a['rss'] / 2**20:7.0f}MiB"
                    f"   {b['wall']:7.2f}s {b['cpu']:7.2f}s {b['rss'] / 2**20:7.0f}MiB"
                    f"   {a['wall'] / b['wall']:5.2f}x {a['cpu'] / b['cpu']:5.2f}x "
                    f"{a['rss'] / b['rss']:5.2f}x",
                    flush=True,
                )
                rows.append({"workload": label, **med})
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
