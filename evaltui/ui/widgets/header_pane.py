"""The always-visible answer to "is the difference real?": table, rates, delta, test, flags.

It only formats numbers the core computed; nothing statistical happens here.
"""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

from evaltui.core.analysis import Analysis, format_p, percent, points
from evaltui.ui.safe import literal_line

VERDICT_STYLE = {
    "improved": "bold green",
    "regressed": "bold red",
    "no_significant_difference": "bold yellow",
    "insufficient_data": "bold magenta",
}
VERDICT_WORDS = {
    "improved": "IMPROVED",
    "regressed": "REGRESSED",
    "no_significant_difference": "NO SIGNIFICANT DIFFERENCE",
    "insufficient_data": "INSUFFICIENT DATA",
}


def header_text(analysis: Analysis, triaged: int, notices: list[str]) -> Text:
    c = analysis.binary
    t = c.table
    text = Text()
    text.append(VERDICT_WORDS[c.verdict], style=VERDICT_STYLE[c.verdict])
    text.append("  ")
    text.append(analysis.headline, style="bold")
    text.append("\n")
    text.append(f"both pass {t.both_pass}", style="")
    text.append(" │ ")
    text.append(f"regressions {t.regressions}", style="red")
    text.append(" │ ")
    text.append(f"improvements {t.improvements}", style="green")
    text.append(" │ ")
    text.append(f"both fail {t.both_fail}")
    text.append(f" │ n {t.n}\n")
    level = f"{c.confidence * 100:g}%"
    text.append(
        f"baseline {percent(c.baseline_rate)} [{percent(c.baseline_ci.lower)}, "
        f"{percent(c.baseline_ci.upper)}] → candidate {percent(c.candidate_rate)} "
        f"[{percent(c.candidate_ci.lower)}, {percent(c.candidate_ci.upper)}] (Wilson {level})\n"
    )
    m = c.mcnemar
    text.append(
        f"mid-p {format_p(m.mid_p)} · χ² p {format_p(m.chi2_p)} (cc {format_p(m.chi2_cc_p)}) · "
        f"unpaired (wrong test) [{points(c.unpaired.ci.lower)}, {points(c.unpaired.ci.upper)}]\n"
    )
    for warning in [*analysis.warnings, *notices]:
        text.append("⚠ ", style="bold yellow")
        text.append_text(literal_line(warning, style="yellow"))
        text.append("\n")
    n_reg = len(analysis.regressions)
    style = "bold green" if triaged == n_reg else "bold"
    text.append(f"Triage: {triaged} of {n_reg} regressions triaged", style=style)
    return text


class HeaderPane(Static):
    """Shows `header_text`; the app calls `show` whenever triage progress changes."""

    DEFAULT_CSS = """
    HeaderPane { height: auto; padding: 0 1; border-bottom: solid $primary; }
    """

    def show(self, analysis: Analysis, triaged: int, notices: list[str]) -> None:
        self.update(header_text(analysis, triaged, notices))
