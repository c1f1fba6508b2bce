"""Two large Inspect logs read at once for real: the candidate in a second process.

A local `.eval` log's parse is Python and msgspec under the GIL (`inspect_eval.py`): two
threads take as long as one after the other, so a 200,000-sample pair waited for two parses
(about 2.3 s of CPU each) before its first screen. Here the candidate is read by a fresh
interpreter while this one reads the baseline, and the pair waits for about one.

When (`candidate_loader`): both logs are local zips whose end record lists at least `ENTRIES`
(50,000) entries, or the candidate is a remote `.eval` log of at least `REMOTE_BYTES` (64 MB);
and the format is detected or forced to Inspect's. A process costs about
0.35 s of CPU and 0.5 s of wall time (a new interpreter importing numpy, polars and the reader:
82 MB) and a 200,000-sample answer 0.16 s to unpack here, while a log's parse costs
about 11 microseconds a sample, so below ~40,000 samples a second process gains nothing; the
count comes from the archive's last kilobytes (`zip_directory.entry_count`), not from its size
in bytes, which says little (a 1,000-sample log of long transcripts is as large as a
200,000-sample one of short answers, and parses 200 times faster).

How: `subprocess` starts `python -c` (fork and exec at once: never a bare fork of this process,
which has threads) and sends it the caller's `sys.path`, so the child imports this very package,
and the store it will read from; it imports the reader and sets that store up (`_warm`), then
waits for its request, a second line (`_Child`). A remote log's child is started before this
process looks at the object, so both happen at once; it is dismissed (killed) when the look
fails or finds the log small. Asked, the
child runs `load_run` exactly as the caller would have and writes back three frames: a JSON
document (the source, the metadata, the scorer, the directory's names, the row sources, the
chunk index), the table as Arrow IPC and the directory's numbers as int64 bytes. No pickle: the
answer is data in formats that cannot carry code, and every value the JSON carries is checked in
the child to come back equal (a value it could not carry exactly, and the log is read here).
Ahead of them, as it reads, it writes its progress (`_Forward`: bytes read, samples summarised
and found, each a record behind a length no frame has), which the caller passes to its own
progress meter (`_Heard`; the samples taken back if the answer is not used).

A remote log (`s3://`, `https://`...) is sized by its bytes, which the look this process takes
at it anyway gives (`load_remote_elsewhere`): its entry count would cost a request of its own,
and a request is what a store charges for (moto's server reads the whole object for each, 0.7 s
for a 1 GB log). 64 MB is about 13,000 samples of Inspect's shortest (5 KB) or a few hundred
long agent transcripts, whose parse is quick: then the child's start (0.5 s) runs beside the
baseline's read and its requests, and costs the pair little. Over a loopback S3 endpoint a 1 GB
pair's parse is the same Python as a local one's, plus its requests, and this process read both
(5.5 s of its own CPU for a 5.6 s first screen). The child is handed the object's stamp as this
process first saw it (size, ETag), so it reads that very version (every range pinned by
`If-Match`) without a new look; it answers with its requests and bytes (added to
`blob.TRAFFIC`, so a listing's and the bench's counts stay whole), and the samples are then
read here through this process's blob at the same stamp, or from the local copy the child's
reading put in the cache.

Errors: an `InputError` in the child comes back as its fields and is raised here, in the same
words (a remote failure as the same `RemoteError`, its kind kept). Anything else (the child
killed, out of memory, an import failing, an answer that does not decode) and the log is read
in this process as before, so every refusal keeps its words and order; a child that dies
closes its pipe, so the caller never waits on a dead process. The other way round, a caller
that goes (the app quit, or killed) closes the child's stdin, which it holds open until the
answer is read, and the child ends there (`_end_with_caller`) rather than reading on.
"""

from __future__ import annotations

import io
import json
import os
import struct
import subprocess
import sys
import threading
import zipfile
from collections.abc import Callable
from contextlib import suppress
from dataclasses import asdict
from pathlib import Path
from typing import Any

from evaltui.core.errors import InputError
from evaltui.core.read import meter
from evaltui.core.read.collector import collector_paused
from evaltui.core.read.formats.contract import LoadOptions
from evaltui.core.read.runs import Run, RunSource

ENTRIES = 50_000  # zip entries (about one a sample) from which a second process pays
REMOTE_BYTES = 64 << 20  # a remote log's size from which a second process reads it
NAME = "inspect_eval"
ZIP_MAGIC = b"PK\x03\x04"
_CHILD = (
    "import json, sys; start = json.loads(sys.stdin.buffer.readline()); "
    "sys.path[:] = start['sys_path']; "
    "from evaltui.core.read.formats.inspect_elsewhere import child_main; child_main(start)"
)
Loader = Callable[..., Run]  # `load_run`'s signature


