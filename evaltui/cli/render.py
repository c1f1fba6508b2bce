"""The terminal rendering of a report, with Rich. Outside core on purpose (core never imports rich).

Every string that comes from an input file goes through `Text(...)`, never through markup, so an
id like "[bold red]x" prints as written.
"""

from __future__ import annotations

from typing import Any

from rich.console import Console, Group
from rich.table import Table
from rich.text import Text

from evaltui.core.analysis.pair import VERDICT_TEXT
from evaltui.core.analysis.pair_result import Analysis
from evaltui.core.decide.vocabulary import SEPARATOR, after_word, split_line
from evaltui.core.report.compared import compared_text
from evaltui.core.report.pair import report_dict
from evaltui.core.report.pair_markdown import (
    GATE_MARK,
    category_test_line,
    extra_lines,
    graded_lines,
    overall_slice_rows,
    slice_interval,
)
from evaltui.core.report.team_lines import review_text
from evaltui.core.textsafe import one_line
from evaltui.core.words import forest_bar, format_p, percent, points, signed

VERDICT_STYLE = {
    "improved": "bold green",
    "regressed": "bold red",
    "no_significant_difference": "bold yellow",
    "insufficient_data": "bold magenta",
}
MAX_IDS = 30
PIPE_WIDTH = 10_000  # into a pipe: lines are as long as they are


STATUS_STYLE = {
    "blocked": "bold red",
    "not_comparable": "bold magenta",
    "not_enough_data": "bold magenta",
    "needs_review": "bold yellow",
    "ready": "bold green",
}


def build_report(
    analysis: Analysis, gates: tuple | None = None, width: int = 80, decision=None, review=None
) -> Group:
    from evaltui.core.analysis.independent import IndependentAnalysis

    independent = isinstance(analysis, IndependentAnalysis)
    if isinstance(analysis, IndependentAnalysis):
        from evaltui.core.report.independent import independent_report_dict

        d = independent_report_dict(analysis, decision)
    else:
        d = report_dict(analysis, gates, decision, review)
    decided = d["decision"]
    parts = [decision_line(decision, decided)]
    parts += [Text("• " + one_line(r["text"], 400)) for r in decided["reasons"]]
    parts += [Text(line, style="dim") for line in compared_text(d)]
    if independent:
        return Group(*parts, *_independent_parts(d))
    parts += [
        Text(analysis.headline, style="bold"),
        Text.assemble("Verdict: ", (VERDICT_TEXT[d["verdict"]], VERDICT_STYLE[d["verdict"]])),
    ]
    for warning in d["warnings"]:
        parts.append(Text("⚠ " + one_line(warning), style="yellow"))

    if d["table"] is not None:
        parts += _binary_parts(d)
    else:
        lines = graded_lines(analysis, d, md=False)
        parts += [Text(line.removeprefix("- ")) for line in lines if line]
    parts += [Text(line.removeprefix("- ")) for line in extra_lines(analysis, d, md=False) if line]
    parts += _gate_parts(d) + _metric_parts(analysis, d) + _slice_parts(analysis, d, width)
    parts += _category_parts(d)
    parts += _cost_parts(analysis)
    parts += [Text(one_line(line, 400)) for line in review_text(d.get("review"))]
    for title, key in (("Regressions", "regressions"), ("Improvements", "improvements")):
        ids = d[key]
        shown = ", ".join(one_line(i, 40) for i in ids[:MAX_IDS])
        more = f" … and {len(ids) - MAX_IDS} more" if len(ids) > MAX_IDS else ""
        parts.append(Text(f"{title} ({len(ids)}): {shown or 'none'}{more}"))
    for arm in ("baseline", "candidate"):
        i = d["inputs"][arm]
        parts.append(
            Text(
                f"{arm}: {one_line(i['path'])} ({i['format']}, {i['items']} items, "
                f"sha256 {i['sha256'][:16]}…)",
                style="dim",
            )
        )
    return Group(*parts)


def _cost_parts(analysis: Analysis) -> list[Text]:
    """What the runs cost and how often a limit stopped them, paired (Inspect runs)."""
    from evaltui.core.analysis.cost import cost_comparison
    from evaltui.core.report.cost import cost_lines

    cost = cost_comparison(analysis.paired)
    if cost is None:
        return []
    return [Text("Cost and limits (per item, paired)", style="bold")] + [
        Text("  " + line) for line in cost_lines(cost)
    ]


