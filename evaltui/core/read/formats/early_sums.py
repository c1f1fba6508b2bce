"""The CRC-32s a reopen's seal checks will ask for, computed from the process's first moments.

A reopen of a big pair checks every file of three cache entries against their seals
(`entry_seal.py`): 130-170 MB of CRC-32 at a million items, 60-85 ms of CPU. The check ran
beside the parse, in the early read's thread's time, so it finished with the read, and the read
with its rebuild is what the first screen waits for. Yet in the first 0.2 s of the process the
second core is idle: the main thread imports polars and numpy (the spec needs them) and the
read cannot start before. So the CLI (`evaltui BASE CAND`) starts this thread before those
imports (`start`): it finds the entries the reopen will most likely read (the scan cache's of
each input, by the path its `meta.json` names; the analysis cache's whose `analysis.json`
names both inputs at their present size and time) and computes each of their large files' size
and CRC-32 through a memory map (the CRC releases the GIL). `Seal.check` then takes a file's
sums from here (`sums`) instead of computing them, waiting for it if need be.

The guarantee is the seal's, unchanged: a file's sums are taken only if the file is the very
one they were computed from, by its identity before and after the CRC and again when the check
asks (device, inode, size, modification and change times: any write moves the change time), and
they are compared with the seal exactly as before; anything else (no entry found, another
entry read, a file replaced or written since) computes the CRC in the check as before. This
imports nothing heavy (no polars or numpy): it runs before them.
"""

from __future__ import annotations

import json
import os
import threading
import zlib
from collections.abc import Iterable
from pathlib import Path

SCAN_ENV = "EVALTUI_CACHE_DIR"  # as `scan_cache.ENV`
NO_CACHE_ENV = "EVALTUI_NO_CACHE"  # as `remote.cache.NO_CACHE_ENV`
ANALYSES = "analyses"  # as `kept_hint.FOLDER`
SCAN_META, ANALYSIS_META, SEAL = "meta.json", "analysis.json", "seal.json"
PER_INPUT = 2  # scan entries of one input worth summing (the newest; more are stale)

Identity = tuple[int, int, int, int, int]


def identity_of(stat: os.stat_result) -> Identity:
    """What proves a file is the same bytes: any write moves its change time."""
    return (stat.st_dev, stat.st_ino, stat.st_size, stat.st_mtime_ns, stat.st_ctime_ns)


class EarlySums:
    """Size and CRC-32 of the named files, computed in a daemon thread of their own, in order;
    `sums` waits for a file's turn."""

    def __init__(self, files: Iterable[Path]) -> None:
        self._files = [str(path) for path in files]
        self._planned = set(self._files)
        self._done: dict[str, tuple[Identity, int, int] | None] = {}
        self._changed = threading.Condition()
        self._thread = threading.Thread(target=self._run, name="evaltui-early-sums", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        try:
            for name in self._files:
                try:
                    found = _sums_of(Path(name))
                except Exception:  # noqa: BLE001 - the check computes it then, and says
                    found = None
                with self._changed:
                    self._done[name] = found
                    self._changed.notify_all()
        finally:  # (however this thread ends, no check waits for it in vain)
            with self._changed:
                for name in self._files:
                    self._done.setdefault(name, None)
                self._changed.notify_all()

    def sums(self, path: Path) -> tuple[int, int] | None:
        """(size, CRC-32) of `path` as it is now, if this thread summed exactly this file;
        None when it did not (the caller computes them)."""
        name = str(path)
        if name not in self._planned:
            return None
        with self._changed:
            self._changed.wait_for(lambda: name in self._done)
            found = self._done[name]
        if found is None:
            return None
        try:
            now = identity_of(os.stat(name))
        except OSError:
            return None
        ident, size, crc = found
        return (size, crc) if now == ident else None

    def wait(self) -> None:
        """(tests) Every file summed."""
        self._thread.join()


def _sums_of(path: Path) -> tuple[Identity, int, int] | None:
    """A file's identity and its (size, CRC-32), if it did not change while being summed."""
    import mmap

    with path.open("rb") as handle:
        before = identity_of(os.fstat(handle.fileno()))
        size = before[2]
        if size == 0:
            crc = zlib.crc32(b"")
        else:
            with mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) as mapped:
                crc = zlib.crc32(mapped)
        after = identity_of(os.fstat(handle.fileno()))
    return (before, size, crc) if before == after else None


