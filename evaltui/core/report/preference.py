"""The `evaltui prefer` report as data (`evaltui.prefer/1`, docs/schema/prefer.schema.json),
as Markdown and as plain text. Every form starts with the decision's line.

System names and item ids are input text: the plain text goes through ``textsafe.one_line`` and
the Markdown through ``textsafe.md_cell``, so a name cannot move the cursor, set the terminal's
title or open HTML in a PR comment.
"""

from __future__ import annotations

from typing import Any

from evaltui import __version__
from evaltui.core.analysis.preference import PreferenceAnalysis
from evaltui.core.canonical import json_number as _num
from evaltui.core.decide.preference import PreferenceDecision
from evaltui.core.decide.vocabulary import VERDICT_SHORT
from evaltui.core.stats.bradley_terry import BT_STATUS_TEXT, BradleyTerryFit, Strength
from evaltui.core.stats.interval import Interval
from evaltui.core.stats.multiplicity import ADJUST_LABELS
from evaltui.core.stats.preference import FLAG_TEXT, TIE_RULE_TEXT, WinRate
from evaltui.core.stats.preference_matrix import PairResult
from evaltui.core.textsafe import md_cell, one_line
from evaltui.core.words import format_p, p_is, percent_interval

PREFERENCE_REPORT_SCHEMA = "evaltui.prefer/1"
NAME = 30  # a system's name in a table column
METHOD_LABELS = {"tango": "Tango score", "wilson": "Wilson", "wald": "Wald"}


# --------------------------------------------------------------------------------------------
# Data
# --------------------------------------------------------------------------------------------


def _ci(interval: Interval | None) -> list[float] | None:
    return None if interval is None else [interval.lower, interval.upper]


def _rate_dict(rate: WinRate) -> dict[str, Any]:
    return {
        "estimate": _num(rate.estimate),
        "ci": _ci(rate.ci),
        "method": None if rate.ci is None else rate.ci.method,
        "items": rate.items,
    }


def pair_dict(result: PairResult) -> dict[str, Any]:
    """One judged pair: system_b's win rate over system_a under both tie rules, the test."""
    c = result.comparison
    return {
        "system_a": result.system_a,
        "system_b": result.system_b,
        "a_better": c.counts.a_better,
        "b_better": c.counts.b_better,
        "ties": c.counts.ties,
        "n": c.counts.n,
        "primary": c.ties,
        "win_rate": {"split": _rate_dict(c.split), "drop": _rate_dict(c.drop)},
        "sign_test_p": c.sign_test_p,
        "p_adjusted": result.p_adjusted,
        "flags": list(c.flags),
        "own_verdict": c.verdict,
        "verdict": result.verdict,
    }


def _strength_dict(s: Strength) -> dict[str, Any]:
    ci = s.win_probability_ci
    return {
        "system": s.system,
        "status": s.status,
        "log_strength": _num(s.log_strength),
        "se": _num(s.se),
        "ci": _ci(s.ci),
        "win_probability": _num(s.win_probability),
        "win_probability_ci": None if ci is None else [ci[0], ci[1]],
        "wins": s.wins,
        "comparisons": s.comparisons,
    }


def bradley_terry_dict(fit: BradleyTerryFit | None) -> dict[str, Any] | None:
    if fit is None:
        return None
    return {
        "baseline": fit.baseline,
        "confidence": fit.confidence,
        "ties": "half a win each",
        "method": "maximum likelihood (Newton), Wald intervals from the observed information",
        "log_likelihood": fit.log_likelihood,
        "iterations": fit.iterations,
        "flags": list(fit.flags),
        "strengths": [_strength_dict(s) for s in fit.strengths],
        "covariance": {
            "systems": list(fit.estimated),
            "matrix": [list(row) for row in fit.covariance],
        },
    }


