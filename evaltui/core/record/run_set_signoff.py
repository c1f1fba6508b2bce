"""The sign-off of three or more runs: one record that names every pair it covers.

A run-set record holds, for the baseline against each candidate, the complete two-run sign-off
record (`signoff.build_record` on the pair's family-adjusted analysis and its own review session,
so its tags, gates, override and decision are that pair's), with the set's omnibus test, the
family of pairs and the set's decision around them, and one content hash over the whole.
`verify RECORD BASE CAND CAND2 ...` (`verify.run_set`) recompares the whole set from the files
(the family changes each pair's verdict, so a pair cannot be replayed alone) and rebuilds every
pair's record.

When the runs carry several scorers, the family block holds every pair's every scorer
(`family.pairs[].metrics`, the report's metric rows adjusted over the set's family), which
`verify` rebuilds; a record written before it lacks the key and is verified without it.

Candidate-against-candidate pairs are part of the family (their p-values are adjusted with the
rest) but not of the sign-off: the release decision is about each candidate against what ships.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from evaltui import __version__
from evaltui.core.analysis.run_set import RunSetAnalysis
from evaltui.core.canonical import HASH_FIELD
from evaltui.core.decide.run_set import compared_scorer, several_scorers
from evaltui.core.record.session import OverrideRequired, judge_run_set
from evaltui.core.record.signoff import (
    ReviewerDecision,
    _hash,
    build_record,
    items_csv,
    write_record_files,
)
from evaltui.core.record.signoff_markdown import (
    GITHUB_COMMENT_LIMIT,
    decision_markdown,
    record_markdown,
)
from evaltui.core.report.pair import metrics_list
from evaltui.core.report.run_set import omnibus_lines, pair_effect, scorer_lines
from evaltui.core.textsafe import md_cell
from evaltui.core.words import format_p

RUN_SET_SIGNOFF_SCHEMA = "evaltui.signoff-runset/1"  # verify.record_file.read_record reads it


def build_run_set_record(
    run_set: RunSetAnalysis, sessions: dict[tuple[int, int], Any], decision: ReviewerDecision
) -> dict[str, Any]:
    """The set's record; `sessions` holds each baseline pair's review session. The override
    rule applies pair by pair (`build_record` raises `OverrideRequired` for the first pair an
    approval would override without a reason)."""
    set_decision = judge_run_set(run_set, sessions)
    pairs = []
    for pair in run_set.baseline_pairs:
        key = (pair.baseline, pair.candidate)
        try:
            pair_record = build_record(pair.analysis, sessions[key], decision)
        except OverrideRequired as exc:  # the words name the candidate the refusal is about
            names = run_set.names
            exc.args = (f"{names[pair.candidate]} against {names[pair.baseline]}: {exc}",)
            raise
        pairs.append(
            {"baseline": pair.baseline, "candidate": pair.candidate, "record": pair_record}
        )
    o = run_set.omnibus
    record: dict[str, Any] = {
        "schema": RUN_SET_SIGNOFF_SCHEMA,
        "tool": {"name": "evaltui", "version": __version__},
        "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "decision": set_decision.to_dict(),
        "reviewer": decision.reviewer,
        "reviewer_decision": decision.decision,
        "rationale": decision.rationale,
        "run_set": run_set.spec.to_dict(),
        "runs": [
            {"name": name, "path": str(run.source.path), "sha256": run.source.sha256}
            for name, run in zip(run_set.names, run_set.runs, strict=True)
        ],
        "omnibus": None
        if o is None
        else {"test": o.test, "statistic": o.statistic, "df": o.df, "p": o.p, "n": o.n},
        "family": {
            "method": run_set.multiplicity,
            "size": run_set.family_size,
            "label": run_set.family_label,
            "pairs": [
                {
                    "baseline": p.baseline,
                    "candidate": p.candidate,
                    "effect": pair_effect(p),
                    "p_raw": p.p_raw,
                    "p_adjusted": p.p_adjusted,
                    "verdict": p.verdict,
                    "metrics": metrics_list(p.analysis),
                }
                for p in run_set.pairs
            ],
        },
        "pairs": pairs,
    }
    record[HASH_FIELD] = _hash(record)
    return record


def run_set_markdown(record: dict[str, Any], run_set: RunSetAnalysis) -> str:
    """The PR comment: the set's decision first, the omnibus test and the family, then each
    pair's sign-off Markdown, each cut to its share of GitHub's comment limit."""
    names = [md_cell(n) for n in run_set.names]
    on = f" on {md_cell(compared_scorer(run_set))}" if several_scorers(run_set) else ""
    lines = [
        decision_markdown(record["decision"]),
        "",
        f"Reviewer **{md_cell(record['reviewer'])}** decided **{record['reviewer_decision']}** "
        f"for {len(record['pairs'])} pairs: {md_cell(record['rationale'])}",
        "",
        *omnibus_lines(run_set, md=True),
        "",
        f"Pairs in the family{on} ({md_cell(run_set.family_label)}, {run_set.multiplicity}):",
        "",
    ]
    for p in record["family"]["pairs"]:
        lines.append(
            f"- {names[p['candidate']]} vs {names[p['baseline']]}: {md_cell(p['effect'])}, "
            f"adjusted p {format_p(p['p_adjusted'])}, {p['verdict'].replace('_', ' ')}"
        )
    lines.append("")
    if several_scorers(run_set):  # every scorer decides: each one's result, named
        lines += [*scorer_lines(run_set, md=True), ""]
    head = "\n".join(lines)
    share = (GITHUB_COMMENT_LIMIT - len(head) - 500) // max(1, len(record["pairs"]))
    by_key = {(p.baseline, p.candidate): p for p in run_set.pairs}
    parts = [head]
    for entry in record["pairs"]:
        pair = by_key[(entry["baseline"], entry["candidate"])]
        title = f"## {names[entry['candidate']]} against {names[entry['baseline']]}"
        parts.append(title + "\n\n" + record_markdown(entry["record"], pair.analysis, share))
    return "\n".join(parts)


def run_set_csv(record: dict[str, Any], names: tuple[str, ...]) -> str:
    """Every pair's discordant items with tags and notes, a `pair` column first."""
    return items_csv(
        [
            (
                (("pair", f"{names[entry['candidate']]} vs {names[entry['baseline']]}"),),
                entry["record"]["items"],
            )
            for entry in record["pairs"]
        ]
    )


def write_run_set_record(
    record: dict[str, Any], run_set: RunSetAnalysis, prefix: str | Path
) -> tuple[Path, Path, Path]:
    """PREFIX.json, PREFIX.md and PREFIX.csv, written as a pair's record is
    (`signoff.write_record_files`: temporary names, fsync, the JSON renamed last)."""
    return write_record_files(
        prefix, record, run_set_markdown(record, run_set), run_set_csv(record, run_set.names)
    )
