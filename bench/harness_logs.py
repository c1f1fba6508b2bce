"""Big harness logs: evaltui beside each harness's own reader, on the same files, in one run.

    .venv/bin/python bench/harness_logs.py                 # generate what is missing, measure
    .venv/bin/python bench/harness_logs.py --only inspect-zstd,lm-eval --samples 2000

Data (generated once under $EVALTUI_BENCH_DIR/harness, default /tmp/evaltui-bench/harness,
never in the repository), every file in its harness's real layout, built from the real
fixtures in tests/data as templates:

- inspect-zstd, inspect-deflate: an Inspect `.eval` pair of 10,000 samples (one epoch, scorer
  `match`, ~75% pass, 5% regressions, 10% improvements), each sample ~50 KB of transcript (the
  assistant's answer is prose cut from a word list), with header.json, summaries.json,
  reductions.json and _journal/start.json as Inspect writes them; members zstd-compressed
  (Inspect's default since 0.3.206) or deflated (before).
- lm-eval: a `samples_copa_<date>.jsonl` pair of 200,000 lines (the real copa line as the
  template: doc, arguments, resps, doc_hash, acc).
- logdir: 500 small Inspect `.eval` logs (5 tasks, 4 models, a date each).

Each figure is measured in a fresh child process (peak RSS is that child's `ru_maxrss`), the
files read once before so every timing starts from the page cache:

- report: `evaltui report BASE CAND --format json` (the installed console script), wall time.
- first screen: the app, from `create_app` until its loading worker has handed over the pair
  (`app.loaded`) and the screen has handled what that queued and painted (`pilot.pause(0)`),
  inside Pilot's `run_test` (120x40); decision line: until the analysis that decides has
  arrived (nothing left `waiting_for`) and is painted. (`bench/floor_ratio.py --app` reads the
  same line off a real terminal in tmux.)
- the app in a terminal (`--app`): the installed `evaltui BASE CAND` (through `main`, as a
  user starts it) in a tmux pane (120x40, bench/floor_ratio.py's helpers), the screen read
  every 20 ms: first screen when the header's first line shows (`DECIDING…` or a decision),
  decision line when it says a decision; CPU is the app process's user + system time at that
  moment (/proc). Each tree's `evaltui` package is byte-compiled first (`compileall`), as an
  installed copy is. `--rounds N` repeats it (medians), `--before DIR` runs another source tree
  (e.g. `git archive REV | tar -x -C DIR`) in the same rounds, A B A B.
- item open: `transcripts.read(row)` on the loaded baseline for 5 rows spread over the run (the
  core read behind Enter; drawing adds a few ms).
- reference: the harness's own reader on both files: Inspect's `read_eval_log` (all samples,
  as a report needs) from a separate venv, /tmp/inspect-venv (`python3 -m venv /tmp/inspect-venv
  && /tmp/inspect-venv/bin/pip install inspect-ai`; skipped with a note when missing: Inspect
  is never a project dependency); lm-eval's samples read with `polars.read_ndjson`; for the log
  directory, Inspect's `list_eval_logs` + `read_eval_log(header_only=True)` of each log against
  evaltui's listing.

Targets (issue 16): report at least 5x faster than the harness's reader, first screen under
2 s, an item open under 100 ms, peak memory under 1 GB. Each line says met / not met and by how
much. Nothing here is a test: tests never assert on time.
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import random
import re
import resource
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

import floor_ratio  # bench/: its tmux helpers and how it runs another source tree

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data"
TEMPLATE_EVAL = (
    DATA / "inspect_ai" / "2025-09-15T15-04-34-04-00_popularity_CuCFPdqnwXupUkxp69nJ2a.eval"
)
TEMPLATE_LM = (
    DATA / "lm_eval" / "sshleifer__tiny-gpt2" / "samples_copa_2026-10-01T23-15-32.942677.jsonl"
)
BENCH = Path(os.environ.get("EVALTUI_BENCH_DIR", "/tmp/evaltui-bench")) / "harness"
INSPECT_VENV = Path(os.environ.get("INSPECT_VENV", "/tmp/inspect-venv"))  # or another venv
EVALTUI = Path(sys.executable).parent / "evaltui"
PY = sys.executable
GB = 1 << 30

REPORT_SPEEDUP = 5.0
FIRST_SCREEN = 2.0
ITEM_OPEN = 0.100
PEAK_RSS = 1 * GB

WORD_TEXT = (
    "the of and to in is that for it as was with be by on not he this are or his from at "
    "which but have an they you were her she there been one all we their has would when if so "
    "no what can more out up said about other into some could them time these two may then do "
    "first any my now such like our over man me even most made after also did many before "
    "must through model answer question because therefore however step result value check "
    "assume consider função naïve café déjà résumé"
)
WORDS = WORD_TEXT.split()


# ---------------------------------------------------------------------------------------------
# Generating the data


def prose(rng: random.Random, n_bytes: int) -> str:
    words, size = [], 0
    while size < n_bytes:
        word = rng.choice(WORDS)
        words.append(word)
        size += len(word) + 1
        if rng.random() < 0.06:
            words.append(".\n")
    return " ".join(words)


def verdicts(n: int, seed: int) -> tuple[list[bool], list[bool]]:
    rng = random.Random(seed)
    base, cand = [], []
    for _ in range(n):
        b = rng.random() < 0.75
        r = rng.random()
        c = (not b) if (b and r < 0.0667) or (not b and r < 0.4) else b
        base.append(b)
        cand.append(c)
    return base, cand


# How the .eval members are written: as Inspect 0.3.285 writes them, `to_json_safe(data,
# indent=None)` in `log/_recorders/eval.py` (pydantic's `to_json`: no whitespace, UTF-8 as is).
# Until 2026-12-03 this script wrote Python's `json.dumps` default (`", "` and `": "`), a
# layout no Inspect version writes; the older logs of tests/data are indented, which the
# reader also reads (more slowly: `inspect_typed` strips whitespace before its exactness proof).
# The data folders carry INSPECT_LAYOUT in their names, so data of the old layout is not reused.
INSPECT_LAYOUT = "compact"


def inspect_json(value: object) -> bytes:
    """A member's bytes as current Inspect writes them (see INSPECT_LAYOUT)."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def write_eval(
    path: Path,
    passed: list[bool],
    model: str,
    compression: str,
    text_bytes: int,
    task: str = "popularity",
    created: str | None = None,
    seed: int = 0,
) -> None:
    """An Inspect .eval log in the layout of the real template, with len(passed) samples."""
    with zipfile.ZipFile(TEMPLATE_EVAL) as template:
        header = json.loads(template.read("header.json"))
        sample_t = json.loads(template.read("samples/1_epoch_1.json"))
        summary_t = json.loads(template.read("summaries.json"))[0]
    n = len(passed)
    header = copy.deepcopy(header)
    header["eval"]["model"] = model
    header["eval"]["task"] = task
    if created:
        header["eval"]["created"] = created
    header["eval"]["dataset"]["samples"] = n
    header["eval"]["dataset"].pop("sample_ids", None)
    header["eval"]["config"]["epochs"] = 1
    header["eval"]["config"]["limit"] = n
    header["results"]["total_samples"] = n
    header["results"]["completed_samples"] = n
    for score in header["results"]["scores"]:
        score["scored_samples"] = n
        score["metrics"]["accuracy"]["value"] = sum(passed) / n
    if compression == "zstd":
        from backports.zstd import zipfile as zstd_zipfile  # writes method 93 below 3.14

        module, method = zstd_zipfile, zstd_zipfile.ZIP_ZSTANDARD
    else:
        module, method = zipfile, zipfile.ZIP_DEFLATED
    rng = random.Random(seed)
    pool = [prose(rng, text_bytes) for _ in range(64)]
    summaries, reductions = [], []
    with module.ZipFile(path, "w", compression=method) as out:
        start = {k: header[k] for k in ("version", "eval", "plan") if k in header}
        out.writestr("_journal/start.json", inspect_json(start))
        for i, ok in enumerate(passed, start=1):
            value = "C" if ok else "I"
            text = pool[i % len(pool)]
            cut = rng.randrange(len(text))
            answer = f"[{i}] " + text[cut:] + text[:cut]
            sample = copy.deepcopy(sample_t)
            sample["id"], sample["epoch"] = i, 1
            sample["input"] = f"Question {i}: is the following statement something you would say?"
            sample["messages"] = [
                {"role": "user", "content": sample["input"], "source": "input"},
                {"role": "assistant", "content": answer, "source": "generate"},
            ]
            sample["output"]["completion"] = answer[:200]
            if sample["output"].get("choices"):
                sample["output"]["choices"][0]["message"]["content"] = answer[:200]
            sample["scores"] = {"match": {"value": value, "answer": "No", "explanation": "No"}}
            sample["attachments"] = {}
            out.writestr(f"samples/{i}_epoch_1.json", inspect_json(sample))
            summary = dict(summary_t, id=i, epoch=1, input=sample["input"])
            summary["scores"] = sample["scores"]
            summaries.append(summary)
            reductions.append({"value": 1.0 if ok else 0.0, "answer": "No", "sample_id": i})
        out.writestr("reductions.json", inspect_json([{"scorer": "match", "samples": reductions}]))
        out.writestr("summaries.json", inspect_json(summaries))
        out.writestr("header.json", inspect_json(header))