def preference_report_dict(
    analysis: PreferenceAnalysis, decision: PreferenceDecision
) -> dict[str, Any]:
    """The report as plain data; the keys are documented in docs/preferences.md."""
    a = analysis
    d = decision
    o = a.options
    matrix = [[_num(a.matrix.rate(row, col)) for col in a.systems] for row in a.systems]
    return {
        "schema": PREFERENCE_REPORT_SCHEMA,
        "tool": {"name": "evaltui", "version": __version__},
        "decision": {
            "status": d.status,
            "line": d.line,
            "exit_code": d.exit_code,
            "effect": d.effect,
            "verdicts": dict(d.verdicts),
            "reasons": [
                {"kind": r.kind, "text": r.text, "blocking": r.blocking} for r in d.reasons
            ],
        },
        "input": {
            "path": str(a.source.path),
            "format": a.source.format,
            "size": a.source.size,
            "sha256": a.source.sha256,
            "judgments": len(a.source.judgments),
            "items": a.items,
            "named_systems": a.source.named_systems,
        },
        "options": {
            "ties": o.ties,
            "confidence": o.confidence,
            "alpha": o.alpha,
            "multiplicity": o.multiplicity,
            "baseline": o.baseline,
            "candidate": o.candidate,
        },
        "systems": list(a.systems),
        "baseline": a.baseline,
        "candidates": list(a.candidates),
        "head_to_head": [
            {
                "candidate": c,
                "verdict": d.verdicts[c],
                "pair": None if r is None else pair_dict(r),
            }
            for c, r in a.head_to_head.items()
        ],
        "pairs": [pair_dict(r) for r in a.matrix.pairs],
        "matrix": {"systems": list(a.systems), "rule": a.matrix.ties, "win_rate": matrix},
        "bradley_terry": bradley_terry_dict(a.bradley_terry),
    }


# --------------------------------------------------------------------------------------------
# Words shared by the text and the Markdown
# --------------------------------------------------------------------------------------------


def _level(confidence: float) -> str:
    return f"{confidence * 100:g}%"


def _rate_text(rate: WinRate) -> str:
    ci = rate.ci
    return percent_interval(rate.estimate, ci.lower if ci else None, ci.upper if ci else None)


def _method_text(rate: WinRate) -> str:
    if rate.ci is None:
        return "undefined: every judgment is a tie" if rate.rule == "drop" else ""
    label = METHOD_LABELS.get(rate.ci.method, rate.ci.method)
    extra = f", {rate.items:,} decisive" if rate.rule == "drop" else f", {rate.items:,} items"
    return f"{label} {_level(rate.ci.confidence)}{extra}"


def _p_text(result: PairResult, family: int, multiplicity: str) -> str:
    p = f"exact sign test p {p_is(result.comparison.sign_test_p)}"
    if family >= 2 and multiplicity != "none" and result.comparison.sign_test_p is not None:
        p += f" ({ADJUST_LABELS[multiplicity]} over {family} pairs: {format_p(result.p_adjusted)})"
    return p


def _family(analysis: PreferenceAnalysis) -> int:
    return sum(1 for r in analysis.matrix.pairs if r.comparison.sign_test_p is not None)


def _strength_text(s: Strength) -> tuple[str, str, str]:
    """(log-strength, its interval, P(beats the baseline) with its interval)."""
    if s.status == "baseline":
        return "0", "(baseline)", "50%"
    if s.status != "estimated" or s.log_strength is None or s.ci is None:
        word = {"plus_infinity": "+infinity", "minus_infinity": "-infinity"}
        return word.get(s.status, "not identified"), "", BT_STATUS_TEXT[s.status]
    prob, prob_ci = s.win_probability, s.win_probability_ci
    assert prob is not None and prob_ci is not None
    return (
        f"{s.log_strength:+.3f}",
        f"[{s.ci.lower:+.3f}, {s.ci.upper:+.3f}] (se {s.se:.3f})",
        percent_interval(prob, prob_ci[0], prob_ci[1]),
    )


# --------------------------------------------------------------------------------------------
# Plain text
# --------------------------------------------------------------------------------------------


def _name(system: str, width: int = NAME) -> str:
    return one_line(system, width)


def _table(rows: list[list[str]], right: set[int]) -> list[str]:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    out = []
    for row in rows:
        cells = [
            cell.rjust(widths[i]) if i in right else cell.ljust(widths[i])
            for i, cell in enumerate(row)
        ]
        out.append("  " + "  ".join(cells).rstrip())
    return out


def preference_report_text(analysis: PreferenceAnalysis, decision: PreferenceDecision) -> str:
    """The report for a terminal or a log: the decision line first, plain text throughout."""
    a = analysis
    o = a.options
    lines = [decision.line]
    lines += [f"  - {r.text}" for r in decision.reasons]
    src = a.source
    lines += [
        "",
        f"input: {one_line(str(src.path), 120)} ({src.format}, {len(src.judgments):,} judgments "
        f"of {a.items:,} items, {len(a.systems)} systems; sha256 {src.sha256[:12]}…)",
        f"headline rule: {TIE_RULE_TEXT[o.ties]} (alternative: "
        f"{TIE_RULE_TEXT['drop' if o.ties == 'split' else 'split']}, shown beside it) · "
        f"{_level(o.confidence)} intervals · alpha {o.alpha:g}"
        + (f" · {ADJUST_LABELS[o.multiplicity]} over the pairs" if _family(a) >= 2 else ""),
        "",
        f"Head to head against the baseline {_name(a.baseline)}:",
    ]
    family = _family(a)
    for candidate, result in a.head_to_head.items():
        lines += _head_text(a, candidate, result, family)
    if len(a.systems) >= 3:
        lines += ["", *_pairs_text(a, family)]
        lines += ["", *_matrix_text(a)]
    if a.bradley_terry is not None:
        lines += ["", *_bt_text(a.bradley_terry)]
    return "\n".join(lines) + "\n"


