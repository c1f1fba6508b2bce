"""A record's claims against each other, with no file needed: its triage against its items, and
the override rule against its own decision, gates, tags and verdict. An edit that leaves the
record inconsistent is caught however it was re-hashed."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

from evaltui.core.canonical import canonical_sha256
from evaltui.core.decide.gates import margin_accepts_regression
from evaltui.core.policy.tags import CONFIRMED, DEFAULT_MEANINGS, TagMeanings
from evaltui.core.record.session import Override, blocking_regressions
from evaltui.core.record.signoff import SIGNOFF_SCHEMA
from evaltui.core.verify.result import shown
from evaltui.core.verify.spec_and_policy import RecordPolicyError, policy_from_record

__all__ = ["claims_problem"]


def claims_problem(record: dict[str, Any]) -> str | None:
    """Where the record contradicts itself, or None: its triage against its items, and the
    override rule (`workflow.override_for`, `check_override`) against its own decision, gates,
    tags and verdict. Needs no file: an edit that leaves the record inconsistent is caught
    however it was re-hashed."""
    triage = record["triage"]
    meanings = _meanings(record)
    regressions = [i for i in record["items"] if i["direction"] == "regression"]
    untriaged = [i["item_id"] for i in regressions if not meanings.triaged(i["tag"])]
    by_tag: dict[str, int] = {}
    for item in regressions:
        if item["tag"] is not None:
            by_tag[item["tag"]] = by_tag.get(item["tag"], 0) + 1
    derived = {
        "regressions": len(regressions),
        "triaged": len(regressions) - len(untriaged),
        "untriaged": untriaged,
        "by_tag": by_tag,
    }
    for key, value in derived.items():
        if triage[key] != value:
            return (
                f"the record's triage.{key} ({shown(json.dumps(triage[key]))}) is not what its "
                f"items say ({shown(json.dumps(value))})"
            )
    if record.get("schema") != SIGNOFF_SCHEMA:
        return None
    try:
        policy = policy_from_record(record)
    except RecordPolicyError as exc:
        return str(exc)
    stated = policy.hash if policy is not None else "sha256:" + canonical_sha256(record["policy"])
    if record["policy_hash"] != stated:
        return (
            f"the record's policy_hash ({shown(record['policy_hash'], 20)}…) is not the hash of "
            f"the policy it states ({stated[:20]}…)"
        )
    failed = [
        g["name"] for g in record["gates"] if isinstance(g, dict) and g.get("status") == "failed"
    ]
    confirmed = [i["item_id"] for i in regressions if meanings.meaning(i["tag"]) == CONFIRMED]
    override = Override(
        regressions=len(regressions),
        untriaged=tuple(untriaged),
        failed_gates=tuple(failed),
        confirmed=tuple(confirmed),
        regressed=record["results"].get("verdict") == "regressed"
        and not margin_accepts_regression(record["gates"]),
        # Rows without a role predate metrics that block beside the compared one.
        regressed_metrics=blocking_regressions(
            (
                str(r["metric"]),
                str(r.get("label") or r["metric"]),
                str(r["role"]),
                str(r["verdict"]),
            )
            for r in record["results"].get("metrics") or ()
            if isinstance(r, dict)
            and "role" in r
            and r.get("metric") != record["results"].get("metric")
            and r.get("in_family")
        ),
    )
    approving = record["reviewer_decision"] == "approve"
    regression_ids = {i["item_id"] for i in regressions}
    disputed = [
        i for i in (record.get("team_review") or {}).get("disputes_open") or []
        if i in regression_ids
    ]  # fmt: skip
    if approving and disputed:
        return (
            f"the record approves while {len(disputed)} regression(s) are disputed, which "
            "evaltui never writes (a dispute is settled, never overridden): it was edited"
        )
    recorded = record["override"]
    if isinstance(recorded, dict) and override.regressed:
        # The compared scorer's name, said since issue 24 when the pair has several; a record
        # written before says none, and is checked as it was written.
        override = replace(override, regressed_scorer=_compared_scorer(record, recorded))
    if approving and override.needed:
        if recorded is None or not str(recorded.get("reason") or "").strip():
            return (
                "the record approves over " + "; ".join(override.problems()) + " without an "
                "override reason, which evaltui never writes: the decision was edited"
            )
        expected = {
            "overrides": override.problems(),
            "untriaged_regressions": list(override.untriaged),
            "failed_gates": list(override.failed_gates),
            "confirmed_regressions": list(override.confirmed),
            "regressed": override.regressed,
        }
        if override.regressed_metrics or "regressed_metrics" in recorded:
            expected["regressed_metrics"] = list(override.regressed_metrics)
        if override.regressed_scorer or "regressed_scorer" in recorded:
            expected["regressed_scorer"] = override.regressed_scorer
        for key, value in expected.items():
            if recorded.get(key) != value:
                return (
                    f"the record's override.{key} ({shown(json.dumps(recorded.get(key)))}) is "
                    f"not what its items, gates and verdict say ({shown(json.dumps(value))})"
                )
    elif recorded is not None:
        why = "the decision is not an approval" if not approving else "there is nothing to override"
        return f"the record holds an override although {why}: it was edited"
    return None


def _compared_scorer(record: dict[str, Any], recorded: dict[str, Any]) -> str:
    """The compared scorer's name as the record's results give it, when the record says one
    (`override.regressed_scorer`, written when the pair has several scorers), else ""."""
    if "regressed_scorer" not in recorded:
        return ""
    results = record["results"]
    rows = [r for r in results.get("metrics") or () if isinstance(r, dict)]
    if len(rows) < 2:
        return ""
    return next(
        (str(r.get("label") or r["metric"]) for r in rows if r.get("metric") == results["metric"]),
        "",
    )


def _meanings(record: dict[str, Any]) -> TagMeanings:
    stated = record["triage"].get("meanings")
    if isinstance(stated, dict):
        return TagMeanings(
            **{m: tuple(stated.get(m, ())) for m in ("confirmed", "grader_error", "open")}
        )
    return DEFAULT_MEANINGS
