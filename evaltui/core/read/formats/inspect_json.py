"""Inspect AI `.json` logs: one JSON document, the EvalLog with its samples inline.

The whole document has to be parsed to reach the samples, so it is parsed once; the statistics
are taken from it and each sample is kept in a compact form (no events, no store) for drill-down.
The mapping of samples to rows and transcripts is shared with `.eval` (`inspect_common`,
`inspect_scores`, `inspect_rows`, `inspect_transcript`).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from evaltui.core.errors import InputError
from evaltui.core.read import meter
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
from evaltui.core.read.formats.json_array import ArrayElements
from evaltui.core.read.formats.json_document import array_apart
from evaltui.core.read.formats.jsontext import UTF8_BOM, load_document, loads
from evaltui.core.read.run_entry import RunEntry
from evaltui.core.read.runs import Run, RunSource, Transcript
from evaltui.core.read.turns import cost_metric


def sniff(path: Path, head: bytes) -> bool:
    """Whether the file is this format's (`harness_sniffs.inspect_json`: detection asks it there,
    without importing this reader)."""
    return light_sniff(path, head)


def load(path: Path, options: LoadOptions, own: NoOptions) -> Run:
    # Hashed before the parse, not beside it (`RunSource.begin`): the hash frees the GIL while
    # the app imports Textual, and the parse holds it (msgspec's C calls): begun at once, the
    # parse of a 573 MB pair kept the app's first frame off the screen for 6.5 s (1.0 s so).
    # Its bytes are not the reading's count: the parse's are (`_parse`), once.
    with meter.unmetered():
        source = RunSource.of(path, NAME)
    header, batches = _parse(path)
    facts = []
    compacts = []  # each sample without what no transcript shows, kept for drill-down
    first_record: dict[tuple[str, int], str] = {}
    for start, samples in batches:
        for i, sample in enumerate(samples, start):
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
            compacts.append(compact_sample(sample))
        del samples  # (a batch's whole samples go before the next is decoded)
    check_has_samples(path, facts)
    check_scored(path, header, facts)
    scorer = choose_scorer(
        path, header, facts, None if cost_metric(options.metric) else options.metric
    )
    table = with_prompt_hashes(build_table(path, facts, scorer, options.metric), facts)
    metadata = run_metadata(header, scorer, facts, default_status="unknown")
    metadata.update(cost_direction(options.metric))
    transcripts = JsonTranscripts(compacts, scorer)
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


Batches = Iterator[tuple[int, list[Any]]]  # (the first's index, the samples), in order


def _parse(path: Path) -> tuple[dict[str, Any], Batches]:
    """The log's header (every key but the samples) and its samples, a batch at a time, its
    bytes counted as they are parsed (`meter.read`: the reading step's line moves with the
    parse, not with a read that takes a tenth of it).

    The samples are read apart from the rest of the document (`json_document`): decoded
    whole, a 573 MB log held its text, its tree of objects and two copies for the exactness
    check at once (2.7 GB); only the samples' compact forms outlive their batch now. A
    document that cannot be split so is parsed whole, as before."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise InputError(path, f"cannot read the file: {exc.strerror or exc}") from None
    apart = array_apart(data.removeprefix(UTF8_BOM), "samples")
    if apart is not None:
        rest, split = apart
        try:
            log = loads(rest)
        except (ValueError, RecursionError):  # the whole document's error, in its words
            log = None
        if isinstance(log, dict) and log.pop("samples", None) == []:
            as_dict(path, log.get("eval"), "eval")
            meter.read(len(rest))
            return log, _batches(path, data, split, len(data) - len(rest))
    log = as_dict(path, load_document(path, data), "(top level)")
    as_dict(path, log.get("eval"), "eval")
    samples = log.pop("samples", None)
    if samples is None:
        samples = []
    if not isinstance(samples, list):
        raise InputError(
            path, f"expected a list of samples, got {type(samples).__name__}", field="samples"
        )
    meter.read(len(data))
    return log, iter([(0, samples)])


def _batches(path: Path, data: bytes, split: list[Any], size: int) -> Batches:
    """The samples whose raw slices of `data` are `split`, decoded and checked a batch at a
    time (`ArrayElements.of_split`); `size` bytes are counted by the end."""
    elements = ArrayElements.of_split(split, lambda: load_document(path, data)["samples"])
    del split
    counted = 0
    for raw in elements.raw_batches(release=True):
        length = len(raw.raw or b"")
        samples = raw.values()
        counted += length
        meter.read(length)
        yield raw.start, samples
        if raw.whole:  # (the rest of the document's samples, read whole for their error)
            break
        del raw, samples
    meter.read(max(size - counted, 0))


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
