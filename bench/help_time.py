"""How long `evaltui ... --help` takes, this tree beside an earlier commit, in one run (no test).

The commands that read runs build their "input formats" flags from the formats; this measures
whether that stays light. The earlier commit's `evaltui/` is unpacked with `git archive` into a
temporary directory and run with the same venv (`PYTHONPATH`, from outside the repository so the
working tree is not found first); the two are interleaved, so a busy machine slows both alike.
What was imported is printed too: the heavy modules (polars, numpy, scipy, textual) each loaded.

    .venv/bin/python bench/help_time.py --rev COMMIT [--runs 5]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
COMMANDS = (["report", "--help"], ["signoff", "--help"], ["--help"], ["plan", "--help"])
HEAVY = ("polars", "numpy", "scipy", "textual")
PROBE = (
    "import sys, runpy\n"
    "sys.argv = ['evaltui', *sys.argv[1:]]\n"
    "try:\n"
    "    runpy.run_module('evaltui', run_name='__main__')\n"
    "except SystemExit:\n"
    "    pass\n"
    f"heavy = sorted({{m.split('.')[0] for m in sys.modules}} & set({HEAVY!r}))\n"
    "sys.stderr.write('HEAVY ' + ','.join(heavy) + '\\n')\n"
)


def timed(tree: Path | None, argv: list[str], cwd: Path) -> tuple[float, str]:
    env = {"PYTHONPATH": str(tree)} if tree is not None else {}
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", PROBE, *argv],
        capture_output=True,
        text=True,
        cwd=cwd,
        env={**_base_env(), **env},
        check=True,
    )
    elapsed = time.perf_counter() - start
    heavy = next(line for line in done.stderr.splitlines() if line.startswith("HEAVY"))
    return elapsed, heavy.removeprefix("HEAVY ") or "-"


def _base_env() -> dict[str, str]:
    return {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rev", required=True, help="the earlier commit to compare with")
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="evaltui-help-") as tmp:
        before = Path(tmp) / "before"
        before.mkdir()
        command = ["git", "-C", str(REPO), "archive", args.rev, "evaltui"]
        archive = subprocess.run(command, capture_output=True, check=True)
        subprocess.run(["tar", "-x", "-C", str(before)], input=archive.stdout, check=True)
        outside = Path(tmp)  # not the repository: the working tree must not shadow PYTHONPATH
        print(f"{'command':<18} {'tree':<8} {'median s':>8}  runs (s)  heavy modules imported")
        for argv in COMMANDS:
            results: dict[str, list[float]] = {args.rev: [], "this": []}
            heavy: dict[str, str] = {}
            for _ in range(args.runs):
                for label, tree in ((args.rev, before), ("this", REPO)):
                    elapsed, heavy[label] = timed(tree, argv, outside)
                    results[label].append(elapsed)
            for label, times in results.items():
                runs = " ".join(f"{t:.2f}" for t in times)
                print(
                    f"{' '.join(argv):<18} {label:<8} {statistics.median(times):>8.2f}  "
                    f"{runs}  {heavy[label]}"
                )


if __name__ == "__main__":
    main()
