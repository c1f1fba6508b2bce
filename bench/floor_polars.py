"""The floor for bench/scale.py: the least any tool must do to pair two runs (not a test).

polars reads item_id and passed from both files (JSONL: ``pl.read_ndjson`` with a two-column
schema, so no other key is materialised; Parquet: ``pl.read_parquet(columns=...)``) and joins
them on item_id; the 2x2 counts are a negligible extra. No hashing, no line index, no checks,
no statistics. Run with the product's venv:

    .venv/bin/python bench/floor_polars.py BASE CAND
"""

from __future__ import annotations

import json
import sys

import polars as pl

SCHEMA = {"item_id": pl.String, "passed": pl.Boolean}


def read(path: str) -> pl.DataFrame:
    if path.endswith(".parquet"):
        return pl.read_parquet(path, columns=list(SCHEMA))
    return pl.read_ndjson(path, schema=SCHEMA)


def main(base_path: str, cand_path: str) -> None:
    joined = read(base_path).join(read(cand_path), on="item_id", suffix="_c")
    counts = joined.group_by("passed", "passed_c").len()
    print(json.dumps({"n": joined.height, "cells": counts.height}))


if __name__ == "__main__":
    main(*sys.argv[1:3])
