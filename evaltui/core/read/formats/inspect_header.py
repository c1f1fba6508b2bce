"""An Inspect log's header as a log-directory entry: what `.eval` and `.json` logs share when
the listing describes them (`describe_run` in `inspect_eval` and `inspect_json`)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from evaltui.core.read.run_entry import RunEntry, iso_utc, text_or


def entry_from_header(
    entry: RunEntry, header: dict[str, Any], items: int | None, status: Any
) -> RunEntry:
    """The entry with the task, model, creation time, scorers, items and status the header
    (its `eval` and `results`) says; `status` None: the header's own."""
    spec: dict[str, Any] = _dict(header.get("eval"))
    results: dict[str, Any] = _dict(header.get("results"))
    scorers = [
        s.get("name") for s in results.get("scores") or () if isinstance(s, dict) and s.get("name")
    ]
    if not scorers and isinstance(spec.get("scorers"), list):
        scorers = [s.get("name") for s in spec["scorers"] if isinstance(s, dict) and s.get("name")]
    if items is None and isinstance(results.get("total_samples"), int):
        items = results["total_samples"]
    return replace(
        entry,
        task=text_or(spec.get("task"), entry.task),
        model=text_or(spec.get("model"), entry.model),
        date=iso_utc(spec.get("created")) or entry.date,
        items=items,
        scorer=", ".join(map(str, scorers)),
        status=text_or(status if status is not None else header.get("status"), "unknown"),
    )


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}
