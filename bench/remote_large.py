"""The largest logs, local and over a loopback S3 endpoint, against Inspect's own reader.

    .venv/bin/python bench/remote_large.py [--samples 200000] [--text-bytes 4500] [--before TREE]

Issue 27, item 5: a 200,000-sample Inspect `.eval` pair of about 1 GB (zstd members, written
as Inspect 0.3.285 writes them by `harness_logs.write_eval` into
$EVALTUI_BENCH_DIR/large-compact, default /tmp/evaltui-bench/large-compact, once) opens on
its first screen in under 3 s and within 1 GB locally, within 2x that over a
local S3 endpoint, items open in under 200 ms. Every figure comes from a fresh child process
(wall time and peak RSS of that child), in the same run. The times come from runs that nobody
watches and the peaks from runs of their own (the rows ending "memory"): reading a process's
PSS (`/proc/PID/smaps_rollup`) walks its page tables in the kernel under its memory-map lock,
12 ms a read for the app and its child at this size, and every 20 ms that took 1.4 s of a core
from a 3.7 s first screen and made it 0.5-0.7 s later than the same run unwatched (3.65-4.14 s
against 3.13-3.73 s, alternating, on 2026-12-05):

- evaltui, local: the app's first screen (Pilot, from `create_app` to `app.loaded`); the
  command itself in a pseudo-terminal (`python -m evaltui BASE CAND`, 120x40), from before the
  interpreter starts to the decision drawn (`TERMINAL_SCREEN`: what a reviewer waits for);
  and `transcripts.read(row)` for 5 rows spread over the run (median, max);
- evaltui, S3: the same on `s3://` URLs of the same files in moto's S3 server on the loopback
  (started here, in this process, so its memory is not the child's), without the cache (a cold
  open: `EVALTUI_NO_CACHE=1`), and the bytes and requests the open cost; with `--s3rver PATH`
  from s3rver (npm, bench only: `npm install s3rver`), whose ranged GET reads only the range
  (moto's reads the whole object for each, about 0.4 s at this size);
- Inspect (inspect_ai from a separate venv, never a project dependency: /work/benchenv/
  inspect-venv or $INSPECT_PYTHON): `read_eval_log(header_only=True)` and
  `read_eval_log_sample_summaries` (what its viewer reads to list the samples), locally and over
  the same S3 endpoint (s3fs installed in that venv), and the full `read_eval_log` locally
  (all 200,000 samples; stopped after --inspect-timeout seconds).

`--before TREE` measures the first screens of that source tree too (and its open, pair and
statistics without the UI, whose `own_cpu` is the app process's own; a `git archive` of main,
put first on PYTHONPATH; every child starts outside the repository, where `python -c` would
otherwise import this checkout), alternating with this checkout's, twice each. The peak is the
sum of the PSS of the measured process and its children (sampled every 20 ms): a pair of large
Inspect logs is read by two processes at once (`inspect_elsewhere`), and `ru_maxrss` would show
only the larger. CPU seconds include the children.

`--reader-runs N` (with `--before`) opens the baseline log alone (`load_run`, no UI, the hash
deferred as the app defers it) N times in each tree, alternating, and prints each open's CPU
seconds and peak: the reader's own cost, steadier on a shared box than a first screen's; and
the same log read by a second process (`inspect_elsewhere.load_elsewhere`, as the app reads a
large pair's candidate): the caller's own CPU (the child started, its answer unpacked) and, in
the row's cpu, the child's.

Nothing here is a test; it prints a table and the raw JSON.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from floor_ratio import byte_compile  # noqa: E402
from harness_logs import CHILD_CODE, INSPECT_LAYOUT, PY, verdicts, warm, write_eval  # noqa: E402

BENCH = Path(os.environ.get("EVALTUI_BENCH_DIR", "/tmp/evaltui-bench")) / f"large-{INSPECT_LAYOUT}"
INSPECT = os.environ.get("INSPECT_PYTHON", "/work/benchenv/inspect-venv/bin/python")

REMOTE_OPEN = """
import json, sys, time
t0 = time.perf_counter()
from evaltui.core.read.remote.blob import TRAFFIC
from evaltui.core.analysis.pipeline import compare
from evaltui.core.compare.spec import CompareSpec
spec = CompareSpec.create(sys.argv[1], sys.argv[2])
analysis = compare(spec, defer_hash_check=True, complete=False)
requests, received = TRAFFIC.snapshot()
print(json.dumps({"seconds": time.perf_counter() - t0, "own_cpu": time.process_time(),
                  "n": analysis.n_paired
                  if hasattr(analysis, "n_paired") else None,
                  "requests": requests, "bytes": received}))
