"""The headless report in the two machine-and-PR forms: JSON (`evaltui.report/1`) and Markdown.

The terminal (Rich) rendering lives outside core, in `evaltui.cli.render`; both read the same
`report_dict`, so the three forms cannot drift apart.
"""

from __future__ import annotations

import math
from typing import Any

from evaltui import __version__
from evaltui.core.analysis.pair import VERDICT_TEXT, Analysis
from evaltui.core.canonical import json_number as _num
from evaltui.core.compare.pairing import ArmReport, arm_columns
from evaltui.core.decide.effect import OverallRow
from evaltui.core.decide.pair import decide_unreviewed
from evaltui.core.read.runs import Run
from evaltui.core.stats.binary import BinaryComparison
from evaltui.core.stats.clusters import ClusteredComparison
from evaltui.core.stats.graded import EpochSummary, GradedComparison
from evaltui.core.textsafe import inert_json, md_cell, one_line
from evaltui.core.words import (
    delta_histogram_line,
    format_p,
    interval_digits,
    percent,
    points,
    signed,
)

REPORT_SCHEMA = "evaltui.report/2"


def _pair(values: tuple[float, float] | list[float]) -> list[float | None]:
    return [_num(values[0]), _num(values[1])]


def input_dict(run: Run, arm: ArmReport) -> dict[str, Any]:
    return {
        "path": run.source.path,
        "sha256": run.source.sha256,
        "size": run.source.size,
        "format": run.source.format,
        "items": arm.items,
        "records": arm.records,
        "metadata": dict(run.metadata),
    }


def pairing_dict(analysis: Analysis) -> dict[str, Any]:
    report = analysis.paired.report
    return {
        "paired": report.paired,
        "missing_in_baseline": list(report.missing_in_baseline),
        "missing_in_candidate": list(report.missing_in_candidate),
        "allow_missing": report.allow_missing,
        "on_error": report.on_error,
        "excluded_errors": {
            "baseline": report.baseline.excluded_records,
            "candidate": report.candidate.excluded_records,
        },
        "excluded_items": list(report.excluded_items),
        "errors_counted_as_failures": {
            "baseline": report.baseline.errored_records if report.on_error == "fail" else 0,
            "candidate": report.candidate.errored_records if report.on_error == "fail" else 0,
        },
        "epochs": {
            "baseline": [report.baseline.epochs_min, report.baseline.epochs_max],
            "candidate": [report.candidate.epochs_min, report.candidate.epochs_max],
        },
        "problems": report.problems,
    }


def options_dict(analysis: Analysis) -> dict[str, Any]:
    o = analysis.options
    return {
        "metric": analysis.metric,
        "ci_method": o.ci_method,
        "confidence": o.confidence,
        "alpha": o.alpha,
        "pass_threshold": o.pass_threshold,
        "threshold_metric": o.threshold_metric,
        "tolerance": o.tolerance,
        "resamples": o.resamples,
        "seed": o.seed,
        "bootstrap": o.bootstrap,
    }


def _binary_results(c: BinaryComparison) -> dict[str, Any]:
    t, m = c.table, c.mcnemar
    return {
        "table": {
            "both_pass": t.both_pass,
            "regressions": t.regressions,
            "improvements": t.improvements,
            "both_fail": t.both_fail,
        },
        "baseline": {
            "passes": t.baseline_passes,
            "rate": c.baseline_rate,
            "ci": [c.baseline_ci.lower, c.baseline_ci.upper],
            "ci_method": "wilson",
        },
        "candidate": {
            "passes": t.candidate_passes,
            "rate": c.candidate_rate,
            "ci": [c.candidate_ci.lower, c.candidate_ci.upper],
            "ci_method": "wilson",
        },
        "delta": {
            "estimate": c.delta,
            "ci": [c.delta_ci.lower, c.delta_ci.upper],
            "method": c.ci_method,
            "confidence": c.confidence,
        },
        "mcnemar": {
            "discordant": t.discordant,
            "exact_p": m.exact_p,
            "mid_p": m.mid_p,
            "chi2": m.chi2,
            "chi2_p": m.chi2_p,
            "chi2_cc": m.chi2_cc,
            "chi2_cc_p": m.chi2_cc_p,
        },
        "unpaired": {
            "label": "independent two-proportion Wald: the wrong test for paired runs, "
            "shown only as a contrast",
            "se": c.unpaired.se,
            "ci": [c.unpaired.ci.lower, c.unpaired.ci.upper],
        },
    }