def candidate_loader(
    baseline: str | Path, candidate: str | Path, format_name: str | None
) -> Loader:
    """`load_elsewhere` when both logs are large local Inspect logs, `load_remote_elsewhere`
    for a remote `.eval` candidate (see the module), else `load_run`: how the pipeline reads
    the candidate beside the baseline."""
    from evaltui.core.read.formats import load_run
    from evaltui.core.read.remote.urls import base_name, url_of

    if format_name not in (None, NAME):
        return load_run
    url = url_of(candidate)
    if url is not None:  # sized by its bytes in its own reading thread (a look: a request)
        return load_remote_elsewhere if base_name(url).endswith(".eval") else load_run
    if all(_large_local_zip(path) for path in (baseline, candidate)):
        return load_elsewhere
    return load_run


def _large_local_zip(path: str | Path) -> bool:
    """A local zip listing at least `ENTRIES` entries (its first bytes and end record only)."""
    from evaltui.core.read.remote.urls import url_of
    from evaltui.core.read.zip_directory import entry_count

    if url_of(path) is not None:
        return False
    try:
        with open(path, "rb") as handle:
            if handle.read(len(ZIP_MAGIC)) != ZIP_MAGIC:
                return False
            return entry_count(handle) >= ENTRIES
    except (OSError, zipfile.BadZipFile, struct.error, ValueError):
        return False  # the reader says what is wrong with it, in this process


def load_elsewhere(
    path: str | Path,
    format_name: str | None = None,
    options: LoadOptions | None = None,
    *,
    wait_for_hash: bool = True,
) -> Run:
    """`load_run(path, format_name, options)` by a second process: the same run, table,
    metadata and transcripts, the same refusal (see the module). Its sha256, when computed,
    is computed there (`wait_for_hash` is then moot)."""
    from evaltui.core.read.formats import load_run

    options = options or LoadOptions()
    if not options.format_options:  # (Inspect takes none: `load_run` refuses any, here)
        run = _ask_child(path, format_name, options)
        if run is not None:
            return run
    return load_run(path, format_name, options, wait_for_hash=wait_for_hash)


def load_remote_elsewhere(
    path: str | Path,
    format_name: str | None = None,
    options: LoadOptions | None = None,
    *,
    wait_for_hash: bool = True,
) -> Run:
    """`load_run` of a remote `.eval` log, by a second process when it holds at least
    `REMOTE_BYTES` (see the module): this process looks at the object (its stamp, pinned from
    then on; a failure is the one line the load itself would give) and the child reads it."""
    from evaltui.core.read.formats import load_run, load_url
    from evaltui.core.read.remote.registry import blob_for
    from evaltui.core.read.remote.urls import scheme_of, url_of

    options = options or LoadOptions()
    url = url_of(path)
    if url is None or options.format_options:
        return load_run(path, format_name, options, wait_for_hash=wait_for_hash)
    # started before the store is set up here and the object looked at, which it does not
    # wait for: it imports the reader and sets up its own store meanwhile, and is dismissed
    # if the log turns out small (or the look fails)
    child = _Child.start(scheme_of(url))
    try:  # a fresh look, remembered: the items and the sha256 are read through this blob
        blob = blob_for(url)
        size = blob.stat().size
    except BaseException:
        _dismiss(child)
        raise
    if size >= REMOTE_BYTES:
        run = _ask_child(url, format_name, options, blob=blob, child=child)
        if run is not None:
            return run
    else:
        _dismiss(child)
    # read here, at the same look (a second one would cost a request and could see another
    # version than the one the child was asked to read)
    return load_url(url, format_name, options, wait_for_hash=wait_for_hash, stamp=blob.stat())


def _ask_child(
    path: str | Path,
    format_name: str | None,
    options: LoadOptions,
    *,
    blob: Any = None,
    child: _Child | None = None,
) -> Run | None:
    """The child's run, or None when it gave none (the caller reads the log itself); its
    InputError raised here. `blob`: a remote log's, whose stamp the child reads at. `child`:
    one started already (`_Child.start`), else one is started now. Its progress goes to this
    thread's meter as it reads (taken back when it gives no run)."""
    heard = _Heard()
    run = _answer(path, format_name, options, blob, heard, child)
    if run is None:
        heard.take_back()
    return run


