"""The sign-off of three or more runs: one record that names every pair it covers.

A run-set record holds, for the baseline against each candidate, the complete two-run sign-off
record (`signoff.build_record` on the pair's family-adjusted analysis and its own review session,
so its tags, gates, override and decision are that pair's), with the set's omnibus test, the
family of pairs and the set's decision around them, and one content hash over the whole.
`verify RECORD BASE CAND CAND2 ...` recompares the whole set from the files (the family changes
each pair's verdict, so a pair cannot be replayed alone) and rebuilds every pair's record.

Candidate-against-candidate pairs are part of the family (their p-values are adjusted with the
rest) but not of the sign-off: the release decision is about each candidate against what ships.
"""

from __future__ import annotations

import time
from dataclasses import replace
from pathlib import Path
from typing import Any

from evaltui import __version__
from evaltui.core.analysis.run_set import RUN_SET_SCHEMA, RunSetAnalysis, RunSetSpec, compare_runs
from evaltui.core.canonical import HASH_FIELD
from evaltui.core.errors import UsageError
from evaltui.core.read.runs import sha256_of
from evaltui.core.record.session import judge_run_set
from evaltui.core.record.signoff import (
    ReviewerDecision,
    _hash,
    build_record,
    items_csv,
    record_hash_ok,
    write_record_files,
)
from evaltui.core.record.signoff_markdown import (
    GITHUB_COMMENT_LIMIT,
    decision_markdown,
    record_markdown,
)
from evaltui.core.report.run_set import omnibus_lines, pair_effect
from evaltui.core.textsafe import md_cell
from evaltui.core.verify.pair import RUN_SET_RECORD
from evaltui.core.words import format_p

RUN_SET_SIGNOFF_SCHEMA = RUN_SET_RECORD  # verify.read_record reads it


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
        pairs.append(
            {
                "baseline": pair.baseline,
                "candidate": pair.candidate,
                "record": build_record(pair.analysis, sessions[key], decision),
            }
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
    lines = [
        decision_markdown(record["decision"]),
        "",
        f"Reviewer **{md_cell(record['reviewer'])}** decided **{record['reviewer_decision']}** "
        f"for {len(record['pairs'])} pairs: {md_cell(record['rationale'])}",
        "",
        *omnibus_lines(run_set, md=True),
        "",
        f"Pairs in the family ({md_cell(run_set.family_label)}, {run_set.multiplicity}):",
        "",
    ]
    for p in record["family"]["pairs"]:
        lines.append(
            f"- {names[p['candidate']]} vs {names[p['baseline']]}: {md_cell(p['effect'])}, "
            f"adjusted p {format_p(p['p_adjusted'])}, {p['verdict'].replace('_', ' ')}"
        )
    lines.append("")
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


def verify_run_set_record(record: dict[str, Any], paths: list[Path] | None) -> Any:
    """The set's hash; with the files, that they are the ones reviewed and that every pair's
    record rebuilds from them (the whole set is compared again: the family needs every pair)."""
    from evaltui.core.verify.pair import (
        HASH_ONLY,
        Verification,
        _shown,
        _verify_rebuilt,
        claims_problem,
        form_problem,
        policy_from_record,
    )

    problem = _form_problem(record)
    if problem is not None:
        return Verification(False, problem)
    if not record_hash_ok(record):
        return Verification(False, "the record's content does not match its content_hash")
    for index, entry in enumerate(record["pairs"]):
        pair_record = entry["record"]
        problem = form_problem(pair_record) or (
            None if record_hash_ok(pair_record) else "its content does not match its hash"
        )
        problem = problem or claims_problem(pair_record)
        if problem is not None:
            return Verification(False, f"pairs[{index}]: {problem}")
    if not paths:
        return Verification(True, HASH_ONLY)
    runs = record["runs"]
    if len(paths) != len(runs):
        return Verification(False, f"the record covers {len(runs)} runs; {len(paths)} files given")
    for index, (path, run) in enumerate(zip(paths, runs, strict=True)):
        actual = sha256_of(Path(path))
        if actual != run["sha256"]:
            return Verification(
                False,
                f"{_shown(path)} is not run {index + 1} ({_shown(run['name'])}) that was "
                f"reviewed (sha256 {actual[:16]}… instead of {run['sha256'][:16]}…)",
            )
    spec = RunSetSpec.from_dict(record["run_set"])
    spec = RunSetSpec(runs=tuple(Path(p) for p in paths), base=replace(spec.base, policy=None))
    try:
        policy = policy_from_record(record["pairs"][0]["record"]) if record["pairs"] else None
        run_set = compare_runs(spec, policy=policy)
    except UsageError as exc:
        return Verification(False, f"the record's comparison cannot be replayed: {_shown(exc)}")
    by_key = {(p.baseline, p.candidate): p for p in run_set.pairs}
    for entry in record["pairs"]:
        key = (entry["baseline"], entry["candidate"])
        if key not in by_key:
            return Verification(False, f"the record names a pair {key} the run set does not have")
        result = _verify_rebuilt(
            entry["record"], Path(paths[key[0]]), Path(paths[key[1]]), by_key[key].analysis
        )
        if not result.ok:
            name = run_set.names[key[1]]
            return Verification(False, f"the pair {name} vs {run_set.names[0]}: {result.reason}")
    if [e["baseline"] for e in record["pairs"]] != [0] * (len(runs) - 1):
        return Verification(False, "the record does not cover the baseline against every run")
    return Verification(
        True,
        f"the record is intact, the {len(runs)} files are the ones reviewed, and every pair's "
        "record rebuilds from them (statistics adjusted over the family, items, gates, tags and "
        "decision); who signed it and when only a signature can show",
    )


def _form_problem(record: dict[str, Any]) -> str | None:
    if record.get("schema") != RUN_SET_SIGNOFF_SCHEMA:
        return f"the record is not a {RUN_SET_SIGNOFF_SCHEMA} record"
    for key, kind in (
        ("runs", list),
        ("pairs", list),
        ("run_set", dict),
        ("decision", dict),
        (HASH_FIELD, str),
    ):
        if not isinstance(record.get(key), kind):
            return f"the record is malformed: {key} is missing or not a {kind.__name__}"
    if record["run_set"].get("schema") != RUN_SET_SCHEMA:
        return "the record is malformed: run_set is not a run set"
    for index, entry in enumerate(record["pairs"]):
        if not isinstance(entry, dict) or not isinstance(entry.get("record"), dict):
            return f"the record is malformed: pairs[{index}] has no record"
    return None
