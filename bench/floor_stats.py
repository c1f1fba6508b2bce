"""The floor of bench/floor_ratio.py: the least any tool must do for the same answer (not a test).

polars reads item_id, passed (and score when the files have one) from both files and joins
them on item_id; scipy's exact binomial test on the discordant counts (McNemar's exact test),
and the paired t test (``ttest_rel``) of the scores. No hashing, no checks, no report.

    .venv/bin/python bench/floor_stats.py BASE CAND
"""

from __future__ import annotations

import json
import sys

import polars as pl
from scipy import stats


def read(path: str) -> pl.DataFrame:
    if path.endswith(".parquet"):
        names = pl.read_parquet_schema(path)
        wanted = [c for c in ("item_id", "passed", "score") if c in names]
        return pl.read_parquet(path, columns=wanted)
    with open(path, encoding="utf-8") as handle:
        first = json.loads(handle.readline())
    schema = {"item_id": pl.String, "passed": pl.Boolean}
    if "score" in first:
        schema["score"] = pl.Float64
    return pl.read_ndjson(path, schema=schema)


def main(base_path: str, cand_path: str) -> None:
    joined = read(base_path).join(read(cand_path), on="item_id", suffix="_c")
    a, b = joined["passed"], joined["passed_c"]
    regressions = int((a & ~b).sum())
    improvements = int((~a & b).sum())
    out = {"n": joined.height, "b": regressions, "c": improvements}
    if regressions + improvements:
        out["mcnemar_p"] = stats.binomtest(improvements, regressions + improvements).pvalue
    if "score" in joined.columns:
        t = stats.ttest_rel(joined["score_c"].to_numpy(), joined["score"].to_numpy())
        out["t_p"] = float(t.pvalue)
    print(json.dumps(out))


if __name__ == "__main__":
    main(*sys.argv[1:3])