def decision_line(decision: Any, decided: dict) -> Text:
    """The first line: the status word in its colour, then the rest of the line in the same
    words (`vocabulary.after_word` of the decision's parts; a decision given as plain data,
    from a record, is read back by the vocabulary that composed it)."""
    parts = getattr(decision, "first_line", None)
    if parts is not None:
        word, rest = parts.word, after_word(parts)
    else:
        word, rest = split_line(decided["status"], decided["line"])
        rest = f"{SEPARATOR}{rest}" if word and rest else rest
    style = STATUS_STYLE[decided["status"]]
    return Text.assemble((word, style), (rest, style.replace("bold ", "", 1)))


def _binary_parts(d: dict) -> list:
    t = d["table"]
    table = Table(title="Paired 2x2", show_edge=True, title_justify="left")
    table.add_column("")
    table.add_column("candidate pass", justify="right")
    table.add_column("candidate fail", justify="right")
    table.add_row("baseline pass", str(t["both_pass"]), f"{t['regressions']} regressions")
    table.add_row("baseline fail", f"{t['improvements']} improvements", str(t["both_fail"]))
    rates = Table(show_edge=True)
    for col in ("", "passes", "rate", "Wilson CI"):
        rates.add_column(col, justify="right" if col else "left")
    for arm in ("baseline", "candidate"):
        a = d[arm]
        rates.add_row(
            arm,
            f"{a['passes']:,}/{d['n_paired']:,}",
            percent(a["rate"]),
            f"[{percent(a['ci'][0])}, {percent(a['ci'][1])}]",
        )
    delta, mc, un = d["delta"], d["mcnemar"], d["unpaired"]
    summary = Text(
        f"Delta {points(delta['estimate'])} pts, {delta['confidence'] * 100:g}% CI "
        f"[{points(delta['ci'][0])}, {points(delta['ci'][1])}] ({delta['method']})\n"
        f"McNemar, {mc['discordant']} discordant: exact p {format_p(mc['exact_p'])}, "
        f"mid-p {format_p(mc['mid_p'])}, chi² p {format_p(mc['chi2_p'])}, "
        f"with continuity correction {format_p(mc['chi2_cc_p'])}\n"
        f"Unpaired contrast (the wrong test, shown for comparison): SE "
        f"{un['se'] * 100:.2f} pts, CI [{points(un['ci'][0])}, {points(un['ci'][1])}]"
    )
    return [table, rates, summary]


def _independent_parts(d: dict) -> list:
    """Two runs of different items: the label, the arms, the difference and the tests."""
    from evaltui.core.analysis.independent import VERDICT_TEXT as WORDS
    from evaltui.core.report.independent import arm_rows, comparison_lines, input_lines

    parts: list = [
        Text(d["headline"], style="bold"),
        Text.assemble("Verdict: ", (WORDS[d["verdict"]], VERDICT_STYLE[d["verdict"]])),
    ]
    parts += [Text("⚠ " + one_line(w), style="yellow") for w in d["warnings"]]
    header, rows = arm_rows(d)
    arms = Table(title=d["design_label"], show_edge=True, title_justify="left")
    for col in header:
        arms.add_column(col, justify="right" if col else "left")
    for row in rows:
        arms.add_row(*row)
    parts.append(arms)
    parts += [Text(line.removeprefix("- ")) for line in comparison_lines(d, md=False) if line]
    parts += [Text(line, style="dim") for line in input_lines(d)]
    return parts


GATE_STYLE = {"passed": "green", "failed": "bold red", "pending": "yellow", "undecided": "magenta"}


def _gate_parts(d: dict) -> list:
    if not d["gates"]:
        return []
    out = [Text(f"Release gates (policy {d['policy']['hash'][:12]}):", style="bold")]
    for g in d["gates"]:
        line = Text("  ")
        line.append(GATE_MARK[g["status"]], style=GATE_STYLE[g["status"]])
        line.append(f"  {one_line(g['name'])}: {one_line(g['detail'])}")
        out.append(line)
    return out


