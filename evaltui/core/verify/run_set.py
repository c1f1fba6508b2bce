"""Verifying a run-set sign-off record: its hash, every pair's record, and given the files,
that they are the ones reviewed and that the whole set replays to the record (the family changes
each pair's verdict, so a pair cannot be replayed alone)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

from evaltui.core.analysis.run_set import RunSetSpec, compare_runs
from evaltui.core.analysis.step_progress import Progress
from evaltui.core.canonical import canonical_json
from evaltui.core.errors import UsageError
from evaltui.core.record.run_set_signoff import RUN_SET_SIGNOFF_SCHEMA
from evaltui.core.record.signoff import record_hash_ok
from evaltui.core.report.pair import metrics_list
from evaltui.core.verify.claims import claims_problem
from evaltui.core.verify.form import form_problem, run_set_form_problem
from evaltui.core.verify.hashing import phase, sha256s_said
from evaltui.core.verify.pair import HASH_ONLY
from evaltui.core.verify.rebuild import verify_rebuilt
from evaltui.core.verify.result import Verification, shown, shown_path
from evaltui.core.verify.spec_and_policy import policy_from_record


def verify_run_set_record(
    record: dict[str, Any], paths: list[Path] | None, progress: Progress | None = None
) -> Any:
    """The set's hash; with the files, that they are the ones reviewed and that every pair's
    record rebuilds from them (the whole set is compared again: the family needs every pair)."""
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
    hashes = sha256s_said(paths, phase(progress, 1))
    progress = phase(progress, 2)  # (the rebuild: the comparison, then each pair's record)
    for index, (path, run, actual) in enumerate(zip(paths, runs, hashes, strict=True)):
        if actual != run["sha256"]:
            return Verification(
                False,
                f"{shown_path(path)} is not run {index + 1} ({shown(run['name'])}) that was "
                f"reviewed (sha256 {actual[:16]}… instead of {run['sha256'][:16]}…)",
            )
    spec = RunSetSpec.from_dict(record["run_set"])
    spec = RunSetSpec(runs=tuple(Path(p) for p in paths), base=replace(spec.base, policy=None))
    try:
        policy = policy_from_record(record["pairs"][0]["record"]) if record["pairs"] else None
        run_set = compare_runs(spec, policy=policy, progress=progress, replay=True)
    except UsageError as exc:
        return Verification(False, f"the record's comparison cannot be replayed: {shown(exc)}")
    by_key = {(p.baseline, p.candidate): p for p in run_set.pairs}
    for entry in record["pairs"]:
        key = (entry["baseline"], entry["candidate"])
        if key not in by_key:
            return Verification(False, f"the record names a pair {key} the run set does not have")
        result = verify_rebuilt(
            entry["record"],
            Path(paths[key[0]]),
            Path(paths[key[1]]),
            by_key[key].analysis,
            progress,
        )
        if not result.ok:
            name = run_set.names[key[1]]
            return Verification(False, f"the pair {name} vs {run_set.names[0]}: {result.reason}")
    problem = _family_problem(record, run_set)
    if problem is not None:
        return Verification(False, problem)
    if [e["baseline"] for e in record["pairs"]] != [0] * (len(runs) - 1):
        return Verification(False, "the record does not cover the baseline against every run")
    return Verification(
        True,
        f"the record is intact, the {len(runs)} files are the ones reviewed, and every pair's "
        "record rebuilds from them (statistics adjusted over the family, items, gates, tags and "
        "decision); who signed it and when only a signature can show",
    )


def _family_problem(record: dict[str, Any], run_set: Any) -> str | None:
    """Every scorer of every pair (`family.pairs[].metrics`) as the replay computes it. Only
    what the record carries is compared: a record written before the key existed has none."""
    by_key = {(p.baseline, p.candidate): p for p in run_set.pairs}
    for entry in record["family"]["pairs"]:
        if "metrics" not in entry:
            continue
        pair = by_key.get((entry.get("baseline"), entry.get("candidate")))
        if pair is None:
            key = (entry.get("baseline"), entry.get("candidate"))
            return f"the record's family names a pair {key} the run set does not have"
        rebuilt = canonical_json(metrics_list(pair.analysis))
        if canonical_json(entry["metrics"]) != rebuilt:
            base, cand = run_set.names[pair.baseline], run_set.names[pair.candidate]
            return (
                f"the family's scorers of {shown(cand)} vs {shown(base)} differ from what the "
                "files give (family.pairs[].metrics)"
            )
    return None


def _form_problem(record: dict[str, Any]) -> str | None:
    if record.get("schema") != RUN_SET_SIGNOFF_SCHEMA:
        return f"the record is not a {RUN_SET_SIGNOFF_SCHEMA} record"
    return run_set_form_problem(record)  # against its declaration, core/record/shape.py
