"""Checking a sign-off record after the fact: untouched, on the same files, same numbers.

`verify_record` answers three questions in order and stops at the first "no": does the record
still match its own content hash (any edit, even of one character, changes it); were the given
files the ones reviewed (sha256); do the statistics recomputed from them, with the record's own
options, equal the recorded ones.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from evaltui.core.errors import InputError
from evaltui.core.formats.jsontext import DuplicateKey, loads, locate_duplicate
from evaltui.core.runs import sha256_of
from evaltui.core.signoff import READABLE_SCHEMAS, RESULT_KEYS, record_hash_ok
from evaltui.core.spec import CompareSpec

COMPARED_RESULTS = tuple(k for k in RESULT_KEYS if k not in ("warnings", "headline"))
TOLERANCE = 1e-9  # relative: floats written to JSON and read back, or a different BLAS


@dataclass(frozen=True)
class Verification:
    ok: bool
    reason: str


class RecordText(dict):
    """A record as read from its file, and what is wrong with its form (`problem`; None when
    nothing is): `verify_record` refuses such a record before looking at anything it says."""

    problem: str | None = None


def read_record(path: str | Path) -> dict[str, Any]:
    """The record in `path`. A file that is not a JSON object is an InputError (unreadable);
    one that holds a key twice is read, but marked: `{"decision": "approve", "decision":
    "block"}` is an approval to one reader and a block to another, so it cannot be verified."""
    path = Path(path)
    if not path.is_file():
        raise InputError(path, "no such file; expected a sign-off record (JSON)")
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise InputError(path, f"cannot read the record: {exc.strerror or exc}") from None
    problem = None
    try:
        record = loads(data)
    except DuplicateKey as exc:
        where = locate_duplicate(data)
        place = f" at {where[0]} (line {where[1]})" if where is not None else ""
        problem = (
            f"the record holds the key {json.dumps(exc.key)} twice{place}: JSON readers "
            "disagree on which one counts, so what it says cannot be verified"
        )
        record = json.loads(data)
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise InputError(path, f"is not a JSON sign-off record: {exc}") from None
    if not isinstance(record, dict) or record.get("schema") not in READABLE_SCHEMAS:
        expected = " or ".join(READABLE_SCHEMAS)
        raise InputError(path, f"is not a sign-off record (schema {expected} expected)")
    text = RecordText(record)
    text.problem = problem
    return text


def verify_record(
    record: dict[str, Any], baseline: str | Path | None = None, candidate: str | Path | None = None
) -> Verification:
    problem = getattr(record, "problem", None)
    if problem is not None:
        return Verification(False, problem)
    if not record_hash_ok(record):
        return Verification(
            False, "the record's content does not match its content_hash: it was edited"
        )
    if baseline is None or candidate is None:
        return Verification(True, "the record matches its content hash (files not checked)")
    for arm, path in (("baseline", baseline), ("candidate", candidate)):
        expected = record["inputs"][arm]["sha256"]
        actual = sha256_of(Path(path))
        if actual != expected:
            return Verification(
                False,
                f"{path} is not the {arm} that was reviewed "
                f"(sha256 {actual[:16]}… instead of {expected[:16]}…)",
            )
    recomputed = _recompute(record, Path(baseline), Path(candidate))
    current = record.get("schema") == READABLE_SCHEMAS[-1]
    for key in COMPARED_RESULTS:
        where = _first_difference(record["results"].get(key), recomputed.get(key), key, current)
        if where is not None:
            why = f"recomputed statistics differ from the record at {where}"
            if record.get("schema") != READABLE_SCHEMAS[-1]:
                why += (
                    f" (the record is {record.get('schema')}, written before the verdict "
                    "rules for clustered items and metric families changed)"
                )
            return Verification(False, why)
    return Verification(True, "the record is intact, the files are the ones reviewed and the "
                              "statistics recompute to the recorded values")  # fmt: skip


def _recompute(record: dict[str, Any], baseline: Path, candidate: Path) -> dict[str, Any]:
    """The record's results recomputed from the files with the record's own comparison spec
    (every load, pairing and analysis option it was made with). The policy file is not needed:
    its alpha, CI method and level are in the spec, and its multiplicity and monitored metrics
    in the record's rules."""
    from dataclasses import replace

    from evaltui.core.compare import breakdowns, compare
    from evaltui.core.report import report_dict

    policy = record.get("policy", {})
    spec = replay_spec(record).with_inputs(baseline, candidate)
    analysis = compare(replace(spec, policy=None))
    rules = policy.get("rules")
    if rules:  # the family and slice adjustments follow the recorded policy
        analysis = breakdowns(
            analysis, rules.get("multiplicity", "holm"), tuple(rules.get("monitor", ()))
        )
    return report_dict(analysis)


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


def _first_difference(
    recorded: Any, recomputed: Any, where: str, strict: bool = True
) -> str | None:
    """The first place the two differ. Not `strict` (an older record): keys the record does
    not have are not claims it made, so only its own keys are compared."""
    if isinstance(recorded, dict) and isinstance(recomputed, dict):
        keys = set(recorded) | set(recomputed) if strict else set(recorded)
        for key in sorted(keys):
            found = _first_difference(
                recorded.get(key), recomputed.get(key), f"{where}.{key}", strict
            )
            if found:
                return found
        return None
    if isinstance(recorded, list) and isinstance(recomputed, list):
        if len(recorded) != len(recomputed):
            return where
        for i, (a, b) in enumerate(zip(recorded, recomputed, strict=True)):
            found = _first_difference(a, b, f"{where}[{i}]", strict)
            if found:
                return found
        return None
    if isinstance(recorded, float) or isinstance(recomputed, float):
        if recorded is None or recomputed is None:
            return where
        if math.isclose(float(recorded), float(recomputed), rel_tol=TOLERANCE, abs_tol=1e-12):
            return None
        return where
    return None if recorded == recomputed else where