def _head_text(
    a: PreferenceAnalysis, candidate: str, result: PairResult | None, family: int
) -> list[str]:
    name = _name(candidate)
    if result is None:
        return [f"  {name}: never judged against the baseline (no verdict)"]
    c = result.comparison
    out = [
        f"  {name}: {c.counts.n:,} items: {name} better {c.counts.b_better:,}, "
        f"{_name(a.baseline)} better {c.counts.a_better:,}, ties {c.counts.ties:,}",
    ]
    rows = []
    for rate in (c.primary, c.alternative):
        label = f"win rate, {TIE_RULE_TEXT[rate.rule]}"
        if rate is c.alternative:
            label += " (alternative)"
        rows.append([label, _rate_text(rate), _method_text(rate)])
    out += ["  " + line for line in _table(rows, set())]
    out.append(
        f"    {_p_text(result, family, a.options.multiplicity)} · {VERDICT_SHORT[result.verdict]}"
    )
    if result.verdict != c.verdict:
        out.append(f"    (its own interval alone says: {VERDICT_SHORT[c.verdict]})")
    out += [f"    ⚠ {FLAG_TEXT[f]}" for f in c.flags]
    return out


def _pairs_text(a: PreferenceAnalysis, family: int) -> list[str]:
    rule = TIE_RULE_TEXT[a.options.ties]
    head = [
        "B",
        "A",
        "n",
        "B better",
        "A better",
        "ties",
        f"B's win rate ({rule})",
        "p",
        "p adj",
        "verdict",
    ]
    rows = [head]
    for r in a.matrix.pairs:
        c = r.comparison
        rows.append(
            [
                _name(r.system_b, 20),
                _name(r.system_a, 20),
                f"{c.counts.n:,}",
                f"{c.counts.b_better:,}",
                f"{c.counts.a_better:,}",
                f"{c.counts.ties:,}",
                _rate_text(c.primary),
                format_p(c.sign_test_p),
                format_p(r.p_adjusted) if family >= 2 else "",
                VERDICT_SHORT[r.verdict],
            ]
        )
    label = ADJUST_LABELS[a.options.multiplicity]
    return [
        f"Every judged pair (B's win rate over A; exact sign test p, {label}-adjusted over "
        f"{family} pairs):",
        *_table(rows, {2, 3, 4, 5, 7, 8}),
    ]


def _matrix_text(a: PreferenceAnalysis) -> list[str]:
    names = [_name(s, 16) for s in a.systems]
    rows = [["", *names]]
    for row, label in zip(a.systems, names, strict=True):
        cells = []
        for col in a.systems:
            rate = None if row == col else a.matrix.rate(row, col)
            cells.append("—" if row == col else ("·" if rate is None else f"{rate * 100:.1f}%"))
        rows.append([label, *cells])
    return [
        f"Win-rate matrix: how often the row beats the column ({TIE_RULE_TEXT[a.options.ties]}; "
        "· never judged):",
        *_table(rows, set(range(1, len(names) + 1))),
    ]


def _bt_text(fit: BradleyTerryFit) -> list[str]:
    base = _name(fit.baseline)
    rows = [
        ["system", "log-strength", f"{_level(fit.confidence)} Wald interval", f"P(beats {base})"]
    ]
    for s in fit.strengths:
        rows.append([_name(s.system), *_strength_text(s)])
    out = [
        f"Bradley-Terry (ties as half a win each; {base}'s log-strength fixed at 0; maximum "
        "likelihood):",
        *_table(rows, set()),
    ]
    if "infinite_strength" in fit.flags or "not_identified" in fit.flags:
        out.append(
            "  ⚠ the maximum likelihood estimate does not exist for every system: some won or "
            "lost every comparison chain; their strengths are not numbers"
        )
    return out


# --------------------------------------------------------------------------------------------
# Markdown
# --------------------------------------------------------------------------------------------


def _md_row(cells: list[str]) -> str:
    return "| " + " | ".join(cells) + " |"


