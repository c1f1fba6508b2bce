"""Inspect AI `.json` logs: one JSON document, the EvalLog with its samples inline.

The whole document has to be parsed to reach the samples, so it is parsed once; the statistics
are taken from it and each sample is kept in a compact form (no events, no store) for drill-down.
The mapping of samples to rows and transcripts is shared with `.eval` (`inspect_common`,
`inspect_scores`, `inspect_rows`, `inspect_transcript`).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from evaltui.core.errors import InputError
from evaltui.core.read.formats.contract import (
    HEAD_BYTES,
    LoadOptions,
    NoOptions,
    Recognised,
    check_row,
)
from evaltui.core.read.formats.fields import element
from evaltui.core.read.formats.harness_sniffs import inspect_json as light_sniff
from evaltui.core.read.formats.inspect_common import as_dict, check_has_samples, sample_facts
from evaltui.core.read.formats.inspect_json_options import NAME
from evaltui.core.read.formats.inspect_json_options import Options as Options
from evaltui.core.read.formats.inspect_rows import (
    build_table,
    cost_direction,
    run_metadata,
    with_prompt_hashes,
)
from evaltui.core.read.formats.inspect_scores import check_scored, choose_scorer
from evaltui.core.read.formats.inspect_transcript import (
    compact_sample,
    sample_transcript,
    transcript_field,
)
from evaltui.core.read.formats.jsontext import UTF8_BOM, read_json_file
from evaltui.core.read.run_entry import RunEntry
from evaltui.core.read.runs import Run, RunSource, Transcript
from evaltui.core.read.turns import cost_metric


def sniff(path: Path, head: bytes) -> bool:
    """Whether the file is this format's (`harness_sniffs.inspect_json`: detection asks it there,
    without importing this reader)."""
    return light_sniff(path, head)


def load(path: Path, options: LoadOptions, own: NoOptions) -> Run:
    source = RunSource.of(path, NAME)
    log = _parse(path)
    header = {key: value for key, value in log.items() if key != "samples"}
    samples = log.get("samples")
    if samples is None:
        samples = []
    if not isinstance(samples, list):
        raise InputError(
            path, f"expected a list of samples, got {type(samples).__name__}", field="samples"
        )
    facts = []
    first_record: dict[tuple[str, int], str] = {}
    for i, sample in enumerate(samples):
        fact = sample_facts(path, sample, element("samples", i))
        key = (fact.item_id, fact.epoch)
        if key in first_record:
            raise InputError(
                path,
                f"sample id {fact.item_id} epoch {fact.epoch} appears twice (first at "
                f"{first_record[key]}); expected one sample per id and epoch",
                record=fact.record,
                field="id",
            )
        first_record[key] = fact.record
        facts.append(fact)
    check_has_samples(path, facts)
    check_scored(path, header, facts)
    scorer = choose_scorer(
        path, header, facts, None if cost_metric(options.metric) else options.metric
    )
    table = with_prompt_hashes(build_table(path, facts, scorer, options.metric), facts)
    metadata = run_metadata(header, scorer, facts, default_status="unknown")
    metadata.update(cost_direction(options.metric))
    transcripts = JsonTranscripts([compact_sample(s) for s in samples], scorer)
    return Run(source=source, table=table, transcripts=transcripts, metadata=metadata)


class JsonTranscripts:
    """The samples are already in memory (compacted); a read renders one."""

    def __init__(self, samples: Sequence[dict[str, Any]], scorer: str | None) -> None:
        self._samples = list(samples)
        self._scorer = scorer

    def read(self, row: int) -> Transcript:
        check_row(row, len(self._samples))
        return sample_transcript(self._samples[row], self._scorer, element("samples", row))

    def read_field(self, rows: Sequence[int], name: str) -> list[str | None]:
        return [transcript_field(self.read(row), name) for row in rows]


def _parse(path: Path) -> dict[str, Any]:
    log = read_json_file(path)
    log = as_dict(path, log, "(top level)")
    as_dict(path, log.get("eval"), "eval")
    return log


# ---------------------------------------------------------------------------------------------
# In a log directory (`ListsInDirectories`): Inspect's `--log-format json` logs


def recognise(path: Path) -> Recognised | None:
    if not path.name.endswith(".json") or not path.is_file():
        return None
    try:
        with path.open("rb") as handle:
            return "run" if sniff(path, handle.read(HEAD_BYTES)) else None
    except OSError:
        return None


def describe_run(entry: RunEntry) -> RunEntry:
    """From the log's first megabyte (EvalLog writes status, eval and results before the
    samples), never the whole file."""
    from evaltui.core.read.formats.inspect_header import entry_from_header
    from evaltui.core.read.run_entry import JSON_HEAD_BYTES, value_after

    with entry.path.open("rb") as handle:
        head = handle.read(JSON_HEAD_BYTES).removeprefix(UTF8_BOM).decode("utf-8", "replace")
    header: dict[str, Any] = {}
    for key in ("status", "eval", "results"):
        value = value_after(head, key)
        if value is not None:
            header[key] = value
    results = header.get("results")
    total = results.get("total_samples") if isinstance(results, dict) else None
    return entry_from_header(entry, header, total if isinstance(total, int) else None, None)
