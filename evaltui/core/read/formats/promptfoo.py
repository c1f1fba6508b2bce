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

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import polars as pl

from evaltui.core.errors import InputError
from evaltui.core.read.formats.contract import LoadOptions, check_row, check_text_field
from evaltui.core.read.formats.fields import Where, element
from evaltui.core.read.formats.harness_sniffs import promptfoo as light_sniff
from evaltui.core.read.formats.jsontext import describe, read_json_file
from evaltui.core.read.formats.promptfoo_arms import Arm, arm_of, choose_arm
from evaltui.core.read.formats.promptfoo_options import NAME, Options
from evaltui.core.read.formats.promptfoo_rows import Result, item_ids, read_result, result_table
from evaltui.core.read.formats.promptfoo_transcript import MAX_METADATA_CHARS, result_transcript
from evaltui.core.read.runs import ITEM_ID, Run, RunSource, Transcript

HARNESS = "promptfoo"


# ---------------------------------------------------------------------------------------------
# Detection


# ---------------------------------------------------------------------------------------------
# Loading


def sniff(path: Path, head: bytes) -> bool:
    """Whether the file is this format's (`harness_sniffs.promptfoo`: detection asks it there,
    without importing this reader)."""
    return light_sniff(path, head)


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
    arms: dict[Arm, list[int]] = {}
    for i, result in enumerate(results):
        record = element(list_name, i)
        if not isinstance(result, dict):
            raise Where(path, record=record).expected(None, "a result object", result)
        arms.setdefault(arm_of(path, result, record), []).append(i)
    arm = choose_arm(path, list(arms), own.arm)
    chosen = [read_result(path, results[i], i, element(list_name, i)) for i in arms[arm]]
    ids = item_ids(path, chosen)
    table = result_table(chosen, ids)
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


def _metadata(
    document: Mapping[str, Any],
    summary: Mapping[str, Any],
    arm: Arm,
    arms: Sequence[Arm],
    results: Sequence[Result],
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


def _compact(result: Result) -> dict[str, Any]:
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
        return result_transcript(self._rows[row], self._records[row])

    def read_field(self, rows: Sequence[int], name: str) -> list[str | None]:
        check_text_field(name)
        return [getattr(self.read(row), name) for row in rows]
