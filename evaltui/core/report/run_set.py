"""The report for k runs: the first line, the omnibus test, the pairs, the pair matrix.

The decision it opens with is `decide.run_set`'s (the worst of the baseline's pairs); this
module renders it and the set's numbers as data, Markdown and text lines.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from evaltui import __version__
from evaltui.core.analysis.run_set import PairResult, RunSetAnalysis
from evaltui.core.canonical import json_number as _num
from evaltui.core.decide.effect import oriented_effect, row_effect
from evaltui.core.decide.run_set import RunSetDecision, compared_scorer, several_scorers
from evaltui.core.decide.vocabulary import VERDICT_SHORT
from evaltui.core.read.describe import describe
from evaltui.core.read.runs import PASSED
from evaltui.core.report.compared import run_text, runs_markdown
from evaltui.core.report.pair import metrics_list, report_dict
from evaltui.core.textsafe import md_cell, one_line
from evaltui.core.words import format_p, p_is, plural

RUN_SET_REPORT_SCHEMA = "evaltui.report-runset/1"


def pair_effect(pair: PairResult) -> str:
    """ "+8.0 pts [+2.2, +13.7]": the pair's effect and the interval its verdict rests on."""
    return oriented_effect(pair.analysis).text


def run_set_report_dict(run_set: RunSetAnalysis, decision: RunSetDecision) -> dict[str, Any]:
    """The k-run report as plain data (docs/report.md, "Three or more runs")."""
    by_pair = {(p.baseline, p.candidate): d for p, d in decision.pairs}
    o = run_set.omnibus
    return {
        "schema": RUN_SET_REPORT_SCHEMA,
        "tool": {"name": "evaltui", "version": __version__},
        "decision": decision.to_dict(),
        "runs": [
            {
                "name": name,
                "path": str(run.source.path),
                "sha256": run.source.sha256,
                "format": run.source.format,
                "described": describe(run).to_dict(),
            }
            for name, run in zip(run_set.names, run_set.runs, strict=True)
        ],
        "run_set": run_set.spec.to_dict(),
        "metric": run_set.metric,
        "scorer": compared_scorer(run_set),
        "analysis": run_set.kind,
        "omnibus": None
        if o is None
        else {
            "test": o.test,
            "label": o.label,
            "statistic": _num(o.statistic),
            "df": o.df,
            "p": _num(o.p),
            "n": o.n,
            "k": o.k,
            "informative": o.informative,
            "flags": list(o.flags),
        },
        "common_items": run_set.common_items,
        "multiplicity": {
            "method": run_set.multiplicity,
            "family_size": run_set.family_size,
            "family": run_set.family_label,
        },
        "pairs": [
            {
                "baseline": pair.baseline,
                "candidate": pair.candidate,
                "n": pair.analysis.paired.n,
                "effect": pair_effect(pair),
                "delta": _num(
                    pair.analysis.binary.delta
                    if pair.analysis.binary is not None
                    else pair.analysis.graded_comparison.mean_delta
                ),
                "ci": [_num(v) for v in pair.analysis.decision_ci],
                "ci_label": pair.analysis.decision_ci_label,
                "p_raw": _num(pair.p_raw),
                "p_test": pair.p_test,
                "p_adjusted": _num(pair.p_adjusted),
                "p_rank": _num(pair.p_rank),
                "p_rank_adjusted": _num(pair.p_rank_adjusted),
                "p_outcome": _num(pair.p_outcome),
                "p_outcome_adjusted": _num(pair.p_outcome_adjusted),
                "own_verdict": pair.own_verdict,
                "verdict": pair.verdict,
                "regressions": len(pair.analysis.regressions),
                "improvements": len(pair.analysis.improvements),
                # Every scorer of the pair, adjusted over the set's family (issue 24).
                "metrics": metrics_list(pair.analysis),
                "report": report_dict(
                    pair.analysis, decision=by_pair.get((pair.baseline, pair.candidate))
                )
                if pair.baseline == 0
                else None,
            }
            for pair in run_set.pairs
        ],
    }


