"""A run file whose name holds glob characters ([ ] * ?) is read as that file, in every native
format: polars expands globs in the paths it is handed, and "[bold]x.jsonl" names no file to
a glob (it read as "no such file", or for `scan_lines`, silently, as zero lines)."""

from __future__ import annotations

import shutil
from pathlib import Path

import polars as pl
import pytest

from evaltui.core.read.formats import load_run
from tests.conftest import SAMPLE_RUNS


@pytest.mark.parametrize("name", ["[bold]x", "runs*", "what?", "[a-z]"])
@pytest.mark.parametrize("suffix", [".jsonl", ".csv", ".parquet"])
def test_a_run_named_with_glob_characters_loads_every_item(tmp_path, name, suffix):
    frame = pl.read_ndjson(SAMPLE_RUNS / "baseline.jsonl")
    path = tmp_path / f"{name}{suffix}"
    if suffix == ".jsonl":
        shutil.copy(SAMPLE_RUNS / "baseline.jsonl", path)
    elif suffix == ".csv":
        frame.drop("messages").write_csv(path)
    else:
        frame.write_parquet(path)
    (tmp_path / f"decoy{suffix}").write_bytes(path.read_bytes()[:0])  # a glob would match it
    run = load_run(path)
    assert run.table.height == 200
    assert Path(run.source.path) == path
