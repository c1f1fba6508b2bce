"""Inspect AI `.eval` logs: a zip archive with one JSON member per sample.

Layout (Inspect >= 0.3.5x): `header.json` (the EvalLog without samples: spec, status, results),
`samples/{id}_epoch_{n}.json` (one EvalSample each), `summaries.json` (one EvalSampleSummary per
sample: id, epoch, score values, error), `reductions.json`, and a journal written while the run is
going: `_journal/start.json` (spec only) and `_journal/summaries/{k}.json`. The first `.eval`
releases kept `start.json`, `results.json`, `summary.json` and `summaries/{k}.json` at the root;
those load too.

Statistics come from the summaries when there are any, so opening a run reads a few members,
not every sample body; a sample member is read only when its summary lacks what the statistics
need, and otherwise when drill-down asks for that row. A hostile archive is bounded
(`evaltui.core.read.archive_limits`): the listing is refused when it names a member twice or its
entries overlap; every member read is capped (`inspect_archive.MAX_MEMBER_BYTES`, checked
against the declared size before a byte is inflated, and against what comes out while
inflating; `inspect_archive.py` reads the members), as is its ratio of
inflated to compressed bytes, and a load inflates at most `ZipLimits.log_bytes` over all its
members. Every limit, zip or JSON failure becomes an `InputError` naming the file and the
member (exit 2). Members may be stored, deflated or zstd-compressed (Inspect's default since
0.3.206; `zip_members.py` reads those on every supported Python).
"""

from __future__ import annotations

import re
import threading
from collections.abc import Collection, Iterator, Mapping
from contextlib import nullcontext
from functools import partial
from itertools import repeat
from operator import attrgetter
from pathlib import Path
from typing import Any

from evaltui.core.errors import InputError
from evaltui.core.read import meter
from evaltui.core.read.archive_limits import DEFAULT_LIMITS, Budget
from evaltui.core.read.collector import collector_paused
from evaltui.core.read.formats import inspect_archive as archive_io
from evaltui.core.read.formats.contract import (
    LoadOptions,
    NoOptions,
    Recognised,
)
from evaltui.core.read.formats.fields import element
from evaltui.core.read.formats.harness_sniffs import FIRST_MEMBERS as FIRST_MEMBERS
from evaltui.core.read.formats.harness_sniffs import HEADER_JSON, JOURNAL_START, LEGACY_START
from evaltui.core.read.formats.harness_sniffs import ZIP_MAGIC as ZIP_MAGIC
from evaltui.core.read.formats.harness_sniffs import inspect_eval as light_sniff
from evaltui.core.read.formats.inspect_chunked import SHELL, ChunkIndex
from evaltui.core.read.formats.inspect_common import (
    SampleFacts,
    as_dict,
    check_has_samples,
    sample_facts,
)
from evaltui.core.read.formats.inspect_consistency import (
    INCONSISTENT,
    WARNING,
)
from evaltui.core.read.formats.inspect_eval_options import NAME
from evaltui.core.read.formats.inspect_eval_options import Options as Options
from evaltui.core.read.formats.inspect_eval_transcripts import (
    ROW_SOURCE,
    EvalTranscripts,
    RowSource,
    Source,
)
from evaltui.core.read.formats.inspect_results_check import (
    checked_against_results,
    facts_from_member,
)
from evaltui.core.read.formats.inspect_rows import (
    build_table,
    cost_direction,
    run_metadata,
    with_prompt_hashes,
)
from evaltui.core.read.formats.inspect_scores import (
    SettledFacts,
    check_scored,
    choose_scorer,
    has_scores,
)
from evaltui.core.read.formats.inspect_summaries import SAMPLE_MEMBER as SAMPLE_MEMBER
from evaltui.core.read.formats.inspect_summaries import (
    Columns,
    SampleMembers,
    columnwise_facts_and_members,
    names_by_key,
    split_member_names,
    typed_facts_and_members,
)
from evaltui.core.read.formats.inspect_typed import decode_batch
from evaltui.core.read.formats.json_array import ArrayElements, Numbered
from evaltui.core.read.formats.native import fingerprint
from evaltui.core.read.formats.zip_members import checked_members, read_member
from evaltui.core.read.remote.blob import RemoteBlob
from evaltui.core.read.run_entry import RunEntry
from evaltui.core.read.runs import Run, RunSource
from evaltui.core.read.turns import cost_metric
from evaltui.core.read.zip_directory import (
    ZipDirectory,
    ZipEntry,
    header_behind,
    read_directory,
)