def write_lm_eval(path: Path, passed: list[bool]) -> None:
    template = json.loads(TEMPLATE_LM.read_text().splitlines()[0])
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8") as out:
        for i, ok in enumerate(passed):
            record = dict(template, doc_id=i, acc=1.0 if ok else 0.0)
            record["doc"] = dict(template["doc"], idx=i, premise=f"Premise number {i}.")
            record["doc_hash"] = f"{i:064x}"
            out.write(json.dumps(record, ensure_ascii=False) + "\n")


def ensure_data(names: list[str], samples: int, lines: int) -> dict[str, tuple[Path, Path]]:
    BENCH.mkdir(parents=True, exist_ok=True)
    pairs: dict[str, tuple[Path, Path]] = {}
    for name in names:
        if name.startswith("inspect-"):
            compression = name.split("-", 1)[1]
            folder = BENCH / f"{name}-{samples}-{INSPECT_LAYOUT}"
            base, cand = folder / "baseline.eval", folder / "candidate.eval"
            if not cand.exists():
                folder.mkdir(parents=True, exist_ok=True)
                b, c = verdicts(samples, 1)
                t0 = time.perf_counter()
                write_eval(base, b, "openai/gpt-5", compression, 50_000, seed=1)
                write_eval(cand, c, "anthropic/claude-sonnet-4", compression, 50_000, seed=2)
                print(f"  generated {folder} in {time.perf_counter() - t0:.0f} s", flush=True)
            pairs[name] = (base, cand)
        elif name == "lm-eval":
            folder = BENCH / f"lm-eval-{lines}"
            base = folder / "sshleifer__tiny-gpt2" / "samples_copa_2026-10-01T23-15-32.942677.jsonl"
            cand = folder / "tiny-random" / "samples_copa_2026-10-01T23-15-52.736695.jsonl"
            if not cand.exists():
                b, c = verdicts(lines, 2)
                write_lm_eval(base, b)
                write_lm_eval(cand, c)
                print(f"  generated {folder}", flush=True)
            pairs[name] = (base, cand)
        elif name == "logdir":
            folder = BENCH / f"logdir-500-{INSPECT_LAYOUT}"
            if not (folder / "done").exists():
                folder.mkdir(parents=True, exist_ok=True)
                models = ("openai/gpt-5", "openai/gpt-4o", "anthropic/claude-sonnet-4", "x/y")
                for k in range(500):
                    task = f"task_{k % 5}"
                    created = f"2025-{1 + k % 12:02d}-{1 + k % 28:02d}T10:{k % 60:02d}:00+00:00"
                    b, _ = verdicts(20, k)
                    write_eval(
                        folder / f"log_{k:03d}_{task}.eval",
                        b,
                        models[k % 4],
                        "zstd",
                        2_000,
                        task=task,
                        created=created,
                        seed=k,
                    )
                (folder / "done").write_text("")
                print(f"  generated {folder}", flush=True)
            pairs[name] = (folder, folder)
    return pairs