def _answer(
    path: str | Path,
    format_name: str | None,
    options: LoadOptions,
    blob: Any,
    heard: _Heard,
    child: _Child | None = None,
) -> Run | None:
    """`_ask_child`'s question and answer."""
    request = {
        "path": os.fspath(path),
        "format": format_name,
        "metric": options.metric,
        "defer_hash_check": options.defer_hash_check,
        "stamp": None if blob is None else asdict(blob.stat()),
    }
    child = child or _Child.start(None)
    if child is None:
        return None
    frames = child.ask(request, _bound(path, blob), heard)
    if frames is None:
        return None
    try:
        with collector_paused():  # 200,000 row sources: see `collector`
            return _unpack(path, frames, blob)
    except InputError:
        raise
    except (ValueError, KeyError, TypeError, IndexError, OSError):
        return None


class _Child:
    """The second interpreter, started before it is asked: its first line (this process's
    `sys.path`, and the store it will read from) lets it import the reader and set the store
    up (`_warm`) while this process still looks at a remote log; the request follows as a
    second line (`ask`), or the child is dismissed (`_dismiss`). Over a loopback S3 endpoint
    the look took a second of the app's start (the store's imports and a request, under the
    GIL with the app's own imports), and the child's start waited for it."""

    def __init__(self, process: subprocess.Popen[bytes]) -> None:
        self._process = process

    @classmethod
    def start(cls, scheme: str | None) -> _Child | None:
        """A child started, or None when none can be (the caller reads the log itself)."""
        if not sys.executable:
            return None
        try:
            process = subprocess.Popen(
                [sys.executable, "-c", _CHILD],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,  # a child's traceback: the log is read here instead
            )
        except OSError:
            return None
        child = cls(process)
        if not child._say({"sys_path": list(sys.path), "scheme": scheme}):
            child.end()
            return None
        return child

    def _say(self, line: dict[str, Any]) -> bool:
        """Write one line to the child (kept open: it ends when it closes); False when its end
        is gone."""
        try:
            assert self._process.stdin is not None
            self._process.stdin.write(json.dumps(line).encode() + b"\n")
            self._process.stdin.flush()
        except (OSError, ValueError):
            return False
        return True

    def ask(self, request: dict[str, Any], bound: int, heard: _Heard) -> list[bytes] | None:
        """The child's answer to `request`, as frames, or None when it gave none. The child
        has ended when this returns."""
        process = self._process
        try:
            assert process.stdout is not None
            if not self._say(request):
                return None
            frames = _read_frames(process.stdout, bound, heard)
            process.wait()
        except (OSError, ValueError):
            return None
        finally:
            self.end()
        return frames if process.returncode == 0 else None

    def end(self) -> None:
        """The child ended (killed unless it has) and its pipes closed: it never outlives a
        question this process stopped asking."""
        process = self._process
        if process.poll() is None:  # interrupted, garbled, or dismissed
            process.kill()
            process.wait()
        for stream in (process.stdin, process.stdout):
            if stream is not None:
                with suppress(OSError):  # (a child gone: nothing left to flush to)
                    stream.close()


def _dismiss(child: _Child | None) -> None:
    """A child started for a log this process reads itself after all (small, or refused)."""
    if child is not None:
        child.end()


def _bound(path: str | Path, blob: Any = None) -> int:
    """The most an answer's frame may hold: a few times the log (its table, names and row
    sources are far smaller), so a garbled length cannot ask for terabytes."""
    size = os.stat(path).st_size if blob is None else blob.stat().size
    return 4 * size + (64 << 20)


def _read_frames(stream: Any, bound: int, heard: _Heard | None = None) -> list[bytes]:
    """The frames `_write` wrote, read straight off the pipe (no copy of the whole answer
    joined in memory beside them), the child's progress records (`_Forward`) passed to
    `heard` on the way: ValueError when one is cut short or over `bound`."""
    frames = []
    while head := stream.read(8):
        size = int.from_bytes(head, "little")
        if len(head) == 8 and size == PROGRESS:
            counts = stream.read(SAID.size)
            if len(counts) != SAID.size:
                raise ValueError("a truncated answer")
            if heard is not None:
                heard.said(*SAID.unpack(counts))
            continue
        if len(head) != 8 or size > bound:
            raise ValueError("a garbled answer")
        frame = stream.read(size)
        if len(frame) != size:
            raise ValueError("a truncated answer")
        frames.append(frame)
    return frames