SUMMARIES_JSON = "summaries.json"
JOURNAL_SUMMARY = re.compile(r"^_journal/summaries/(\d+)\.json$")
LEGACY_RESULTS = "results.json"
LEGACY_SUMMARY_JSON = "summary.json"
LEGACY_SUMMARY = re.compile(r"^summaries/(\d+)\.json$")
CHUNKED_SHELL = SHELL  # Inspect's chunked sample: a shell under a per-sample prefix


def sniff(path: Path, head: bytes) -> bool:
    """Whether the file is an Inspect .eval log (`harness_sniffs.inspect_eval`: detection asks
    it there, without importing this reader)."""
    return light_sniff(path, head)


def load(path: Source, options: LoadOptions, own: NoOptions) -> Run:
    """A local log, or (`remote/load.py`) a remote one: its central directory, header and
    summaries by byte ranges, its sha256 deferred (the app) or computed beside (`pending`)."""
    pending = None
    if isinstance(path, RemoteBlob):
        from evaltui.core.read.remote.sources import remote_source

        source, pending = remote_source(path, NAME, defer=options.defer_hash_check)
        stamp = (path.stat().size, 0)
    else:
        stamp = fingerprint(path)
        if options.defer_hash_check:  # the app: hashed by `confirm_inputs` after the first
            # screen, refused there if the file changed since this read (`RunSource.opened`),
            # as a remote log's is: hashing a 968 MB pair beside the parse cost the first
            # screen seconds on a busy 2-core box
            source = RunSource(str(path), NAME, stamp[0], "", hash_checked=False, opened=stamp)
        else:  # hashed in a helper thread beside the parse (hashlib releases the GIL), as
            # Parquet and CSV are: a 968 MB log's sha256 was a tenth of its open
            source, pending = RunSource.begin(path, NAME)
    # Kept for the transcripts: re-reading a 200,000-member central directory made the first
    # item opened wait two seconds.
    # A local log's parse is Python under the GIL: two side by side (a pair's two runs) take
    # as long as one after the other, but hold their transient memory (a log's inflated
    # summaries, a batch of decoded ones) at once; so local parses go one at a time. A
    # remote one waits on its byte ranges and keeps the overlap.
    with _LOCAL_PARSE if not isinstance(path, RemoteBlob) else nullcontext(), collector_paused():
        archive = archive_io.open_archive(path)
        try:
            return _load_open(path, archive, options, source, pending, stamp)
        except BaseException:
            archive.close()
            raise


_LOCAL_PARSE = threading.Lock()


def _name_of(path: Source) -> str:
    """The log's file name, local or remote, for a warning."""
    return Path(str(path)).name


def _load_open(
    path: Source,
    archive: ZipDirectory,
    options: LoadOptions,
    source: RunSource,
    pending: Any,
    stamp: tuple[int, int],
) -> Run:
    budget = Budget(DEFAULT_LIMITS)  # what this load may inflate over all its members
    members = archive_io.members(path, archive)
    header, default_status = _read_header(path, archive, members, budget)
    eager, rows, sample_source = _eager_pass(path, archive, members, header, budget)
    checked = checked_against_results(path, archive, members, header, eager, rows, budget)
    read_facts, rows, inconsistency = checked
    facts = SettledFacts(read_facts)  # read on, never changed: their distinct scores found once
    if inconsistency:
        sample_source = "samples (the summaries disagree with the log's results)"
    check_has_samples(path, facts)
    check_scored(path, header, facts)
    scorer = choose_scorer(
        path, header, facts, None if cost_metric(options.metric) else options.metric
    )
    table = with_prompt_hashes(build_table(path, facts, scorer, options.metric), facts)
    metadata = run_metadata(header, scorer, facts, default_status=default_status)
    metadata["sample_source"] = sample_source
    metadata.update(cost_direction(options.metric))
    if inconsistency:
        metadata[INCONSISTENT] = inconsistency
        metadata[WARNING] = f"{_name_of(path)}: {inconsistency}"
    if isinstance(path, RemoteBlob):
        path.check_unchanged()
    return Run(
        source=source,
        table=table,
        transcripts=EvalTranscripts(path, rows, scorer, stamp, ChunkIndex(members), archive),
        metadata=metadata,
        pending_source=pending,
    )


