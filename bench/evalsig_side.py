"""evalsig as a third side of bench/floor_ratio.py (`--evalsig`; not a test).

evalsig (https://pypi.org/project/evalsig/, 0.1.2 when this was written, Apache-2.0) is a
published Python package for "statistical inference for LLM evaluations": paired t,
permutation and bootstrap tests, McNemar, clustered standard errors, MDE, release gating, with a
CLI (`evalsig compare`). It is the nearest published tool to evaltui's headless report, so the
bench runs it on the same pairs when asked. What it can and cannot compute of the same answer:

- pass/fail: `evalsig compare --method mcnemar`: the discordant counts and McNemar's p (exact
  binomial up to 25 discordant items, the chi-squared approximation above, where evaltui prints
  both); the difference of pass rates with an interval;
- a score column: `--method paired_t` (the paired t test, scipy's `ttest_rel`, as the floor);
  evalsig reads one metric per run file, so a pair with a score is two calls, one per metric,
  timed together as one command (`sh -c "A && B"`; wait4 counts both children);
- not: the bootstrap intervals on a lattice, Wilson intervals, the decision and its reasons,
  the lists of discordant ids, the strict checks of the input, the hashes.

evalsig reads its own RunFrame Parquet (12 columns: project_id, run_id, model_id, task_id,
metric_name, item_id, cluster_id, epoch, score, config_hash, ts, metadata_json) or harness logs
(lm-eval, Inspect, HELM), not the bench's `item_id, passed, score` files, so each pair is
converted once (untimed) into that schema under `<pair folder>/evalsig/`. Its reader builds one
Python object per row (`pyarrow` `as_py` per cell): at 10M items that takes minutes and several
GB; `--evalsig-max` (default 1M) skips it above a size.

It is installed in its own venv, `$EVALTUI_BENCH_DIR/evalsig-venv` (default
/tmp/evaltui-bench/evalsig-venv), by `pip install evalsig==VERSION` on first use: its
dependencies (pyarrow) are none of evaltui's.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import polars as pl

VERSION = "0.1.2"


def ensure_venv(root: Path) -> Path:
    """The `evalsig` console script of its own venv under `root`, installed on first use."""
    venv = root / "evalsig-venv"
    script = venv / "bin" / "evalsig"
    if script.is_file():
        return script
    print(f"installing evalsig=={VERSION} into {venv} ...", flush=True)
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    pip = [str(venv / "bin" / "pip"), "install", "-q", f"evalsig=={VERSION}"]
    subprocess.run(pip, check=True)
    return script


def convert(base: Path, cand: Path, kind: str) -> list[tuple[Path, Path, str]]:
    """The pair in evalsig's RunFrame Parquet, one pair of files per metric: [(base, cand,
    method)], written next to the pair once (`passed` as a 0/1 score; `score` as it is)."""
    folder = base.parent / "evalsig"
    folder.mkdir(exist_ok=True)
    metrics = [("passed", "mcnemar")] + ([("score", "paired_t")] if kind == "score" else [])
    out = []
    for metric, method in metrics:
        pair = []
        for arm, path in (("baseline", base), ("candidate", cand)):
            target = folder / f"{arm}-{metric}.parquet"
            if not target.is_file():
                _write_runframe(path, target, arm, metric)
            pair.append(target)
        out.append((pair[0], pair[1], method))
    return out


def _write_runframe(source: Path, target: Path, arm: str, metric: str) -> None:
    if source.suffix == ".parquet":
        frame = pl.read_parquet(source, columns=["item_id", metric])
    else:
        frame = pl.read_ndjson(source).select("item_id", metric)
    n = frame.height
    runframe = frame.select(
        pl.lit("default").alias("project_id"),
        pl.lit(arm).alias("run_id"),
        pl.lit(arm).alias("model_id"),
        pl.lit("bench").alias("task_id"),
        pl.lit(metric).alias("metric_name"),
        pl.col("item_id"),
        pl.lit(None, dtype=pl.String).alias("cluster_id"),
        pl.lit(0, dtype=pl.Int32).alias("epoch"),
        pl.col(metric).cast(pl.Float64).alias("score"),
        pl.lit("0").alias("config_hash"),
        pl.lit(0).cast(pl.Datetime("us", "UTC")).alias("ts"),
        pl.lit("{}").alias("metadata_json"),
    )
    assert runframe.height == n
    runframe.write_parquet(target)


def argv(script: Path, calls: list[tuple[Path, Path, str]]) -> list[str]:
    """One command for the pair: `evalsig compare` per metric, in one shell."""
    commands = [
        f"{script} compare --baseline {b} --candidate {c} --format parquet --method {m} "
        "--output json > /dev/null"
        for b, c, m in calls
    ]
    return ["sh", "-c", " && ".join(commands)]
