"""lm-evaluation-harness `--log_samples` files: `samples_<task>_<date>.jsonl`.

One line per (doc_id, filter): `doc_id`, `doc`, `target`, `arguments` (the requests), `resps`
(raw model responses), `filtered_resps` (after the task's filter), `filter`, `metrics` (names),
`doc_hash`/`prompt_hash`/`target_hash`, and one key per metric with the per-document value.

A run is one filter of one task: `--filter` picks it (default: the first seen); other filters'
lines are skipped and listed in the metadata. The metric is `--metric`, else the first of
PREFERRED_METRICS present. Values 0/1 (ints, floats or booleans) of a verdict metric (acc,
exact_match...) become `passed`; any other number makes the column a graded `score`; anything
else is an error naming the line. `doc_hash` is kept as a column so pairing can check that a
doc_id means the same document in both runs.

Every line is parsed once for the statistics; drill-down re-reads one line by its byte offset.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from evaltui.core.errors import InputError
from evaltui.core.read.formats.contract import (
    HEAD_BYTES,
    LoadOptions,
    Recognised,
    check_row,
    check_text_field,
    ensure_same_file,
)
from evaltui.core.read.formats.fields import (
    Where,
    element,
    identifier,
    is_finite,
    metric_value,
    require_str,
)
from evaltui.core.read.formats.harness_sniffs import lm_eval as light_sniff
from evaltui.core.read.formats.jsontext import UTF8_BOM, loads, parse_json_object_line
from evaltui.core.read.formats.lm_eval_listing import SAMPLES_NAME
from evaltui.core.read.formats.lm_eval_options import NAME, Options
from evaltui.core.read.formats.lm_eval_records import (
    DEFAULT_FILTER,
    DOC_HASH,
    JSONL,
    PROMPT_HASH,
    default_metric,
    document_hash,
    is_array,
    metric_names,
    prompt_hash_of,
    read_one,
    read_records,
    refuse_repeated,
)
from evaltui.core.read.formats.lm_eval_results import (
    DIRECTION_PREFIX,
    metric_direction,
    results_metadata,
)
from evaltui.core.read.formats.lm_eval_scan import scan_samples
from evaltui.core.read.formats.lm_eval_transcript import (
    LineTable,
    sample_field,
    sample_transcript,
)
from evaltui.core.read.formats.native import POLARS_FAILURES, fingerprint
from evaltui.core.read.formats.refusals import explain
from evaltui.core.read.run_entry import RunEntry
from evaltui.core.read.runs import (
    EPOCH,
    ITEM_ID,
    PASSED,
    ROW,
    SCORE,
    STATUS,
    Run,
    RunSource,
    Transcript,
    stats_table,
)

HARNESS = "lm_eval"
# sha256 of the document, computed here as lm-eval computes its doc_hash, for files that carry
# none (0.4.0-0.4.2): what tells two untitled runs' items apart (`compare.comparability`).
INPUT_HASH = "input_hash"
VERDICT_METRICS = frozenset({"acc", "acc_norm", "exact_match", "acc_mutual_info", "pass@1"})
FAST_KEYS = frozenset({"filter", DOC_HASH, PROMPT_HASH})  # read beside the metric by the fast path
OLD_FILTERS_HINT = (
    " (lm-eval 0.4.0-0.4.2 wrote one record per filter without naming the filter, so a task "
    "with several filters cannot be read from such a file)"
)
QUOTE_CHARS = 80  # how much of a wrong value an error message quotes


def sniff(path: Path, head: bytes) -> bool:
    """Whether the file is this format's (`harness_sniffs.lm_eval`: detection asks it there,
    without importing this reader)."""
    return light_sniff(path, head)


@dataclass(frozen=True)
class _Line:
    offset: int
    length: int  # bytes of the record at `offset`
    number: int  # 1-based line number in the file (where the record starts)
    record: str | None  # "[i]" in the JSON array layout
    item_id: str
    value: Any
    doc_hash: str | None
    prompt_hash: str | None = None
    input_hash: str | None = None  # computed from the document when doc_hash is absent


def load(path: Path, options: LoadOptions, own: Options) -> Run:
    stamp = fingerprint(path)
    chosen_filter = own.filter
    metric = options.metric
    filters: dict[str, int] = {}  # filter -> line count, in order of first appearance
    kept: list[_Line] = []
    seen: dict[str, tuple[int, bytes]] = {}  # item_id -> (line, digest), for the chosen filter
    repeats: list[int] = []  # lines that repeat an earlier line byte for byte
    with path.open("rb") as handle:
        head = handle.read(HEAD_BYTES)
    reason = None if sniff(path, head) else explain(path, head)
    if reason is not None:  # forced with --input-format lm_eval on the results file
        raise InputError(path, reason)
    if not is_array(head):
        fast = _fast_load(path, head, options, own, stamp)
        if fast is not None:
            return fast
    # The fast path hashes the file in its own pass; here it is hashed in a helper thread
    # while the lines are parsed (hashing it first read 188 MB twice before the parse began).
    source, pending_source = RunSource.begin(path, NAME)
    layout, sample_records = read_records(path, head)
    for sample in sample_records:
        record, number = sample.record, sample.number
        record_name = None if sample.index is None else element("", sample.index)
        where = Where(path, line=number, record=record_name, quote=QUOTE_CHARS)
        refuse_repeated(sample, chosen_filter, metric)
        name = require_str(
            record, "filter", where, "the filter name as a string", default=DEFAULT_FILTER
        )
        filters[name] = filters.get(name, 0) + 1
        if chosen_filter is None:
            chosen_filter = name
        if name != chosen_filter:
            continue  # another filter's view of the same documents: not this run
        item_id = identifier(record, "doc_id", where, "doc_id as an integer or a non-empty string")
        if item_id in seen:
            first, digest = seen[item_id]
            if digest == sample.digest:  # lm-eval appended the same run again: not new data
                repeats.append(number)
                continue
            raise where.error(
                "doc_id",
                f"doc_id {item_id} appears twice for filter '{name}' (first on line {first}) "
                "and the two records differ; expected one line per (doc_id, filter)"
                + (OLD_FILTERS_HINT if sample.index is not None else ""),
            )
        seen[item_id] = (number, sample.digest)
        if metric is None:
            metric = default_metric(path, record, number)
        if metric not in record:
            available = ", ".join(metric_names(record)) or "none"
            raise where.error(
                metric,
                f"no value for metric '{metric}'; this line has: {available} "
                "(choose one with --metric)",
            )
        doc_hash = record.get(DOC_HASH)
        prompt_hash = record.get(PROMPT_HASH)
        kept.append(
            _Line(
                offset=sample.offset,
                length=sample.length,
                number=number,
                record=record_name,
                item_id=item_id,
                value=record[metric],
                doc_hash=doc_hash if isinstance(doc_hash, str) else None,
                prompt_hash=(
                    prompt_hash if isinstance(prompt_hash, str) else prompt_hash_of(record)
                ),
                input_hash=None if isinstance(doc_hash, str) else document_hash(record),
            )
        )
    if not filters:
        raise InputError(
            path, "holds no samples; expected one JSON object per line (or a JSON array)"
        )
    if own.filter is not None and own.filter not in filters:
        raise InputError(
            path,
            f"no lines for filter '{own.filter}'; filters in this file: "
            f"{', '.join(repr(f) for f in filters)} (choose one with --filter)",
            field="filter",
        )
    assert metric is not None and chosen_filter is not None
    table, nonfinite = _table(path, kept, metric, bool(own.exclude_nonfinite))
    metadata = _metadata(path, chosen_filter, metric, filters, table)
    metadata["layout"] = layout
    if "score" in table.columns:  # a verdict has no direction to get wrong
        metadata.update(metric_direction(path, metric, own.higher_is_better, metadata))
    for key in [k for k in metadata if k.startswith(DIRECTION_PREFIX)]:
        del metadata[key]
    if nonfinite:
        lines = ", ".join(map(str, nonfinite[:5])) + (", ..." if len(nonfinite) > 5 else "")
        metadata["nonfinite_records"] = str(len(nonfinite))
        metadata["warning.nonfinite"] = (
            f"{path.name}: {len(nonfinite)} record(s) with a non-finite {metric} (NaN or "
            f"infinite; lines {lines}) are counted as errored items (--exclude-nonfinite)"
        )
    if repeats:
        metadata["repeated_lines"] = str(len(repeats))
        metadata["warning.repeated_lines"] = (
            f"{path.name}: {len(repeats)} record(s) repeat an earlier one byte for byte (lm-eval "
            "appends to its samples file when a run is written into the same folder again); "
            f"each item is counted once (first repeat on line {repeats[0]})"
        )
    return Run(
        source=source,
        pending_source=pending_source,
        table=table,
        transcripts=LmEvalTranscripts(path, [(k.offset, k.length, k.number) for k in kept], stamp),
        metadata=metadata,
    )


def _fast_load(
    path: Path, head: bytes, options: LoadOptions, own: Options, stamp: tuple[int, int]
) -> Run | None:
    """The common case in one pass (`lm_eval_scan`: the statistics keys, sha256 and line
    index): finite numeric values, one line per doc_id of the chosen filter. Anything else
    (booleans, lists, a missing key, a repeat, a NaN) returns None, and the line-by-line
    reader below gives its precise answer or error."""
    first, newline, _ = head.removeprefix(UTF8_BOM).partition(b"\n")
    if not newline:
        return None
    try:  # (strict: a key written twice on the line the metric is chosen from is the slow
        # path's to refuse or read, `lm_eval_records.refuse_repeated`)
        record = loads(first)
        if not isinstance(record, dict):
            return None
        metric = options.metric or default_metric(path, record, 1)
    except (ValueError, InputError, RecursionError):
        return None
    if metric in (FAST_KEYS | {"doc_id"}):
        return None
    if isinstance(record.get(metric), bool) or not is_finite(record.get(metric)):
        return None
    try:  # None: a key written twice, escaped or mistyped, or a line msgspec or polars
        # refuses: the slow path says which, where
        scan = scan_samples(path, metric)
    except POLARS_FAILURES:  # (an OSError too: the slow path says it in its words)
        return None
    if scan is None:
        return None
    frame = scan.frame.with_columns(pl.col("filter").fill_null(DEFAULT_FILTER))
    if frame.height == 0 or frame.height != len(scan.lines):
        return None
    # (the checks below in two polars queries run at once, `_fast_checks`, where eleven Series
    # calls ran one after the other: 31 -> 24 ms of the reading thread per 200,000-line file,
    # at the end of both reads, which the first screen waits for)
    counts = frame.group_by("filter", maintain_order=True).len()
    filters = dict(zip(counts["filter"].to_list(), counts["len"].to_list(), strict=True))
    chosen = own.filter if own.filter is not None else next(iter(filters))
    if chosen not in filters:
        return None
    positions = frame.with_row_index("at")
    if len(filters) > 1:
        positions = positions.filter(pl.col("filter") == chosen)
    ok, zero_one = _fast_checks(frame, positions, metric)
    if not ok:
        return None  # (a NUL in an id, a null or empty id, an id twice, a null or non-finite
        # value, a line without its hashes: the line-by-line reader says which, or computes
        # the hashes from its document and prompt, lm-eval 0.4.0-0.4.2, as it always did)
    rows = positions["at"].to_numpy()
    starts = scan.lines.starts
    lengths = np.append(starts[1:], path.stat().st_size) - starts
    if (
        options.metric is None
        and rows[0] != 0
        and not _chooses(path, starts, lengths, rows[0], metric)
    ):
        return None  # the line-by-line reader chooses the metric from the filter's first line
    numbers = scan.lines.line_numbers
    if len(filters) > 1:  # (one filter: every line, already in row order)
        starts, lengths, numbers = starts[rows], lengths[rows], numbers[rows]
    lines = LineTable(starts, lengths, numbers)
    verdicts = metric in VERDICT_METRICS and zero_one
    value = (pl.col(metric) == 1.0).alias(PASSED) if verdicts else pl.col(metric).alias(SCORE)
    table = positions.select(  # the columns and types of runs.stats_table, built in polars
        pl.col("doc_id").alias(ITEM_ID),
        pl.lit(1, dtype=pl.Int64).alias(EPOCH),
        value,
        pl.lit("ok", dtype=pl.String).alias(STATUS),
        pl.int_range(pl.len(), dtype=pl.Int64).alias(ROW),
    )
    table = table.with_columns(positions[DOC_HASH], positions[PROMPT_HASH])
    metadata = _metadata(path, chosen, metric, filters, table)
    metadata["layout"] = JSONL
    if "score" in table.columns:
        metadata.update(metric_direction(path, metric, own.higher_is_better, metadata))
    for key in [k for k in metadata if k.startswith(DIRECTION_PREFIX)]:
        del metadata[key]
    source = RunSource(path=str(path), format=NAME, size=path.stat().st_size, sha256=scan.sha256)
    return Run(
        source=source,
        table=table,
        transcripts=LmEvalTranscripts(path, lines, stamp),
        metadata=metadata,
    )


def _fast_checks(frame: pl.DataFrame, positions: pl.DataFrame, metric: str) -> tuple[bool, bool]:
    """Whether the fast read's table can stand for the line-by-line reader's (no id holding a
    NUL, or a lone surrogate as polars writes it; no line without an id; on the chosen
    filter's lines, `positions`, no id twice, none empty, every value a finite number, both
    hashes present), and whether every value there is 0 or 1: two polars queries, collected
    together (one call out of Python, the expressions evaluated in parallel)."""
    ids, value = pl.col("doc_id"), pl.col(metric)
    whole = frame.lazy().select(
        bad=ids.str.contains("\x00", literal=True).any() | (ids.null_count() > 0)
    )
    chosen = positions.lazy().select(
        bad=(ids.n_unique() < pl.len())  # (an id twice: a sixth of `is_duplicated`'s cost)
        | (value.null_count() > 0)
        | ~value.is_finite().all()
        | (ids == "").any()
        | (pl.col(DOC_HASH).null_count() > 0)
        | (pl.col(PROMPT_HASH).null_count() > 0),
        zero_one=value.is_in([0.0, 1.0]).all(),
    )
    found_whole, found_chosen = pl.collect_all([whole, chosen])
    ok = not found_whole["bad"].item() and not found_chosen["bad"].item()
    return ok, bool(found_chosen["zero_one"].item())


def _chooses(path: Path, starts: np.ndarray, lengths: np.ndarray, row: int, metric: str) -> bool:
    """Whether line `row` (0-based), the chosen filter's first when `--filter` names another
    than the first line's, parses strictly and gives `metric` as its default, as the
    line-by-line reader, which chooses from it, would (a key written twice there, or another
    metric, leaves the file to it)."""
    try:
        with path.open("rb") as handle:
            handle.seek(int(starts[row]))
            record = loads(handle.read(int(lengths[row])))
        return isinstance(record, dict) and default_metric(path, record, row + 1) == metric
    except (OSError, ValueError, InputError, RecursionError):
        return False


def _table(
    path: Path, lines: Sequence[_Line], metric: str, exclude_nonfinite: bool
) -> tuple[pl.DataFrame, list[int]]:
    """The statistics table, and the lines whose value was NaN or infinite: with
    `exclude_nonfinite` those records are errored items (status "error", no value), otherwise
    the first one is an error naming its line."""
    numbers: list[float | None] = []
    nonfinite: list[int] = []
    for line in lines:
        if exclude_nonfinite and _is_nonfinite(line.value):
            nonfinite.append(line.number)
            numbers.append(None)
            continue
        where = Where(path, line=line.number, record=line.record, quote=QUOTE_CHARS)
        if _is_nonfinite(line.value):
            raise where.error(
                metric,
                f"the value {where.quoted(line.value)} of metric '{metric}' is not a finite "
                "number; pass --exclude-nonfinite to count such records as errored items "
                "(then --on-error decides: failures, or excluded from both runs)",
            )
        if isinstance(line.value, list):
            raise where.error(metric, _corpus_level(metric, where.quoted(line.value), lines))
        numbers.append(float(metric_value(line.value, metric, where, metric)))
    finite = [n for n in numbers if n is not None]
    all_bool = all(isinstance(line.value, bool) for line in lines if line.number not in nonfinite)
    verdicts = all_bool or (metric in VERDICT_METRICS and all(n in (0.0, 1.0) for n in finite))
    table = stats_table(
        [line.item_id for line in lines],
        [1] * len(lines),
        ["ok" if n is not None else "error" for n in numbers],
        passed=[n == 1.0 for n in numbers] if verdicts else None,
        score=None if verdicts else numbers,
    )
    for name, values in (
        (DOC_HASH, [line.doc_hash for line in lines]),
        (PROMPT_HASH, [line.prompt_hash for line in lines]),
        (INPUT_HASH, [line.input_hash for line in lines]),
    ):
        if any(v is not None for v in values):
            table = table.with_columns(pl.Series(name, values, dtype=pl.String))
    return table, nonfinite


def _corpus_level(metric: str, quoted: str, lines: Sequence[_Line]) -> str:
    return (
        f"metric '{metric}' holds a list per record ({quoted}): lm-eval computes {metric} over "
        "the whole corpus from these (reference, prediction) pairs, so there is no per-item "
        f"{metric} to pair; choose a per-item metric with --metric, or compare the runs' "
        "results_*.json numbers by hand"
    )


def _is_nonfinite(value: Any) -> bool:
    """NaN or an infinity (Python's json reads `NaN`, `Infinity` and `-Infinity`)."""
    return isinstance(value, float) and not math.isfinite(value)


def _metadata(
    path: Path, chosen_filter: str, metric: str, filters: dict[str, int], table: pl.DataFrame
) -> dict[str, str]:
    meta: dict[str, str] = {
        "harness": HARNESS,
        "metric": metric,
        "scorer": metric,
        "filter": chosen_filter,
        "filters": ", ".join(f"{name} ({count} lines)" for name, count in filters.items()),
        "lines_ignored": str(sum(c for name, c in filters.items() if name != chosen_filter)),
    }
    named = SAMPLES_NAME.match(path.name)
    if named:
        task, date_id = named.group("task"), named.group("date")
        meta["task"] = task
        meta["date_id"] = date_id
        # lm-eval's layout: <output_path>/<model_name_sanitized>/samples_<task>_<date>.jsonl,
        # where sanitizing turned "/" into "__".
        meta["model"] = path.parent.name.replace("__", "/")
        meta["model_source"] = "directory name"
        meta.update(results_metadata(path.parent / f"results_{date_id}.json", task))
    if DOC_HASH not in table.columns:
        meta["doc_hash"] = "absent (pairing cannot check that doc_ids name the same documents)"
    return meta


class LmEvalTranscripts:
    """Seeks to a row's line and renders it; the file is opened per read."""

    def __init__(
        self, path: Path, lines: Sequence[tuple[int, int, int]], stamp: tuple[int, int]
    ) -> None:
        self._path = path
        # (byte offset, length, 1-based line number) per row
        self._lines = lines if isinstance(lines, LineTable) else list(lines)
        self._stamp = stamp
        self._lock = threading.Lock()

    def read(self, row: int) -> Transcript:
        check_row(row, len(self._lines))
        offset, length, number = self._lines[row]
        with self._lock:
            ensure_same_file(self._path, self._stamp, line=number)
            record = read_one(self._path, offset, length, number)
        return sample_transcript(record, number)

    def read_field(self, rows: Sequence[int], name: str) -> list[str | None]:
        """The field of each row as `read(row)` gives it, in one pass: the file checked and
        opened once, the lines read in file order, only `name` rendered (a chunk of 2,000
        previews was 2,000 stats, opens and whole transcripts, the first screen's GIL)."""
        check_text_field(name)
        for row in rows:
            check_row(row, len(self._lines))
        wanted = [self._lines[row] for row in rows]
        raws: dict[int, bytes] = {}
        with self._lock:
            if wanted:
                ensure_same_file(self._path, self._stamp, line=wanted[0][2])
            try:
                with self._path.open("rb") as handle:
                    for offset, length, _ in sorted(set(wanted)):
                        handle.seek(offset)
                        raws[offset] = handle.read(length)
            except OSError as exc:
                raise InputError(self._path, f"cannot read the file: {exc}") from None
        return [
            sample_field(parse_json_object_line(self._path, raws[offset], number), name)
            for offset, _, number in wanted
        ]


def recognise(path: Path) -> Recognised | None:
    name = path.name
    if name.startswith("results") and name.endswith(".json"):
        return "companion"  # the aggregate, read beside its samples
    if not name.endswith(".jsonl") or not path.is_file():
        return None
    if SAMPLES_NAME.match(name):
        return "run"
    try:
        with path.open("rb") as handle:
            return "run" if sniff(path, handle.read(HEAD_BYTES)) else None
    except OSError:
        return None


def describe_run(entry: RunEntry) -> RunEntry:
    """From the file's name and folder, its first line (the metrics) and the results file
    beside it (the model's name, the effective sample count), never the samples."""
    from evaltui.core.read.formats.lm_eval_listing import entry_from_samples_file

    return entry_from_samples_file(entry)
