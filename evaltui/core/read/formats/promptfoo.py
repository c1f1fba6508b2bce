"""promptfoo results files (`promptfoo eval -o results.json`, `promptfoo export`).

The file is promptfoo's `OutputFile`: `{evalId, results: EvaluateSummary, config, shareableUrl,
metadata: {promptfooVersion, ...}}`, where the summary (version 2 or 3) holds `results`, one
`EvaluateResult` per (test, prompt, provider): `provider {id, label}`, `prompt {raw, label}`
(`raw` is the rendered prompt), `vars`, `testCase {description, vars, assert, ...}`, `success`,
`score`, `gradingResult {pass, score, reason}`, `response {output, error}`, `error`,
`failureReason` (0 none, 1 assertion, 2 error). A bare summary (`{version, results: [...]}`) and
promptfoo's internal `ResultsFile` (`{version, createdAt, results: summary}`) load too.

One file holds every provider x prompt combination of an eval, so a run is one *arm*: the results
of one provider and one prompt. With several arms `Options.arm` (`--arm`) picks one (provider id or
label, prompt label, or `provider=<id>, prompt=<label>`); without it the load stops and lists
them.

Items: a test's `description` when it has one that no other test of the arm shares, else
`vars:` + the first 12 hex digits of the sha256 of its vars as canonical JSON (sorted keys, no
spaces), so the same test gets the same id in another file. The same test case repeated
(`--repeat`) becomes epochs in file order; two different test cases with one id are an error.

Verdicts: `success` (true/false, nothing else) -> passed; `score` -> score. A result is an error
(status "error", a failure) when `response.error` is set, or when `error` is set and
`failureReason` is 2, or absent on an older file where `error` is not just the grader's reason
(promptfoo itself copies a failed assertion's reason into `error`).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import polars as pl

from evaltui.core.errors import InputError
from evaltui.core.read.formats.contract import LoadOptions, check_row, check_text_field
from evaltui.core.read.formats.fields import (
    Where,
    dotted,
    element,
    optional_dict,
    optional_number,
    require_bool,
)
from evaltui.core.read.formats.jsontext import (
    UTF8_BOM,
    as_text,
    describe,
    loads,
    object_at,
    object_keys,
    read_json_file,
    shorten,
)
from evaltui.core.read.formats.native import content_text
from evaltui.core.read.runs import (
    ITEM_ID,
    Message,
    Run,
    RunSource,
    Transcript,
    stats_table,
)

NAME = "promptfoo"
HARNESS = "promptfoo"
FAILURE_ASSERT = 1
FAILURE_ERROR = 2
FAILURE_REASONS = (0, FAILURE_ASSERT, FAILURE_ERROR)
VARS_ID_PREFIX = "vars:"
VARS_ID_HEX = 12
MAX_METADATA_CHARS = 2000
MAX_ARM_LABEL = 120  # an arm's prompt label is shown up to this many characters in a listing


# ---------------------------------------------------------------------------------------------
# Detection


def sniff(path: Path, head: bytes) -> bool:
    """A JSON object with promptfoo's `evalId`, or whose `results` is a summary (has `version`
    or `results`), or a bare summary (`version`, `timestamp`, `results`); decided from the
    first keys, so a huge file is still recognised."""
    text = head.removeprefix(UTF8_BOM).lstrip()
    if not text.startswith(b"{"):
        return False
    top: list[str] = []
    nested: set[str] = set()  # the keys of the object under top-level "results"
    for where, key in object_keys(text):
        if where == ():
            top.append(key)
        elif where == ("results",):
            nested.add(key)
    if "evalId" in top:
        return True
    if {"version", "timestamp", "results"} <= set(top):
        return True
    return "results" in top and bool(nested & {"version", "results"})


# ---------------------------------------------------------------------------------------------
# Loading


@dataclass(frozen=True)
class Options:
    """promptfoo's own option: which arm (provider and prompt) of the file is the run."""

    arm: str | None = None


@dataclass(frozen=True)
class _Result:
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


