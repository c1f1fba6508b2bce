"""What the Parquet page check costs on a sound file: seconds per million rows.

The check reads the footer and each page header of the columns it is given (see
evaltui/core/read/formats/parquet.py); it must stay a small part of opening a file. This was a
time assertion in tests/cli/test_exit_codes.py (under 5 s at 200,000 rows); timings belong here.

    .venv/bin/python bench/page_check.py [--rows 200000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import polars as pl

from evaltui.core.read.formats.parquet import check_pages

COLUMNS = {"item_id", "passed", "output", "messages"}


def sound_file(path: Path, n: int) -> Path:
    pl.DataFrame(
        {"item_id": [f"q{i}" for i in range(n)], "passed": [i % 3 == 0 for i in range(n)],
         "output": ["some text " * (i % 7) for i in range(n)],
         "messages": [[{"role": "user", "content": "hi"}]] * n}
    ).write_parquet(path, row_group_size=max(1, n // 10), data_page_size=4096)  # fmt: skip
    return path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=200_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        path = sound_file(Path(folder) / "sound.parquet", args.rows)
        size = path.stat().st_size
        best = float("inf")
        for _ in range(args.repeat):
            started = time.perf_counter()
            check_pages(path, COLUMNS)
            best = min(best, time.perf_counter() - started)
    print(
        f"{args.rows:,} rows, {size / 1e6:.1f} MB: page check {best:.3f} s (best of "
        f"{args.repeat}), {best / args.rows * 1e6:.2f} s per million rows (target: under 5 s "
        "at 200,000 rows)"
    )


if __name__ == "__main__":
    main()
