"""Reopening a big JSON Lines run without parsing it again.

Parsing the statistics keys of a multi-gigabyte JSONL run is most of the time it takes to open
(a million 2 KB records: about 4 s a file on two cores), and reviewers open the same pair many
times: the report in CI, then the app, then the app again after a break. What one parse found
(the statistics columns as read, and the line index) is kept on disk and reused.

The cache never vouches for a file: an entry is found by the file's identity (path, device,
inode, size, modification and change times) and the columns asked for, and it is used only if
the sha256 of the file's bytes, computed again on every open, equals the one the entry was made
from. The hash is needed anyway (report, journal, sign-off), so a reopen costs one hashing pass
instead of a hash and a parse, and the numbers are those of the bytes on disk.

Small files are not cached (parsing them is quicker than the bookkeeping). `EVALTUI_CACHE_DIR`
moves the cache (default `$XDG_CACHE_HOME/evaltui/scans`, else `~/.cache/evaltui/scans`);
`EVALTUI_CACHE_DIR=off` turns it off. A cache that cannot be read or written is ignored: it
only ever costs a fresh parse.

Nor does an entry vouch for itself: the input's sha256 proves the file is the one the entry was
made from, not that the entry's own bytes are still those written (a flipped bit in a Parquet
data page still decodes, into other values). Every entry is sealed when kept (`entry_seal.py`:
each file's size and CRC-32) and each file checked against the seal on use, beside the parse;
an entry that fails is dropped, said in one warning line, and the file parsed afresh.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
import time
from dataclasses import replace
from pathlib import Path

import numpy as np
import polars as pl
from polars.exceptions import PanicException

from evaltui import __version__
from evaltui.core.errors import InputError
from evaltui.core.read.formats.entry_seal import Checking, Damaged, Seal, say_damaged, seal
from evaltui.core.read.formats.jsonl_scan import Scan
from evaltui.core.read.formats.line_index import LineIndex
from evaltui.core.read.formats.native import CHECKS
from evaltui.core.read.runs import RunSource, sha256_of, size_or_zero

# bump when what a scan holds, how it is stored, or what a scan checks changes (2: entries
# are kept only for files whose lines passed the duplicate-key and typed-text checks; 3: the
# line index as two .npy files instead of one .npz; 4: every file sealed, `entry_seal.py`)
VERSION = 4
MIN_BYTES = 32 << 20  # files smaller than this parse in well under a second
MAX_ENTRIES = 16  # least recently used entries beyond this are removed
ENV = "EVALTUI_CACHE_DIR"
META = "meta.json"
# Uncompressed Parquet: written in ~0.03 s CPU for a million id/pass/score rows against
# ~0.055 s with lz4 (paid on every first open of a big run, the headless report's included) and
# read back faster (0.010 against 0.013 s); the entry is ~3x larger on disk (25 instead of 8 MB
# per million such rows; MAX_ENTRIES bounds the folder). Arrow IPC writes faster still (0.018 s)
# but is 37 MB, and polars maps an IPC file without validating it (a damaged entry would be
# undefined behaviour rather than an error that costs a fresh parse). Entries written lz4 by
# an earlier build read back the same, so the version stays.
FRAME = "frame.parquet"
# The line index: two plain .npy arrays, read straight into memory (0.006-0.009 s of CPU a
# million lines against 0.019-0.027 s from one .npz, whose zip member is copied and CRC-checked
# in Python); never memory-mapped or unpickled, so a damaged file is an error, not a fault.
STARTS = "starts.npy"
LINE_NUMBERS = "line_numbers.npy"
STAGING = ".incoming-"


def cache_root() -> Path | None:
    """Where entries live, or None when caching is off."""
    configured = os.environ.get(ENV)
    if configured is not None:
        return None if configured.strip().lower() in ("", "off", "0", "no") else Path(configured)
    base = os.environ.get("XDG_CACHE_HOME")
    if not base:
        try:
            base = str(Path.home() / ".cache")
        except RuntimeError:  # no home directory to speak of
            return None
    return Path(base) / "evaltui" / "scans"


def entry_key(path: Path, schema: dict[str, pl.DataType]) -> str:
    """The file's identity and the columns read. The change time moves on any write (it cannot
    be set back like the modification time), so a rewritten file gets a new key; the sha256
    check on use catches anything this misses."""
    stat = path.stat()
    identity = {
        "version": VERSION,
        "path": str(path.resolve()),
        "device": stat.st_dev,
        "inode": stat.st_ino,
        "size": stat.st_size,
        "mtime_ns": stat.st_mtime_ns,
        "ctime_ns": stat.st_ctime_ns,
        "schema": {name: str(dtype) for name, dtype in schema.items()},
    }
    return hashlib.sha256(json.dumps(identity, sort_keys=True).encode()).hexdigest()[:32]


def checked_under(reads: list[tuple[str, str]], loose_verdicts: bool) -> str:
    """What a reader's checks of a scan are a function of, besides the frame itself: which file
    column is read as which canonical column (`StatsPlan.reads`), how verdicts are parsed
    (`--pass-col`), and the checks' own code (`native.CHECKS`, evaltui's version). An entry
    records it when it is kept, after the checks passed on its frame; a reopen whose plan gives
    the same words may skip them (`canonical_stats(checked=True)`): they would pass again on
    the same values. Any other plan (another `--slice-col`, say) runs them all."""
    words = {
        "reads": [list(pair) for pair in reads],
        "loose_verdicts": loose_verdicts,
        "checks": CHECKS,
        "evaltui": __version__,
    }
    return hashlib.sha256(json.dumps(words, sort_keys=True).encode()).hexdigest()[:32]


def lookup(path: Path, schema: dict[str, pl.DataType], check_hash: bool = True) -> Scan | None:
    """The cached scan of `path`, if one exists, its files are intact (`entry_seal`: checked
    beside the parse) and the file's bytes still hash to it.

    `check_hash=False` (the app's first screen) skips the hashing and returns the entry's
    sha256 marked unchecked; `confirm` must recompute it before it is recorded anywhere. The
    entry's own files are checked either way: a damaged one is dropped, said, and parsed."""
    root = cache_root()
    if root is None or size_or_zero(path) < MIN_BYTES:
        return None
    try:
        entry = root / entry_key(path, schema)
        if not (entry / META).is_file():
            return None
    except OSError:
        return None
    checking: Checking | None = None
    try:
        sealed = Seal(entry)
        meta = json.loads(sealed.read_bytes(META))
        if meta.get("version") != VERSION:
            return None
        checking = sealed.check_beside((FRAME, STARTS, LINE_NUMBERS))
        try:
            digest = sha256_of(path) if check_hash else str(meta["sha256"])
        except OSError:  # the input's trouble, not the entry's: the parse says it in its words
            checking.problem()  # (its thread done)
            return None
        if digest != meta.get("sha256"):
            checking.problem()  # (its thread done before the folder goes)
            shutil.rmtree(entry, ignore_errors=True)  # the bytes moved under the same identity
            return None
        frame = pl.read_parquet(entry / FRAME)
        lines = LineIndex(np.load(entry / STARTS), np.load(entry / LINE_NUMBERS))
        rows = meta.get("rows")
        if not frame.height == len(lines) == lines.line_numbers.shape[0] == rows:
            raise Damaged("a frame and a line index of different lengths")
        if lines.starts.dtype != np.int64 or lines.line_numbers.dtype != np.int64:
            raise Damaged("a line index that is not int64")
        checked = meta.get("checked")
        checking.confirm()
        os.utime(entry / META)  # recently used: pruned last
    except (Exception, PanicException) as exc:  # noqa: BLE001 - partly written or damaged: parse
        found = checking.problem() if checking is not None else None
        shutil.rmtree(entry, ignore_errors=True)
        say_damaged(f"the scan cache's entry for {path}", found or exc, "parsed afresh")
        return None
    return Scan(
        frame=frame,
        sha256=digest,
        lines=lines,
        hash_checked=check_hash,
        checked=checked if isinstance(checked, str) else None,
    )


def confirm(source: RunSource) -> RunSource:
    """Recompute an unchecked sha256 from the file's bytes; refuse a file that no longer
    matches what was shown (its numbers came from the cache entry, not from these bytes)."""
    if source.hash_checked:
        return source
    from evaltui.core.read.remote.urls import url_of

    path = Path(source.path)
    try:
        digest = sha256_of(path)
    except OSError as exc:
        problem = f"cannot be read to check its sha256: {exc.strerror or exc}"
        raise InputError(path, problem) from None
    if not source.sha256 and url_of(source.path) is not None:  # a remote run's deferred hash
        return replace(source, sha256=digest, hash_checked=True)
    if not source.sha256 and source.opened is not None:  # a local run's deferred hash
        if _stamp(path) != source.opened:
            raise InputError(
                path,
                "changed since it was opened (its size or modification time differs): its "
                "numbers on screen are not from these bytes; reopen the pair",
            )
        return replace(source, sha256=digest, hash_checked=True)
    if digest != source.sha256:
        forget(path)  # the next open parses the bytes instead of trusting the entry again
        raise InputError(
            path,
            f"changed since it was opened (sha256 {digest[:16]}… instead of "
            f"{source.sha256[:16]}…): its numbers on screen are not from these bytes; "
            "reopen the pair",
        )
    return replace(source, hash_checked=True)


def store(
    path: Path, schema: dict[str, pl.DataType], scan: Scan, checked: str | None = None
) -> None:
    """Keep `scan` for the next open of `path`; written aside and renamed into place, so a
    killed process leaves no half entry behind. `checked`: `checked_under` of the plan whose
    checks the scan's frame has just passed (the caller stores only then)."""
    root = cache_root()
    if root is None or size_or_zero(path) < MIN_BYTES:
        return
    staging: Path | None = None
    try:
        root.mkdir(parents=True, exist_ok=True)
        entry = root / entry_key(path, schema)
        staging = Path(tempfile.mkdtemp(prefix=STAGING, dir=root))
        scan.frame.write_parquet(staging / FRAME, compression="uncompressed")
        np.save(staging / STARTS, scan.lines.starts)
        np.save(staging / LINE_NUMBERS, scan.lines.line_numbers)
        meta: dict[str, object] = {
            "version": VERSION,
            "sha256": scan.sha256,
            "rows": scan.frame.height,
        }
        if checked is not None:
            meta["checked"] = checked
        meta["path"] = str(path.resolve())  # for a person looking in the folder
        (staging / META).write_text(json.dumps(meta), encoding="utf-8")
        seal(staging)  # (last: each file's size and CRC-32, checked on every use)
        shutil.rmtree(entry, ignore_errors=True)
        os.replace(staging, entry)
        staging = None
        _prune(root)
    except Exception:  # noqa: BLE001 - a full disk or read-only home: no cache, same results
        if staging is not None:
            shutil.rmtree(staging, ignore_errors=True)


def forget(path: Path) -> None:
    """Drop every entry made from `path` (whatever columns were read)."""
    root = cache_root()
    if root is None or not root.is_dir():
        return
    target = str(path.resolve())
    for entry in root.iterdir():
        try:
            if json.loads((entry / META).read_text(encoding="utf-8")).get("path") == target:
                shutil.rmtree(entry, ignore_errors=True)
        except (OSError, ValueError):
            continue  # a staging folder or a damaged entry: not ours to judge here


def _prune(root: Path) -> None:
    prune(root, META, MAX_ENTRIES)


def prune(root: Path, meta: str, keep: int) -> None:
    """Drop the least recently used entries of `root` (folders holding a `meta` file) beyond
    `keep`, and staging folders a killed process left (older than an hour, so a concurrent
    writer's is spared). The analysis cache prunes its folder the same way."""
    entries, cutoff = [], time.time() - 3600
    for child in root.iterdir():
        if child.name.startswith(STAGING):
            if child.stat().st_mtime < cutoff:
                shutil.rmtree(child, ignore_errors=True)
        elif (child / meta).is_file():
            entries.append(child)
    entries.sort(key=lambda p: (p / meta).stat().st_mtime_ns, reverse=True)
    for old in entries[keep:]:
        shutil.rmtree(old, ignore_errors=True)


def _stamp(path: Path) -> tuple[int, int] | None:
    """(size, mtime_ns) as `RunSource.opened` records them; None when the file is gone."""
    try:
        stat = path.stat()
    except OSError:
        return None
    return stat.st_size, stat.st_mtime_ns