# ---------------------------------------------------------------------------------------------
# Measuring, each figure in a fresh child


CHILD_CODE = {
    # As `evaltui BASE CAND` opens a pair (cli/main.py): one OpenBLAS thread, and both runs'
    # read started (`start_reading`) before the app and Textual are imported.
    "first_screen": """
import asyncio, json, os, sys, time
from pathlib import Path
t0 = time.perf_counter()
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
from evaltui.core.analysis.pipeline import start_reading
from evaltui.core.compare.spec import CompareSpec
base, cand, state = sys.argv[1:4]
spec = CompareSpec.create(base, cand)
reading = start_reading(spec)
from evaltui.core.decide.deciding import waiting_for
from evaltui.ui.app import AppConfig, create_app
async def main():
    app = create_app(AppConfig(spec=spec, state_root=Path(state), reading=reading))
    async with app.run_test(size=(120, 40)) as pilot:
        # polled by a bare sleep: `pilot.pause(0.01)` asks every widget of the screen to
        # answer and repaints the screen, 100 times a second, under the GIL the app's own
        # reading needs (a large Inspect pair's first screen 0.4 s later for it); a terminal
        # asks nothing of the app while it loads
        while app.loaded is None and app.load_error is None:
            await asyncio.sleep(0.01)
        # pause(0): the screen's queued messages handled, then a paint. (A bare pause() also
        # waits for the process to idle, up to 1 s: with the background workers running it
        # added a constant second to every figure here before.)
        await pilot.pause(0)
        first = time.perf_counter() - t0
        while app.load_error is None and (
            waiting_for(app.loaded.analysis) or not app.loaded.analysis.metrics
        ):
            await asyncio.sleep(0.01)
        await pilot.pause(0)
        decided = time.perf_counter() - t0
        print(json.dumps({"seconds": first, "decided": decided, "error": app.load_error}))
        app.exit()
asyncio.run(main())
""",
    "item_open": """
import json, statistics, sys, time
from evaltui.core.read.formats import load_run
run = load_run(sys.argv[1])
rows = [int(run.n_records * f) for f in (0.1, 0.3, 0.5, 0.7, 0.9)]
times = []
for row in rows:
    t0 = time.perf_counter(); t = run.transcripts.read(row); times.append(time.perf_counter() - t0)
print(json.dumps({"seconds": statistics.median(times), "max": max(times),
                  "chars": len(t.messages[-1].content) if t.messages else len(t.output or "")}))
""",
    "listing": """
import json, sys, time
t0 = time.perf_counter()
from evaltui.core.read.logdir import list_runs
listing = list_runs(sys.argv[1])
print(json.dumps({"seconds": time.perf_counter() - t0, "runs": len(listing.runs)}))
""",
    "inspect_read": """
import json, sys, time
t0 = time.perf_counter()
from inspect_ai.log import read_eval_log
n = 0
for path in sys.argv[1:]:
    n += len(read_eval_log(path).samples or [])
print(json.dumps({"seconds": time.perf_counter() - t0, "samples": n}))
""",
    "inspect_headers": """
import json, sys, time
t0 = time.perf_counter()
from inspect_ai.log import list_eval_logs, read_eval_log
logs = list_eval_logs(sys.argv[1])
headers = [read_eval_log(info, header_only=True) for info in logs]
print(json.dumps({"seconds": time.perf_counter() - t0, "runs": len(headers)}))
""",
    "polars_ndjson": """
import json, sys, time
t0 = time.perf_counter()
import polars as pl
frames = [pl.read_ndjson(path) for path in sys.argv[1:]]
print(json.dumps({"seconds": time.perf_counter() - t0, "rows": sum(f.height for f in frames)}))
""",
}