# ---------------------------------------------------------------------------------------------
# Reading the archive


class _Irregular(Exception):
    """The log is not one `NamesByKey` may find the sample members of (see `_eager_pass`)."""


def _eager_pass(
    path: Source,
    archive: ZipDirectory,
    members: Mapping[str, ZipEntry],
    header: dict,
    budget: Budget,
) -> tuple[list[SampleFacts], list[RowSource], str]:
    """One SampleFacts per (id, epoch): from the summaries where they suffice, else the member.

    The sample members are first found by name (`NamesByKey`: each summary's member name
    built, not every listed name split) when the log lists as many names under `samples/` as
    `summaries.json` holds summaries and none holds a line break. That finds what the split
    names find when every batch is decoded into Structs with every member listed, every sample
    scored (no member is read), and the summaries' keys are as many as those names: then the
    built names are all the names under `samples/`, each the one its key splits back to. At a
    batch read as dicts or one with a member to read, the names are split there and the
    members found so far compared with theirs: the same, and no key twice, and what came
    before is what the way before made (nothing was refused or read from a member until then)
    and the pass goes on the way before from that batch (a log with errored samples pays no
    second read). Any other log (a key twice, another name under `samples/` such as
    `_epoch_01` or a chunked shell) is read again the way before from its start
    (`_Irregular`), its budget as it was: what it says and refuses is what the way before
    says."""
    used = budget.used
    counted = _SamplesSaid()
    try:
        return _eager_pass_with(path, archive, members, header, budget, counted, by_name=True)
    except _Irregular:
        budget.used = used
        counted.again()
        return _eager_pass_with(path, archive, members, header, budget, counted, by_name=False)


class _SamplesSaid:
    """The samples summarised so far, said to the progress meter (`meter.samples_read`) each
    once: a log read again the way before (`_Irregular`) counts on from where the first pass
    had got to, never back."""

    def __init__(self) -> None:
        self._total = 0  # said to be read
        self._said = 0  # said to be done
        self._done = 0  # done in this pass

    def expect(self, count: int) -> None:
        """This pass reads `count` samples in all (a second pass: as many as the first)."""
        if count > self._total:
            meter.samples_read(0, count - self._total)
            self._total = count

    def add(self, count: int) -> None:
        self._done += count
        if self._done > self._said:
            meter.samples_read(self._done - self._said)
            self._said = self._done

    def again(self) -> None:
        self._done = 0


