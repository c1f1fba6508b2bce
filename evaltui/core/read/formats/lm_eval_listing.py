"""An lm-eval samples file as a log-directory entry: its task and date from the file's name
(`samples_<task>_<date>.jsonl`), the model from its folder or the results file beside it, the
metrics from its first line. The listing describes a run without reading its samples.
"""

from __future__ import annotations

import json
import re
from dataclasses import replace

from evaltui.core.read.formats.contract import HEAD_BYTES
from evaltui.core.read.formats.jsontext import UTF8_BOM
from evaltui.core.read.formats.lm_eval_records import is_array
from evaltui.core.read.run_entry import RunEntry

__all__ = ["SAMPLES_NAME", "entry_from_samples_file"]

SAMPLES_NAME = re.compile(r"^samples_(?P<task>.+)_(?P<date>\d{4}-\d{2}-\d{2}T[\d\-.:]+)\.jsonl$")


def entry_from_samples_file(entry: RunEntry) -> RunEntry:
    """The entry with what the samples file's name and folder, its first line and the results
    file beside it say (`lm_eval.describe_run`)."""
    from evaltui.core.read.run_entry import count_lines, small_json

    path = entry.path
    with path.open("rb") as handle:
        head = handle.read(HEAD_BYTES)
    named = SAMPLES_NAME.match(path.name)
    if named:
        task, date = named["task"], named["date"]
        model = path.parent.name.replace("__", "/")
    else:  # lm-eval 0.4.0-0.4.2: <re.sub("/|=", "__", model_args)>_<task>.jsonl
        model, _, task = path.stem.rpartition("_")
        date = ""
    scorer, items = "", None
    first, _, _ = head.partition(b"\n")
    try:
        record = json.loads(first.removeprefix(UTF8_BOM))
        if isinstance(record, dict) and isinstance(record.get("metrics"), list):
            scorer = ", ".join(map(str, record["metrics"]))
    except ValueError:
        pass  # an indented JSON array (lm-eval 0.4.0-0.4.2), or a first line past the head
    results = small_json(path.parent / f"results_{date}.json")
    if isinstance(results, dict):
        if isinstance(results.get("model_name"), str) and results["model_name"]:
            model = results["model_name"]
        samples = results.get("n-samples")
        if isinstance(samples, dict) and isinstance(samples.get(task), dict):
            effective = samples[task].get("effective")
            items = effective if isinstance(effective, int) else None
    if items is None and not is_array(head):
        items = count_lines(path)
    stamp = re.match(r"^(\d{4}-\d{2}-\d{2})T(\d{2})-(\d{2})-(\d{2})", date)  # 23-15-32.942677
    when = f"{stamp[1]}T{stamp[2]}:{stamp[3]}:{stamp[4]}" if stamp else entry.date
    return replace(
        entry, task=task, model=model, date=when, items=items, scorer=scorer, status="complete"
    )
