"""The pair's report as lines: Markdown for a PR, and the lines the terminal report shares.

Rendered from `report_dict` (the data), so the forms cannot drift apart; the overall row of the
slice table reads the decision's interval and p (`overall_slice_rows`), as the first line does.
"""

from __future__ import annotations

import math
from typing import Any

from evaltui import __version__
from evaltui.core.analysis.cost import cost_comparison
from evaltui.core.analysis.pair import VERDICT_TEXT
from evaltui.core.analysis.pair_result import Analysis
from evaltui.core.decide.effect import OverallRow
from evaltui.core.report.agreement import agreement_markdown, has_reviews
from evaltui.core.report.compared import compared_markdown
from evaltui.core.report.cost import cost_markdown
from evaltui.core.report.pair import REPORT_SCHEMA, report_dict
from evaltui.core.report.team_lines import review_markdown
from evaltui.core.textsafe import md_cell, one_line
from evaltui.core.words import (
    delta_histogram_line,
    format_p,
    interval_digits,
    p_is,
    percent,
    points,
    signed,
)


def report_markdown(
    analysis: Analysis,
    max_ids: int = 50,
    gates: tuple[Any, ...] | None = None,
    decision: Any = None,
    heading: str | None = None,
    list_ids: bool = True,
    compared: bool = True,
    review: dict[str, Any] | None = None,
    agreement: dict[str, Any] | None = None,
) -> str:
    """A PR-comment rendering of the same facts; every value from a file is escaped.

    It opens with the decision line (as a heading), then the reasons behind it; `heading`
    replaces that opening (the sign-off Markdown has already said it)."""
    d = report_dict(analysis, gates, decision, review, agreement)
    lines = [heading] if heading else [f"## {md_cell(d['decision']['line'])}"]
    lines.append("")
    if not heading:
        lines += [f"- {md_cell(r['text'])}" for r in d["decision"]["reasons"]]
        lines.append("")
    if compared:  # the sign-off Markdown says it in its head
        lines += compared_markdown(d)
    lines += [
        f"**{md_cell(d['headline'])}**",
        "",
        f"Verdict: **{d['verdict']}** ({VERDICT_TEXT[d['verdict']]})",
        "",
    ]
    for warning in d["warnings"]:  # one paragraph each: consecutive quote lines would merge
        lines += [f"> ⚠ {md_cell(warning)}", ""]
    lines += _binary_markdown(d) if d["table"] is not None else graded_lines(analysis, d)
    lines += extra_lines(analysis, d)
    lines += (
        gate_lines(d) + metric_lines(analysis, d) + slice_lines(analysis, d) + category_lines(d)
    )
    cost = cost_comparison(analysis.paired)
    if cost is not None:
        lines += cost_markdown(cost)
    lines += review_markdown(d.get("review"))
    for title, key in (("Regressions", "regressions"), ("Improvements", "improvements")):
        if not list_ids:  # the sign-off lists them itself
            break
        ids = d[key]
        shown = ", ".join(f"`{md_cell(i, code=True)}`" for i in ids[:max_ids])
        more = f" … and {len(ids) - max_ids:,} more" if len(ids) > max_ids else ""
        lines.append(f"**{title} ({len(ids):,}):** {shown or 'none'}{more}")
        lines.append("")
    if agreement is not None and has_reviews(agreement):  # (the JSON carries it always)
        lines += agreement_markdown(agreement) + [""]
    lines += [f"<sub>evaltui {__version__} · schema {REPORT_SCHEMA}</sub>", ""]
    return "\n".join(lines)


def _binary_markdown(d: dict[str, Any]) -> list[str]:
    t = d["table"]
    lines = [
        "| | candidate pass | candidate fail |",
        "|---|---:|---:|",
        f"| **baseline pass** | {t['both_pass']} | {t['regressions']} (regressions) |",
        f"| **baseline fail** | {t['improvements']} (improvements) | {t['both_fail']} |",
        "",
        "| | passes | rate | Wilson CI |",
        "|---|---:|---:|---|",
    ]
    for arm in ("baseline", "candidate"):
        a = d[arm]
        lines.append(
            f"| {arm} | {a['passes']:,}/{d['n_paired']:,} | {percent(a['rate'])} | "
            f"[{percent(a['ci'][0])}, {percent(a['ci'][1])}] |"
        )
    delta, mc, un = d["delta"], d["mcnemar"], d["unpaired"]
    return lines + [
        "",
        f"- Delta (candidate − baseline): **{points(delta['estimate'])} pts**, "
        f"{delta['confidence'] * 100:g}% CI [{points(delta['ci'][0])}, {points(delta['ci'][1])}] "
        f"({delta['method']})",
        f"- McNemar on {mc['discordant']} discordant items: exact p {p_is(mc['exact_p'])}, "
        f"mid-p {p_is(mc['mid_p'])}, chi² p {p_is(mc['chi2_p'])} "
        f"(continuity-corrected {format_p(mc['chi2_cc_p'])})",
        f"- Unpaired contrast (wrong test, for comparison only): SE {un['se'] * 100:.2f} pts, "
        f"CI [{points(un['ci'][0])}, {points(un['ci'][1])}]",
        "",
    ]


