"""The always-visible answer to "is the difference real?": table, rates, delta, test, flags.

It only formats numbers the core computed; nothing statistical happens here.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rich.cells import cell_len
from rich.style import Style
from rich.text import Text
from textual.widgets import Static

from evaltui.core.analysis.pair_result import Analysis
from evaltui.core.decide.deciding import waiting_for
from evaltui.core.decide.effect import row_effect
from evaltui.core.decide.notices import Notice
from evaltui.core.decide.vocabulary import VERDICT_SHORT, FirstLine, after_word
from evaltui.core.read.hash_progress import size_done
from evaltui.core.report.pair import arm_means
from evaltui.core.words import (
    format_p,
    histogram_line,
    interval_digits,
    p_is,
    percent,
    plural,
    points,
    signed,
)
from evaltui.ui.input_hashing import hashing_line
from evaltui.ui.safe import literal, literal_line
from evaltui.ui.styles import style_of

VERDICT_STYLE = {
    verdict: style_of(f"verdict--{verdict.replace('_', '-')}")
    for verdict in ("improved", "regressed", "no_significant_difference", "insufficient_data")
}
VERDICT_WORDS = {
    "improved": "IMPROVED",
    "regressed": "REGRESSED",
    "no_significant_difference": "NO SIGNIFICANT DIFFERENCE",
    "insufficient_data": "INSUFFICIENT DATA",
}


# The colours are the style map's (ui/styles.tcss): each means one thing, and each is also
# said in words, marks or bold, so nothing is lost without colour (NO_COLOR) or with 16 colours.
GATE_STYLE = {
    status: style_of(f"gate--{status}") for status in ("passed", "failed", "pending", "undecided")
}
GATE_ICON = {"passed": "✓", "failed": "✗", "pending": "…", "undecided": "?"}
# A tag by its meaning to the decision (core/tags.py): a confirmed regression in the
# regression colour, a grader error or a still-open tag as a warning, any other tag plainly.
TAG_STYLE = {
    meaning: style_of(f"tag--{meaning.replace('_', '-')}")
    for meaning in ("confirmed", "grader_error", "open")
}
UNTRIAGED_STYLE = style_of("tag--untriaged")


def tag_style(meaning: str | None) -> str | Style:
    """The style of a tag whose meaning (`TagMeanings.meaning`) is `meaning`."""
    return TAG_STYLE.get(meaning or "", "bold")


STATUS_STYLE = {
    status: style_of(f"status--{status.replace('_', '-')}")
    for status in ("blocked", "not_comparable", "not_enough_data", "needs_review", "ready")
}
# While the analysis that decides still runs (`core.decide.deciding`): no colour of a status.
STATUS_STYLE["deciding"] = style_of("status--deciding")
Progress = tuple[str, int, int] | None  # what the analysis computes now, its step, the steps


def interval(lo: float, hi: float, in_points: bool) -> str:
    """An interval in the metric's units, with them: `[+0.6, +11.5] pts` for pass rates."""
    digits = interval_digits(lo, hi, in_points)
    shown = f"[{signed(lo, in_points, digits)}, {signed(hi, in_points, digits)}]"
    return shown + (" pts" if in_points else "")


def delta(value: float, in_points: bool) -> str:
    """One delta in the metric's units, with them: `+60.0 pts` for pass rates."""
    return signed(value, in_points) + (" pts" if in_points else "")


def shown_line(decision: Any, progress: Progress = None) -> FirstLine:
    """The decision's first line as a screen shows it now: while still deciding, with how far
    the analysis got (`progress`, from the app's completing worker); a final line as it is."""
    parts: FirstLine = decision.first_line
    return parts.progressed(*progress) if progress is not None else parts


def decision_text(decision: Any, progress: Progress = None) -> Text:
    """The decision line: its status word in reverse video (so it reads without colour), then
    the reasons and the effect, exactly as the reports and the sign-off print them. While
    still deciding it says so ("DECIDING… (clusters, step 1 of 3)"), with no status colour."""
    return first_line_text(shown_line(decision, progress))