def run_set_lines(run_set: RunSetAnalysis, decision: RunSetDecision, md: bool) -> list[str]:
    """The report as lines: plain text for a terminal or a pipe, or Markdown for a PR."""

    def strong(text: str) -> str:
        return f"**{text}**" if md else text

    def cell(text: str) -> str:
        return md_cell(text) if md else one_line(text, 200)

    names = [cell(n) for n in run_set.names]
    lines = [f"## {md_cell(decision.line)}" if md else one_line(decision.line, 2000), ""]
    for pair, d in decision.pairs:
        lines.append(f"{'- ' if md else '• '}{names[pair.candidate]}: {cell(d.line)}")
    lines.append("")
    lines += omnibus_lines(run_set, md)
    lines.append("")
    several = several_scorers(run_set)
    on = f" on {cell(compared_scorer(run_set))}" if several else ""
    lines.append(
        strong(f"Pairs{on} ({run_set.family_label}, p adjusted by {run_set.multiplicity})")
        + (":" if not md else "")
    )
    lines.append("")
    rank = run_set.kind == "graded"
    outcomes = any(p.p_outcome is not None for p in run_set.pairs)
    if md:
        head = "| baseline | candidate | effect | p | adjusted p |"
        rule = "|---|---|---|---:|---:|"
        if rank:
            head += " Wilcoxon adj. p |"
            rule += "---:|"
        if outcomes:
            head += " outcome mix adj. p |"
            rule += "---:|"
        lines += [head + " verdict |", rule + "---|"]
    for pair in run_set.pairs:
        verdict = VERDICT_SHORT[pair.verdict]
        if pair.own_verdict != pair.verdict:
            verdict += f" ({VERDICT_SHORT[pair.own_verdict]} before adjustment)"
        cells = [
            names[pair.baseline],
            names[pair.candidate],
            pair_effect(pair),
            format_p(pair.p_raw),
            format_p(pair.p_adjusted),
        ]
        if rank:
            cells.append(format_p(pair.p_rank_adjusted))
        if outcomes:
            cells.append(format_p(pair.p_outcome_adjusted))
        cells.append(verdict)
        if md:
            lines.append("| " + " | ".join(cells) + " |")
        else:
            lines.append(
                f"  {cells[1]} vs {cells[0]}: {cells[2]}, p {cells[3]} ({pair.p_test}), "
                f"adjusted {cells[4]}"
                + (f", Wilcoxon adjusted {format_p(pair.p_rank_adjusted)}" if rank else "")
                + (
                    f", outcome mix (Stuart-Maxwell) adjusted {format_p(pair.p_outcome_adjusted)}"
                    if outcomes
                    else ""
                )
                + f": {verdict}"
            )
    lines.append("")
    if several:
        lines += scorer_lines(run_set, md)
        lines.append("")
    lines += matrix_lines(run_set, md)
    lines.append("")
    runs = [
        (name, describe(run).to_dict(), run.source.sha256)
        for name, run in zip(run_set.names, run_set.runs, strict=True)
    ]
    if md:  # (the table escapes every cell, the names too)
        lines += runs_markdown([(name, r, sha256, None) for name, r, sha256 in runs])
    else:
        lines += ["What was compared:", ""]
        for name, r, sha256 in runs:
            lines.append(f"  {one_line(name, 200)}: {run_text(r)} · sha256 {sha256[:16]}…")
        lines.append("")
    if md:
        lines += [f"<sub>evaltui {__version__} · schema {RUN_SET_REPORT_SCHEMA}</sub>", ""]
    return lines


def scorer_lines(run_set: RunSetAnalysis, md: bool) -> list[str]:
    """Every scorer of every pair (issue 24): its effect, p, p adjusted over the family and
    verdict, the candidate and scorer named on each row; a regression of any scorer whose
    role decides blocks its candidate."""
    names = run_set.names
    title = (
        f"Every scorer (p adjusted by {run_set.multiplicity}: the {run_set.family_label} one "
        "family, the candidate pairs' scorers another)"
    )
    out = [f"**{title}**" if md else title + ":", ""]
    if md:
        out += [
            "| candidate | baseline | scorer | effect | p | adjusted p | verdict |",
            "|---|---|---|---|---:|---:|---|",
        ]
    for pair in run_set.pairs:
        for row in pair.analysis.metrics:
            verdict = VERDICT_SHORT.get(row.verdict, row.verdict)
            if row.unadjusted_verdict and row.unadjusted_verdict != row.verdict:
                verdict += f" ({VERDICT_SHORT[row.unadjusted_verdict]} before adjustment)"
            if row.role != "decides":
                verdict += f" ({row.role})"
            p_adjusted = format_p(row.p_adjusted) if row.in_family else "not adjusted"
            cand, base = names[pair.candidate], names[pair.baseline]
            effect = row_effect(row).text
            if md:
                cells = [cand, base, row.name, effect, format_p(row.p_raw), p_adjusted, verdict]
                out.append("| " + " | ".join(md_cell(c) for c in cells) + " |")
            else:
                out.append(
                    f"  {one_line(cand, 200)} vs {one_line(base, 200)}, "
                    f"{one_line(row.name, 200)}: {effect}, p {format_p(row.p_raw)} "
                    f"({row.p_test}), adjusted {p_adjusted}: {verdict}"
                )
    return out


