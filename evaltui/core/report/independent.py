"""The report of an independent (unpaired) comparison: the data (`evaltui.report/2` with
`design: "independent"`), its Markdown, and the lines the terminal report (`evaltui.cli.render`)
shares.

The same schema, the same decision and the same first line as the paired report (`report`,
whose helpers these use), but none of its paired keys: no 2x2 table, McNemar test or item
lists, because there are no pairs, and a key that held a paired number would be read as one.
"""

from __future__ import annotations

from typing import Any

from evaltui import __version__
from evaltui.core.analysis.independent import LABEL, VERDICT_TEXT, IndependentAnalysis
from evaltui.core.canonical import json_number as _num
from evaltui.core.report.compared import compared_markdown
from evaltui.core.report.pair import REPORT_SCHEMA, input_dict, options_dict, policy_dict
from evaltui.core.stats.independent import (
    MIN_EXPECTED,
    SMALL_ARM,
    ArmSummary,
    IndependentComparison,
    TwoSampleTest,
)
from evaltui.core.textsafe import md_cell, one_line
from evaltui.core.words import p_is, percent, signed

SMALL_ARM_RULE = (
    f"Fisher's exact test is the test when an arm has fewer than {SMALL_ARM} items or an "
    f"expected cell count under the pooled null is below {MIN_EXPECTED:g}; otherwise the "
    "two-proportion z-test (pooled); both are reported"
)
CI_WORDS = {
    "newcombe": "Newcombe hybrid score interval for independent proportions",
    "welch": "Welch interval for the difference in means",
}


def _test_dict(test: TwoSampleTest | None) -> dict[str, Any] | None:
    if test is None:
        return None
    return {
        "name": test.name,
        "label": test.label,
        "statistic": _num(test.statistic),
        "df": _num(test.df),
        "p": _num(test.p),
    }


def _arm_dict(arm: ArmSummary, kind: str) -> dict[str, Any]:
    return {
        "n": arm.n,
        "passes": arm.passes,
        "rate": arm.value if kind == "binary" else None,
        "mean": arm.value if kind == "graded" else None,
        "sd": _num(arm.sd),
        "ci": [_num(arm.ci.lower), _num(arm.ci.upper)],
        "ci_method": arm.ci.method,
    }


def comparison_dict(c: IndependentComparison) -> dict[str, Any]:
    """The statistics of an independent comparison as plain data (docs/report.md)."""
    return {
        "kind": c.kind,
        "baseline": _arm_dict(c.baseline, c.kind),
        "candidate": _arm_dict(c.candidate, c.kind),
        "delta": {
            "estimate": _num(c.delta),
            "ci": [_num(c.ci.lower), _num(c.ci.upper)],
            "method": c.ci.method,
            "confidence": c.confidence,
        },
        "alpha": c.alpha,
        "test": _test_dict(c.test),
        "other_test": _test_dict(c.other_test),
        "small_arm": c.small_arm,
        "min_expected": _num(c.min_expected),
        "small_arm_rule": SMALL_ARM_RULE if c.kind == "binary" else None,
        "lower_is_better": c.lower_is_better,
        "flags": list(c.flags),
        "verdict": c.verdict,
    }


def independent_report_dict(analysis: IndependentAnalysis, decision: Any = None) -> dict[str, Any]:
    """The report of an independent comparison as plain data; see docs/report.md."""
    from evaltui.core.decide.independent import decide_independent

    if decision is None:
        spec = analysis.spec
        decision = decide_independent(
            analysis, accept_mismatch=bool(spec is not None and spec.accept_mismatch)
        )
    arms = {"baseline": analysis.baseline, "candidate": analysis.candidate}
    return {
        "schema": REPORT_SCHEMA,
        "tool": {"name": "evaltui", "version": __version__},
        "design": "independent",
        "design_label": LABEL,
        "design_choice": analysis.design.to_dict(),
        "decision": decision if isinstance(decision, dict) else decision.to_dict(),
        "inputs": {name: input_dict(arm.run, arm.report) for name, arm in arms.items()},
        "arms": {
            name: {
                "items": arm.n,
                "records": arm.report.records,
                "errored_records": arm.report.errored_records,
                "excluded_records": arm.report.excluded_records,
                "epochs": [arm.report.epochs_min, arm.report.epochs_max],
            }
            for name, arm in arms.items()
        },
        "on_error": analysis.on_error,
        "options": options_dict(analysis),  # type: ignore[arg-type]
        "spec": analysis.spec.to_dict() if analysis.spec is not None else None,
        "analysis": analysis.kind,
        "metric": analysis.metric,
        "independent": comparison_dict(analysis.comparison),
        "policy": policy_dict(analysis),  # type: ignore[arg-type]
        "gates": None,
        "flags": list(analysis.flags),
        "warnings": list(analysis.warnings),
        "verdict": analysis.verdict,
        "headline": analysis.headline,
    }