def first_line_text(parts: FirstLine) -> Text:
    """A first line as every screen draws it: the status word styled, the rest in bold."""
    text = Text()
    text.append(f" {parts.word} ", style=STATUS_STYLE[parts.status])
    text.append_text(literal_line(after_word(parts), 600, style="bold"))
    return text


_COST_SEEN: list[tuple[object, str]] = []  # (paired runs, line): the last pair's, once
COST_COMPUTING = "cost: being computed (paired bootstrap over items)"


def run_cost_line(analysis: Analysis) -> str | None:
    """The runs' paired cost in one line (Inspect agent runs) once `compute_run_cost_line`
    has run for this pair; "" for runs that record no cost; None while it is still to come
    (the bootstrap takes a worker's time on a big pair, never the UI thread's)."""
    from evaltui.core.analysis.cost import has_costs

    paired = analysis.paired
    seen = _COST_SEEN[:1]  # one read: a worker may replace it meanwhile
    if seen and seen[0][0] is paired:
        return seen[0][1]
    return None if has_costs(paired) else ""


def compute_run_cost_line(analysis: Analysis) -> str:
    """Compute (in a worker) and keep the pair's cost line, which `run_cost_line` then gives."""
    from evaltui.core.analysis.cost import cost_comparison
    from evaltui.core.report.cost import cost_headline

    paired = analysis.paired
    cost = cost_comparison(paired)
    line = cost_headline(cost) if cost is not None else ""
    keep_run_cost_line(analysis, line)
    return line


def keep_run_cost_line(analysis: Analysis, line: str) -> None:
    """The pair's cost line from now on (the last pair's only: one pair is reviewed)."""
    _COST_SEEN[:] = [(analysis.paired, line)]


def short_hashing(hashed: tuple[int, int]) -> str:
    """How far the inputs' sha256 are, in few words (" · sign-off waits: sha256 0.2/0.7 MB")."""
    return f" · sign-off waits: sha256 {size_done(*hashed, between='/')}"