def _eager_pass_with(
    path: Source,
    archive: ZipDirectory,
    members: Mapping[str, ZipEntry],
    header: dict,
    budget: Budget,
    counted: _SamplesSaid | None = None,
    *,
    by_name: bool,
) -> tuple[list[SampleFacts], list[RowSource], str]:
    """`_eager_pass`, trying `NamesByKey` when `by_name` (`_Irregular` when it cannot); the
    samples it reads said to the progress meter by `counted`."""
    counted = counted or _SamplesSaid()
    facts: list[SampleFacts] = []
    rows: list[RowSource] = []
    position: dict[tuple[str, int], int] = {}

    def keep_all(batch_facts: list[SampleFacts], batch_rows: list[RowSource]) -> None:
        keys = dict.fromkeys(map(_KEY, batch_facts))
        if len(keys) < len(batch_facts) or not position.keys().isdisjoint(keys):
            for fact, row in zip(batch_facts, batch_rows, strict=True):
                keep(fact, row)  # a sample repeated: its last summary counts
            return
        position.update(zip(keys, range(len(facts), len(facts) + len(keys)), strict=True))
        facts.extend(batch_facts)
        rows.extend(batch_rows)

    def keep(fact: SampleFacts, row: RowSource) -> None:
        # the journal can repeat a sample; the member holds the last one
        at = position.setdefault((fact.item_id, fact.epoch), len(facts))
        if at < len(facts):
            facts[at] = fact
            rows[at] = row
        else:
            facts.append(fact)
            rows.append(row)

    summaries, summary_source = _read_summaries(path, archive, members, budget)
    counted.expect(len(summaries))
    named = names_by_key(members, summaries) if by_name else None
    # the names split (the way before), unless found by `named` (then never asked)
    split: dict[tuple[str, int], str] = {} if named is not None else _sample_members(members)
    sample_members: SampleMembers = split if named is None else named
    unscored_log = _header_says_unscored(header) and not any(
        isinstance(s, dict) and (s.get("scores") or s.get("error")) for _, s in summaries
    )
    current = [sample_members]  # where `_batches` finds the members (the split, once left)

    def leave_names(batch_facts: list[SampleFacts], found: list[str | None]) -> None:
        """Go on by the split names, once the samples read so far (and this batch's, `found`
        by name) are shown to have the members the split names give them, and no key twice
        (`_Irregular` otherwise: read again from the start)."""
        nonlocal named, split
        split = _sample_members(members)
        kept = list(map(_KEY, facts))
        if list(map(split.get, kept)) != list(map(_MEMBER, rows)):
            raise _Irregular
        if list(map(split.get, map(_KEY, batch_facts))) != found:
            raise _Irregular
        position.update(zip(kept, range(len(kept)), strict=True))
        if len(position) != len(kept):
            raise _Irregular  # a key twice so far: kept as it came, not as `keep` keeps it
        named = None
        current[0] = split

    shared: dict[Any, Any] = {}  # the scores every sample with the same values shares
    for records, batch, typed in _batches(summaries, current, shared):
        # a batch of the common shape is read column-wise (`inspect_summaries`: from Structs
        # when `inspect_typed` decoded it, else from dicts); any other, one summary at a
        # time, each checked in turn
        if named is not None and typed is None:
            leave_names([], [])  # a batch read as dicts: by the split names from here
        columns = typed or columnwise_facts_and_members(records, batch, split, shared)
        if columns is not None:
            batch_facts, found = columns
            scores = list(map(_SCORES, batch_facts))
            every_scored = _types(scores) == {dict} and all(map(len, scores))  # in C
            if named is not None and not every_scored:
                leave_names(batch_facts, found)  # a member may be read: by the split names
            for i, (fact, member) in enumerate(zip(batch_facts, found, strict=True)):
                if every_scored:  # (the columns hold no error: every member decides nothing)
                    break
                if member is not None and _member_decides(fact, unscored_log):
                    batch_facts[i] = facts_from_member(path, archive, members[member], fact, budget)
        else:
            batch_facts, found = [], []
            for record, summary in zip(records, batch, strict=True):
                # a summary with a member names both: the value at fault is the summary's copy
                fact = sample_facts(path, summary, record, split, shared)
                member = split.get((fact.item_id, fact.epoch))
                if member is not None and _member_decides(fact, unscored_log):
                    fact = facts_from_member(path, archive, members[member], fact, budget)
                batch_facts.append(fact)
                found.append(member)
        if named is not None:  # (a key twice is found at the end: no position kept)
            facts.extend(batch_facts)
            rows.extend(_row_sources(batch_facts, found, batch))
        else:
            keep_all(batch_facts, _row_sources(batch_facts, found, batch))
        counted.add(len(records))
    if named is not None and len(set(map(_MEMBER, rows))) != len(summaries):
        raise _Irregular  # a key twice: the names under samples/ may be other than built
    unsummarised = (
        []  # every member summarised (a finished log): decided by one C comparison
        if named is not None or split.keys() <= position.keys()
        else [m for key, m in split.items() if key not in position]
    )
    counted.expect(len(summaries) + len(unsummarised))
    for member in unsummarised:
        fact = facts_from_member(path, archive, members[member], None, budget)
        keep(fact, RowSource(member, None, member))
        counted.add(1)
    if not summaries:
        return facts, rows, "samples"
    if unsummarised:
        return facts, rows, f"{summary_source} + {len(unsummarised)} sample members"
    return facts, rows, summary_source