def child_main(start: dict[str, Any]) -> None:
    """The child: ready to read (`_warm`), then the request's run, as frames on stdout
    (`_pack`), or its InputError's fields. Any other failure ends it with a traceback (to
    nowhere) and a non-zero exit; a caller gone before it asked ends it quietly."""
    _warm(start.get("scheme"))
    line = sys.stdin.buffer.readline()
    if not line:  # dismissed, or the caller went
        os._exit(CALLER_GONE)
    request = json.loads(line)
    _end_with_caller()
    options = LoadOptions(metric=request["metric"], defer_hash_check=request["defer_hash_check"])
    out = sys.stdout.buffer
    forward = _Forward(out)
    try:
        with meter.metering(forward.bytes_read, forward.samples):
            run = _child_load(request, options)
    except InputError as exc:
        fields = {k: getattr(exc, k) for k in ("path", "problem", "line", "record", "field")}
        fields["kind"] = getattr(exc, "kind", None)  # a RemoteError's
        _write(out, [json.dumps({"error": fields}).encode()])
        return
    _write(out, _pack(run))


CALLER_GONE = 3  # the child's exit status when its caller went first
PROGRESS = (1 << 64) - 1  # a frame length no answer has: the child's progress follows
SAID = struct.Struct("<3q")  # bytes read, samples summarised, samples found (since the last)


class _Forward:
    """The child's progress (`meter`), written to the caller as it happens, ahead of its
    answer: the caller's progress line counts the candidate's samples and bytes as they are
    read, not all at once at the end."""

    def __init__(self, out: Any) -> None:
        self._out = out
        self._lock = threading.Lock()  # (a loader may report from a thread of its own)

    def bytes_read(self, n_bytes: int) -> None:
        self._say(n_bytes, 0, 0)

    def samples(self, done: int, total: int) -> None:
        self._say(0, done, total)

    def _say(self, *counts: int) -> None:
        with self._lock:
            self._out.write(PROGRESS.to_bytes(8, "little") + SAID.pack(*counts))
            self._out.flush()


class _Heard:
    """What the child said of its progress, passed on to this thread's meter as it comes;
    its samples taken back when its answer is not used (the log is then read here, and
    counted again). Its bytes stay counted: they were read."""

    def __init__(self) -> None:
        self.done = 0
        self.total = 0

    def said(self, n_bytes: int, done: int, total: int) -> None:
        if n_bytes:
            meter.read(n_bytes)
        if done or total:
            meter.samples_read(done, total)
            self.done += done
            self.total += total

    def take_back(self) -> None:
        if self.done or self.total:
            meter.samples_read(-self.done, -self.total)
            self.done = self.total = 0


def _end_with_caller() -> None:
    """End this process as soon as the caller's end of its stdin closes: the caller quit or
    was killed while this one reads. Its answer would go nowhere, and a remote log's ranges
    would be read on to the end (a 1 GB log over a slow link: minutes of requests after the
    app was quit). The caller closes it only once the answer is read, and the OS closes it
    when the caller ends, however it ends."""

    def watch() -> None:
        try:  # the file descriptor, not `sys.stdin`: a daemon thread blocked holding the
            # buffered reader's lock makes the interpreter's exit a fatal error
            while os.read(stdin, 4096):  # b"" at end of file: the caller's end closed
                pass
        finally:
            os._exit(CALLER_GONE)

    stdin = sys.stdin.fileno()

    threading.Thread(target=watch, name="evaltui-caller-watch", daemon=True).start()


def _warm(scheme: str | None) -> None:
    """What the read will need, done before the request comes: the reader's imports and, for
    a remote log, its store (`stores.filesystem`: the store package's imports, its client and
    credentials), kept for the read. A store that cannot be set up is left for the read to
    refuse in its own words."""
    from evaltui.core.read.formats import format_module

    format_module(NAME)
    if scheme is not None:
        from evaltui.core.read.remote.stores import filesystem

        with suppress(Exception):  # noqa: BLE001 - the read says what is wrong, in one line
            filesystem(f"{scheme}://{WARM_PATH}")


WARM_PATH = "evaltui-warm/log.eval"  # a path the store is set up for, never read


def _child_load(request: dict[str, Any], options: LoadOptions) -> Run:
    """`load_run` as the caller would have called it; a remote log at the caller's stamp."""
    from evaltui.core.read.formats import load_run, load_url

    if request.get("stamp") is None:
        return load_run(request["path"], request["format"], options, wait_for_hash=True)
    from evaltui.core.read.remote.blob import Stamp

    stamp = Stamp(**request["stamp"])
    return load_url(request["path"], request["format"], options, stamp=stamp)


def _write(out: Any, frames: list[bytes | memoryview]) -> None:
    for frame in frames:
        out.write(len(frame).to_bytes(8, "little"))
        out.write(frame)
    out.flush()