def header_text(
    analysis: Analysis,
    triaged: int,
    notices: Sequence[Notice],
    gates: tuple = (),
    decision: Any = None,
    progress: Progress = None,
    agreement: str | None = None,
    *,
    metric_key: bool = True,
    hashed: tuple[int, int] | None = None,
    width: int | None = None,
) -> Text:
    """The full header (`agreement`: a shared review's agreement line, the core's words;
    `metric_key`: whether `m` moves to the next metric; in a run set's pair it goes back to the
    matrix; `hashed`: the inputs' bytes hashed and to hash while the sign-off waits for their
    sha256, said on the triage line, in the folded header's short words when the long ones
    would wrap it at `width`: the header would gain a row, and lose it when the hash ends).
    While the analysis that decides still runs (`waiting_for`), no line says a verdict or a
    gate's status and nothing is green or red: the item-level verdict and headline, the
    sensitivity analysis and the gates may all change when it arrives."""
    deciding = bool(waiting_for(analysis))
    text = Text()
    if decision is not None:
        text.append_text(decision_text(decision, progress))
        text.append("\n")
    if deciding:
        text.append_text(_deciding_verdict(analysis))
    else:
        if len(analysis.metrics) > 1:  # whose verdict and numbers these are
            text.append_text(literal(f"{compared_name(analysis)}: ", style="bold"))
        text.append(VERDICT_WORDS[analysis.verdict], style=VERDICT_STYLE[analysis.verdict])
        text.append("  ")
        text.append_text(literal_line(analysis.headline, 600, style="bold"))
    text.append("\n")
    if decision is not None and decision.sensitivity is not None and not deciding:
        text.append("sensitivity ", style="bold")  # beside the headline, never instead of it
        text.append_text(literal_line(decision.sensitivity.line, 300, style="italic"))
        text.append("\n")
    if analysis.binary is not None:
        _binary_lines(text, analysis, coloured=not deciding)
    else:
        _graded_lines(text, analysis)
    _epoch_and_cluster_lines(text, analysis)
    _category_line(text, analysis)
    cost = run_cost_line(analysis)
    if cost is None:  # never a half-built line: said as still to come
        text.append(COST_COMPUTING + "\n", style="italic")
    elif cost:
        text.append(cost + "\n")
    for warning in [*analysis.warnings, *(str(notice) for notice in notices)]:
        text.append("⚠ ", style=style_of("caution--strong"))
        text.append_text(literal_line(warning, style=style_of("caution")))
        text.append("\n")
    if gates and deciding:
        text.append("gates (g): ", style="bold")
        text.append("evaluated once the decision is made\n", style="italic")
    elif gates:
        text.append("gates (g): ", style="bold")
        for status in ("failed", "pending", "undecided", "passed"):
            count = sum(1 for g in gates if g.status == status)
            if count:
                text.append(f"{GATE_ICON[status]} {count:,} {status}  ", style=GATE_STYLE[status])
        failed = [g.name for g in gates if g.status == "failed"]
        if failed:
            text.append("— ")
            text.append_text(literal_line("; ".join(failed), 150, style=GATE_STYLE["failed"]))
        text.append("\n")
    if agreement:
        text.append_text(literal_line(agreement, 300))
        text.append("\n")
    n_reg = len(analysis.regressions)
    style = style_of("triage--done") if triaged == n_reg and not deciding else "bold"
    text.append(f"Triage: {triaged:,} of {plural(n_reg, 'regression')} triaged", style=style)
    if decision is not None and decision.by_tag:
        counts = ", ".join(f"{tag} {n:,}" for tag, n in decision.by_tag.items())
        text.append(" · by tag: ")
        text.append_text(literal_line(counts, 200))
    if hashed is not None:
        said = f" · {hashing_line(hashed)}"
        triage_line = text.plain.rsplit("\n", 1)[-1]  # (in cells: a tag may be wide text)
        if width is not None and cell_len(triage_line + said) > width:
            said = short_hashing(hashed)
        text.append(said, style="italic")
    if len(analysis.metrics) > 1:
        text.append("\n")
        text.append_text(metric_lines(analysis, metric_key))
    return text


def compared_name(analysis: Analysis) -> str:
    """The compared metric's name as a reader knows it (its scorer)."""
    return next((r.name for r in analysis.metrics if r.metric == analysis.metric), analysis.metric)


def metric_lines(analysis: Analysis, metric_key: bool = True) -> Text:
    """Every metric (scorer) of the pair with its own effect and verdict, the compared one
    marked by `▶` and brackets (not by colour), `m` moving to the next (when it does)."""
    text = Text("Metrics (m: next): " if metric_key else "Metrics: ", style="bold")
    for i, row in enumerate(analysis.metrics):
        if i:
            text.append(" │ ")
        current = row.metric == analysis.metric
        name = f"▶[{row.name}]" if current else row.name
        role = {"secondary": " (secondary)", "monitor": " (monitor)"}.get(row.role, "")
        verdict = VERDICT_SHORT.get(row.verdict, row.verdict)
        line = f"{name}{role} {row_effect(row).text}, {verdict}"
        style: str | Style = "bold" if current else ""
        if row.verdict == "regressed" and row.blocks:
            style = style_of("verdict--regressed")
        text.append_text(literal(line, style=style))
    return text


def _deciding_verdict(analysis: Analysis) -> Text:
    """The verdict's line while the analysis that decides still runs: what it waits for, in
    place of the item-level verdict and headline (which it may overturn)."""
    pending = waiting_for(analysis)
    verb = "decides" if len(pending) == 1 and pending[0] not in _PLURAL_PARTS else "decide"
    waiting = " and ".join(pending)
    return Text(f"verdict: not yet (the {waiting} {verb} it: being computed)", style="italic")


_PLURAL_PARTS = frozenset({"clusters"})  # the completing parts a verb agrees with as plural