"""

# The app's first screen, as harness_logs measures it, but leaving at once once measured: the
# app's background reads (list previews: one sample per discordant row) would otherwise be
# waited for on exit, hours at moto's second per ranged request.
# `own_cpu`: this process's CPU seconds (all its threads, not the second process reading a
# large Inspect candidate): what bounds the wall time when a second core is free.
FIRST_SCREEN = (
    CHILD_CODE["first_screen"]
    .replace("        app.exit()", "        sys.stdout.flush(); import os; os._exit(0)")
    .replace(
        'print(json.dumps({"seconds": first,',
        'print(json.dumps({"own_cpu": time.process_time(), "seconds": first,',
    )
)

# The command itself in a terminal: `python -m evaltui BASE CAND` in a pseudo-terminal of
# 120x40 (a fresh review state, no cache), from before the interpreter starts to the list drawn
# ("untriaged" in what it writes) and to the decision drawn (a status or verdict word in a
# write that holds no "DECIDING"): what a reviewer waits for, the interpreter's start, the
# command line and the terminal's own output included, which the Pilot figure leaves out.
# Nothing answers the terminal's queries (Textual does not wait for answers).
TERMINAL_SCREEN = """
import fcntl, json, os, pty, select, shutil, signal, struct, sys, tempfile, termios, time
# a decided first line's status and verdict words, the measured tree's own (while deciding
# its status says DECIDING); imported before the clock starts
from evaltui.core.decide.vocabulary import STATUS_WORDS
from evaltui.ui.widgets.header_pane import VERDICT_WORDS
DECIDED = [word.encode() for word in (*STATUS_WORDS.values(), *VERDICT_WORDS.values())]
argv = [sys.executable, "-m", "evaltui", *sys.argv[1:]]
state = tempfile.mkdtemp()
os.environ["EVALTUI_STATE_DIR"] = state
t0 = time.perf_counter()
pid, fd = pty.fork()
if pid == 0:
    fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
    os.execv(argv[0], argv)
seen, first, decided = b"", None, None
while decided is None and time.perf_counter() - t0 < 120:
    if not select.select([fd], [], [], 0.5)[0]:
        continue
    try:
        chunk = os.read(fd, 1 << 16)
    except OSError:
        break
    if not chunk:
        break
    seen = seen[-8192:] + chunk
    now = time.perf_counter() - t0
    if first is None and b"untriaged" in seen:
        first = now
    if first is not None and b"DECIDING" not in chunk and any(w in chunk for w in DECIDED):
        decided = now
os.kill(pid, signal.SIGKILL)
os.waitpid(pid, 0)
shutil.rmtree(state, ignore_errors=True)  # (the review journal the open started)
print(json.dumps({"seconds": decided, "first": first}))
"""

# One log's open, no UI, the sha256 deferred as the app defers it: the reader's own CPU.
READER_OPEN = """
import json, sys, time
from evaltui.core.read.formats import load_run
from evaltui.core.read.formats.contract import LoadOptions
c0 = time.process_time()
run = load_run(sys.argv[1], options=LoadOptions(defer_hash_check=True), wait_for_hash=False)
print(json.dumps({"seconds": time.process_time() - c0, "rows": run.table.height}))
"""

# The same log read by a second process (`inspect_elsewhere`, as the app reads a large pair's
# candidate): "seconds" is this process's own CPU (starting the child, waiting, unpacking its
# answer: what the app's own critical path pays), the row's cpu the child's too.
ELSEWHERE_OPEN = """
import json, sys, time
from evaltui.core.read.formats.inspect_elsewhere import load_elsewhere
from evaltui.core.read.formats.contract import LoadOptions
c0 = time.process_time()
run = load_elsewhere(sys.argv[1], None, LoadOptions(defer_hash_check=True), wait_for_hash=False)
print(json.dumps({"seconds": time.process_time() - c0, "rows": run.table.height}))
"""

INSPECT_CODE = {
    "headers": """
