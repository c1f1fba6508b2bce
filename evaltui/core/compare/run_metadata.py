"""What two runs' metadata says about comparing them: the keys that must agree for the comparison
to mean anything, a run that did not finish, and what a loader warned about while reading.

Kept apart from `pairing.py` (which joins the items): the paired and the independent designs
and the decision read the same keys and statuses.
"""

from __future__ import annotations

from evaltui.core.read.runs import Run

# Run metadata that must agree for the comparison to mean anything (the model may differ).
SAME_EXPERIMENT_KEYS = (
    "task", "task_version", "dataset", "dataset_samples", "dataset_hash", "scorer", "metric",
    "filter", "eval_name", "harness",
)  # fmt: skip
FINISHED_STATUSES = ("success", "complete", "completed", "finished")
LOAD_WARNING_PREFIX = "warning."  # run metadata a loader sets to warn about how it read a file


def metadata_warnings(baseline: Run, candidate: Run) -> list[str]:
    """A different task, dataset or scorer means the two runs measure different things."""
    out = []
    for key in SAME_EXPERIMENT_KEYS:
        a, b = baseline.metadata.get(key), candidate.metadata.get(key)
        if a is not None and b is not None and a != b:
            out.append(f"the runs differ in {key}: baseline {a!r}, candidate {b!r}")
    for name, run in (("baseline", baseline), ("candidate", candidate)):
        status = run.metadata.get("run_status")
        if status is not None and status not in FINISHED_STATUSES:
            out.append(f"the {name} log's run status is {status!r}: it may be incomplete")
    for name, run in (("baseline", baseline), ("candidate", candidate)):
        # What a loader noticed and handled (repeated lines collapsed, a metric's direction):
        # metadata keys `warning.<topic>`, said once per run so nobody signs without reading it.
        for key, text in run.metadata.items():
            if key.startswith(LOAD_WARNING_PREFIX):
                out.append(f"the {name}: {text}")
    return out