def _binary_lines(text: Text, analysis: Analysis, coloured: bool = True) -> None:
    c = analysis.binary
    assert c is not None  # (called for a pass/fail analysis only)
    t = c.table
    text.append(f"both pass {t.both_pass:,}")
    text.append(" │ ")
    text.append(
        f"regressions {t.regressions:,}",
        style=style_of("count--regressions") if t.regressions and coloured else "",
    )
    text.append(" │ ")
    text.append(
        f"improvements {t.improvements:,}",
        style=style_of("count--improvements") if coloured else "",
    )
    text.append(" │ ")
    text.append(f"both fail {t.both_fail:,}")
    text.append(f" │ n {t.n:,}\n")
    level = f"{c.confidence * 100:g}%"
    text.append(
        f"baseline {percent(c.baseline_rate)} [{percent(c.baseline_ci.lower)}, "
        f"{percent(c.baseline_ci.upper)}] → candidate {percent(c.candidate_rate)} "
        f"[{percent(c.candidate_ci.lower)}, {percent(c.candidate_ci.upper)}] (Wilson {level})\n"
    )
    m = c.mcnemar
    text.append(
        f"mid-p {format_p(m.mid_p)} · χ² p {format_p(m.chi2_p)} (cc {format_p(m.chi2_cc_p)}) · "
        f"unpaired (wrong test) {interval(c.unpaired.ci.lower, c.unpaired.ci.upper, True)}\n"
    )


def _graded_lines(text: Text, analysis: Analysis) -> None:
    g = analysis.graded
    assert g is not None  # (called for a graded analysis only)
    p = analysis.in_points
    base_mean, cand_mean = arm_means(analysis)
    what = "pass rate per item" if p else analysis.metric
    text.append_text(literal_line(what, 40))
    # Means as the deltas are shown: pass rates in percent (the deltas in points), scores in
    # the metric's own units; never proportions beside points.
    text.append(
        f": baseline mean {_mean(base_mean, p)} → candidate {_mean(cand_mean, p)} · n {g.n:,} · "
        f"regressed {len(analysis.regressions):,} · improved {len(analysis.improvements):,}\n"
    )
    text.append(
        f"percentile {interval(*g.percentile_ci, p)} · BCa {interval(*g.bca_ci, p)} · "
        f"paired t {interval(*g.t_ci, p)} · Wilcoxon p {format_p(g.wilcoxon_p)} · "
        f"{'exact bootstrap' if 'exact_bootstrap' in g.flags else f'seed {g.seed}'}\n"
    )
    text.append("per-item Δ ", style="bold")
    text.append(histogram_line(analysis.deltas, p))
    text.append("\n")


def _mean(value: float | None, in_points: bool) -> str:
    """An arm's mean as its deltas are shown: a pass rate in percent, a score as it is."""
    if value is None:
        return "n/a"
    return percent(value) if in_points else f"{value:.3f}"


def _epoch_and_cluster_lines(text: Text, analysis: Analysis) -> None:
    p = analysis.in_points
    if analysis.epochs:
        parts = []
        for arm, e in analysis.epochs.items():
            span = (
                f"{e.epochs_min}" if not e.unequal else f"{e.epochs_min}–{e.epochs_max} (UNEQUAL)"
            )
            parts.append(f"{arm} {span}, {e.within_share * 100:.0f}% of variance within items")
        text.append("epochs: " + "; ".join(parts) + "\n")
    c = analysis.clusters
    if analysis.clusters_pending:
        text.append("clusters: computing the cluster bootstrap…\n", style="dim")
    if c is not None:
        deff = "n/a" if c.design_effect != c.design_effect else f"{c.design_effect:.2f}"
        text.append(
            f"{plural(c.n_clusters, 'cluster')} (design effect {deff}): CI "
            f"{interval(*c.ci, p)}, naive {interval(*c.naive_ci, p)}\n"
        )


