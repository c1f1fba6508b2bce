"""Files evaltui recognises that hold no per-item data, and what to open instead.

A reviewer often points evaltui at the file a harness prints at the end of a run: lm-eval's
`results_<date>.json`, HELM's `stats.json`. Those hold aggregates (one number per task or
metric), and a paired comparison needs one verdict or score per item. "Cannot tell the file's
format" would be true but useless, so the loader asks here first and says what the file is,
why it cannot be paired, and which file beside it can.
"""

from __future__ import annotations

import re
from pathlib import Path

from evaltui.core.read.formats.jsontext import UTF8_BOM, object_keys

LM_EVAL_RESULTS_KEYS = frozenset({"configs", "versions", "n-shot", "higher_is_better", "config"})
RESULTS_DATE = re.compile(r"^results_(?P<date>.+)\.json$")
SHOW_FILES = 3


def explain(path: Path, head: bytes) -> str | None:
    """Why `path` cannot be compared item by item, with the file to use; None: not known."""
    text = head.removeprefix(UTF8_BOM).lstrip()
    if text.startswith(b"{"):
        top = {key for where, key in object_keys(text) if where == ()}
        if "results" in top and top & LM_EVAL_RESULTS_KEYS:
            return _lm_eval_results(path)
        if {"name", "scenario_spec", "adapter_spec"} <= top:
            return (
                "this is HELM's run_spec.json (how the run was set up, no per-instance data); "
                "open the run directory it sits in"
            )
        if {"adapter_spec", "request_states"} <= top:
            return (
                "this is HELM's scenario_state.json; evaltui reads a run's per-instance data "
                "from per_instance_stats.json and display_predictions.json: open the run "
                "directory it sits in"
            )
    if text.startswith(b"["):
        first = {key for where, key in object_keys(text) if where == (0,)}
        if {"name", "count", "sum"} <= first and "instance_id" not in first:
            return (
                "this is HELM's stats.json: the run's aggregate statistics (one per metric and "
                "split), no per-instance data; open the run directory it sits in, or its "
                "per_instance_stats.json"
            )
    return None


def _lm_eval_results(path: Path) -> str:
    found = _samples_beside(path)
    where = (
        f"; beside it: {', '.join(found[:SHOW_FILES])}"
        + (" ..." if len(found) > SHOW_FILES else "")
        if found
        else "; none is beside it (was the run made without --log_samples?)"
    )
    return (
        "this is lm-eval's results file: one aggregate number per task and metric, no per-item "
        "data to pair; open the samples_<task>_<date>.jsonl file that lm-eval writes with "
        f"--log_samples{where}"
    )


def _samples_beside(path: Path) -> list[str]:
    """lm-eval's samples files next to a results file, of the same run when the date says so."""
    try:
        names = sorted(p.name for p in path.parent.iterdir() if p.suffix == ".jsonl")
    except OSError:
        return []
    dated = RESULTS_DATE.match(path.name)
    if dated:
        same_run = [n for n in names if n.startswith("samples_") and dated["date"] in n]
        if same_run:
            return same_run
    return [n for n in names if n.startswith("samples_")] or names