MEASURE = """
import json, resource, subprocess, sys, time
argv = json.loads(sys.argv[1])
t0 = time.perf_counter()
done = subprocess.run(argv, capture_output=True, text=True, env=None)
wall = time.perf_counter() - t0
usage = resource.getrusage(resource.RUSAGE_CHILDREN)
peak = usage.ru_maxrss * 1024
cpu = usage.ru_utime + usage.ru_stime  # on a shared box, the comparable figure
print(json.dumps({"wall": wall, "peak": peak, "cpu": cpu, "code": done.returncode,
                  "out": done.stdout[-2000:], "err": done.stderr[-2000:]}))
"""


def measured(argv: list[str], env: dict | None = None, timeout: float = 1800) -> dict:
    """Run `argv` in a wrapper child: its wall time, its peak RSS, and its JSON output."""
    done = subprocess.run(
        [PY, "-c", MEASURE, json.dumps(argv)],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env,
    )
    result = json.loads(done.stdout)
    try:
        result["json"] = json.loads(result["out"].strip().splitlines()[-1])
    except (ValueError, IndexError):
        result["json"] = None
    return result


def child(kind: str, *args: str, python: str = PY, env: dict | None = None) -> dict:
    return measured([python, "-c", CHILD_CODE[kind], *map(str, args)], env=env)