def _pack(run: Run) -> list[bytes | memoryview]:
    """The run as frames: JSON, the table's Arrow IPC, the directory's numbers. ValueError
    (the child fails, the caller reads the log itself) when a value would not come back
    equal."""
    import numpy as np

    from evaltui.core.read.formats.inspect_eval_transcripts import EvalTranscripts

    if not isinstance(run.transcripts, EvalTranscripts) or run.pending_source is not None:
        raise ValueError("not an Inspect log's run")
    rows, scorer, stamp, chunks, archive = run.transcripts.parts()
    if archive is None:
        raise ValueError("the archive is closed")
    metadata = dict(run.metadata)
    if json.loads(json.dumps(metadata)) != metadata:  # a tuple, a NaN: not carried exactly
        raise ValueError("metadata JSON does not carry")
    members = [row.member for row in rows]
    read_from = run.transcripts.path
    document = {
        # a remote log's samples: through the caller's blob, or the cache's copy read here
        "read_from": os.fspath(read_from) if isinstance(read_from, Path) else None,
        "traffic": _traffic(),
        "source": asdict(run.source),
        "metadata": metadata,
        "scorer": scorer,
        "stamp": list(stamp),
        "chunks": chunks.starts(),
        "start_dir": archive.start_dir,
        "names": archive.names,
        "members": members,
        # a row's record is its member's name for every sample of a finished log: sent once
        "records": [
            None if r.record == m else r.record for r, m in zip(rows, members, strict=True)
        ],
        # a summary kept for a row without a member, as the JSON it was read from (NaN too)
        "summaries": [row.summary for row in rows] if any(r.summary for r in rows) else None,
    }
    table = io.BytesIO()
    run.table.write_ipc(table)
    columns = np.ascontiguousarray(archive.columns, dtype="<i8")
    # views, not copies: the child's memory counts too while the two logs are read at once
    return [json.dumps(document).encode(), table.getbuffer(), columns.data.cast("B")]


def _traffic() -> list[int]:
    """The requests and bytes this process made, when it read anything remote."""
    if "evaltui.core.read.remote.blob" not in sys.modules:
        return [0, 0]
    from evaltui.core.read.remote.blob import TRAFFIC

    return list(TRAFFIC.snapshot())


def _unpack(path: str | Path, frames: list[bytes], blob: Any = None) -> Run:
    """The run `_pack` sent (or the InputError it sent, raised). `blob`: a remote log's,
    through which its samples are read here."""
    import numpy as np
    import polars as pl

    from evaltui.core.read.formats.inspect_chunked import ChunkIndex
    from evaltui.core.read.formats.inspect_eval_transcripts import ROW_SOURCE, EvalTranscripts
    from evaltui.core.read.zip_directory import COLUMNS, ZipDirectory

    document = json.loads(frames[0])
    if "error" in document:
        error = document["error"]
        if error.get("kind") is not None:
            from evaltui.core.read.remote.failures import RemoteError

            raise RemoteError(error["path"], error["problem"], error["kind"])
        raise InputError(
            error["path"],
            error["problem"],
            line=error["line"],
            record=error["record"],
            field=error["field"],
        )
    _, table_ipc, columns = frames
    names = document["names"]
    numbers = np.frombuffer(columns, dtype="<i8").reshape(len(names), len(COLUMNS)).copy()
    archive = ZipDirectory(names, numbers, document["start_dir"])
    members = document["members"]
    summaries = document["summaries"] or [None] * len(members)
    records = document["records"]
    if len(records) != len(members):
        raise ValueError("a garbled answer")
    records = (
        members  # every row's record is its member's name (a finished log): counted in C
        if records.count(None) == len(records)
        else [m if r is None else r for r, m in zip(records, members, strict=True)]
    )
    rows = list(map(ROW_SOURCE, zip(members, summaries, records, strict=True)))
    source = document["source"]
    opened = source.pop("opened")
    stamp = document["stamp"]
    if blob is not None:
        from evaltui.core.read.remote.blob import TRAFFIC

        requests, received = document["traffic"]
        TRAFFIC.add(received, requests)
    read_from = document["read_from"]
    transcripts = EvalTranscripts(
        blob if read_from is None else Path(read_from),
        rows,
        document["scorer"],
        (stamp[0], stamp[1]),
        ChunkIndex.of_starts(document["chunks"]),
        archive,
    )
    return Run(
        source=RunSource(**source, opened=None if opened is None else (opened[0], opened[1])),
        table=pl.read_ipc(table_ipc),
        transcripts=transcripts,
        metadata=document["metadata"],
    )