def graded_dict(g: GradedComparison) -> dict[str, Any]:
    return {
        "n": g.n,
        "mean_delta": _num(g.mean_delta),
        "ci": _pair(g.ci),
        "method": g.method,
        "confidence": g.confidence,
        "resamples": g.resamples,
        "seed": g.seed,
        "percentile_ci": _pair(g.percentile_ci),
        "bca_ci": _pair(g.bca_ci),
        "t_ci": _pair(g.t_ci),
        "wilcoxon_p": _num(g.wilcoxon_p),
        "n_distinct": g.n_distinct,
        "flags": list(g.flags),
    }


def epochs_dict(epochs: dict[str, EpochSummary] | None) -> dict[str, Any] | None:
    if epochs is None:
        return None
    return {
        arm: {
            "min": e.epochs_min,
            "max": e.epochs_max,
            "mean": e.epochs_mean,
            "unequal": e.unequal,
            "items": e.n_items,
            "within_item_variance": _num(e.within_item_variance),
            "between_item_variance": _num(e.between_item_variance),
            "within_share": _num(e.within_share),
            "flags": list(e.flags),
        }
        for arm, e in epochs.items()
    }


def clusters_dict(c: ClusteredComparison | None) -> dict[str, Any] | None:
    if c is None:
        return None
    return {
        "n_clusters": c.n_clusters,
        "n_items": c.n_items,
        "mean_delta": _num(c.mean_delta),
        "clustered_se": _num(c.clustered_se),
        "naive_se": _num(c.naive_se),
        "design_effect": _num(c.design_effect),
        "se_ratio": _num(c.se_ratio),
        "ci": _pair(c.ci),
        "ci_method": "cluster bootstrap percentile",
        "naive_ci": _pair(c.naive_ci),
        "naive_label": "item-level normal interval that ignores clusters: the contrast",
        "confidence": c.confidence,
        "resamples": c.resamples,
        "seed": c.seed,
        "flags": list(c.flags),
        "labelled_clusters": c.labelled_clusters,
        "unlabelled_items": c.unlabelled_items,
        "verdict_ci": _pair(c.verdict_ci),
        "verdict_method": c.verdict_method,
        "verdict_p": _num(c.verdict_p),
    }


def metrics_list(analysis: Analysis) -> list[dict[str, Any]]:
    return [
        {
            "metric": r.metric,
            "kind": r.kind,
            "n": r.n,
            "delta": _num(r.delta),
            "ci": _pair(r.ci),
            "ci_method": r.ci_method,
            "p_raw": _num(r.p_raw),
            "p_test": r.p_test,
            "p_adjusted": _num(r.p_adjusted),
            "p_reference": _num(r.p_reference),
            "p_reference_test": r.p_reference_test,
            "in_family": r.in_family,
            "verdict": r.verdict,
            "unadjusted_verdict": r.unadjusted_verdict,
        }
        for r in analysis.metrics
    ]


def slices_list(analysis: Analysis) -> list[dict[str, Any]]:
    out = []
    for s in analysis.slices:
        t, c = s.table, s.comparison
        out.append(
            {
                "name": s.name,
                "overall": s.is_overall,
                "n": s.n,
                "table": {
                    "both_pass": t.both_pass,
                    "regressions": t.regressions,
                    "improvements": t.improvements,
                    "both_fail": t.both_fail,
                },
                "baseline_rate": c.baseline_rate,
                "candidate_rate": c.candidate_rate,
                "delta": c.delta,
                "ci": [c.delta_ci.lower, c.delta_ci.upper],
                "p_raw": _num(s.p_raw),
                "p_adjusted": _num(s.p_adjusted),
                "adjust": s.adjust,
                "verdict": s.verdict,
                "flags": list(c.flags),
            }
        )
    return out