def _bound(value: float | None, in_points: bool) -> str:
    return "n/a" if value is None else signed(value, in_points)


def _rate_or_mean(value: float | None, binary: bool) -> str:
    if value is None:
        return "n/a"
    return percent(value) if binary else f"{value:.4g}"


def _test_line(test: dict[str, Any] | None) -> str:
    if test is None:
        return ""
    parts = [test["label"]]
    if test["statistic"] is not None:
        symbol = "t" if test["name"] in ("welch_t", "permutation_welch_t") else "z"
        parts.append(f"{symbol} = {test['statistic']:.3f}")
    if test["df"] is not None:
        parts.append(f"df {test['df']:.1f}")
    parts.append(f"p {p_is(test['p'])}")
    return ", ".join(parts)


def comparison_lines(d: dict[str, Any], md: bool = True) -> list[str]:
    """The numbers of an independent report as lines: Markdown (`md`), or plain text for the
    terminal report (the arms' table is the caller's there)."""
    c = d["independent"]
    in_points = d["metric"] == "passed"
    unit = " pts" if in_points else ""
    delta = c["delta"]
    strong = (lambda s: f"**{s}**") if md else (lambda s: s)
    lines = []
    if md:
        header, rows = arm_rows(d)
        lines.append("| arm | " + " | ".join(header[1:]) + " |")
        lines.append("|---|---:|---:|---:|---|")
        lines += ["| " + " | ".join(row) + " |" for row in rows]
        lines.append("")
    level = f"{delta['confidence'] * 100:g}%"
    lines.append(
        f"- Difference (candidate − baseline): "
        f"{strong(_bound(delta['estimate'], in_points) + unit)}, {level} CI "
        f"[{_bound(delta['ci'][0], in_points)}, {_bound(delta['ci'][1], in_points)}] "
        f"({CI_WORDS[delta['method']]})"
    )
    lines.append(f"- The test the verdict rests on: {_test_line(c['test'])}")
    if c["other_test"] is not None:
        lines.append(f"- Beside it: {_test_line(c['other_test'])}")
    if c["small_arm_rule"]:
        smallest = c["min_expected"]
        lines.append(
            f"- {c['small_arm_rule']} (here: arms of {c['baseline']['n']:,} and "
            f"{c['candidate']['n']:,} items, smallest expected count "
            f"{'n/a' if smallest is None else f'{smallest:.1f}'})"
        )
    return [*lines, ""]


def independent_report_markdown(analysis: IndependentAnalysis, decision: Any = None) -> str:
    """A PR-comment rendering of the same facts; every value from a file is escaped."""
    d = independent_report_dict(analysis, decision)
    lines = [f"## {md_cell(d['decision']['line'])}", ""]
    lines += [f"- {md_cell(r['text'])}" for r in d["decision"]["reasons"]]
    lines += [
        "",
        f"**{md_cell(d['headline'])}**",
        "",
        f"Verdict: **{d['verdict']}** ({VERDICT_TEXT[d['verdict']]})",
        "",
    ]
    for warning in d["warnings"]:
        lines += [f"> ⚠ {md_cell(warning)}", ""]
    lines += comparison_lines(d, md=True)
    lines += compared_markdown(d)  # (each run's file relative: never an absolute local path)
    lines += [f"<sub>evaltui {__version__} · schema {REPORT_SCHEMA} · {LABEL}</sub>", ""]
    return "\n".join(lines)


def input_lines(d: dict[str, Any]) -> list[str]:
    """The two inputs, one plain line each (the terminal report's last lines)."""
    out = []
    for arm in ("baseline", "candidate"):
        i = d["inputs"][arm]
        out.append(
            f"{arm}: {one_line(i['described']['file'])} ({i['format']}, "
            f"{d['arms'][arm]['items']:,} items, sha256 {i['sha256'][:16]}…)"
        )
    return out


def arm_rows(d: dict[str, Any]) -> tuple[tuple[str, ...], list[tuple[str, ...]]]:
    """The arms' table for the terminal: its header and one row per arm."""
    c = d["independent"]
    binary = d["analysis"] == "binary"
    header = (
        ("", "items", "passes", "rate", "Wilson CI")
        if binary
        else ("", "items", "mean", "SD", "t CI")
    )
    rows: list[tuple[str, ...]] = []
    for name in ("baseline", "candidate"):
        a = c[name]
        low, high = a["ci"]
        ci = f"[{_rate_or_mean(low, binary)}, {_rate_or_mean(high, binary)}]"
        if binary:
            rows.append((name, f"{a['n']:,}", f"{a['passes']:,}", percent(a["rate"]), ci))
        else:
            sd = "n/a" if a["sd"] is None else f"{a['sd']:.4g}"
            rows.append((name, f"{a['n']:,}", f"{a['mean']:.4g}", sd, ci))
    return header, rows