def _category_line(text: Text, analysis: Analysis) -> None:
    """One line for the outcome categories when the pair has them: the Stuart-Maxwell result
    in words ("mix CHANGED" in capitals, so it reads without colour) and the categories that
    moved most; category names are input text, inert."""
    c = getattr(analysis, "categorical", None)
    if c is None:
        return
    t = c.test
    text.append("outcomes: ", style="bold")
    if t.p_value is None:
        text.append("no item changed category (Stuart-Maxwell undefined)\n")
        return
    text.append(f"Stuart-Maxwell χ² {t.statistic:.2f} on {t.df} df, p {p_is(t.p_value)}")
    if not c.rejects:
        text.append(", no significant change in the mix\n")
        return
    text.append(" · mix CHANGED", style=style_of("caution--strong"))
    moved = ", ".join(f"{m.level} {points(m.delta)} pts" for m in c.moved_most(3))
    text.append(": ")
    text.append_text(literal_line(moved, 120))
    text.append("\n")


class HeaderPane(Static):
    """Shows `header_text`; the app calls `show` whenever triage progress changes."""

    DEFAULT_CSS = """
    HeaderPane { height: auto; padding: 0 1; border-bottom: solid $primary; }
    """

    def show(
        self,
        analysis: Analysis,
        triaged: int,
        notices: Sequence[Notice],
        gates: tuple = (),
        decision: Any = None,
        progress: Progress = None,
    ) -> None:
        self.update(header_text(analysis, triaged, notices, gates, decision, progress))


def collapsed_header_text(
    analysis: Analysis,
    triaged: int,
    notices: Sequence[Notice],
    gates: tuple = (),
    decision: Any = None,
    width: int = 80,
    progress: Progress = None,
    hashed: tuple[int, int] | None = None,
) -> Text:
    """The header folded to two lines (`h` in the app): the decision line (or the verdict and
    headline), then the verdict (or triage), how many warnings the full header holds, the
    gates that are not passed and, while the sign-off waits for them, how far the inputs'
    sha256 are (`hashed`). Each line is cut to `width`; nothing here is in colour alone."""
    deciding = bool(waiting_for(analysis))
    first = Text(no_wrap=True, overflow="ellipsis")
    if decision is not None:
        first.append_text(decision_text(decision, progress))
    elif deciding:
        first.append_text(_deciding_verdict(analysis))
    else:
        first.append(VERDICT_WORDS[analysis.verdict], style=VERDICT_STYLE[analysis.verdict])
        first.append("  ")
        first.append_text(literal_line(analysis.headline, 600, style="bold"))
    second = Text(no_wrap=True, overflow="ellipsis")
    if deciding and decision is not None:
        second.append("verdict: not yet", style="italic")
    elif decision is not None:  # the decision line counts the untriaged items already
        if len(analysis.metrics) > 1:  # whose verdict this is, when the pair has several
            second.append_text(literal(f"{compared_name(analysis)}: "))
        second.append(VERDICT_WORDS[analysis.verdict], style=VERDICT_STYLE[analysis.verdict])
    else:
        n_reg = len(analysis.regressions)
        second.append(f"triaged {triaged:,} of {n_reg:,}", style="bold" if triaged < n_reg else "")
    warnings = len(analysis.warnings) + len(notices)
    if warnings:
        second.append(f" · ⚠ {plural(warnings, 'warning')}", style_of("caution--strong"))
    for status in ("failed", "pending", "undecided"):
        count = sum(1 for g in gates if g.status == status)
        if count and not deciding:  # (while deciding a gate's status may still change)
            second.append(
                f" · {GATE_ICON[status]} {plural(count, 'gate')} {status}", GATE_STYLE[status]
            )
    if hashed is not None:  # (short: the line holds the verdict and the warnings at 80 columns)
        second.append(short_hashing(hashed), "italic")
    second.append(" · h: full header", style="dim")
    for line in (first, second):
        line.truncate(max(width, 10), overflow="ellipsis")
    return Text("\n").join([first, second])