def categories_dict(analysis: Analysis) -> dict[str, Any] | None:
    """The outcome categories' comparison (`categories.outcome_comparison`), or None."""
    c = getattr(analysis, "categorical", None)
    if c is None:
        return None
    t = c.test
    return {
        "levels": list(c.table.levels),
        "table": [list(row) for row in c.table.counts],
        "n": c.table.n,
        "moved": c.table.moved,
        "stuart_maxwell": {
            "statistic": _num(t.statistic),
            "df": t.df,
            "p": _num(t.p_value),
            "tested_levels": list(t.tested_levels),
            "dropped_levels": list(t.dropped_levels),
            "groups": t.groups,
            "note": t.note,
        },
        "alpha": c.alpha,
        "rejects": c.rejects,
        "ci_method": c.ci_method,
        "confidence": c.confidence,
        "adjust": c.adjust,
        "changes": [
            {
                "level": m.level,
                "baseline_count": m.baseline_count,
                "candidate_count": m.candidate_count,
                "baseline_share": m.baseline_share,
                "candidate_share": m.candidate_share,
                "delta": m.delta,
                "ci": [m.ci.lower, m.ci.upper],
                "exact_p": _num(m.exact_p),
                "p_adjusted": _num(m.p_adjusted),
            }
            for m in c.changes
        ],
        "flags": list(c.flags),
    }


def gates_list(gates: tuple[Any, ...] | list[dict] | None) -> list[dict[str, Any]] | None:
    """Evaluated gates as plain data (already-plain gates, from a record, pass through)."""
    if gates is None:
        return None
    if all(isinstance(g, dict) for g in gates):
        return [dict(g) for g in gates]
    out = []
    for g in gates:
        entry = {
            "name": g.name,
            "kind": g.kind,
            "slice": g.slice,
            "status": g.status,
            "detail": g.detail,
            "item_ids": list(g.item_ids),
        }
        if getattr(g, "summary", None) is not None:  # a margin's result (policy.margin)
            entry["summary"] = g.summary
            entry["margin"] = margin_dict(g.margin)
        out.append(entry)
    return out


def margin_dict(m: Any) -> dict[str, Any] | None:
    """A margin's numbers (stats.margins.MarginTest) as plain data; None while pending."""
    if m is None:
        return None
    return {
        "kind": m.kind,
        "margin": m.margin,
        "alpha": m.alpha,
        "level": m.level,
        "estimate": _num(m.estimate),
        "interval": _pair(m.interval),
        "interval_method": m.interval_method,
        "lower_is_better": m.lower_is_better,
        "test": m.test,
        "p_below": _num(m.p_below),
        "p_above": _num(m.p_above),
        "p": _num(m.p),
        "shown": m.shown,
        "undecided": m.undecided,
        "flags": list(m.flags),
    }


def policy_dict(analysis: Analysis) -> dict[str, Any] | None:
    p = analysis.policy
    if p is None:
        return None
    return {"path": p.source_path, "sha256": p.sha256, "hash": p.hash, "rules": p.canonical()}


def report_dict(
    analysis: Analysis, gates: tuple[Any, ...] | None = None, decision: Any = None
) -> dict[str, Any]:
    """The report as plain data; the keys are documented in docs/report.md.

    `decision` is the pair's decision (`record.session.decide_review`, which knows the
    reviewer's tags); without one it is decided from the analysis and the gates alone."""
    paired = analysis.paired
    if decision is None:
        plain = tuple(g for g in gates or () if not isinstance(g, dict))
        decision = decide_unreviewed(analysis, plain)
    out: dict[str, Any] = {
        "schema": REPORT_SCHEMA,
        "tool": {"name": "evaltui", "version": __version__},
        "design": "paired",
        "decision": decision if isinstance(decision, dict) else decision.to_dict(),
        "inputs": {
            "baseline": input_dict(paired.baseline, paired.report.baseline),
            "candidate": input_dict(paired.candidate, paired.report.candidate),
        },
        "pairing": pairing_dict(analysis),
        "options": options_dict(analysis),
        "spec": analysis.spec.to_dict() if analysis.spec is not None else None,
        "analysis": analysis.kind,
        "metric": analysis.metric,
        "n_paired": paired.n,
    }
    if analysis.binary is not None:
        out.update(_binary_results(analysis.binary))
        out["graded"] = None
    else:
        g = analysis.graded
        base_mean, cand_mean = arm_means(analysis)
        out.update(
            {
                "table": None,
                "baseline": {"mean": base_mean},
                "candidate": {"mean": cand_mean},
                "delta": {
                    "estimate": _num(g.mean_delta),
                    "ci": _pair(g.ci),
                    "method": f"bootstrap-{g.method}",
                    "confidence": g.confidence,
                },
                "mcnemar": None,
                "unpaired": None,
                "graded": graded_dict(g),
            }
        )
    out.update(
        {
            "epochs": epochs_dict(analysis.epochs),
            "clusters": clusters_dict(analysis.clusters),
            "metrics": metrics_list(analysis),
            "slices": slices_list(analysis),
            "categories": categories_dict(analysis),
            "policy": policy_dict(analysis),
            "gates": gates_list(gates),
            "flags": list(analysis.flags),
            "warnings": list(analysis.warnings),
            "verdict": analysis.verdict,
            "headline": analysis.headline,
            "regressions": list(analysis.regressions),
            "improvements": list(analysis.improvements),
        }
    )
    return out