import json, sys, time
t0 = time.perf_counter()
from inspect_ai.log import read_eval_log
for path in sys.argv[1:]:
    read_eval_log(path, header_only=True)
print(json.dumps({"seconds": time.perf_counter() - t0}))
""",
    "summaries": """
import json, sys, time
t0 = time.perf_counter()
from inspect_ai.log import read_eval_log, read_eval_log_sample_summaries
n = 0
for path in sys.argv[1:]:
    read_eval_log(path, header_only=True)
    n += len(read_eval_log_sample_summaries(path))
print(json.dumps({"seconds": time.perf_counter() - t0, "samples": n}))
""",
    "full": CHILD_CODE["inspect_read"],
    "sample": """
import json, statistics, sys, time
from inspect_ai.log import read_eval_log_sample
path = sys.argv[1]
times = []
for i in (20000, 60000, 100000, 140000, 180000):
    t0 = time.perf_counter(); read_eval_log_sample(path, id=i, epoch=1)
    times.append(time.perf_counter() - t0)
print(json.dumps({"seconds": statistics.median(times), "max": max(times)}))
""",
}


def ensure_pair(samples: int, text_bytes: int) -> tuple[Path, Path]:
    BENCH.mkdir(parents=True, exist_ok=True)
    base, cand = BENCH / "baseline.eval", BENCH / "candidate.eval"
    b, c = verdicts(samples, 7)
    for path, passed, model, seed in ((base, b, "model-a", 1), (cand, c, "model-b", 2)):
        if not path.exists():
            partial = path.with_suffix(".partial")
            write_eval(partial, passed, model, "zstd", text_bytes, seed=seed)
            partial.rename(path)
    return base, cand


def start_s3(
    paths: tuple[Path, Path], s3rver: str | None = None, folder: Path | None = None
) -> tuple[object, dict[str, str]]:
    import boto3

    key = "bench"
    server: Any
    if s3rver is not None and folder is not None:
        server, key = S3rver(s3rver, folder), "S3RVER"  # s3rver's fixed credentials
    else:
        from moto.server import ThreadedMotoServer

        server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
        server.start()
    host, port = server.get_host_and_port()
    env = {
        "AWS_ENDPOINT_URL": f"http://{host}:{port}",
        "AWS_ACCESS_KEY_ID": key,
        "AWS_SECRET_ACCESS_KEY": key,
        "AWS_DEFAULT_REGION": "us-east-1",
        "AWS_EC2_METADATA_DISABLED": "true",
    }
    client = boto3.client("s3", endpoint_url=env["AWS_ENDPOINT_URL"], region_name="us-east-1",
                          aws_access_key_id=key, aws_secret_access_key=key)  # fmt: skip
    client.create_bucket(Bucket="bench")
    for path in paths:
        client.upload_file(str(path), "bench", f"large/{path.name}")
    return server, env


class S3rver:
    """s3rver (npm, never a project dependency: `npm install s3rver` anywhere, then
    `--s3rver PATH/node_modules/.bin/s3rver`) on the loopback, serving a folder it owns. Unlike
    moto's server, it answers a ranged GET by reading only that range of the object."""

    def __init__(self, executable: str, folder: Path) -> None:
        import socket
        import subprocess

        with socket.socket() as probe:  # a free port for it
            probe.bind(("127.0.0.1", 0))
            self.port = probe.getsockname()[1]
        self.process = subprocess.Popen(
            [executable, "--directory", str(folder), "--address", "127.0.0.1",
             "--port", str(self.port), "--silent"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                return
            except OSError:
                time.sleep(0.2)
        raise RuntimeError("s3rver did not start")

    def get_host_and_port(self) -> tuple[str, int]:
        return "127.0.0.1", self.port

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(timeout=10)


# `harness_logs.measured`, but the peak is the sum over the child and its own children of their
# proportional set size (sampled every 20 ms; at least `ru_maxrss`): a pair read by two
# processes (`inspect_elsewhere`) holds both at once, which `ru_maxrss` (the largest one
# process reached) would hide.
MEASURE_TREE = """
import json, os, resource, subprocess, sys, time
argv, watch = json.loads(sys.argv[1]), sys.argv[2] == "memory"
def tree(pid):
    found = [pid]
    for task in os.listdir(f"/proc/{pid}/task"):
        try:
            kids = open(f"/proc/{pid}/task/{task}/children").read().split()
        except OSError:
            continue
        for kid in kids:
            found += tree(int(kid))
    return found
def rss(pid):  # proportional: a page two processes share counts once over both (a vfork
    try:      # child, before its exec, would otherwise count its parent's memory twice)
        for line in open(f"/proc/{pid}/smaps_rollup"):
            if line.startswith("Pss:"):
                return int(line.split()[1]) * 1024
    except (OSError, IndexError, ValueError):
        pass
    return 0
t0 = time.perf_counter()
child = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
peak = 0
import threading
out = {}
reader = threading.Thread(target=lambda: out.update(zip(("out", "err"), child.communicate())))
reader.start()
while watch and child.poll() is None:
    try:
        peak = max(peak, sum(rss(p) for p in tree(child.pid)))
    except OSError:
        pass
    time.sleep(0.02)
reader.join()
wall = time.perf_counter() - t0
usage = resource.getrusage(resource.RUSAGE_CHILDREN)
peak = max(peak, usage.ru_maxrss * 1024) if watch else None
cpu = usage.ru_utime + usage.ru_stime
print(json.dumps({"wall": wall, "peak": peak, "cpu": cpu, "code": child.returncode,
                  "out": out.get("out", "")[-2000:], "err": out.get("err", "")[-2000:]}))
"""


def measured_tree(argv: list[str], env: dict | None, timeout: float, memory: bool) -> dict:
    """The run's wall time, CPU and output; with `memory`, its peak too (sampled: see the
    module for why such a run's time is not the figure)."""
    import subprocess

    # from outside the repository: `python -c` puts the working directory first on sys.path,
    # where this checkout would shadow the --before tree on PYTHONPATH
    watch = "memory" if memory else "time"
    done = subprocess.run([PY, "-c", MEASURE_TREE, json.dumps(argv), watch], capture_output=True,
                          text=True, timeout=timeout, env=env,
                          cwd=tempfile.gettempdir())  # fmt: skip
    result = json.loads(done.stdout)
    try:
        result["json"] = json.loads(result["out"].strip().splitlines()[-1])
    except (ValueError, IndexError):
        result["json"] = None
    return result


def run(
    label: str, argv: list[str], env: dict | None, timeout: float = 1800, memory: bool = False
) -> dict:
    """One measured run, printed; `memory`: its peak sampled (and \"memory\" in its label)."""
    label = f"{label}, memory" if memory else label
    try:
        result = measured_tree(argv, env=env, timeout=timeout, memory=memory)
    except Exception as exc:  # noqa: BLE001 - a timeout is a figure too
        result = {"wall": None, "peak": None, "json": None, "err": str(exc)}
    figures = result.get("json") or {}
    peak = result.get("peak")
    print(
        f"{label:58s} {figures.get('seconds', float('nan')):8.2f} s"
        f"  max {figures.get('max', float('nan')):6.3f} s"
        f"  peak {peak / 1e9 if peak else float('nan'):5.2f} GB"
        f"  cpu {result.get('cpu') or float('nan'):6.1f} s"
        f"  {json.dumps({k: v for k, v in figures.items() if k not in ('seconds', 'max')})}",
        flush=True,
    )
    if result.get("code"):
        print("   error:", (result.get("err") or "")[-300:].replace("\n", " "), flush=True)
    return {"label": label, **result}


def trees(env: dict, before: str | None) -> list[tuple[str, dict]]:
    """(label, environment) of this checkout and, with --before, of that source tree
    (`PYTHONPATH`), measured one after the other in the same run."""
    here = [("evaltui", dict(env, PYTHONPATH=str(Path(__file__).resolve().parents[1])))]
    return here if before is None else [("before", dict(env, PYTHONPATH=before)), *here]


def local_figures(
    base: Path,
    cand: Path,
    state: str,
    env: dict,
    has_inspect: bool,
    before: str | None = None,
    repeat: int = 2,
) -> list:
    screen = [PY, "-c", FIRST_SCREEN, str(base), str(cand), state]
    results = [
        run(f"{label} local: first screen (app)", screen, tree_env)
        for _ in range(repeat) for label, tree_env in trees(env, before)
    ] + [  # fmt: skip
        # the peak, from runs of their own (the sampling slows a run: see the module)
        run(f"{label} local: first screen (app)", screen, tree_env, memory=True)
        for label, tree_env in trees(env, before)
    ] + [  # fmt: skip
        run(f"{label} local: the command in a terminal, to the decision",
            [PY, "-c", TERMINAL_SCREEN, str(base), str(cand)], tree_env)
        for _ in range(repeat) for label, tree_env in trees(env, before)
    ] + [  # fmt: skip
        # the first screen without the UI: steadier, and `own_cpu` the app process's own
        run(f"{label} local: open, pair, statistics (no UI)",
            [PY, "-c", REMOTE_OPEN, str(base), str(cand)], tree_env)
        for _ in range(repeat) for label, tree_env in trees(env, before)
    ] + [  # fmt: skip
        run("evaltui local: item open (5 rows)",
            [PY, "-c", CHILD_CODE["item_open"], str(base)], env),
    ]  # fmt: skip
    if has_inspect:
        both = [str(base), str(cand)]
        results += [
            run("inspect local: headers", [INSPECT, "-c", INSPECT_CODE["headers"], *both], None),
            run("inspect local: headers + sample summaries",
                [INSPECT, "-c", INSPECT_CODE["summaries"], *both], None),
            run("inspect local: headers + sample summaries",
                [INSPECT, "-c", INSPECT_CODE["summaries"], *both], None, memory=True),
            run("inspect local: read_eval_log_sample (5 rows)",
                [INSPECT, "-c", INSPECT_CODE["sample"], str(base)], None),
        ]  # fmt: skip
    return results


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--samples", type=int, default=200_000)
    parser.add_argument("--text-bytes", type=int, default=4500)
    parser.add_argument("--inspect-timeout", type=float, default=900)
    parser.add_argument("--skip-full", action="store_true", help="no full read_eval_log")
    parser.add_argument("--skip-local", action="store_true", help="the S3 figures only")
    parser.add_argument(
        "--reader-runs",
        type=int,
        default=0,
        metavar="N",
        help="also one log's open (no UI) N times per tree, alternating (CPU seconds)",
    )
    parser.add_argument("--skip-s3", action="store_true", help="the local figures only")
    parser.add_argument(
        "--s3rver",
        metavar="PATH",
        help="serve the S3 figures from s3rver (npm) at PATH instead of moto's server",
    )
    parser.add_argument(
        "--before",
        metavar="TREE",
        help="also the first screens of this source tree (a `git archive` of main, on "
        "PYTHONPATH), in the same run",
    )
    parser.add_argument(
        "--repeat",
        type=int,
        default=2,
        metavar="N",
        help="each local first screen and open N times per tree, alternating (S3: N // 2)",
    )
    args = parser.parse_args()
    # each tree's bytecode written first, as an installed copy has it (`byte_compile`)
    byte_compile([None] if args.before is None else [None, args.before])
    base, cand = ensure_pair(args.samples, args.text_bytes)
    size = (base.stat().st_size + cand.stat().st_size) / 1e9
    print(f"pair: {args.samples} samples each, {size:.2f} GB in all ({base.parent})", flush=True)
    warm([base, cand])
    env = dict(os.environ, EVALTUI_NO_CACHE="1")
    results = []
    with tempfile.TemporaryDirectory() as state:
        has_inspect = Path(INSPECT).exists()
        for _ in range(args.reader_runs):
            for label, tree_env in trees(env, args.before):
                results.append(run(f"{label} local: one log's open, CPU (no UI)",
                                   [PY, "-c", READER_OPEN, str(base)], tree_env,
                                   memory=True))  # fmt: skip
                results.append(run(f"{label} local: the same by a second process, own CPU",
                                   [PY, "-c", ELSEWHERE_OPEN, str(base)], tree_env,
                                   memory=True))  # fmt: skip
        if not args.skip_local:
            results += local_figures(base, cand, state, env, has_inspect, args.before, args.repeat)
        if args.skip_s3:
            print_medians(results)
            print(json.dumps(results, default=str)[:20000])
            return 0
        which = "s3rver" if args.s3rver else "moto's S3 server"
        print(f"starting {which} and uploading the pair...", flush=True)
        t0 = time.perf_counter()
        server, s3env = start_s3((base, cand), args.s3rver, Path(state) / "s3rver")
        print(f"  uploaded in {time.perf_counter() - t0:.1f} s", flush=True)
        urls = [f"s3://bench/large/{p.name}" for p in (base, cand)]
        renv = dict(env, **s3env)
        screen = [PY, "-c", FIRST_SCREEN, *urls, state]
        for _ in range(args.repeat // 2 or 1):
            for label, tree_env in trees(renv, args.before):
                results.append(run(f"{label} s3: first screen (app)", screen, tree_env))
        for label, tree_env in trees(renv, args.before):  # the peak, from runs of their own
            results.append(run(f"{label} s3: first screen (app)", screen, tree_env, memory=True))
        for _ in range(args.repeat // 2 or 1):
            for label, tree_env in trees(renv, args.before):
                results.append(run(f"{label} s3: the command in a terminal, to the decision",
                                   [PY, "-c", TERMINAL_SCREEN, *urls], tree_env))  # fmt: skip
        results.append(run("evaltui s3: open, pair, statistics (requests, bytes)",
                           [PY, "-c", REMOTE_OPEN, *urls], renv))  # fmt: skip
        results.append(run("evaltui s3: item open (5 rows)",
                           [PY, "-c", CHILD_CODE["item_open"], urls[0]], renv))  # fmt: skip
        if has_inspect:
            ienv = dict(os.environ, **s3env)
            both = [INSPECT, "-c", INSPECT_CODE["summaries"], *urls]
            results.append(run("inspect s3: headers + sample summaries", both, ienv))
            results.append(run("inspect s3: headers + sample summaries", both, ienv, memory=True))
            one = [INSPECT, "-c", INSPECT_CODE["sample"], urls[0]]
            results.append(run("inspect s3: read_eval_log_sample (5 rows)", one, ienv))
        server.stop()  # type: ignore[attr-defined]
        if has_inspect and not args.skip_full:
            results.append(run("inspect local: read_eval_log, all samples (both)",
                               [INSPECT, "-c", INSPECT_CODE["full"], str(base), str(cand)], None,
                               timeout=args.inspect_timeout, memory=True))  # fmt: skip
    print_medians(results)
    print(json.dumps(results, default=str)[:20000])
    return 0


def print_medians(results: list[dict]) -> None:
    """Each row label's median seconds over its runs (a first screen on a shared 2-core box
    varies by a tenth either way between runs)."""
    by_label: dict[str, list[float]] = {}
    for result in results:
        seconds = (result.get("json") or {}).get("seconds")
        if seconds is not None:
            by_label.setdefault(result["label"], []).append(seconds)
    for label, values in by_label.items():
        if len(values) > 1:
            print(f"median {label:51s} {statistics.median(values):8.2f} s  of {len(values)}")


if __name__ == "__main__":
    raise SystemExit(main())