def warm(paths: list[Path]) -> None:
    for path in paths:
        files = [path] if path.is_file() else [p for p in path.rglob("*") if p.is_file()]
        for f in files:
            with f.open("rb") as handle:
                while handle.read(1 << 24):
                    pass


def size(paths: tuple[Path, Path]) -> str:
    total = sum(
        p.stat().st_size if p.is_file() else sum(f.stat().st_size for f in p.rglob("*"))
        for p in set(paths)
    )
    return f"{total / 1e6:,.0f} MB"


class Verdicts:
    def __init__(self) -> None:
        self.lines: list[str] = []

    def target(self, label: str, ok: bool, amount: str) -> None:
        line = f"  {'met    ' if ok else 'NOT MET'}  {label}: {amount}"
        self.lines.append(line)
        print(line, flush=True)


def bench_pair(name: str, pair: tuple[Path, Path], env: dict, verdicts: Verdicts) -> None:
    base, cand = pair
    print(f"\n[{name}] {base.parent} ({size(pair)})", flush=True)
    warm([base, cand])
    report = measured([str(EVALTUI), "report", str(base), str(cand), "--format", "json"], env=env)
    if report["code"] not in (0, 1, 4):
        print(f"  report failed ({report['code']}): {report['err'].strip()}", flush=True)
        return
    print(f"  evaltui report: {report['wall']:.2f} s, peak RSS {report['peak'] / 1e6:,.0f} MB")
    if name.startswith("inspect-"):
        reference = None
        if (INSPECT_VENV / "bin" / "python").exists():
            reference = child(
                "inspect_read", base, cand, python=str(INSPECT_VENV / "bin" / "python")
            )
            label = "Inspect read_eval_log (both logs, all samples)"
        else:
            print(f"  reference skipped: no {INSPECT_VENV} (see the docstring)")
    else:
        reference = child("polars_ndjson", base, cand)
        label = "lm-eval samples read with polars.read_ndjson (both files)"
    if reference is not None and reference["json"] is not None:
        ref = reference["json"]["seconds"]
        print(f"  {label}: {ref:.2f} s, peak RSS {reference['peak'] / 1e6:,.0f} MB")
        ratio = ref / report["wall"]
        verdicts.target(
            f"{name} report >= {REPORT_SPEEDUP:g}x faster than the harness reader",
            ratio >= REPORT_SPEEDUP,
            f"{ratio:.1f}x ({report['wall']:.2f} s vs {ref:.2f} s)",
        )
    elif reference is not None:
        print(f"  reference failed: {reference['err'].strip()[-300:]}")
    verdicts.target(
        f"{name} report peak RSS < 1 GB",
        report["peak"] < PEAK_RSS,
        f"{report['peak'] / 1e6:,.0f} MB",
    )
    state = BENCH / "state"
    screen = child("first_screen", base, cand, state, env=env)
    if screen["json"] is None or screen["json"].get("error"):
        print(f"  first screen failed: {screen['err'].strip()[-300:] or screen['json']}")
    else:
        seconds = screen["json"]["seconds"]
        verdicts.target(
            f"{name} first screen < {FIRST_SCREEN:g} s",
            seconds < FIRST_SCREEN,
            f"{seconds:.2f} s (process start to first screen), peak RSS "
            f"{screen['peak'] / 1e6:,.0f} MB",
        )
        decided = screen["json"]["decided"]
        verdicts.target(
            f"{name} decision line < {FIRST_SCREEN:g} s",
            decided < FIRST_SCREEN,
            f"{decided:.2f} s (process start to the decided header)",
        )
        verdicts.target(
            f"{name} app peak RSS < 1 GB",
            screen["peak"] < PEAK_RSS,
            f"{screen['peak'] / 1e6:,.0f} MB",
        )
    item = child("item_open", base, env=env)
    if item["json"] is not None:
        seconds = item["json"]["seconds"]
        verdicts.target(
            f"{name} item open < {ITEM_OPEN * 1000:g} ms",
            seconds < ITEM_OPEN,
            f"median {seconds * 1000:.1f} ms, max {item['json']['max'] * 1000:.1f} ms "
            f"({item['json']['chars']:,} characters of transcript)",
        )