def arm_means(analysis: Analysis) -> tuple[float | None, float | None]:
    items = analysis.paired.items
    cols = arm_columns(analysis.metric)
    return _num(items[cols[0]].mean()), _num(items[cols[1]].mean())


def report_json(analysis: Analysis) -> str:
    return inert_json(report_dict(analysis)) + "\n"


def report_markdown(
    analysis: Analysis,
    max_ids: int = 50,
    gates: tuple[Any, ...] | None = None,
    decision: Any = None,
    heading: str | None = None,
    list_ids: bool = True,
) -> str:
    """A PR-comment rendering of the same facts; every value from a file is escaped.

    It opens with the decision line (as a heading), then the reasons behind it; `heading`
    replaces that opening (the sign-off Markdown has already said it)."""
    d = report_dict(analysis, gates, decision)
    lines = [heading] if heading else [f"## {md_cell(d['decision']['line'])}"]
    lines.append("")
    if not heading:
        lines += [f"- {md_cell(r['text'])}" for r in d["decision"]["reasons"]]
        lines.append("")
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
    for title, key in (("Regressions", "regressions"), ("Improvements", "improvements")):
        if not list_ids:  # the sign-off lists them itself
            break
        ids = d[key]
        shown = ", ".join(f"`{md_cell(i, code=True)}`" for i in ids[:max_ids])
        more = f" … and {len(ids) - max_ids:,} more" if len(ids) > max_ids else ""
        lines.append(f"**{title} ({len(ids):,}):** {shown or 'none'}{more}")
        lines.append("")
    lines.append("| input | path | sha256 | items |")
    lines.append("|---|---|---|---:|")
    for arm in ("baseline", "candidate"):
        i = d["inputs"][arm]
        lines.append(
            f"| {arm} | `{md_cell(i['path'], code=True)}` | `{i['sha256'][:16]}…` | {i['items']} |"
        )
    lines += ["", f"<sub>evaltui {__version__} · schema {REPORT_SCHEMA}</sub>", ""]
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
        f"- McNemar on {mc['discordant']} discordant items: exact p = {format_p(mc['exact_p'])}, "
        f"mid-p = {format_p(mc['mid_p'])}, chi² p = {format_p(mc['chi2_p'])} "
        f"(continuity-corrected {format_p(mc['chi2_cc_p'])})",
        f"- Unpaired contrast (wrong test, for comparison only): SE {un['se'] * 100:.2f} pts, "
        f"CI [{points(un['ci'][0])}, {points(un['ci'][1])}]",
        "",
    ]


def _fmt(value: float | None, in_points: bool) -> str:
    return "n/a" if value is None else signed(value, in_points)


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
        f"({g['resamples']:,} resamples of items, seed {g['seed']})",
        f"- Percentile CI [{_fmt(g['percentile_ci'][0], p)}, {_fmt(g['percentile_ci'][1], p)}], "
        f"BCa CI [{_fmt(g['bca_ci'][0], p)}, {_fmt(g['bca_ci'][1], p)}]",
        f"- For reference: paired t CI [{_fmt(g['t_ci'][0], p)}, {_fmt(g['t_ci'][1], p)}], "
        f"Wilcoxon signed-rank p = {format_p(g['wilcoxon_p'])}",
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
        f"Stuart-Maxwell chi² = {t['statistic']:.2f} on {t['df']} df, p = {format_p(t['p'])}: "
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
