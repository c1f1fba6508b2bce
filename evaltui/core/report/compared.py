"""What was compared, as every report says it: each run's task, model, scorer(s), dataset,
harness and version, date and file (`read.describe`), then what differs between the items'
texts and which way is better for the metric.

One builder for the text report, the pair's Markdown and the sign-off Markdown, reading the
report's (or the record's) data, so the three cannot word it differently. Every value comes
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
    lines = [
        "**What was compared**",
        "",
        "| run | " + " | ".join(label for _, label in FIELDS) + " | sha256 | items |",
        "|---|" + "---|" * len(FIELDS) + "---|---:|",
    ]
    for arm, r in rows:
        assert r is not None
        i = d["inputs"][arm]
        cells = [md_cell(r.get(key, "unknown")) for key, _ in FIELDS[:-1]]
        cells.append(f"`{md_cell(r.get('file', ''), code=True)}`")
        lines.append(
            f"| {arm} | " + " | ".join(cells) + f" | `{i['sha256'][:16]}…` | {i['items']:,} |"
        )
    lines.append("")
    differences = difference_lines(d)
    if differences:
        lines += [f"- {md_cell(line)}" for line in differences] + [""]
    return lines


def compared_text(d: dict[str, Any]) -> list[str]:
    """The same as plain lines for the terminal report."""
    out = []
    for arm in ARMS:
        r = described(d["inputs"], arm)
        if r is None:
            continue
        words = " · ".join(
            f"{label} {one_line(r.get(key, 'unknown'), 120)}"
            for key, label in FIELDS
            if key not in ("harness", "date", "file")
        )
        out.append(
            f"{arm}: {words} · {one_line(r['harness'], 80)} · {one_line(r['date'], 60)} · "
            f"{one_line(r['file'], 200)}"
        )
    return out + [one_line(line, 400) for line in difference_lines(d)]


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
