"""The two runs by name, under the header: one line each, or both on one when it is folded."""

from __future__ import annotations

from pathlib import Path

from rich.text import Text

from evaltui.core.analysis.pair_result import Analysis
from evaltui.core.read.runs import Run
from evaltui.ui.safe import literal_line


def run_label(run: Run, short: bool = False) -> str:
    """What names a run on screen: model, task, date and file name (each when known; the long
    file name last, where a narrow screen cuts it); `short`: the model, else the file name."""
    meta = run.metadata
    path = Path(run.source.path)
    if short:
        return meta.get("model") or path.name
    # The run's own date when it records one (a file's mtime is when it was copied, not run).
    when = meta.get("created") or meta.get("created_at") or meta.get("date_id") or ""
    when = when.replace("T", " ")[:16]
    parts = [meta.get("model"), meta.get("task") or meta.get("eval_name"), when, path.name]
    return " · ".join(p for p in parts if p)


def runs_text(analysis: Analysis, width: int, folded: bool) -> Text:
    """The two runs by name: one line each, or both on one line when the header is folded."""
    paired = analysis.paired
    if folded:
        base = run_label(paired.baseline, short=True)
        cand = run_label(paired.candidate, short=True)
        text = Text(no_wrap=True, overflow="ellipsis")
        text.append("baseline ", style="bold")
        text.append_text(literal_line(base, max(width // 2 - 12, 10)))
        text.append("  →  candidate ", style="bold")
        text.append_text(literal_line(cand))
        task = paired.baseline.metadata.get("task")
        if task:
            text.append(" · ")
            text.append_text(literal_line(task))
        text.truncate(width, overflow="ellipsis")
        return text
    base, cand = run_label(paired.baseline), run_label(paired.candidate)
    lines = []
    for arm, label in (("baseline ", base), ("candidate", cand)):
        line = Text(no_wrap=True, overflow="ellipsis")
        line.append(arm + " ", style="bold")
        line.append_text(literal_line(label))
        line.truncate(width, overflow="ellipsis")
        lines.append(line)
    return Text("\n").join(lines)