def _fmt(value: float | None, in_points: bool) -> str:
    return "n/a" if value is None else signed(value, in_points)


def _bootstrap_source(g: dict[str, Any]) -> str:
    """Where the bootstrap intervals came from: seeded resamples, or the exact distribution
    (large lattice-valued inputs, stats/exact_bootstrap.py), which has no seed to quote."""
    if "exact_bootstrap" in g["flags"]:
        return "exact bootstrap distribution of the mean, by convolution: no resampling error"
    return f"{g['resamples']:,} resamples of items, seed {g['seed']}"


def _strong(text: str, md: bool) -> str:
    return f"**{text}**" if md else text


def _code(text: str, md: bool) -> str:
    return md_cell(text) if md else one_line(text)  # escaped: a code span keeps raw <img onerror>


def graded_lines(analysis: Analysis, d: dict[str, Any], md: bool = True) -> list[str]:
    """The graded analysis as lines: Markdown (`md`), or plain text for the terminal report."""
    g, p = d["graded"], analysis.in_points
    unit = " pts" if p else ""
    means = (
        f"baseline mean {d['baseline']['mean']:.4g}, candidate mean {d['candidate']['mean']:.4g}"
    )
    return [
        f"- Metric: {_code(d['metric'], md)} ({means}), {g['n']:,} paired items",
        f"- Mean per-item delta: {_strong(_fmt(g['mean_delta'], p) + unit, md)}, "
        f"{g['confidence'] * 100:g}% "
        f"{g['method']} bootstrap CI [{_fmt(g['ci'][0], p)}, {_fmt(g['ci'][1], p)}] "
        f"({_bootstrap_source(g)})",
        f"- Percentile CI [{_fmt(g['percentile_ci'][0], p)}, {_fmt(g['percentile_ci'][1], p)}], "
        f"BCa CI [{_fmt(g['bca_ci'][0], p)}, {_fmt(g['bca_ci'][1], p)}]",
        f"- For reference: paired t CI [{_fmt(g['t_ci'][0], p)}, {_fmt(g['t_ci'][1], p)}], "
        f"Wilcoxon signed-rank p {p_is(g['wilcoxon_p'])}",
        f"- Per-item deltas: {delta_histogram_line(analysis.deltas)}",
        "",
    ]


def extra_lines(analysis: Analysis, d: dict[str, Any], md: bool = True) -> list[str]:
    lines: list[str] = []
    p = analysis.in_points
    unit = " pts" if p else ""
    if d["epochs"]:
        for arm, e in d["epochs"].items():
            share = e["within_share"]
            lines.append(
                f"- Epochs, {arm}: {e['min']}–{e['max']} per item (mean {e['mean']:.2f})"
                + (", " + _strong("unequal", md) if e["unequal"] else "")
                + (
                    f"; {share * 100:.0f}% of the variance is within items"
                    if share is not None
                    else ""
                )
            )
    c = d["clusters"]
    if c:
        deff = c["design_effect"]  # Kish's, the variance ratio
        lines.append(
            f"- Clusters: {c['n_clusters']:,} over {c['n_items']:,} items; design effect "
            f"{'n/a' if deff is None else f'{deff:.2f}'} (Kish: variance ratio); cluster "
            f"bootstrap CI [{_fmt(c['ci'][0], p)}, {_fmt(c['ci'][1], p)}]{unit}; "
            f"naive item-level CI (ignores clusters, contrast) "
            f"[{_fmt(c['naive_ci'][0], p)}, {_fmt(c['naive_ci'][1], p)}]"
        )
    return [*lines, ""] if lines else []


GATE_MARK = {
    "passed": "✓ passed",
    "failed": "✗ FAILED",
    "pending": "… pending",
    "undecided": "? undecided",
}


def gate_lines(d: dict[str, Any]) -> list[str]:
    if not d["gates"]:
        return []
    lines = [f"**Release gates** (policy `{d['policy']['hash'][:12]}`):", ""]
    for g in d["gates"]:
        lines.append(f"- {GATE_MARK[g['status']]}: {md_cell(g['name'])} — {md_cell(g['detail'])}")
    return [*lines, ""]