@dataclass(frozen=True)
class _Arm:
    provider_id: str
    provider_label: str
    prompt_label: str

    @property
    def provider(self) -> str:
        return self.provider_label or self.provider_id

    @property
    def short_label(self) -> str:
        label = listed(self.prompt_label)
        return label if len(label) <= MAX_ARM_LABEL else label[: MAX_ARM_LABEL - 3] + "..."

    def display(self) -> str:
        return f"provider={self.provider}, prompt={self.short_label}"

    def spec(self, arms: Sequence[_Arm]) -> str:
        """The shortest --arm value that picks this arm out of `arms`."""
        for candidate in (f"provider={self.provider}", f"prompt={self.short_label}"):
            if [arm for arm in arms if _arm_matches(arm, candidate)] == [self]:
                return candidate
        return self.display()


def load(path: Path, options: LoadOptions, own: Options) -> Run:
    source = RunSource.of(path, NAME)
    document = _parse(path)
    summary, prefix = _summary(path, document)
    results = summary.get("results")
    if not isinstance(results, list):
        raise Where(path).expected(f"{prefix}results", "a list of results", results)
    if not results:
        raise InputError(
            path, "holds no results; expected one result per test and prompt", field="results"
        )
    list_name = f"{prefix}results"
    arms: dict[_Arm, list[int]] = {}
    for i, result in enumerate(results):
        record = element(list_name, i)
        if not isinstance(result, dict):
            raise Where(path, record=record).expected(None, "a result object", result)
        arms.setdefault(_arm_of(path, result, record), []).append(i)
    arm = _choose_arm(path, list(arms), own.arm)
    chosen = [_result(path, results[i], i, element(list_name, i)) for i in arms[arm]]
    ids = _item_ids(path, chosen)
    table = _table(chosen, ids)
    metadata = _metadata(document, summary, arm, list(arms), chosen, table)
    rows = [_compact(r) for r in chosen]
    return Run(
        source=source,
        table=table,
        transcripts=PromptfooTranscripts(rows, [r.record for r in chosen]),
        metadata=metadata,
    )


def _parse(path: Path) -> dict[str, Any]:
    document = read_json_file(path)
    if not isinstance(document, dict):
        raise InputError(
            path,
            f"expected a promptfoo results object ({{evalId, results, ...}}), got "
            f"{describe(document)}",
        )
    return document


def _summary(path: Path, document: dict[str, Any]) -> tuple[dict[str, Any], str]:
    """The EvaluateSummary and the prefix its fields are named with in messages."""
    results = document.get("results")
    if isinstance(results, list):
        return document, ""  # a bare EvaluateSummary
    if isinstance(results, dict):
        return results, "results."
    raise Where(path).expected(
        "results", "the eval summary (an object with a 'results' list)", results
    )


def _arm_of(path: Path, result: Mapping[str, Any], record: str) -> _Arm:
    where = Where(path, record=record)
    provider = result.get("provider")
    if isinstance(provider, str) and provider:
        provider_id, provider_label = provider, ""
    elif isinstance(provider, dict) and (provider.get("id") or provider.get("label")):
        provider_id = _str_or_empty(provider.get("id"))
        provider_label = _str_or_empty(provider.get("label"))
    else:
        raise where.expected("provider", "the provider ({id, label} or an id string)", provider)
    prompt = result.get("prompt")
    if isinstance(prompt, dict):
        label = prompt.get("label") or prompt.get("display") or prompt.get("raw") or ""
        prompt_label = label if isinstance(label, str) else as_text(label)
    elif isinstance(prompt, str):
        prompt_label = prompt
    elif prompt is None:
        prompt_label = ""
    else:
        raise where.expected("prompt", "the prompt ({raw, label})", prompt)
    return _Arm(provider_id, provider_label, prompt_label)


def _choose_arm(path: Path, arms: list[_Arm], wanted: str | None) -> _Arm:
    listing = "; ".join(f"'{arm.spec(arms)}'" for arm in arms)
    if wanted is None:
        if len(arms) == 1:
            return arms[0]
        raise InputError(
            path,
            f"holds {len(arms)} provider/prompt combinations (arms): {listing}; pass one of "
            "them with --arm to choose the one this run is",
            field="provider",
        )
    matches = [arm for arm in arms if _arm_matches(arm, wanted)]
    if len(matches) == 1:
        return matches[0]
    if not matches:
        raise InputError(
            path,
            f"no arm matches --arm '{listed(wanted)}'; arms in this file: {listing}",
            field="provider",
        )
    shown = "; ".join(f"'{arm.spec(arms)}'" for arm in matches)
    raise InputError(
        path,
        f"--arm '{listed(wanted)}' matches {len(matches)} arms: {shown}; name both the provider "
        "and the prompt as 'provider=ID, prompt=LABEL'",
        field="provider",
    )