_EARLY: EarlySums | None = None


def sums(path: Path) -> tuple[int, int] | None:
    """`EarlySums.sums` of the process's early sums, if `start` started them."""
    early = _EARLY
    return None if early is None else early.sums(path)


def start(baseline: str | Path, candidate: str | Path) -> EarlySums | None:
    """Start summing the files of the cache entries a reopen of these two inputs will read
    (none found: nothing started). Never raises: a cache it cannot look into is simply not
    summed early."""
    global _EARLY
    try:
        files = _entry_files(Path(baseline), Path(candidate))
    except Exception:  # noqa: BLE001 - a hint only
        files = []
    _EARLY = EarlySums(files) if files else None
    return _EARLY


def stop() -> None:
    """Forget the early sums (tests; a process opens one pair from the command line)."""
    global _EARLY
    _EARLY = None


def scan_root() -> Path | None:
    """The scan cache's folder (as `scan_cache.cache_root`, which delegates here)."""
    configured = os.environ.get(SCAN_ENV)
    if configured is not None:
        return None if configured.strip().lower() in ("", "off", "0", "no") else Path(configured)
    base = os.environ.get("XDG_CACHE_HOME")
    if not base:
        try:
            base = str(Path.home() / ".cache")
        except RuntimeError:  # no home directory to speak of
            return None
    return Path(base) / "evaltui" / "scans"


def _entry_files(baseline: Path, candidate: Path) -> list[Path]:
    """The large files of the entries most likely read, in the order the early read reads
    them: each input's scan entries (the newest `PER_INPUT` written since the input last
    changed), then the analysis entry made from both inputs at their present size and time."""
    root = scan_root()
    if root is None or not root.is_dir():
        return []
    inputs = []
    for path in (baseline, candidate):
        stat = path.stat()  # (a URL or a missing file: OSError, nothing summed)
        inputs.append((str(path.resolve()), stat))
    scans: dict[str, list[tuple[int, Path]]] = {name: [] for name, _ in inputs}
    analyses = []
    for entry in root.iterdir():
        meta = _json(entry / SCAN_META)
        target = meta.get("path") if meta else None
        if target in scans and (entry / SEAL).is_file():
            scans[target].append(((entry / SEAL).stat().st_mtime_ns, entry))
    wanted = [[name, stat.st_size, stat.st_mtime_ns] for name, stat in inputs]
    if os.environ.get(NO_CACHE_ENV, "").strip() in ("", "0") and (root / ANALYSES).is_dir():
        for entry in (root / ANALYSES).iterdir():
            meta = _json(entry / ANALYSIS_META) or {}
            try:
                found = [[p, *s] for p, s in zip(meta["paths"], meta["stamps"], strict=True)]
            except (KeyError, TypeError, ValueError):
                continue
            if found == wanted:
                analyses.append(entry)
    files: list[Path] = []
    for (_, stat), entries in zip(inputs, scans.values(), strict=True):
        # (an entry written before the input last changed is of other bytes: not summed)
        fresh = sorted((e for e in entries if e[0] >= stat.st_ctime_ns), reverse=True)
        for _, entry in fresh[:PER_INPUT]:
            files += _sealed_files(entry)
    for entry in analyses[:1]:
        files += _sealed_files(entry)
    return files


def _sealed_files(entry: Path) -> list[Path]:
    """The files an entry's seal names, but its JSON (read and checked whole as they are)."""
    seal = _json(entry / SEAL)
    named = seal.get("files") if seal else None
    if not isinstance(named, dict):
        return []
    return [entry / name for name in sorted(named) if not name.endswith(".json")]


def _json(path: Path) -> dict | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None