def preference_report_markdown(analysis: PreferenceAnalysis, decision: PreferenceDecision) -> str:
    """The report for a PR or a ticket: the decision line, then the same tables as the text."""
    a = analysis
    o = a.options
    family = _family(a)
    out = [f"**{md_cell(decision.line)}**", ""]
    out += [f"- {md_cell(r.text)}" for r in decision.reasons]
    if decision.reasons:
        out.append("")
    src = a.source
    out += [
        f"Input: {md_cell(str(src.path))} ({src.format}, {len(src.judgments):,} judgments of "
        f"{a.items:,} items, {len(a.systems)} systems), sha256 `{src.sha256}`. "
        f"Headline rule: {TIE_RULE_TEXT[o.ties]}; {_level(o.confidence)} intervals; "
        f"alpha {o.alpha:g}"
        + (f"; {ADJUST_LABELS[o.multiplicity]} over {family} pairs." if family >= 2 else "."),
        "",
        f"## Head to head against the baseline {md_cell(a.baseline)}",
        "",
        _md_row(
            [
                "candidate",
                "n",
                "candidate better",
                "baseline better",
                "ties",
                f"win rate, {TIE_RULE_TEXT[o.ties]}",
                f"win rate, {TIE_RULE_TEXT['drop' if o.ties == 'split' else 'split']}",
                "sign test p",
                "p adjusted",
                "verdict",
            ]
        ),
        _md_row(["---", *["---:"] * 8, "---"]),
    ]
    for candidate, r in a.head_to_head.items():
        if r is None:
            out.append(_md_row([md_cell(candidate), *[""] * 8, "never judged: no verdict"]))
            continue
        c = r.comparison
        out.append(
            _md_row(
                [
                    md_cell(candidate),
                    f"{c.counts.n:,}",
                    f"{c.counts.b_better:,}",
                    f"{c.counts.a_better:,}",
                    f"{c.counts.ties:,}",
                    _rate_text(c.primary),
                    _rate_text(c.alternative),
                    format_p(c.sign_test_p),
                    format_p(r.p_adjusted) if family >= 2 else "",
                    VERDICT_SHORT[r.verdict],
                ]
            )
        )
    flagged = [(cand, f) for cand, r in a.head_to_head.items() if r for f in r.comparison.flags]
    if flagged:
        out.append("")
        out += [f"- ⚠ {md_cell(cand)}: {FLAG_TEXT[f]}" for cand, f in flagged]
    if len(a.systems) >= 3:
        out += [
            "",
            "## Every judged pair",
            "",
            _md_row(
                [
                    "B",
                    "A",
                    "n",
                    "B better",
                    "A better",
                    "ties",
                    "B's win rate",
                    "p",
                    "p adjusted",
                    "verdict",
                ]
            ),
            _md_row(["---", "---", *["---:"] * 7, "---"]),
        ]
        for r in a.matrix.pairs:
            c = r.comparison
            out.append(
                _md_row(
                    [
                        md_cell(r.system_b),
                        md_cell(r.system_a),
                        f"{c.counts.n:,}",
                        f"{c.counts.b_better:,}",
                        f"{c.counts.a_better:,}",
                        f"{c.counts.ties:,}",
                        _rate_text(c.primary),
                        format_p(c.sign_test_p),
                        format_p(r.p_adjusted),
                        VERDICT_SHORT[r.verdict],
                    ]
                )
            )
        out += ["", "Win-rate matrix (the row beats the column):", ""]
        out.append(_md_row(["", *[md_cell(s) for s in a.systems]]))
        out.append(_md_row(["---", *["---:"] * len(a.systems)]))
        for row in a.systems:
            cells = []
            for col in a.systems:
                rate = None if row == col else a.matrix.rate(row, col)
                cells.append("—" if row == col else ("·" if rate is None else f"{rate * 100:.1f}%"))
            out.append(_md_row([md_cell(row), *cells]))
    fit = a.bradley_terry
    if fit is not None:
        out += [
            "",
            f"## Bradley-Terry ({md_cell(fit.baseline)} = 0; ties as half a win each)",
            "",
            _md_row(
                [
                    "system",
                    "log-strength",
                    f"{_level(fit.confidence)} Wald interval",
                    "P(beats baseline)",
                ]
            ),
            _md_row(["---", "---:", "---", "---"]),
        ]
        for s in fit.strengths:
            out.append(_md_row([md_cell(s.system), *(md_cell(t) for t in _strength_text(s))]))
    out += ["", f"<sub>evaltui {__version__} · schema {PREFERENCE_REPORT_SCHEMA}</sub>", ""]
    return "\n".join(out)
