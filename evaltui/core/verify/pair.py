"""Checking a sign-off record after the fact: untouched, on the same files, and saying only
what the files, its policy and its tags give.

`verify_record` stops at the first "no":

1. the record's form: every key it must have, of the type it must be, no key written twice
   (``verify/form.py``: the record's declaration, ``core/record/shape.py``, checks it;
   ``verify/record_file.py`` reads the file);
2. its content hash. That is an unkeyed sha256 of the rest of the record, so it catches an edit
   made without recomputing it, nothing more: anyone can edit a record and hash it again;
3. its own claims against each other (``verify/claims.py``): the triage counts, the untriaged
   ids and the counts by tag against its items, and the override rule (an approval over
   untriaged, confirmed or regressed items or failed gates carries an override naming exactly
   those);
4. with the input files: they are the ones reviewed (sha256), and the whole record is built
   again from them (``verify/rebuild.py``) as `signoff.build_record` builds it, with the
   record's own comparison spec, policy rules (the policy file is not needed), reviewer's
   decision and tags, then compared key by key: the statistics, headline and warnings, every
   discordant item and its direction,
   slice and cluster, the gates, the policy hash, the triage, the override and the decision.
   The tags come from the session journal the record names when it is on this machine (as it
   stood when the record was written), so an edited tag, note or tagger is caught even when
   the record was made consistent again; otherwise from the record itself.

What no check here can prove is who wrote the record and when (the reviewer's name, the
rationale, the time): that takes a signature (``verify/signature.py``, `ssh-keygen -Y`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from evaltui.core.analysis.step_progress import Progress
from evaltui.core.record.signoff import RESULT_KEYS, SIGNOFF_SCHEMA, record_hash_ok
from evaltui.core.verify.claims import claims_problem
from evaltui.core.verify.difference import first_difference
from evaltui.core.verify.form import form_problem
from evaltui.core.verify.hashing import phase, sha256s_said
from evaltui.core.verify.rebuild import verify_rebuilt
from evaltui.core.verify.result import Verification, shown_path, what_broke
from evaltui.core.verify.spec_and_policy import replay_spec

__all__ = ["HASH_ONLY", "verify_record"]

# An evaltui.signoff/1 record's results compared (its warnings and headline were worded otherwise)
COMPARED_RESULTS = tuple(k for k in RESULT_KEYS if k not in ("warnings", "headline"))


def verify_record(
    record: dict[str, Any],
    baseline: str | Path | None = None,
    candidate: str | Path | None = None,
    progress: Progress | None = None,
) -> Verification:
    """Check `record` (see the module docstring); with both files, against them too, saying
    how far it is to `progress`. A record whose form is wrong is not verified (exit 1, the
    reason named), never an internal error."""
    try:
        return _verify(record, baseline, candidate, progress)
    except (KeyError, TypeError, ValueError, AttributeError, IndexError) as exc:
        return Verification(False, f"the record is malformed: {what_broke(exc)}")


def _verify(
    record: dict[str, Any],
    baseline: str | Path | None,
    candidate: str | Path | None,
    progress: Progress | None = None,
) -> Verification:
    problem = getattr(record, "problem", None) or form_problem(record)
    if problem is not None:
        return Verification(False, problem)
    if not record_hash_ok(record):
        return Verification(
            False, "the record's content does not match its content_hash: it was edited"
        )
    problem = claims_problem(record)
    if problem is not None:
        return Verification(False, problem)
    if baseline is None or candidate is None:
        return Verification(True, HASH_ONLY)
    arms = (("baseline", baseline), ("candidate", candidate))
    # (side by side, given in order: the first mismatch stops without waiting for the rest)
    hashes = sha256s_said((baseline, candidate), phase(progress, 1))
    for (arm, path), actual in zip(arms, hashes, strict=True):
        expected = record["inputs"][arm]["sha256"]
        if actual != expected:
            return Verification(
                False,
                f"{shown_path(path)} is not the {arm} that was reviewed "
                f"(sha256 {actual[:16]}… instead of {expected[:16]}…)",
            )
    if record.get("schema") != SIGNOFF_SCHEMA:
        return _verify_statistics_only(record, Path(baseline), Path(candidate))
    return verify_rebuilt(record, Path(baseline), Path(candidate), progress=phase(progress, 2))


HASH_ONLY = (
    "the record matches its content hash and its own claims agree (triage, tags, the override "
    "rule); files not checked. The hash is an unkeyed sha256 anyone can recompute after an "
    "edit, so alone it proves nothing about the numbers, the items or the decision: give "
    "BASE CAND to rebuild the record from them, and check a signature to know who wrote it"
)


def _verify_statistics_only(
    record: dict[str, Any], baseline: Path, candidate: Path
) -> Verification:
    """An `evaltui.signoff/1` record: its statistics, the keys it states, recomputed."""
    recomputed = _recompute(record, baseline, candidate)
    for key in COMPARED_RESULTS:
        where = first_difference(record["results"].get(key), recomputed.get(key), key, False)
        if where is not None:
            return Verification(
                False,
                f"recomputed statistics differ from the record at {where} (the record is "
                f"{record.get('schema')}, written before the verdict rules for clustered items "
                "and metric families changed)",
            )
    return Verification(True, "the record is intact, the files are the ones reviewed and the "
                              "statistics recompute to the recorded values (an "
                              f"{record.get('schema')} record: its items, tags and decision "
                              "are not rebuilt)")  # fmt: skip


def _recompute(record: dict[str, Any], baseline: Path, candidate: Path) -> dict[str, Any]:
    """An older record's results recomputed from the files with its own comparison spec; the
    family and slice adjustments follow its recorded policy rules."""
    from dataclasses import replace

    from evaltui.core.analysis.pipeline import breakdowns, compare
    from evaltui.core.report.pair import report_dict

    policy = record.get("policy", {})
    spec = replay_spec(record).with_inputs(baseline, candidate)
    analysis = compare(replace(spec, policy=None), replay=True)
    rules = policy.get("rules")
    if rules:
        analysis = breakdowns(
            analysis,
            rules.get("multiplicity", "holm"),
            tuple(rules.get("monitor", ())),
            tuple(rules.get("secondary", ())),
        )
    return report_dict(analysis)