_KEY = attrgetter("item_id", "epoch")  # a fact's (id, epoch)
_MEMBER = attrgetter("member")  # a row's sample member
_sample_members = split_member_names  # (the names split: the way before `NamesByKey`)


def _row_sources(
    facts: list[SampleFacts], found: list[str | None], summaries: list[Any]
) -> list[RowSource]:
    """Each row's source: its member, else its summary (kept in memory) under its record."""
    if None not in found:  # a member for every sample (a finished log): built in C
        return list(map(ROW_SOURCE, zip(found, repeat(None), found)))
    return [
        RowSource(member, None if member else summary, member or fact.record)
        for fact, member, summary in zip(facts, found, summaries, strict=True)
    ]


_SCORES = attrgetter("scores")


def _types(values: list[Any]) -> set[type]:
    return set(map(type, values))


def _member_decides(fact: SampleFacts, unscored_log: bool) -> bool:
    """Whether a summarised sample's facts come from its member: an old summary has no `error`
    field, and a thinned one may lack the score: the member is the authority."""
    return not unscored_log and fact.error is None and not has_scores(fact)


def _batches(
    summaries: Collection[tuple[str, Any]],
    current: list[SampleMembers],
    shared: dict[Any, Any],
) -> Iterator[tuple[list[str], list[Any], Columns | None]]:
    """(records, summaries, None) a decoded batch at a time (`Numbered.raw_batches`, each
    batch's bytes freed once decoded: the last pass), else all at once; or (records, [],
    facts and members) for a batch `inspect_typed` decoded and `typed_facts_and_members` read
    (the summaries themselves are then not needed: every one has its sample member), finding
    the members in `current[0]` as it is when the batch is read."""
    if isinstance(summaries, Numbered):
        for batch in summaries.raw_batches(release=True):
            typed = None if batch.raw is None else decode_batch(batch.raw)
            if typed is not None:
                records = summaries.records(batch.start, len(typed))
                columns = typed_facts_and_members(records, typed, current[0], shared)
                del typed
                if columns is not None:
                    yield records, [], columns
                    continue
            values = batch.values()
            yield summaries.records(batch.start, len(values)), values, None
            del batch, values
    elif summaries:
        names, elements = zip(*summaries, strict=True)
        yield list(names), list(elements), None


def _read_summaries(
    path: Source, archive: ZipDirectory, members: Mapping[str, ZipEntry], budget: Budget
) -> tuple[Collection[tuple[str, Any]], str]:
    """(record, summary) pairs from the consolidated file, else the journal; may be empty.
    Iterated at most twice (decoded again each time): the pass below, and the check that an
    unscored log's summaries hold nothing scored."""
    for consolidated in (SUMMARIES_JSON, LEGACY_SUMMARY_JSON):
        if consolidated in members:
            return _summary_list(path, archive, members[consolidated], budget), consolidated
    for pattern in (JOURNAL_SUMMARY, LEGACY_SUMMARY):
        parts = sorted(
            (int(m.group(1)), name) for name in members if (m := pattern.match(name)) is not None
        )
        if parts:
            found: list[tuple[str, Any]] = []
            for _, name in parts:
                found.extend(_summary_list(path, archive, members[name], budget))
            directory = parts[0][1].rsplit("/", 1)[0]
            return found, f"{directory}/*.json"
    return [], ""


