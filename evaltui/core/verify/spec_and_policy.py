"""What a record was made with, read back from the record itself: its comparison spec and its
policy. The policy's rules are parsed as a policy file would be (the file is not needed), so a
hash or rule edited into the record shows."""

from __future__ import annotations

import json
from typing import Any

from evaltui.core.compare.spec import CompareSpec
from evaltui.core.verify.result import shown

__all__ = ["RecordPolicyError", "policy_from_record", "replace_policy", "replay_spec"]


class RecordPolicyError(ValueError):
    """The record's policy rules are not a policy evaltui would have written."""


def policy_from_record(record: dict[str, Any]) -> Any:
    """The Policy a record's rules describe (None when it was made without one), parsed as a
    policy file would be: its gates, tag meanings and hash are then evaltui's own, and a hash
    or rule edited into the record shows. The file itself is not needed."""
    from evaltui.core.errors import InputError
    from evaltui.core.policy.schema import POLICY_SCHEMA, loads_policy

    policy = record["policy"]
    if "rules" not in policy:
        return None
    rules = policy["rules"]
    if not isinstance(rules, dict) or rules.get("schema") != POLICY_SCHEMA:
        raise RecordPolicyError(f"the record's policy.rules is not an {POLICY_SCHEMA} object")
    try:
        parsed = loads_policy(_rules_toml(rules), str(policy.get("path", "<record>")))
    except (InputError, TypeError, ValueError) as exc:
        raise RecordPolicyError(
            f"the record's policy rules are not a valid policy: {shown(exc)}"
        ) from None
    parsed = replace_policy(parsed, sha256=str(policy.get("sha256", "")))
    if parsed.canonical() != rules:
        raise RecordPolicyError(
            "the record's policy rules are not in the form evaltui writes them (edited?)"
        )
    return parsed


def replace_policy(policy: Any, **changes: Any) -> Any:
    from dataclasses import replace

    return replace(policy, **changes)


def _rules_toml(rules: dict[str, Any]) -> str:
    """The canonical rules as TOML for `loads_policy` (None values are left out: not given)."""

    def value(v: Any) -> str:
        if isinstance(v, bool):
            return "true" if v else "false"
        if isinstance(v, str):
            return json.dumps(v, ensure_ascii=False)
        if isinstance(v, int | float):
            return repr(v)
        if isinstance(v, list):
            return "[" + ", ".join(value(x) for x in v) + "]"
        raise TypeError(f"a rule value {shown(json.dumps(v, default=str))} is not a TOML value")

    lines = [
        f"{key} = {value(v)}"
        for key, v in rules.items()
        if key not in ("schema", "gates", "tags", "metrics", "review") and v is not None
    ]
    for name, declared in (rules.get("metrics") or {}).items():  # `[metrics.NAME]` tables
        lines.append(f"[metrics.{value(str(name))}]")
        lines += [f"{key} = {value(v)}" for key, v in declared.items()]
    review = rules.get("review")
    if review is not None:  # the `[review]` table
        lines.append("[review]")
        lines += [f"{key} = {value(v)}" for key, v in review.items()]
    tags = rules.get("tags")
    if tags is not None:
        lines.append("[tags]")
        lines += [f"{meaning} = {value(v)}" for meaning, v in tags.items()]
    for gate in rules.get("gates", []):
        lines.append("[[gates]]")
        lines += [f"{key} = {value(v)}" for key, v in gate.items() if v is not None]
    return "\n".join(lines) + "\n"


def replay_spec(record: dict[str, Any]) -> CompareSpec:
    """The comparison spec a record was made with. Records written before the spec was stored
    carry only the analysis and pairing options; their spec is rebuilt from those."""
    if record.get("spec") is not None:
        return CompareSpec.from_dict(record["spec"])
    policy = record.get("policy", {})
    options = policy.get("options", policy)
    threshold = options.get("pass_threshold")
    inputs = record.get("inputs", {})
    return CompareSpec.create(
        inputs.get("baseline", {}).get("path", "baseline"),
        inputs.get("candidate", {}).get("path", "candidate"),
        allow_missing=bool(policy.get("allow_missing", False)),
        on_error=policy.get("on_error", "fail"),
        ci_method=options["ci_method"],
        confidence=options["confidence"],
        alpha=options["alpha"],
        metric=options.get("threshold_metric") if threshold is not None else options.get("metric"),
        pass_threshold=threshold,
        tolerance=options.get("tolerance", 0.0),
        resamples=options.get("resamples", 10_000),
        seed=options.get("seed", 0),
        bootstrap=options.get("bootstrap", "bca"),
    )
