"""The runs a sign-off record names by URL: an auditor anywhere can read those again.

A record names each run by the path it was read from (`inputs.baseline.path` and
`inputs.candidate.path`; a run set's `runs[].path`). A local path is the reviewer's machine's,
so an auditor names the files (`verify RECORD BASE CAND`); a URL (`s3://`, `gs://`, `https://`
...) names the same object from any machine with access to it, and the record holds the sha256
of the bytes compared, so `verify RECORD` alone reads the runs again from there when every run
is named by a URL. A record naming some runs by local path is checked alone, as before: half a
set of files cannot rebuild it.
"""

from __future__ import annotations

from typing import Any

from evaltui.core.read.remote.urls import url_of


def recorded_urls(record: Any) -> list[str] | None:
    """The URLs of every run `record` names, in its order (baseline first; a run set's runs
    as listed), or None when any run is named otherwise or the record names none. Never
    raises: a malformed record's form is verify's first check, and its words."""
    paths = _named_paths(record)
    if not paths:
        return None
    urls = [url_of(path) if isinstance(path, str) else None for path in paths]
    return [url for url in urls if url is not None] if None not in urls else None


def _named_paths(record: Any) -> list[Any]:
    """The `path` of every run the record names (a run set's `runs`, else a pair's `inputs`)."""
    if not isinstance(record, dict):
        return []
    runs = record.get("runs")
    if isinstance(runs, list):
        entries = runs
    else:
        inputs = record.get("inputs")
        if not isinstance(inputs, dict):
            return []
        entries = [inputs.get("baseline"), inputs.get("candidate")]
    return [entry.get("path") if isinstance(entry, dict) else None for entry in entries]