def _metric_parts(analysis: Analysis, d: dict) -> list:
    rows = d["metrics"]
    if len(rows) < 2:
        return []
    adjust = analysis.policy.multiplicity if analysis.policy else "holm"
    table = Table(title=f"Metrics (p adjusted: {adjust})", title_justify="left")
    for col in ("metric", "delta", "CI", "p adj.", "raw p", "test"):
        table.add_column(col)
    for r in rows:
        p = r["in_points"]

        def fmt(v, p=p):
            return "n/a" if v is None else signed(v, p)

        role = {"secondary": " (secondary)", "monitor": " (monitor)"}.get(r["role"], "")
        table.add_row(
            one_line(r["label"]) + role,
            fmt(r["delta"]),
            f"[{fmt(r['ci'][0])}, {fmt(r['ci'][1])}]",
            format_p(r["p_adjusted"]) if r["in_family"] else "monitor only",
            format_p(r["p_raw"]),
            r["p_test"],
        )
    return [table]


def _slice_parts(analysis: Analysis, d: dict, width: int = 80) -> list:
    rows = overall_slice_rows(analysis, d)  # the overall row: the decision's interval and p
    if not rows:
        return []
    span = max(max(abs(r["ci"][0]), abs(r["ci"][1])) for r in rows) or 1.0
    bar = max(10, min(40, width - 62))
    table = Table(
        title=f"Slices: delta in pts, forest plot against zero (p adjusted: {rows[0]['adjust']})",
        title_justify="left",
        box=None,
        pad_edge=False,
    )
    for col in ("slice", "n", "−/+", "delta", "CI", "", "p adj."):
        table.add_column(col, no_wrap=True, justify="right" if col in ("n", "delta") else "left")
    for r in rows:
        t = r["table"]
        table.add_row(
            "overall" if r["overall"] else one_line(r["name"], 18),
            str(r["n"]),
            f"{t['regressions']}/{t['improvements']}",
            *slice_interval(r).split(" ", 1),
            forest_bar(r["ci"][0], r["delta"], r["ci"][1], span, bar),
            format_p(r["p_adjusted"]),
            style="bold" if r["overall"] else "",
        )
    return [table]


def _category_parts(d: dict) -> list:
    """The outcome categories: the L x L table (rows baseline), the test, each category's
    change. Category names are input text: Text cells, never markup."""
    c = d.get("categories")
    if not c:
        return []
    grid = Table(
        title="Outcome categories (rows: baseline, columns: candidate)", title_justify="left"
    )
    grid.add_column("baseline ↓ candidate →")
    for level in c["levels"]:
        grid.add_column(Text(one_line(level, 16)), justify="right")
    for level, row in zip(c["levels"], c["table"], strict=True):
        grid.add_row(Text(one_line(level, 24)), *(f"{v:,}" for v in row))
    test = Text(category_test_line(c), style="bold" if c["rejects"] else "")
    changes = Table(
        title=f"Category changes (candidate − baseline; p adjusted: {c['adjust']})",
        title_justify="left",
        box=None,
        pad_edge=False,
    )
    for col in ("category", "baseline", "candidate", "change", "CI", "p adj."):
        changes.add_column(
            col, no_wrap=True, justify="left" if col in ("category", "CI") else "right"
        )
    for m in c["changes"]:
        changes.add_row(
            Text(one_line(m["level"], 24)),
            f"{m['baseline_count']:,} ({percent(m['baseline_share'])})",
            f"{m['candidate_count']:,} ({percent(m['candidate_share'])})",
            f"{points(m['delta'])} pts",
            f"[{points(m['ci'][0])}, {points(m['ci'][1])}]",
            format_p(m["p_adjusted"]),
        )
    return [grid, test, changes]


def print_report(
    analysis: Analysis,
    console: Console | None = None,
    gates: tuple | None = None,
    decision=None,
    review=None,
) -> None:
    """The report as text; its first line is the decision line (no frame above it). Into a
    pipe or a file the lines keep their natural width: nothing is wrapped or cut."""
    if console is None:
        import sys

        piped = not sys.stdout.isatty()
        console = Console(
            highlight=False, markup=False, soft_wrap=piped, width=PIPE_WIDTH if piped else None
        )
    console.print(build_report(analysis, gates, console.width, decision, review))
