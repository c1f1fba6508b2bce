"""The chosen arm's promptfoo results -> the statistics table: item ids, verdicts and errors.

Items: a test's `description` when no other test of the arm shares it, else `vars:` + the first
12 hex digits of the sha256 of its vars as canonical JSON, so the same test gets the same id in
another file; a repeated test case becomes epochs in file order. Which results are errors is
the module docstring of `promptfoo` (the format's own description).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import polars as pl

from evaltui.core.errors import InputError
from evaltui.core.read.formats.fields import Where, optional_dict, optional_number, require_bool
from evaltui.core.read.runs import stats_table

FAILURE_ASSERT = 1
FAILURE_ERROR = 2
FAILURE_REASONS = (0, FAILURE_ASSERT, FAILURE_ERROR)
VARS_ID_PREFIX = "vars:"
VARS_ID_HEX = 12


@dataclass(frozen=True)
class Result:
    """One EvaluateResult of the chosen arm, with what the table and the transcript need."""

    index: int  # position in the results list
    record: str  # "results.results[i]", for messages
    test_key: str  # canonical JSON of the test case: equal keys are repeats of one test
    description: str | None
    vars: Any
    passed: bool
    score: float | None
    status: str
    raw: dict[str, Any]


def read_result(path: Path, result: dict[str, Any], index: int, record: str) -> Result:
    where = Where(path, record=record)
    success = require_bool(result, "success", where)
    score = optional_number(result, "score", where)
    failure = result.get("failureReason")
    if failure is not None and (isinstance(failure, bool) or failure not in FAILURE_REASONS):
        raise where.expected("failureReason", "0, 1 or 2 (none, assertion, error)", failure)
    test_case = optional_dict(result, "testCase", where, "the test case object") or {}
    description = test_case.get("description", result.get("description"))
    if description is not None and not isinstance(description, str):
        raise where.expected("testCase.description", "a string", description)
    variables = test_case.get("vars", result.get("vars"))
    if variables is None:
        variables = {}
    key_source = test_case if test_case else {"description": description, "vars": variables}
    errored = _is_error(result, failure)
    return Result(
        index=index,
        record=record,
        test_key=_canonical_json(key_source),
        description=description or None,
        vars=variables,
        passed=success and not errored,
        score=None if score is None else float(score),
        status="error" if errored else "ok",
        raw=result,
    )


def _is_error(result: Mapping[str, Any], failure: Any) -> bool:
    response = result.get("response")
    if isinstance(response, dict) and response.get("error"):
        return True
    error = result.get("error")
    if not error:
        return False
    if failure is not None:
        return failure == FAILURE_ERROR
    grading = result.get("gradingResult")
    # Before failureReason existed, a failed assertion's reason was copied into `error`.
    return not (isinstance(grading, dict) and grading.get("reason") == error)


def item_ids(path: Path, results: Sequence[Result]) -> list[str]:
    """One id per result: repeats of a test share it; two different tests may not."""
    tests: dict[str, Result] = {}  # test key -> its first result
    for result in results:
        tests.setdefault(result.test_key, result)
    descriptions: dict[str, int] = {}
    for first in tests.values():
        if first.description:
            descriptions[first.description] = descriptions.get(first.description, 0) + 1
    id_of_test: dict[str, str] = {}
    owner: dict[str, Result] = {}  # item id -> the first result of the test that has it
    for key, first in tests.items():
        if first.description and descriptions[first.description] == 1:
            item_id = first.description
        else:
            item_id = VARS_ID_PREFIX + vars_digest(first.vars)
        if item_id in owner:
            other = owner[item_id]
            raise InputError(
                path,
                f"two different test cases get the item id {item_id!r} (first at {other.record}, "
                f"description {other.description!r}); give each test a unique description or "
                "distinct vars",
                record=first.record,
                field="testCase",
            )
        owner[item_id] = first
        id_of_test[key] = item_id
    return [id_of_test[r.test_key] for r in results]


def vars_digest(variables: Any) -> str:
    """The first hex digits of the sha256 of `variables` as canonical JSON."""
    digest = hashlib.sha256(_canonical_json(variables).encode("utf-8")).hexdigest()
    return digest[:VARS_ID_HEX]


def _canonical_json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)


def result_table(results: Sequence[Result], ids: Sequence[str]) -> pl.DataFrame:
    epochs: list[int] = []
    seen: dict[str, int] = {}
    for item_id in ids:
        seen[item_id] = seen.get(item_id, 0) + 1
        epochs.append(seen[item_id])
    has_score = any(r.score is not None for r in results)
    return stats_table(
        ids,
        epochs,
        [r.status for r in results],
        passed=[r.passed for r in results],
        score=[r.score for r in results] if has_score else None,
    )
