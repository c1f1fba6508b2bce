"""The two runs by name, under the header: one line each, or both on one when it is folded."""

from __future__ import annotations

from pathlib import Path

from rich.text import Text

from evaltui.core.analysis.pair_result import Analysis
from evaltui.core.read.describe import UNKNOWN, describe
from evaltui.core.read.runs import Run
from evaltui.ui.safe import literal_line


def run_label(run: Run, short: bool = False) -> str:
    """What names a run on screen (`read.describe`, the words every report uses): the model,
    task, scorer(s), dataset, harness and version, the run's date (UTC, said) and the file
    (the long file name last, where a narrow screen cuts it, unless the log names neither
    model nor task: then the file comes first); a model, task or scorer the log does not
    name is said to be unknown. `short`: the model, else the file name."""
    d = describe(run)
    if short:
        return d.model if d.model != UNKNOWN else Path(run.source.path).name
    named = {"model": d.model, "task": d.task, "scorer": d.scorers}
    unknown = [name for name, value in named.items() if value == UNKNOWN]
    said = ", ".join(unknown) + " unknown" if unknown else ""
    parts = [
        d.model if d.model != UNKNOWN else "",
        d.task if d.task != UNKNOWN else "",
        f"scorer {d.scorers}" if d.scorers != UNKNOWN else "",
        f"dataset {d.dataset}" if d.dataset != UNKNOWN else "",
        said,
        d.harness,
        d.date if d.date != UNKNOWN else "",
    ]
    if d.model == UNKNOWN and d.task == UNKNOWN:  # the file is then the run's best name
        return " · ".join(p for p in (d.file, *parts) if p)
    return " · ".join(p for p in (*parts, d.file) if p)


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
        d = describe(paired.baseline)
        for word in (d.task, d.scorers):  # where the width allows
            if word != UNKNOWN:
                text.append(" · ")
                text.append_text(literal_line(word))
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