def _arm_matches(arm: _Arm, wanted: str) -> bool:
    providers = {arm.provider_id, arm.provider_label} - {""}
    text = wanted.strip()
    if text.startswith("provider="):
        rest = text[len("provider=") :]
        provider, sep, prompt = rest.partition(", prompt=")
        if provider.strip() not in providers:
            return False
        return not sep or _label_matches(prompt, arm.prompt_label)
    if text.startswith("prompt="):
        return _label_matches(text[len("prompt=") :], arm.prompt_label)
    return text in providers or _label_matches(text, arm.prompt_label) or text == arm.display()


def _label_matches(given: str, label: str) -> bool:
    """The label itself, or as a listing shows it (`listed`: one line, pasteable), whole or
    shortened ("first characters...")."""
    shown = listed(label)
    if given in (label, shown):
        return True
    return (
        len(shown) > MAX_ARM_LABEL
        and given.endswith("...")
        and len(given) > 3
        and shown.startswith(given[:-3])
    )


_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def listed(text: str) -> str:
    """A label on one line as listings and messages show it: newline, tab and carriage return
    as \\n \\t \\r and other control characters as \\xNN, so what is listed can be pasted
    back as `--arm` (which takes this form or the label itself) and nothing in it acts on the
    terminal."""
    return _CONTROL.sub(lambda m: _NAMED.get(m.group(), f"\\x{ord(m.group()):02x}"), text)