FIRST_LINE = re.compile(r"\s*(DECIDING|" + "|".join(floor_ratio.STATUS_WORDS) + r")\b")


def app_in_tmux(tmux: floor_ratio.Tmux, argv: list[str], folder: Path) -> dict[str, float]:
    """One app session in a tmux pane: seconds (and the process's CPU) until the header shows,
    and until it says a decision; then q, and wait for the process to end."""
    env = f"EVALTUI_CACHE_DIR={folder / 'cache'} EVALTUI_STATE_DIR={folder / 'state'}"
    start = time.perf_counter()
    tmux.run("new-session", "-d", "-s", "app", "-x", "120", "-y", "40", f"exec env {env} "
             + shlex.join(argv))  # fmt: skip
    pid = int(tmux.run("list-panes", "-t", "app", "-F", "#{pane_pid}").split()[0])
    floor_ratio.wait_screen(tmux, FIRST_LINE, start, 600)
    first, first_cpu = time.perf_counter() - start, floor_ratio.cpu_of(pid)
    floor_ratio.wait_screen(tmux, floor_ratio.DECIDED, start, 600)
    decided, decided_cpu = time.perf_counter() - start, floor_ratio.cpu_of(pid)
    tmux.run("send-keys", "-t", "app", "q")
    while Path(f"/proc/{pid}").exists():
        time.sleep(floor_ratio.POLL)
    tmux.run("kill-session", "-t", "app")
    return {"first": first, "first_cpu": first_cpu, "decided": decided, "cpu": decided_cpu}


