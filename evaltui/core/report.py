"""The headless report in the two machine-and-PR forms: JSON (`evaltui.report/1`) and Markdown.

The terminal (Rich) rendering lives outside core, in `evaltui.render`; both read the same
`report_dict`, so the three forms cannot drift apart.
"""

from __future__ import annotations

import json
from typing import Any

from evaltui import __version__
from evaltui.core.analysis import VERDICT_TEXT, Analysis, format_p, percent, points
from evaltui.core.pairing import ArmReport
from evaltui.core.runs import Run
from evaltui.core.textsafe import md_cell

REPORT_SCHEMA = "evaltui.report/1"


def _interval(lower: float, upper: float) -> list[float]:
    return [lower, upper]


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


def report_dict(analysis: Analysis) -> dict[str, Any]:
    """The report as plain data; the keys are documented in the README."""
    c = analysis.binary
    t = c.table
    m = c.mcnemar
    paired = analysis.paired
    return {
        "schema": REPORT_SCHEMA,
        "tool": {"name": "evaltui", "version": __version__},
        "inputs": {
            "baseline": input_dict(paired.baseline, paired.report.baseline),
            "candidate": input_dict(paired.candidate, paired.report.candidate),
        },
        "pairing": pairing_dict(analysis),
        "options": {
            "ci_method": analysis.options.ci_method,
            "confidence": analysis.options.confidence,
            "alpha": analysis.options.alpha,
        },
        "n_paired": t.n,
        "table": {
            "both_pass": t.both_pass,
            "regressions": t.regressions,
            "improvements": t.improvements,
            "both_fail": t.both_fail,
        },
        "baseline": {
            "passes": t.baseline_passes,
            "rate": c.baseline_rate,
            "ci": _interval(c.baseline_ci.lower, c.baseline_ci.upper),
            "ci_method": "wilson",
        },
        "candidate": {
            "passes": t.candidate_passes,
            "rate": c.candidate_rate,
            "ci": _interval(c.candidate_ci.lower, c.candidate_ci.upper),
            "ci_method": "wilson",
        },
        "delta": {
            "estimate": c.delta,
            "ci": _interval(c.delta_ci.lower, c.delta_ci.upper),
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
            "ci": _interval(c.unpaired.ci.lower, c.unpaired.ci.upper),
        },
        "flags": list(c.flags),
        "warnings": list(analysis.warnings),
        "verdict": c.verdict,
        "headline": analysis.headline,
        "regressions": list(analysis.regressions),
        "improvements": list(analysis.improvements),
    }


def report_json(analysis: Analysis) -> str:
    return json.dumps(report_dict(analysis), indent=2, ensure_ascii=False) + "\n"


def report_markdown(analysis: Analysis, max_ids: int = 50) -> str:
    """A PR-comment rendering of the same facts; every value from a file is escaped."""
    d = report_dict(analysis)
    t = d["table"]
    lines = [
        "## evaltui paired comparison",
        "",
        f"**{d['headline']}**",  # built by us from numbers; ids only appear escaped below
        "",
        f"Verdict: **{d['verdict']}** ({VERDICT_TEXT[d['verdict']]})",
        "",
    ]
    if d["warnings"]:
        lines += [f"> ⚠ {md_cell(w)}" for w in d["warnings"]] + [""]
    lines += [
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
            f"| {arm} | {a['passes']}/{d['n_paired']} | {percent(a['rate'])} | "
            f"[{percent(a['ci'][0])}, {percent(a['ci'][1])}] |"
        )
    delta, mc, un = d["delta"], d["mcnemar"], d["unpaired"]
    lines += [
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
    for title, key in (("Regressions", "regressions"), ("Improvements", "improvements")):
        ids = d[key]
        shown = ", ".join(f"`{md_cell(i, code=True)}`" for i in ids[:max_ids])
        more = f" … and {len(ids) - max_ids} more" if len(ids) > max_ids else ""
        lines.append(f"**{title} ({len(ids)}):** {shown or 'none'}{more}")
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