def metric_lines(analysis: Analysis, d: dict[str, Any]) -> list[str]:
    rows = d["metrics"]
    if len(rows) < 2:
        return []
    adjust = analysis.policy.multiplicity if analysis.policy else "holm"
    lines = [
        f"| metric | delta | CI | p ({adjust}-adjusted) | raw p | test |",
        "|---|---:|---|---:|---:|---|",
    ]
    for r in rows:
        p = r["metric"] == "passed"
        adj = format_p(r["p_adjusted"]) if r["in_family"] else "monitor only"
        lines.append(
            f"| {md_cell(r['metric'])} | {_fmt(r['delta'], p)} | "
            f"[{_fmt(r['ci'][0], p)}, {_fmt(r['ci'][1], p)}] | {adj} | {format_p(r['p_raw'])} | "
            f"{r['p_test']} |"
        )
    return [*lines, ""]


def overall_slice_rows(analysis: Analysis, d: dict[str, Any]) -> list[dict[str, Any]]:
    """The slice table's rows as the text and Markdown reports print them, overall first: the
    overall row reads the decision's interval and p (`decide.effect.OverallRow`: cluster-aware
    when the items cluster), never the item-level ones the slice table computes beside the
    slices, so no export contradicts its first line. (The JSON keeps the slice table's own
    numbers under `slices`; the decision's are under `decision` and `clusters`.)"""
    overall = OverallRow.of(analysis)
    defined = not any(math.isnan(v) for v in overall.ci)
    rows = []
    for r in sorted(d["slices"], key=lambda r: not r["overall"]):
        if r["overall"] and defined:
            r = {**r, "ci": list(overall.ci), "p_adjusted": overall.p, "verdict": overall.verdict}
        rows.append(r)
    return rows


def slice_interval(r: dict[str, Any]) -> str:
    """A slice row's delta and interval in points: "+6.0 [-0.7, +12.4]" (the overall row
    with the decimals its first line gives the interval)."""
    k = interval_digits(r["ci"][0], r["ci"][1], True) if r["overall"] else 1
    return f"{points(r['delta'], k)} [{points(r['ci'][0], k)}, {points(r['ci'][1], k)}]"


def slice_lines(analysis: Analysis, d: dict[str, Any]) -> list[str]:
    rows = overall_slice_rows(analysis, d)
    if not rows:
        return []
    adjust = rows[0]["adjust"]
    lines = [
        f"| slice | n | baseline → candidate | regr. | impr. | delta [CI] | p ({adjust}) |",
        "|---|---:|---|---:|---:|---|---:|",
    ]
    for r in rows:
        t = r["table"]
        name = "**overall**" if r["overall"] else md_cell(r["name"])
        lines.append(
            f"| {name} | {r['n']} | {percent(r['baseline_rate'])} → {percent(r['candidate_rate'])}"
            f" | {t['regressions']} | {t['improvements']} | {slice_interval(r)} "
            f"| {format_p(r['p_adjusted'])} |"
        )
    return [*lines, ""]


def category_test_line(c: dict[str, Any]) -> str:
    """The Stuart-Maxwell result in words, as the text and Markdown reports print it."""
    t = c["stuart_maxwell"]
    if t["p"] is None:
        return "Stuart-Maxwell: undefined, no item changed category"
    moved = "the mix of outcomes changed" if c["rejects"] else "no significant change in the mix"
    line = (
        f"Stuart-Maxwell chi² = {t['statistic']:.2f} on {t['df']} df, p {p_is(t['p'])}: "
        f"{moved} (alpha {c['alpha']:g}); {c['moved']:,} of {c['n']:,} items changed category"
    )
    return line + (f"; {t['note']}" if t["note"] else "")


def category_lines(d: dict[str, Any]) -> list[str]:
    """The categories section in Markdown: the L x L table, the test, the per-level changes."""
    c = d.get("categories")
    if not c:
        return []
    levels = [md_cell(level) for level in c["levels"]]
    lines = [
        "**Outcome categories** (rows: baseline, columns: candidate)",
        "",
        "| baseline ↓ candidate → | " + " | ".join(levels) + " |",
        "|---|" + "---:|" * len(levels),
    ]
    for level, row in zip(levels, c["table"], strict=True):
        lines.append(f"| **{level}** | " + " | ".join(f"{v:,}" for v in row) + " |")
    lines += ["", f"- {md_cell(category_test_line(c))}", ""]
    lines += [
        f"| category | baseline | candidate | change [CI] | p ({c['adjust']}) |",
        "|---|---:|---:|---|---:|",
    ]
    for m in c["changes"]:
        lines.append(
            f"| {md_cell(m['level'])} | {m['baseline_count']:,} ({percent(m['baseline_share'])}) "
            f"| {m['candidate_count']:,} ({percent(m['candidate_share'])}) | "
            f"{points(m['delta'])} pts [{points(m['ci'][0])}, {points(m['ci'][1])}] | "
            f"{format_p(m['p_adjusted'])} |"
        )
    return [*lines, ""]