def _summary_list(
    path: Source, archive: ZipDirectory, info: ZipEntry, budget: Budget
) -> Collection[tuple[str, Any]]:
    """(record, summary) pairs; a large list decoded a batch at a time (`json_array`)."""
    data = archive_io.member_bytes(path, archive, info, budget)
    elements = ArrayElements.of(data, partial(_parse_again, path, archive, info))
    if elements is not None:
        return Numbered(info.filename, elements)
    value = archive_io.parse_member(path, info, data)
    if not isinstance(value, list):
        raise InputError(
            path,
            f"expected a JSON list of sample summaries, got {type(value).__name__}",
            record=info.filename,
        )
    return [(element(info.filename, i), item) for i, item in enumerate(value)]


def _parse_again(path: Source, archive: ZipDirectory, info: ZipEntry) -> Any:
    """The member read and parsed whole once more, for its error in its words (the batches
    do not keep the document: see `json_array`); it was read under the load's budget once."""
    return archive_io.parse_member(path, info, archive_io.member_bytes(path, archive, info))


def _header_says_unscored(header: dict[str, Any]) -> bool:
    results = header.get("results")
    return isinstance(results, dict) and results.get("scores") == []


def _read_header(
    path: Source, archive: ZipDirectory, members: Mapping[str, ZipEntry], budget: Budget
) -> tuple[dict[str, Any], str]:
    """The log header and the status to assume when it records none."""
    if HEADER_JSON in members:
        header = as_dict(
            path, archive_io.read_json(path, archive, members[HEADER_JSON], budget), "header.json"
        )
        record = HEADER_JSON
        default_status = "unknown"
    elif JOURNAL_START in members:  # still running, or it crashed before writing the header
        header = as_dict(
            path, archive_io.read_json(path, archive, members[JOURNAL_START], budget), JOURNAL_START
        )
        record = JOURNAL_START
        default_status = "started"
    elif LEGACY_START in members:
        header = dict(
            as_dict(
                path, archive_io.read_json(path, archive, members[LEGACY_START], budget), "start"
            )
        )
        record = LEGACY_START
        default_status = "started"
        if LEGACY_RESULTS in members:
            results = archive_io.read_json(path, archive, members[LEGACY_RESULTS], budget)
            header.update(as_dict(path, results, "results", record=LEGACY_RESULTS))
    else:
        raise InputError(
            path,
            "not an Inspect .eval log: the zip has neither header.json nor _journal/start.json",
        )
    as_dict(path, header.get("eval"), "eval", record=record)
    return header, default_status


# ---------------------------------------------------------------------------------------------
# In a log directory (`ListsInDirectories`): an Inspect log dir holds `.eval` logs side by side


def recognise(path: Path) -> Recognised | None:
    return "run" if path.name.endswith(".eval") and path.is_file() else None


def describe_run(entry: RunEntry) -> RunEntry:
    """From the zip's central directory (the sample count) and `header.json` (or, for a log
    still being written, `_journal/start.json`), never a sample."""
    return describe_log(entry, entry.path)


def describe_log(entry: RunEntry, where: Source) -> RunEntry:
    """`describe_run` of a local file or of a remote object (`remote/listing.py`, by byte
    ranges)."""
    import json

    from evaltui.core.read.formats.inspect_header import entry_from_header
    from evaltui.core.read.run_entry import MAX_HEADER_BYTES

    with where.open("rb") as handle:  # a remote log's header in the directory's request
        archive = read_directory(handle, None if isinstance(where, Path) else header_behind)
    infos = checked_members(archive)  # LimitExceeded: the listing says why it is unreadable
    ids = {m["id"] for name in infos if (m := SAMPLE_MEMBER.match(name))}
    ids |= {m["id"] for name in infos if (m := CHUNKED_SHELL.match(name))}
    member = next((n for n in (HEADER_JSON, JOURNAL_START) if n in infos), None)
    if member is None:
        raise ValueError("neither header.json nor _journal/start.json: not an Inspect log")
    data = read_member(archive, infos[member], where, MAX_HEADER_BYTES)
    header = json.loads(data)
    status = header.get("status") if member == HEADER_JSON else "started"
    return entry_from_header(entry, header, len(ids) or None, status)
