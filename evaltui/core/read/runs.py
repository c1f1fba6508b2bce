"""The canonical run table: what every input format is turned into.

A run is split in two on purpose. The *statistics table* (ids, verdicts, scores, status, slice,
cluster) is small and read eagerly; the *transcripts* (input, output, target, explanation,
messages) can be most of a file's bytes, so they are fetched by record when an item is opened.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path
from typing import Protocol

import polars as pl

from evaltui.core.errors import InputError
from evaltui.core.read import meter
from evaltui.core.read.hash_progress import hash_beside
from evaltui.core.read.turns import Block, SampleCost, ScorerVerdict

# Columns of the statistics table, with their polars types. `row` is the record's index in the
# file (0-based), which is how a transcript is found again later.
ITEM_ID = "item_id"
EPOCH = "epoch"
PASSED = "passed"
SCORE = "score"
STATUS = "status"
SLICE = "slice"
CLUSTER = "cluster"
OUTCOME = (
    "outcome"  # the item's outcome category (correct, refused, error...), when the file has one
)
ROW = "row"
SCORE_PREFIX = "score:"
# A further pass/fail metric of the run (a log's second scorer): `passed:<scorer>`. The plain
# `passed` column is the run's first (or requested) verdict metric; the others join the family.
VERDICT_PREFIX = "passed:"

STAT_SCHEMA: dict[str, pl.DataType] = {
    ITEM_ID: pl.String(),
    EPOCH: pl.Int64(),
    PASSED: pl.Boolean(),
    STATUS: pl.String(),
    SLICE: pl.String(),
    CLUSTER: pl.String(),
    OUTCOME: pl.String(),
    ROW: pl.Int64(),
}
TEXT_FIELDS = ("input", "output", "target", "explanation")
MESSAGES = "messages"
STATUS_VALUES = ("ok", "error", "timeout")
FAILURE_STATUSES = ("error", "timeout")


def is_score_column(name: str) -> bool:
    """A graded metric column: `score` itself or `score:<metric>`."""
    return name == SCORE or name.startswith(SCORE_PREFIX)


def is_verdict_column(name: str) -> bool:
    """A further pass/fail metric column, `passed:<metric>` (not the plain `passed`)."""
    return name.startswith(VERDICT_PREFIX)


def is_verdict_metric(metric: str) -> bool:
    """A pass/fail metric (read in points of pass rate), not a graded score."""
    return metric == PASSED or is_verdict_column(metric)


@dataclass(frozen=True)
class RunSource:
    """Where a run came from, as the sign-off record needs it to be audited later."""

    path: str
    format: str
    size: int
    sha256: str
    # False while `sha256` is a scan cache entry's word for the file, not yet recomputed from
    # its bytes (see LoadOptions.defer_hash_check); never False in a headless command.
    hash_checked: bool = field(default=True, compare=False)
    # A local file read with its sha256 deferred (`sha256` empty, `hash_checked` False): its
    # (size, mtime_ns) when it was read. `scan_cache.confirm` hashes it after the first screen
    # and refuses it if these changed meanwhile (the bytes hashed are the bytes shown).
    opened: tuple[int, int] | None = field(default=None, compare=False, repr=False)

    @classmethod
    def of(cls, path: Path, format_name: str) -> RunSource:
        return cls(
            path=str(path), format=format_name, size=path.stat().st_size, sha256=sha256_of(path)
        )

    @classmethod
    def begin(cls, path: Path, format_name: str) -> tuple[RunSource, Future[RunSource]]:
        """Hash in a helper thread while the caller parses the file (hashlib releases the GIL),
        so a big run is not read twice in a row. Returns the source without its sha256 and the
        future one (a Run's `pending_source`)."""
        unhashed = cls(path=str(path), format=format_name, size=path.stat().st_size, sha256="")
        job = partial(cls.of, path, format_name)
        return unhashed, hash_beside(_HASHERS, job, unhashed.size)


@dataclass(frozen=True)
class Message:
    """One turn of a transcript: its role and its text; with a format that records its
    structure, its parts (`blocks`: reasoning, tool calls, results, media) and the signatures
    of the tool calls it makes or answers (`calls`, how two trajectories are aligned)."""

    role: str
    content: str
    blocks: tuple[Block, ...] = ()
    calls: tuple[str, ...] = ()


@dataclass(frozen=True)
class Transcript:
    """What drill-down shows for one record. Every text is untrusted model or user text."""

    input: str | None = None
    output: str | None = None
    target: str | None = None
    explanation: str | None = None
    messages: tuple[Message, ...] = ()
    metadata: Mapping[str, str] = field(default_factory=dict)
    # Every scorer's verdict (the compared one among them) and what the sample cost, when the
    # format records them (Inspect).
    scorers: tuple[ScorerVerdict, ...] = ()
    cost: SampleCost | None = None
    # False for a first, quick view whose messages are still being read (see `read_quick`);
    # the other fields are final.
    complete: bool = True


class TranscriptReader(Protocol):
    """Fetches the text of records on demand, so opening a run never reads every transcript.

    A reader with a slow part may also offer `read_quick(row) -> Transcript | None`: the fields
    it can give at once, marked `complete=False` (None: nothing slower to wait for). Drill-down
    shows that first (Parquet: the flat fields before the nested messages).
    """

    def read(self, row: int) -> Transcript:
        """The transcript of record `row` (the `row` column of the statistics table)."""
        ...

    def read_field(self, rows: Sequence[int], name: str) -> list[str | None]:
        """One text field for many records at once (list previews, search)."""
        ...


class EmptyTranscripts:
    """For runs whose format records no text at all."""

    def read(self, row: int) -> Transcript:
        return Transcript()

    def read_field(self, rows: Sequence[int], name: str) -> list[str | None]:
        return [None] * len(rows)


@dataclass(frozen=True, eq=False)
class Run:
    """One loaded eval run: its source, its statistics table and a way to its transcripts."""

    source: RunSource
    table: pl.DataFrame
    transcripts: TranscriptReader = field(default_factory=EmptyTranscripts)
    metadata: Mapping[str, str] = field(default_factory=dict)
    # Set while the file's sha256 is still being computed in a helper thread (Parquet and CSV
    # hash beside the read): `source.sha256` is empty until `resolved()`. Only `load_run(...,
    # wait_for_hash=False)` returns such a run, so pairing and statistics overlap the hashing.
    pending_source: Future[RunSource] | None = field(default=None, repr=False)

    def resolved(self) -> Run:
        """This run with its sha256 computed (waits for the hashing thread if need be)."""
        if self.pending_source is None:
            return self
        try:
            source = self.pending_source.result()
        except OSError as exc:
            raise InputError(self.source.path, f"cannot be read: {exc.strerror or exc}") from None
        return replace(self, source=source, pending_source=None)

    @property
    def score_columns(self) -> list[str]:
        return [c for c in self.table.columns if is_score_column(c)]

    @property
    def verdict_columns(self) -> list[str]:
        """The run's further pass/fail metrics (`passed:<scorer>`), beside `passed`."""
        return [c for c in self.table.columns if is_verdict_column(c)]

    @property
    def has_verdicts(self) -> bool:
        return PASSED in self.table.columns

    @property
    def n_records(self) -> int:
        return self.table.height


_HASHERS = ThreadPoolExecutor(max_workers=2, thread_name_prefix="evaltui-sha256")


def stats_table(
    item_ids: Sequence[str],
    epochs: Sequence[int],
    statuses: Sequence[str],
    passed: Sequence[bool] | None = None,
    score: Sequence[float | None] | None = None,
) -> pl.DataFrame:
    """The statistics table a harness loader builds from its parsed records (rows in order)."""
    columns: dict[str, pl.Series] = {
        ITEM_ID: pl.Series(ITEM_ID, list(item_ids), dtype=pl.String),
        EPOCH: pl.Series(EPOCH, list(epochs), dtype=pl.Int64),
    }
    if passed is not None:
        columns[PASSED] = pl.Series(PASSED, list(passed), dtype=pl.Boolean)
    if score is not None:
        columns[SCORE] = pl.Series(SCORE, list(score), dtype=pl.Float64)
    columns[STATUS] = pl.Series(STATUS, list(statuses), dtype=pl.String)
    columns[ROW] = pl.Series(ROW, list(range(len(item_ids))), dtype=pl.Int64)
    return pl.DataFrame(columns)


def size_or_zero(path: Path) -> int:
    """The file's size for estimates and thresholds; 0 when it cannot be read (the loader,
    not the estimate, reports what is wrong with it). A URL's is its object's size."""
    from evaltui.core.read.remote.urls import url_of

    if (url := url_of(path)) is not None:
        from evaltui.core.read.remote.registry import seen

        try:
            return seen(url).stat().size
        except Exception:  # noqa: BLE001 - an estimate; the loader names the failure
            return 0
    try:
        return path.stat().st_size
    except OSError:
        return 0


def sha256_of(path: Path, chunk_size: int = 1 << 20) -> str:
    """Hash in chunks so a multi-gigabyte run does not need to fit in memory; one reused
    buffer, so no fresh allocation per chunk (hashlib releases the GIL while it hashes).
    A URL is hashed through the blob it was loaded through (the same ETag)."""
    from evaltui.core.read.remote.urls import url_of

    if (url := url_of(path)) is not None:
        from evaltui.core.read.remote.download import sha256_of_remote
        from evaltui.core.read.remote.registry import seen

        return sha256_of_remote(seen(url))
    digest = hashlib.sha256()
    buffer = bytearray(chunk_size)
    with path.open("rb", buffering=0) as handle, memoryview(buffer) as view:
        while n := handle.readinto(view):
            digest.update(view[:n])
            meter.read(n)
    return digest.hexdigest()
