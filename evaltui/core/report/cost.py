"""The cost comparison (`analysis.cost`) in words: one headline for the app's full header, the
lines of the text report and the Markdown table of the report and the sign-off.

Each compared figure reads "median per item A → B; mean difference +x (95% CI [l, h]),
+r% of the baseline's mean"; the limits read "stopped by a limit: a → b items (exact McNemar
p)", or "no item stopped in one run only" when the runs never disagree (the test is then
undefined, never p = 1).
"""

from __future__ import annotations

import math
from typing import Any

from evaltui.core.analysis.cost import CostComparison, CostFigure, LimitHits
from evaltui.core.textsafe import md_cell

LABEL = {
    "total_tokens": "tokens",
    "input_tokens": "input tokens",
    "output_tokens": "output tokens",
    "reasoning_tokens": "reasoning tokens",
    "total_time": "time (s)",
    "working_time": "working time (s)",
    "retries": "retries",
}


def _number(value: float, name: str) -> str:
    if name.endswith("_time"):
        return f"{value:.2f}"
    return f"{value:,.0f}" if abs(value) >= 100 or value == int(value) else f"{value:.2f}"


def _signed(value: float, name: str) -> str:
    return ("+" if value > 0 else "") + _number(value, name)


def cost_dict(cost: CostComparison) -> dict[str, Any]:
    """The report's `cost` block (`shape_cost.CostReport`)."""

    def difference(f: CostFigure) -> dict[str, Any] | None:
        d = f.difference
        if d is None:
            return None
        return {
            "mean": d.mean_delta,
            "ci": list(d.ci),
            "confidence": d.confidence,
            "resamples": d.resamples,
            "seed": d.seed,
            "relative": f.relative,
            "relative_ci": _bounds(f.relative_ci),
        }

    limits = cost.limits
    return {
        "n_items": cost.n_items,
        "figures": [
            {
                "figure": f.name,
                "n": f.n,
                "missing": f.missing,
                "median": list(f.median),
                "mean": list(f.mean),
                "total": list(f.total),
                "difference": difference(f),
            }
            for f in _ordered(cost)
        ],
        "limits": None
        if limits is None
        else {
            "items": list(limits.items),
            "samples": list(limits.samples),
            "by_type": [dict(t) for t in limits.by_type],
            "exact_p": limits.exact_p,
        },
        "errors": list(cost.errors),
    }


def _bounds(ci: tuple[float, float] | None) -> list[float | None] | None:
    """An interval for JSON: an infinite bound (growth from a resample's zero baseline) is
    null, as msgspec writes it, so a recomputed block equals the recorded one."""
    if ci is None:
        return None
    return [v if math.isfinite(v) else None for v in ci]


def figure_words(figure: CostFigure) -> str:
    """One figure: its medians per item, then the paired difference when it is compared."""
    name = figure.name
    words = (
        f"{LABEL.get(name, name)}: median per item {_number(figure.median[0], name)} → "
        f"{_number(figure.median[1], name)}"
    )
    d = figure.difference
    if d is not None:
        low, high = d.ci
        words += (
            f"; mean difference {_signed(d.mean_delta, name)} "
            f"({d.confidence:.0%} CI [{_signed(low, name)}, {_signed(high, name)}])"
        )
        if figure.relative is not None:
            words += f", {figure.relative:+.0%} of the baseline's mean"
    if figure.missing:
        words += f" ({figure.missing:,} item(s) without it in one run left out)"
    return words


def limit_words(limits: LimitHits) -> str:
    """The items a limit stopped per run and the exact paired test on the disagreements."""
    a, b = limits.items
    kinds = [", ".join(f"{k} {v}" for k, v in sorted(t.items())) or "none" for t in limits.by_type]
    words = f"stopped by a limit: {a} → {b} items (samples by limit: {kinds[0]} → {kinds[1]})"
    if limits.exact_p is None:
        return words + "; no item stopped in one run only, nothing to test"
    return words + f"; exact McNemar p {limits.exact_p:.3g} over the items only one run hit"


def cost_lines(cost: CostComparison) -> list[str]:
    """Every line of the comparison, compared figures first."""
    order = ("total_tokens", "working_time", "total_time")
    figures = sorted(
        cost.figures,
        key=lambda f: (f.name not in order, order.index(f.name) if f.name in order else 0),
    )
    lines = [figure_words(f) for f in figures if f.name != "retries"]
    retries = cost.figure("retries")
    if retries is not None:
        lines.append(f"retried attempts: {retries.total[0]:,.0f} → {retries.total[1]:,.0f}")
    if cost.limits is not None:
        lines.append(limit_words(cost.limits))
    lines.append(f"samples ended by an error: {cost.errors[0]:,} → {cost.errors[1]:,}")
    return lines


def _ordered(cost: CostComparison) -> list[CostFigure]:
    """The compared figures first (tokens, working time, time), then the others."""
    first = ("total_tokens", "working_time", "total_time")
    return sorted(cost.figures, key=lambda f: first.index(f.name) if f.name in first else 9)


def cost_headline(cost: CostComparison) -> str:
    """One line for the app's full header: tokens and working time relative, limits."""
    parts = []
    for name in ("total_tokens", "working_time"):
        figure = cost.figure(name)
        if figure is not None and figure.relative is not None and figure.relative_ci is not None:
            low, high = figure.relative_ci
            label = LABEL[name].removesuffix(" (s)")
            parts.append(f"{label} {figure.relative:+.0%} [{low:+.0%}, {high:+.0%}]")
    if cost.limits is not None:
        a, b = cost.limits.items
        p = cost.limits.exact_p
        parts.append(f"limit hits {a} → {b}" + (f" (exact p {p:.3g})" if p is not None else ""))
    return "cost: " + " · ".join(parts) if parts else ""


def cost_markdown(cost: CostComparison) -> list[str]:
    """The report's "Cost and limits" section: a table of the figures, then the limits."""
    lines = [
        "### Cost and limits (per item, paired)",
        "",
        "| figure | baseline median | candidate median | mean difference (95% CI) | relative |",
        "|---|---:|---:|---|---:|",
    ]
    for figure in _ordered(cost):
        if figure.name == "retries":
            continue
        name = figure.name
        d = figure.difference
        diff = (
            f"{_signed(d.mean_delta, name)} [{_signed(d.ci[0], name)}, {_signed(d.ci[1], name)}]"
            if d is not None
            else "—"
        )
        relative = f"{figure.relative:+.0%}" if figure.relative is not None else "—"
        lines.append(
            f"| {md_cell(LABEL.get(name, name))} | {_number(figure.median[0], name)} | "
            f"{_number(figure.median[1], name)} | {diff} | {relative} |"
        )
    lines.append("")
    tail = [line for line in cost_lines(cost) if line.split(":")[0] not in LABEL.values()]
    lines += [f"- {md_cell(line)}" for line in tail]
    lines.append("")
    return lines
