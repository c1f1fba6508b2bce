"""Shared fixtures: small run files written on the fly, and the demo pair."""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterable
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SAMPLE_RUNS = ROOT / "sample_runs"
DATA = Path(__file__).resolve().parent / "data"


@pytest.fixture(autouse=True, scope="session")
def _private_scan_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterable[None]:
    """Tests never write to the user's cache: children (CLI runs) inherit the variable."""
    previous = os.environ.get("EVALTUI_CACHE_DIR")
    os.environ["EVALTUI_CACHE_DIR"] = str(tmp_path_factory.mktemp("scan-cache"))
    yield
    if previous is None:
        os.environ.pop("EVALTUI_CACHE_DIR", None)
    else:
        os.environ["EVALTUI_CACHE_DIR"] = previous


@pytest.fixture
def sample_pair() -> tuple[Path, Path]:
    return SAMPLE_RUNS / "baseline.jsonl", SAMPLE_RUNS / "candidate.jsonl"


@pytest.fixture
def write_jsonl(tmp_path: Path) -> Callable[[str, Iterable[dict]], Path]:
    def write(name: str, records: Iterable[dict]) -> Path:
        path = tmp_path / name
        path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
        return path

    return write


def verdict_records(verdicts: Iterable[bool], prefix: str = "q") -> list[dict]:
    return [{"item_id": f"{prefix}{i}", "passed": v} for i, v in enumerate(verdicts)]


def table_records(a: int, b: int, c: int, d: int) -> tuple[list[dict], list[dict]]:
    """Baseline and candidate records whose paired 2x2 is (a both pass, b reg, c imp, d fail)."""
    base = [True] * a + [True] * b + [False] * c + [False] * d
    cand = [True] * a + [False] * b + [True] * c + [False] * d
    return verdict_records(base), verdict_records(cand)
