"""Rebuilding a record from the files and comparing it key by key: the comparison replayed with
the record's own spec and policy rules, the review it was made from (`journal_replay`), and the
record built again as `signoff.build_record` builds it. The statistics are compared first, so a
changed number is named as one."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from evaltui.core.analysis.step_progress import Progress
from evaltui.core.decide.pair import NOTHING_CHANGED
from evaltui.core.record.signoff import (
    OPTIONAL_RESULT_KEYS,
    RESULT_KEYS,
    WHEN_PRESENT_RESULT_KEYS,
)
from evaltui.core.verify.difference import first_difference, value_at
from evaltui.core.verify.journal_replay import review_of_record
from evaltui.core.verify.result import Verification, shown, shown_path
from evaltui.core.verify.spec_and_policy import RecordPolicyError, policy_from_record, replay_spec

__all__ = ["verify_rebuilt"]


IGNORED = ("created", "tool", "content_hash", "session_journal")  # not derivable, or paths
# Keys a record made before they existed lacks: it makes no claim there (`team_review`: every
# reviewer, review and adjudication, issue 26); checked whenever the record carries them.
WHEN_PRESENT = ("team_review",)
# Where the files were: verify may rebuild from other copies (local ones of remote runs) whose
# sha256 must match, not their place; `described.file` is the place as a pull request shows it.
PATHS = {"inputs.baseline.path", "inputs.candidate.path", "spec.baseline", "spec.candidate",
         "spec.policy", "policy.path", "inputs.baseline.described.file",
         "inputs.candidate.described.file"}  # fmt: skip


def verify_rebuilt(
    record: dict[str, Any],
    baseline: Path,
    candidate: Path,
    analysis: Any = None,
    progress: Progress | None = None,
) -> Verification:
    """Rebuild the record from the files and compare; `analysis` is the pair's analysis when
    the caller has it (a run set's pair, whose verdict the family of pairs adjusted). The
    rebuild's read and its cost comparison are said to `progress`."""
    from evaltui.core.analysis.cost import compare_costs_said
    from evaltui.core.errors import UsageError
    from evaltui.core.record.session import OverrideRequired
    from evaltui.core.record.signoff import ReviewerDecision, build_record

    try:
        if analysis is None:
            analysis = _analysis(record, baseline, candidate, progress)
    except RecordPolicyError as exc:
        return Verification(False, str(exc))
    except UsageError as exc:  # the record's options do not apply to these files
        return Verification(False, f"the record's comparison cannot be replayed: {shown(exc)}")
    changed = _changed_while_verified(record, analysis, baseline, candidate)
    if changed is not None:
        return Verification(False, changed)
    compare_costs_said(analysis.paired, progress)  # (the record's cost block, said)
    session, journal = review_of_record(record, analysis)
    override = record["override"] or {}
    try:
        decision = ReviewerDecision(
            reviewer=record["reviewer"],
            decision=record["reviewer_decision"],
            rationale=record["rationale"],
            override_reason=override.get("reason"),
        )
        expected = build_record(analysis, session, decision)
    except OverrideRequired as exc:
        return Verification(
            False, f"the record's approval needs an override it does not carry: {shown(exc)}"
        )
    except UsageError as exc:
        return Verification(False, f"the record's decision is not one evaltui writes: {shown(exc)}")
    expected["override"] = _as_written(record["override"], expected["override"])
    expected["decision"] = _reasons_as_written(record.get("decision"), expected["decision"])
    old_ci = _relative_ci_as_written(record["results"].get("cost"), expected["results"].get("cost"))
    expected["gates"] = _cost_gates_as_written(record.get("gates"), expected.get("gates"), old_ci)
    where = _record_difference(record, expected)
    if where is not None:
        return Verification(False, where)
    tags = (
        f"the tags and notes match the session journal {shown(journal)}"
        if journal is not None
        else "the tags and notes are the record's own (the session journal it names is not on "
        "this machine, or is not the one it was made from)"
    )
    return Verification(
        True,
        "the record is intact, the files are the ones reviewed and the statistics recompute to "
        "the recorded values; its items, gates, triage, override and decision are what the files, "
        f"its policy rules and its tags give; {tags}. Who signed it and when only a signature "
        "can show",
    )


def _as_written(recorded: Any, expected: Any) -> Any:
    """The rebuilt override in the words of a record written before the compared scorer was
    named (issue 24: no `regressed_scorer`, "the candidate regressed (...)"): such a record
    makes no claim about the name and still verifies on what it does say."""
    from evaltui.core.record.session import Override

    if not isinstance(recorded, dict) or not isinstance(expected, dict):
        return expected
    if "regressed_scorer" in recorded or "regressed_scorer" not in expected:
        return expected
    named = Override(0, (), (), regressed=True, regressed_scorer=expected["regressed_scorer"])
    plain = Override(0, (), (), regressed=True)
    now, before = named.problems()[0], plain.problems()[0]
    older = {k: v for k, v in expected.items() if k != "regressed_scorer"}
    older["overrides"] = [before if p == now else p for p in expected["overrides"]]
    return older


def _reasons_as_written(recorded: Any, expected: Any) -> Any:
    """The rebuilt decision in the words of a record written before the no-verdict reason of a
    pair of several metrics named its metric ("no item changed: nothing to weigh, so there is
    no verdict", now "no item changed on answered: ..."): where the record's reason, of the
    same kind at the same place, is exactly the rebuilt one in the words before, it stands.
    Any other difference is still one."""
    if not isinstance(recorded, dict) or not isinstance(expected, dict):
        return expected
    theirs, ours = recorded.get("reasons"), expected.get("reasons")
    if not isinstance(theirs, list) or not isinstance(ours, list) or len(theirs) != len(ours):
        return expected
    reasons = []
    for said, rebuilt in zip(theirs, ours, strict=True):
        if (
            isinstance(said, dict)
            and isinstance(rebuilt, dict)
            and said.get("kind") == rebuilt.get("kind")
            and isinstance(rebuilt.get("text"), str)
            and said.get("text") == _NAMED_NOTHING_CHANGED.sub(NOTHING_CHANGED, rebuilt["text"])
        ):
            rebuilt = {**rebuilt, "text": said["text"]}
        reasons.append(rebuilt)
    return {**expected, "reasons": reasons}


# `decide.pair.nothing_changed_words` of a named metric (the words before: NOTHING_CHANGED)
_NAMED_NOTHING_CHANGED = re.compile(
    r"no item changed on .+?: nothing to weigh, so there is no verdict on it"
)


def _relative_ci_as_written(recorded: Any, expected: Any) -> dict[str, list[float]]:
    """A record made before the relative cost interval was the ratio of means per resample
    (`stats.paired_ratio`) holds the difference's interval over the baseline's mean. Where a
    figure's recorded `relative_ci` is exactly that, computed from the rebuilt numbers, the
    rebuilt block takes it: the record claimed nothing else, and the numbers it was derived
    from (`ci`, `mean`) are still checked. Changes `expected` in place; returns the old
    construction's interval per figure (what a `max_cost_growth` gate said then)."""
    found: dict[str, list[float]] = {}
    if not isinstance(recorded, dict) or not isinstance(expected, dict):
        return found
    rebuilt = {f.get("figure"): f for f in expected.get("figures") or []}
    for figure in recorded.get("figures") or []:
        mine = (figure or {}).get("difference") or {}
        theirs = (rebuilt.get(figure.get("figure")) or {}).get("difference") or {}
        base_mean = (rebuilt.get(figure.get("figure")) or {}).get("mean", [0.0])[0]
        ci, old = theirs.get("ci"), mine.get("relative_ci")
        if not base_mean or not isinstance(ci, list) or not isinstance(old, list):
            continue
        if None in ci or None in old or len(ci) != 2 or len(old) != 2:
            continue
        before = [ci[0] / base_mean, ci[1] / base_mean]
        found[str(figure.get("figure"))] = before
        if first_difference(old, before, "relative_ci", strict=False) is None:
            theirs["relative_ci"] = old
    return found


_GATE_CI = re.compile(r"\(95% CI \[[^\]]*\]")


def _cost_gates_as_written(recorded: Any, expected: Any, old_ci: dict[str, list[float]]) -> Any:
    """A `max_cost_growth` gate's detail in a record made before the ratio interval says the
    old interval (`_relative_ci_as_written`); the rebuilt detail with that interval in its
    place is accepted, every other word (the growth, the items, the bound, the status) still
    compared."""
    if not isinstance(recorded, list) or not isinstance(expected, list):
        return expected
    out = []
    for mine, theirs in zip(recorded, expected, strict=False):
        detail = theirs.get("detail") if isinstance(theirs, dict) else None
        if (
            isinstance(mine, dict)
            and isinstance(detail, str)
            and theirs.get("kind") == ("max_cost_growth")
        ):
            figure = detail.split(" per item", 1)[0].rsplit(" ", 1)[0].replace(" ", "_")
            if figure in old_ci:
                low, high = old_ci[figure]
                older = _GATE_CI.sub(f"(95% CI [{low:+.1%}, {high:+.1%}]", detail, count=1)
                if mine.get("detail") == older:
                    theirs = {**theirs, "detail": older}
        out.append(theirs)
    return out + expected[len(out) :]


def _record_difference(record: dict[str, Any], expected: dict[str, Any]) -> str | None:
    """The first key where the record differs from the one rebuilt, in words, or None.

    Within the record's keys, a key the record does not carry is not a claim it made: a record
    written before a field existed (what was compared, `inputs.*.described`; the outcome
    categories) still verifies on what it does say. The record's form (its declaration, checked
    before this) says which keys every record must carry, so a required key cannot go missing
    unnoticed."""
    absent = {key for key in WHEN_PRESENT if key not in record}
    keys = sorted((set(record) | set(expected)) - set(IGNORED) - {"results"} - absent)
    for key in ["results", *keys]:  # the statistics first: a changed number is named as one
        if key == "results":
            # A record made before a result existed (the outcome categories, the cost block)
            # makes no claim there: each is checked only when the record carries it.
            present = [
                k
                for k in (*OPTIONAL_RESULT_KEYS, *WHEN_PRESENT_RESULT_KEYS)
                if k in record["results"]
            ]
            for name in (*RESULT_KEYS, *present):
                where = first_difference(
                    record["results"].get(name), expected["results"].get(name), name, strict=False
                )
                if where is not None:
                    return _method_changed(record, expected, name) or (
                        f"recomputed statistics differ from the record at {where}"
                    )
            continue
        where = first_difference(record.get(key), expected.get(key), key, strict=False, skip=PATHS)
        if where is not None:
            return (
                f"the record's {where} is not what the files, its policy rules and its tags give "
                f"(recorded {value_at(record, where)}, rebuilt {value_at(expected, where)})"
            )
    return None


def _method_changed(record: dict[str, Any], expected: dict[str, Any], name: str) -> str | None:
    """Why the overall effect cannot be rebuilt, when the record's interval is one this
    evaltui no longer decides on (a graded record made before the paired-t verdict holds the
    BCa bootstrap interval): said in words instead of a bare differing number."""
    if name != "delta":
        return None
    from evaltui.core.stats.paired_delta import CI_METHODS

    recorded = (record["results"].get("delta") or {}).get("method")
    rebuilt = (expected["results"].get("delta") or {}).get("method")
    if not recorded or not rebuilt or recorded == rebuilt or recorded in CI_METHODS:
        # (a method `--ci-method` still offers is rebuilt from the record's own spec: a
        # difference there is a changed number, said as one)
        return None
    return (
        f"the record's overall interval was computed by {recorded}, and this evaltui computes "
        f"it by {rebuilt} (the method changed after the record was written): its numbers "
        "cannot be rebuilt here; verify it with the evaltui version that wrote it"
    )


def _changed_while_verified(
    record: dict[str, Any], analysis: Any, baseline: Path, candidate: Path
) -> str | None:
    """An input whose bytes the rebuild read are not the bytes verify hashed a moment before
    (the record's sha256, checked first): a file rewritten, an object replaced between the two
    reads (a URL is looked at again for the rebuild). Said as that, not as the first of the
    record's fields the other bytes happen to change ("decision.line is not what the files
    give")."""
    paired = analysis.paired
    for arm, run, path in (("baseline", paired.baseline, baseline),
                           ("candidate", paired.candidate, candidate)):  # fmt: skip
        recorded, read = record["inputs"][arm]["sha256"], run.source.sha256
        if read and read != recorded:
            return (
                f"{shown_path(path)} changed while it was verified: its sha256 was the "
                f"reviewed {arm}'s ({recorded[:16]}…) when checked, {read[:16]}… when read "
                "again to rebuild the record; verify again once nothing is writing it"
            )
    return None


def _analysis(
    record: dict[str, Any], baseline: Path, candidate: Path, progress: Progress | None = None
) -> Any:
    """The analysis the record was made from, from the files and the record's spec and rules."""
    from dataclasses import replace

    from evaltui.core.analysis.pipeline import compare

    spec = replay_spec(record).with_inputs(baseline, candidate)
    policy = policy_from_record(record)
    return compare(replace(spec, policy=None), policy=policy, progress=progress, replay=True)
