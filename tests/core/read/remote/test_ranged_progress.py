"""The reading step's progress in bytes: against the files' sizes when they are read whole, and
as bytes read when a remote `.eval` log is read by ranges (its directory and summaries only), so
a remote pair never says "0.0 of 1.9 GB" for the whole of its read."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from evaltui.core.analysis import read_both
from evaltui.core.read.formats import LoadOptions
from tests.core.read.remote.conftest import BASE, CAND, padded

Said = list[tuple[str, float, int]]


def _progress(monkeypatch: pytest.MonkeyPatch, paths: tuple[str, ...]) -> tuple[Any, Said]:
    said: Said = []
    monkeypatch.setattr(read_both._ByteProgress, "INTERVAL", 0.0)
    return read_both._ByteProgress(lambda *report: said.append(report), paths), said


def test_files_read_whole_count_against_their_sizes(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    base, cand = tmp_path / "base.jsonl", tmp_path / "cand.jsonl"
    base.write_bytes(b"x" * 300_000)
    cand.write_bytes(b"x" * 100_000)
    counter, said = _progress(monkeypatch, (str(base), str(cand)))
    counter.add(100_000)
    assert said == [("reading the baseline and the candidate (0.1 of 0.4 MB)", 0.25, 3)]


def test_a_remote_eval_pair_says_the_bytes_it_read_without_looking_up_its_size(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def no_lookup(path: Path) -> int:
        raise AssertionError(f"{path}: a ranged read's size looked up")

    monkeypatch.setattr(read_both, "size_or_zero", no_lookup)
    urls = ("s3://logs/a/baseline.eval", "https://example.invalid/candidate.eval")
    counter, said = _progress(monkeypatch, urls)
    counter.add(18_000_000)
    assert said == [("reading the baseline and the candidate (18 MB read by range)", 0.0, 3)]


def test_an_eval_read_by_ranges_beside_a_file_read_whole(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    local = tmp_path / "base.jsonl"
    local.write_bytes(b"x" * 200_000)
    counter, said = _progress(monkeypatch, (str(local), "s3://logs/candidate.eval"))
    counter.add(50_000)
    assert said == [("reading the baseline and the candidate (0 MB read by range)", 0.25, 3)]


def test_a_remote_pair_read_for_real_reports_its_ranged_bytes(
    http_root: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    server, root = http_root
    (root / "big.eval").write_bytes(padded(CAND, 4 << 20))  # ranges, not one request
    monkeypatch.setenv("EVALTUI_NO_CACHE", "1")
    monkeypatch.setattr(read_both._ByteProgress, "INTERVAL", 0.0)
    said: Said = []
    options = LoadOptions(defer_hash_check=True)
    read_both.load_both(
        f"{server.url}/{BASE.name}",
        f"{server.url}/big.eval",
        None,
        options,
        options,
        lambda *report: said.append(report),
        prefetch=False,
    )
    assert said and all(what.endswith(" MB read by range)") for what, _, _ in said), said
    assert all(fraction == 0.0 for _, fraction, _ in said)
