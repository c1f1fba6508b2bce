"""An Inspect `.eval` run's transcripts, read at item open: one sample member per opened row,
through the archive handle the load left open (apart from the load, `inspect_eval.py`, so that
each module has one job: the load builds the table and the row sources, this reads a row)."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from functools import partial
from pathlib import Path
from typing import Any, NamedTuple

from evaltui.core.errors import InputError
from evaltui.core.read.formats import inspect_archive as archive_io
from evaltui.core.read.formats.contract import check_row, ensure_same_file
from evaltui.core.read.formats.inspect_chunked import ChunkIndex, assemble, is_shell
from evaltui.core.read.formats.inspect_common import as_dict
from evaltui.core.read.formats.inspect_transcript import sample_transcript, transcript_field
from evaltui.core.read.remote.blob import RemoteBlob
from evaltui.core.read.runs import Transcript
from evaltui.core.read.zip_directory import ZipDirectory

Source = Path | RemoteBlob  # a local log, or one read by byte ranges where it lives


class RowSource(NamedTuple):  # one per sample: built in C (see `SampleFacts`)
    """Where a row's transcript comes from: its sample member, else the summary kept in memory."""

    member: str | None
    summary: dict[str, Any] | None
    record: str


ROW_SOURCE = partial(tuple.__new__, RowSource)  # a row source from a 3-tuple, in C


class TranscriptParts(NamedTuple):
    """`EvalTranscripts`' arguments but the path (`EvalTranscripts.parts`)."""

    rows: list[RowSource]
    scorer: str | None
    stamp: tuple[int, int]
    chunks: ChunkIndex
    archive: ZipDirectory | None


class EvalTranscripts:
    """Reads one sample member per opened row; the archive handle is opened once and shared."""

    def __init__(
        self,
        path: Source,
        rows: Sequence[RowSource],
        scorer: str | None,
        stamp: tuple[int, int],
        chunks: ChunkIndex | None = None,
        archive: ZipDirectory | None = None,
    ) -> None:
        self._path = path
        self._chunks = chunks or ChunkIndex(())
        self._rows = list(rows)
        self._scorer = scorer
        self._stamp = stamp
        self._lock = threading.Lock()
        self._archive: ZipDirectory | None = archive  # the load's, still open

    @property
    def path(self) -> Source:
        """Where the samples are read: the local log, a remote one's blob, or a remote log's
        local copy in the cache."""
        return self._path

    def parts(self) -> TranscriptParts:
        """What this reader holds, for a log read in another process (`inspect_elsewhere`)
        to build the same reader in the caller's."""
        return TranscriptParts(self._rows, self._scorer, self._stamp, self._chunks, self._archive)

    def read(self, row: int) -> Transcript:
        check_row(row, len(self._rows))
        source = self._rows[row]
        if source.member is None:
            return sample_transcript(source.summary or {}, self._scorer, source.record)
        sample = self._read_member(source.member)
        chunked = is_shell(source.member)
        if chunked:  # a chunked sample: its conversation from its chunks (never its events)
            sample = assemble(self._path, sample, source.member, self._chunks, self._read_any)
        return sample_transcript(sample, self._scorer, source.member, events_read=not chunked)

    def read_field(self, rows: Sequence[int], name: str) -> list[str | None]:
        return [transcript_field(self.read(row), name) for row in rows]

    def close(self) -> None:
        with self._lock:
            self.close_archive()

    def close_archive(self) -> None:
        """Close the shared archive handle; the caller holds the lock."""
        if self._archive is not None:
            self._archive.close()
            self._archive = None

    def _read_member(self, member: str) -> dict[str, Any]:
        return as_dict(self._path, self._read_any(member), "sample", record=member)

    def _read_any(self, member: str) -> Any:
        with self._lock:
            try:
                if not isinstance(self._path, RemoteBlob):  # a remote read is ETag-pinned
                    ensure_same_file(self._path, self._stamp, record=member)
            except InputError:
                self.close_archive()  # its central directory is the old file's
                raise
            if self._archive is None:
                self._archive = archive_io.open_archive(self._path)
                archive_io.members(
                    self._path, self._archive
                )  # the layout checked again: a new handle
            try:
                info = self._archive.getinfo(member)
            except KeyError:
                raise InputError(
                    self._path, "the sample member is missing", record=member
                ) from None
            return archive_io.read_json(self._path, self._archive, info)