def omnibus_lines(run_set: RunSetAnalysis, md: bool) -> list[str]:
    o = run_set.omnibus
    on = f" on {compared_scorer(run_set)}" if several_scorers(run_set) else ""
    if o is None:
        return [f"Omnibus test{on}: undefined ({run_set.common_items} items common to every run)"]
    what = "pass/fail" if run_set.kind == "binary" else "scores"
    if run_set.kind == "graded" and run_set.metric == PASSED:
        what = "pass rates over epochs"
    label = f"{o.label}{on}"
    if o.p is None:
        text = f"{label} ({what}): undefined, no item differs between the runs"
    else:
        text = (
            f"{label} ({what}, {o.n:,} items every run scored): "
            f"statistic {o.statistic:.3f} on {o.df} df, p {p_is(o.p)}"
        )
    lines = [f"**{text}**" if md else text]
    alpha = run_set.pairs[0].analysis.options.alpha
    some_pair = any(p.verdict in ("improved", "regressed") for p in run_set.pairs)
    if o.p is not None and o.p >= alpha and some_pair:
        lines.append(
            f"The omnibus test does not reject at alpha {alpha:g}, yet a pair does: the pair is "
            "adjusted for multiplicity on its own, but read it with care."
        )
    if any(p.analysis.clustered for p in run_set.pairs):
        lines.append(
            f"The items cluster, and {o.label} treats them as independent: its p is too small. "
            "The pairs' verdicts use the cluster-aware intervals."
        )
    if "few_informative" in o.flags:
        lines.append(
            f"Only {plural(o.informative, 'item')} "
            f"{'differs' if o.informative == 1 else 'differ'} between the runs: the chi-square "
            "approximation of the omnibus p is rough."
        )
    if run_set.common_items < max(p.analysis.paired.n for p in run_set.pairs):
        lines.append(
            f"{run_set.common_items:,} items are common to every run; each pair uses its own "
            "overlap (see its pairing report)."
        )
    return lines


def matrix_lines(run_set: RunSetAnalysis, md: bool) -> list[str]:
    """The k x k matrix: cell (row j, column i) is run j minus run i, with the interval the
    pair's verdict rests on, so a row reads "this run against each of the others"."""
    names = run_set.names
    on = f" on {compared_scorer(run_set)}" if several_scorers(run_set) else ""
    title = f"Matrix{on}: row minus column, interval, verdict after adjustment"
    out = [f"**{title}**" if md else title + ":", ""]
    cells: dict[tuple[int, int], str] = {}
    for row in range(run_set.k):
        for col in range(run_set.k):
            if row != col:
                cell = matrix_cell(run_set, row, col)
                cells[(row, col)] = f"{cell.mark} {cell.estimate} {cell.interval}".rstrip()
    if md:
        out.append("| | " + " | ".join(md_cell(n) for n in names) + " |")
        out.append("|---|" + "---|" * len(names))
        for j, name in enumerate(names):
            md_cells = [cells.get((j, i), "—") for i in range(len(names))]
            out.append(f"| {md_cell(name)} | " + " | ".join(md_cells) + " |")
    else:
        width = max(len(c) for c in cells.values()) + 2
        label = max(len(n) for n in names) + 2
        out.append(" " * label + "".join(one_line(n, width - 2).ljust(width) for n in names))
        for j, name in enumerate(names):
            text_cells = "".join(cells.get((j, i), "—").ljust(width) for i in range(len(names)))
            out.append(one_line(name, label - 2).ljust(label) + text_cells)
    out += ["", "▲ the row's run is better, ▼ worse, · no significant difference or no verdict"]
    return out


def _mirror_mark(mark: str) -> str:
    return {"▲": "▼", "▼": "▲"}.get(mark, mark)


# -- one cell of the matrix, for the review app (evaltui/ui/screens/matrix.py) ------------------


@dataclass(frozen=True, eq=False)
class MatrixCell:
    """Cell (row, col) of the matrix in parts: run `row` minus run `col`, with the mark,
    effect and interval `matrix_lines` prints in one string, so a screen can lay them out
    (the estimate above its interval) without parsing that string back."""

    row: int
    col: int
    pair: PairResult  # the pair both cells of the two runs show (oriented lower index first)
    mark: str  # ▲ the row's run is better, ▼ worse, · no significant difference or no verdict
    estimate: str  # "+8.0 pts": the row's run minus the column's, with its unit
    interval: str  # "[+2.2, +13.7]": the interval the pair's verdict rests on; "" if undefined

    @property
    def mirrored(self) -> bool:
        """The row is the pair's baseline: the pair read the other way round."""
        return self.row == self.pair.baseline


def matrix_cell(run_set: RunSetAnalysis, row: int, col: int) -> MatrixCell:
    """The off-diagonal cell (row, col) as `matrix_lines` shows it (ValueError on the
    diagonal: a run against itself has no pair)."""
    if row == col:
        raise ValueError(f"cell ({row}, {col}) is on the diagonal: a run has no pair with itself")
    pair = run_set.pair(row, col)
    sign = 1.0 if row == pair.candidate else -1.0
    mark = {"improved": "▲", "regressed": "▼"}.get(pair.verdict, "·")
    if sign < 0:
        mark = _mirror_mark(mark)
    effect = oriented_effect(pair.analysis, sign)
    return MatrixCell(row, col, pair, mark, effect.estimate, effect.interval)