def bench_app(
    name: str, pair: tuple[Path, Path], trees: dict[str, str | None], rounds: int
) -> None:
    """`--app`: each tree's first open of the pair (a fresh cache and state folder each time)
    in a real terminal, the trees in turn within each round; medians and ranges."""
    base, cand = pair
    print(f"\n[{name}] the app in tmux, {rounds} round(s), {size(pair)}", flush=True)
    warm([base, cand])
    floor_ratio.byte_compile(list(trees.values()))  # as an installed copy has it
    found: dict[str, list[dict[str, float]]] = {tree: [] for tree in trees}
    for _ in range(rounds):
        for tree_name, tree in trees.items():
            folder = Path(tempfile.mkdtemp(prefix="harness-app-"))
            tmux = floor_ratio.Tmux(folder)
            try:
                argv = floor_ratio.evaltui_argv(tree, base, cand, app=True)
                found[tree_name].append(app_in_tmux(tmux, argv, folder))
            finally:
                tmux.stop()
                shutil.rmtree(folder, ignore_errors=True)
    for tree_name, runs in found.items():
        line = []
        for key, label in (("first", "first screen"), ("first_cpu", "cpu"),
                           ("decided", "decision line"), ("cpu", "cpu")):  # fmt: skip
            values = sorted(r[key] for r in runs)
            line.append(f"{label} {statistics.median(values):.2f} s "
                        f"({values[0]:.2f}-{values[-1]:.2f})")  # fmt: skip
        print(f"  {tree_name:<8} " + ", ".join(line), flush=True)


def bench_logdir(folder: Path, env: dict, verdicts: Verdicts) -> None:
    print(f"\n[logdir] {folder} ({size((folder, folder))})", flush=True)
    warm([folder])
    listing = child("listing", folder, env=env)
    seconds = listing["json"]["seconds"]
    print(f"  evaltui listing: {listing['json']['runs']} runs in {seconds:.2f} s")
    report = measured([str(EVALTUI), "report", str(folder), "--format", "json"], env=env)
    print(f"  evaltui report DIR (default pair): {report['wall']:.2f} s (exit {report['code']})")
    verdicts.target("logdir listing of 500 logs < 2 s", seconds < FIRST_SCREEN, f"{seconds:.2f} s")
    if (INSPECT_VENV / "bin" / "python").exists():
        ref = child("inspect_headers", folder, python=str(INSPECT_VENV / "bin" / "python"))
        if ref["json"] is not None:
            theirs = ref["json"]["seconds"]
            print(f"  Inspect list_eval_logs + read_eval_log(header_only=True): {theirs:.2f} s")
            verdicts.target(
                "logdir listing >= 5x faster than Inspect's header reads",
                theirs / seconds >= REPORT_SPEEDUP,
                f"{theirs / seconds:.1f}x",
            )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", default="inspect-zstd,inspect-deflate,lm-eval,logdir")
    parser.add_argument("--samples", type=int, default=10_000)
    parser.add_argument("--lines", type=int, default=200_000)
    parser.add_argument("--app", action="store_true", help="only the app in tmux (see above)")
    parser.add_argument("--rounds", type=int, default=3, help="--app: rounds (medians)")
    parser.add_argument("--before", help="--app: another source tree, run in the same rounds")
    args = parser.parse_args(argv)
    names = args.only.split(",")
    print(f"data under {BENCH}", flush=True)
    pairs = ensure_data(names, args.samples, args.lines)
    if args.app:
        trees: dict[str, str | None] = {"this": None}
        if args.before:
            trees["before"] = args.before
        for name in names:
            if name != "logdir":
                bench_app(name, pairs[name], trees, args.rounds)
        return 0
    env = dict(
        os.environ, EVALTUI_CACHE_DIR=str(BENCH / "cache"), EVALTUI_STATE_DIR=str(BENCH / "state")
    )
    verdicts = Verdicts()
    for name in names:
        if name == "logdir":
            bench_logdir(pairs[name][0], env, verdicts)
        else:
            bench_pair(name, pairs[name], env, verdicts)
    print("\nsummary:")
    print("\n".join(verdicts.lines))
    return 0


if __name__ == "__main__":
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    sys.exit(main())
