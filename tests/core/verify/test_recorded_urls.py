"""Which records `verify RECORD` alone reads the runs of again: those naming every run by URL."""

from __future__ import annotations

import pytest

from evaltui.core.verify.recorded_urls import recorded_urls


def pair(base: object, cand: object) -> dict:
    return {"inputs": {"baseline": {"path": base}, "candidate": {"path": cand}}}


def test_a_pair_named_by_urls_gives_them_baseline_first():
    record = pair("s3://logs/a.eval", "https://host:8443/b.eval")
    assert recorded_urls(record) == ["s3://logs/a.eval", "https://host:8443/b.eval"]


def test_a_run_set_gives_its_runs_in_their_order():
    record = {"runs": [{"path": f"gs://b/{n}.jsonl"} for n in ("base", "c1", "c2")]}
    assert recorded_urls(record) == ["gs://b/base.jsonl", "gs://b/c1.jsonl", "gs://b/c2.jsonl"]


@pytest.mark.parametrize(
    "record",
    [
        pair("s3://logs/a.eval", "/home/r/b.eval"),  # half the files: cannot rebuild
        pair("/home/r/a.eval", "/home/r/b.eval"),
        {"runs": [{"path": "s3://b/a"}, {"path": "b.jsonl"}, {"path": "s3://b/c"}]},
        pair("s3://logs/a.eval", None),
        pair("s3://logs/a.eval", 7),
        {"inputs": {"baseline": "s3://logs/a.eval", "candidate": {"path": "s3://b/c"}}},
        {"inputs": []},
        {"runs": []},
        {},
        [],
        "s3://logs/a.eval",
    ],
    ids=[
        "mixed",
        "local",
        "run-set-mixed",
        "null",
        "number",
        "no-object",
        "inputs-list",
        "no-runs",
        "empty",
        "a-list",
        "a-string",
    ],  # fmt: skip
)
def test_a_record_naming_any_run_otherwise_is_checked_alone(record):
    assert recorded_urls(record) is None
