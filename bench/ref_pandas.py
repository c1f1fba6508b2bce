"""Reference for bench/scale.py: the same job with pandas + statsmodels (not a test).

Reads item_id and passed from both runs, merges on item_id, cross-tabulates the verdicts and runs
the exact McNemar test with ``statsmodels.stats.contingency_tables.mcnemar(exact=True)``. An
errored record's null verdict counts as a failure, as in evaltui's default. JSONL is read with
``pd.read_json(lines=True, chunksize=...)`` keeping only the two columns per chunk (reading a
multi-gigabyte file in one call needs several times its size in memory); Parquet with
``pd.read_parquet(columns=...)``.

Runs in its own venv (pandas, statsmodels, pyarrow), never in the product's:

    /tmp/evaltui-bench/refvenv/bin/python bench/ref_pandas.py BASE CAND
"""

from __future__ import annotations

import json
import sys

import pandas as pd
from statsmodels.stats.contingency_tables import mcnemar

COLUMNS = ["item_id", "passed"]
CHUNK = 100_000


def read(path: str) -> pd.DataFrame:
    if path.endswith(".parquet"):
        df = pd.read_parquet(path, columns=COLUMNS)
    else:
        reader = pd.read_json(path, lines=True, chunksize=CHUNK, dtype={"item_id": str})
        df = pd.concat([chunk[COLUMNS] for chunk in reader], ignore_index=True)
    df["passed"] = df["passed"].eq(True)  # null (errored) counts as a failure
    return df


def main(base_path: str, cand_path: str) -> None:
    merged = read(base_path).merge(read(cand_path), on="item_id", suffixes=("_b", "_c"))
    table = pd.crosstab(merged["passed_b"], merged["passed_c"]).reindex(
        index=[True, False], columns=[True, False], fill_value=0
    )
    result = mcnemar(table.to_numpy(), exact=True)
    print(
        json.dumps(
            {
                "n": int(len(merged)),
                "table": table.to_numpy().ravel().tolist(),  # pp, pf (regr.), fp (impr.), ff
                "exact_p": float(result.pvalue),
            }
        )
    )


if __name__ == "__main__":
    main(*sys.argv[1:3])