def _result(path: Path, result: dict[str, Any], index: int, record: str) -> _Result:
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
    return _Result(
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


def _item_ids(path: Path, results: Sequence[_Result]) -> list[str]:
    """One id per result: repeats of a test share it; two different tests may not."""
    tests: dict[str, _Result] = {}  # test key -> its first result
    for result in results:
        tests.setdefault(result.test_key, result)
    descriptions: dict[str, int] = {}
    for first in tests.values():
        if first.description:
            descriptions[first.description] = descriptions.get(first.description, 0) + 1
    id_of_test: dict[str, str] = {}
    owner: dict[str, _Result] = {}  # item id -> the first result of the test that has it
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


def _table(results: Sequence[_Result], ids: Sequence[str]) -> pl.DataFrame:
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


def _metadata(
    document: Mapping[str, Any],
    summary: Mapping[str, Any],
    arm: _Arm,
    arms: Sequence[_Arm],
    results: Sequence[_Result],
    table: pl.DataFrame,
) -> dict[str, str]:
    meta: dict[str, str] = {"harness": HARNESS}
    info = document.get("metadata")
    if isinstance(info, dict):
        for key, target in (
            ("promptfooVersion", "harness_version"),
            ("exportedAt", "exported_at"),
            ("evaluationCreatedAt", "created"),
            ("author", "author"),
        ):
            if _scalar(info.get(key)):
                meta[target] = str(info[key])
    if _scalar(document.get("evalId")):
        meta["eval_id"] = str(document["evalId"])
    if _scalar(summary.get("version")):
        meta["results_version"] = str(summary["version"])
    if _scalar(summary.get("timestamp")):
        meta.setdefault("created", str(summary["timestamp"]))
    config = document.get("config")
    if isinstance(config, dict) and _scalar(config.get("description")):
        meta["description"] = str(config["description"])[:MAX_METADATA_CHARS]
    meta["provider"] = arm.provider_id or arm.provider_label
    meta["model"] = meta["provider"]
    if arm.provider_label:
        meta["provider_label"] = arm.provider_label
    meta["prompt_label"] = arm.prompt_label[:MAX_METADATA_CHARS]
    meta["arm"] = arm.spec(arms)
    meta["arms"] = str(len(arms))
    meta["results"] = str(len(results))
    meta["result_errors"] = str(sum(1 for r in results if r.status == "error"))
    meta["items"] = str(table[ITEM_ID].n_unique())
    return meta


def _scalar(value: Any) -> bool:
    return isinstance(value, str | int | float) and not isinstance(value, bool) and value != ""


# ---------------------------------------------------------------------------------------------
# Transcripts

TRANSCRIPT_KEYS = (
    "prompt",
    "response",
    "gradingResult",
    "error",
    "failureReason",
    "testCase",
    "vars",
    "description",
    "testIdx",
    "promptIdx",
    "latencyMs",
    "cost",
    "namedScores",
    "score",
    "success",
)


def _compact(result: _Result) -> dict[str, Any]:
    """The parts of a result drill-down shows (not the token usage, metadata or traces)."""
    out = {key: result.raw[key] for key in TRANSCRIPT_KEYS if key in result.raw}
    grading = out.get("gradingResult")
    if isinstance(grading, dict):  # component results can hold whole grading prompts
        out["gradingResult"] = {k: grading.get(k) for k in ("pass", "score", "reason")}
    response = out.get("response")
    if isinstance(response, dict):
        out["response"] = {k: response[k] for k in ("output", "error") if k in response}
    out["_status"] = result.status
    return out


class PromptfooTranscripts:
    """The chosen arm's results are kept (compacted) in memory; a read renders one."""

    def __init__(self, rows: Sequence[dict[str, Any]], records: Sequence[str]) -> None:
        self._rows = list(rows)
        self._records = list(records)

    def read(self, row: int) -> Transcript:
        check_row(row, len(self._rows))
        return _transcript(self._rows[row], self._records[row])

    def read_field(self, rows: Sequence[int], name: str) -> list[str | None]:
        check_text_field(name)
        return [getattr(self.read(row), name) for row in rows]


def _transcript(result: Mapping[str, Any], record: str) -> Transcript:
    prompt = result.get("prompt")
    raw = prompt.get("raw") if isinstance(prompt, dict) else prompt
    response = object_at(result, "response")
    grading = object_at(result, "gradingResult")
    test_case = object_at(result, "testCase")
    output = response.get("output")
    explanation = grading.get("reason")
    error = result.get("error") or response.get("error")
    if result.get("_status") == "error" and error:
        explanation = as_text(error)
    metadata: dict[str, str] = {"record": record}
    description = test_case.get("description", result.get("description"))
    if description:
        metadata["description"] = as_text(description)
    variables = test_case.get("vars", result.get("vars"))
    if isinstance(variables, dict):
        for name, value in variables.items():
            metadata[dotted("var", name)] = _short(value)
    for key in ("testIdx", "promptIdx", "failureReason", "latencyMs", "cost", "score"):
        if result.get(key) is not None:
            metadata[key] = _short(result[key])
    if isinstance(result.get("namedScores"), dict):
        for name, value in result["namedScores"].items():
            metadata[dotted("namedScore", name)] = _short(value)
    if error:
        metadata["error"] = _short(error)
    return Transcript(
        input=None if raw is None else as_text(raw),
        output=None if output is None else as_text(output),
        target=_assertions_text(test_case.get("assert")),
        explanation=None if explanation is None else as_text(explanation),
        messages=_messages(raw),
        metadata=metadata,
    )


def _messages(raw: Any) -> tuple[Message, ...]:
    """A chat prompt is rendered by promptfoo as a JSON list of {role, content}."""
    if not isinstance(raw, str) or not raw.lstrip().startswith("["):
        return ()
    try:
        value = loads(raw)  # a prompt holding a duplicate key is shown as written
    except (ValueError, RecursionError):
        return ()
    if not isinstance(value, list) or not all(isinstance(m, dict) and "role" in m for m in value):
        return ()
    return tuple(
        Message(role=as_text(m.get("role")), content=content_text(m.get("content"))) for m in value
    )


def _assertions_text(assertions: Any) -> str | None:
    """What the test expected: one line per assertion, `type: value`."""
    if not isinstance(assertions, list) or not assertions:
        return None
    lines = []
    for assertion in assertions:
        if not isinstance(assertion, dict):
            lines.append(as_text(assertion))
            continue
        kind = as_text(assertion.get("type", "?"))
        value = assertion.get("value")
        lines.append(kind if value is None else f"{kind}: {as_text(value)}")
    return "\n".join(lines)


def _str_or_empty(value: Any) -> str:
    return value if isinstance(value, str) else "" if value is None else as_text(value)


def _short(value: Any) -> str:
    return shorten(as_text(value), MAX_METADATA_CHARS)
