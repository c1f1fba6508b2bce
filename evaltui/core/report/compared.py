"""What was compared, as every report says it: each run's task, model, scorer(s), dataset,
harness and version, date and file (`read.describe`), then what differs between the items'
texts and which way is better for the metric.

One builder for the text report, the pair's Markdown, the sign-off Markdown, the independent
report and the run-set report (`runs_markdown`, `run_text`), reading the report's (or the
record's) data, so they cannot word it differently. Every value comes
from a log: Markdown escapes it (`md_cell`), text puts it on one line (`one_line`).
"""

from __future__ import annotations

from typing import Any

from evaltui.core.textsafe import md_cell, one_line

ARMS = ("baseline", "candidate")
FIELDS = (
    ("task", "task"),
    ("model", "model"),
    ("scorers", "scorer(s)"),
    ("dataset", "dataset"),
    ("harness", "harness"),
    ("date", "date"),
    ("file", "file"),
)


def described(inputs: dict[str, Any], arm: str) -> dict[str, str] | None:
    """The arm's description in a report's or a record's `inputs` (None in an old record)."""
    value = inputs.get(arm, {}).get("described")
    return value if isinstance(value, dict) else None


def compared_markdown(d: dict[str, Any]) -> list[str]:
    """A table with a row per run, then the differences, as Markdown lines."""
    rows = [(arm, described(d["inputs"], arm)) for arm in ARMS]
    if any(r is None for _, r in rows):
        return []
    table = runs_markdown(
        [(arm, r or {}, d["inputs"][arm]["sha256"], d["inputs"][arm]["items"]) for arm, r in rows]
    )
    differences = difference_lines(d)
    if differences:
        table += [f"- {md_cell(line)}" for line in differences] + [""]
    return table


def runs_markdown(rows: list[tuple[str, dict[str, str], str, int | None]]) -> list[str]:
    """ "What was compared" as a Markdown table: a row per run (its name, its description,
    its sha256 and, when known, its items), every value from a log escaped; the file is the
    description's (relative, never an absolute local path: `describe.display_path`)."""
    with_items = all(items is not None for *_, items in rows)
    lines = [
        "**What was compared**",
        "",
        "| run | "
        + " | ".join(label for _, label in FIELDS)
        + " | sha256 |"
        + (" items |" if with_items else ""),
        "|---|" + "---|" * len(FIELDS) + "---|" + ("---:|" if with_items else ""),
    ]
    for name, r, sha256, items in rows:
        cells = [md_cell(r.get(key, "unknown")) for key, _ in FIELDS[:-1]]
        cells.append(f"`{md_cell(r.get('file', ''), code=True)}`")
        tail = f" {items:,} |" if with_items and items is not None else ""
        lines.append(f"| {md_cell(name)} | " + " | ".join(cells) + f" | `{sha256[:16]}…` |" + tail)
    return [*lines, ""]


def compared_text(d: dict[str, Any]) -> list[str]:
    """The same as plain lines for the terminal report."""
    out = []
    for arm in ARMS:
        r = described(d["inputs"], arm)
        if r is not None:
            out.append(f"{arm}: {run_text(r)}")
    return out + [one_line(line, 400) for line in difference_lines(d)]


def run_text(r: dict[str, str]) -> str:
    """One run's description on one plain line (task, model, scorers, dataset, harness,
    date, file), each value from the log made one line."""
    words = " · ".join(
        f"{label} {one_line(r.get(key, 'unknown'), 120)}"
        for key, label in FIELDS
        if key not in ("harness", "date", "file")
    )
    return (
        f"{words} · {one_line(r.get('harness', 'unknown'), 80)} · "
        f"{one_line(r.get('date', 'unknown'), 60)} · {one_line(r.get('file', ''), 200)}"
    )


def difference_lines(d: dict[str, Any]) -> list[str]:
    """Documents or prompts that differ, and the metric's direction when it is not a verdict."""
    out = []
    c = d.get("comparability") or {}
    for key, what in (("inputs_differ", "documents"), ("prompts_differ", "prompts")):
        diff = c.get(key)
        if diff and diff["differ"]:
            out.append(
                f"{what} differ on {diff['differ']:,} of {diff['of']:,} items ({diff['by']})"
            )
    direction = d.get("direction")
    if direction and d.get("metric") != "passed":
        higher = direction["higher_is_better"]
        said = {True: "higher is better", False: "lower is better", None: "direction unknown"}
        out.append(f"direction: {said[higher]} ({direction['source']})")
    return out
