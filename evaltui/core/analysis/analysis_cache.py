"""Reopening a pair without pairing it or computing its statistics again.

The scan cache (`core/read/formats/scan_cache.py`) keeps what parsing a big run found; a reopen
still paired the runs and ran the whole analysis (about a second of CPU at a million items,
with a score column more). What the first screen and the decision read of a completed
analysis (every result object, the per-item deltas and table, the id lists of each metric) is
kept here, beside the scan cache's entries, in `<scan cache>/analyses/`.

An entry is found by a key over everything the analysis depends on: both inputs' identity (path,
size, modification time and the sha256 the open has: computed, or the scan cache's word for it
until `confirm` re-hashes), the comparison spec (metric, alpha, threshold, pairing, design...),
the policy's rules hash (`Policy.hash`: multiplicity, monitor and secondary metrics, directions),
and this build's version and cache schema. It keeps the analysis, never the verdict: the
decision is judged at open from the current tags, notes and policy.

What is read back is data only (`analysis_codec.py`: JSON into an allowlist of result classes,
Parquet for columns; no pickle, no eval), and only from files proven to be the bytes written:
every entry is sealed (`core/read/formats/entry_seal.py`: each file's size and CRC-32, written
last) and each file is checked against its seal before the rebuilt analysis is returned (the
Parquet files in a thread beside their parse). A damaged (even one that still decodes: a
flipped bit in a data page, a value edited by hand), partly written or foreign entry is
ignored, said in one warning line, the analysis computed afresh, and the entry replaced.
`EVALTUI_NO_CACHE=1` (`--no-cache`) and `EVALTUI_CACHE_DIR=off` turn it off. `forget(path)`
drops every entry made from a file whose bytes the app's background re-hash found changed.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any
from weakref import WeakKeyDictionary

import numpy as np
import polars as pl
from polars.exceptions import PanicException

from evaltui import __version__
from evaltui.core.analysis.analysis_codec import (
    ASIDE,
    Columns,
    Unreadable,
    Unstorable,
    decode,
    encode,
)
from evaltui.core.analysis.kept_hint import FOLDER as FOLDER
from evaltui.core.analysis.kept_hint import META, cache_root
from evaltui.core.analysis.kept_hint import probably_kept as probably_kept
from evaltui.core.analysis.pair_result import Analysis
from evaltui.core.compare.pairing import ArmReport, PairedRuns, PairingReport, paired_shapes
from evaltui.core.compare.spec import CompareSpec
from evaltui.core.policy import Policy
from evaltui.core.read.formats import scan_cache
from evaltui.core.read.formats.entry_seal import Checking, Seal, say_damaged, seal
from evaltui.core.read.runs import ITEM_ID, Run, RunSource

VERSION = 2  # bump when what an entry holds or how it is stored changes (2: sealed)
ITEMS = "items.parquet"
# Smaller pairs are not kept: pairing and analysing them takes well under a second, less than
# the bookkeeping is worth (as the scan cache's MIN_BYTES).
MIN_ITEMS = 50_000
# Least recently used entries beyond this are removed: an entry is about 85 MB at a million
# items with a score column (the paired items uncompressed, read back in 0.04-0.08 s).
MAX_ENTRIES = 8
STAGING = scan_cache.STAGING  # (the same prefix: `scan_cache.prune` spares it alike)
# The Analysis fields kept as they are; `paired`, `spec` and `policy` are the open's own.
SKIPPED = ("paired", "spec", "policy")

# Where a rebuilt analysis' regressions and improvements sit in its paired items, as its entry
# kept them (`kept_positions`): the app's list rows need them, and finding them again is a
# join over the ids (0.1-0.15 s at a million items, on the reopen's way to its first screen).
_POSITIONS: WeakKeyDictionary[Analysis, tuple[np.ndarray, np.ndarray]] = WeakKeyDictionary()


@dataclass(frozen=True)
class EntryKey:
    """Where an analysis is kept, and the two input paths it was made from (for `forget`)."""

    digest: str
    paths: tuple[str, str]
    stamps: tuple[tuple[int, int], ...] = ()  # each input's (size, mtime_ns)


def rebuild(
    spec: CompareSpec, baseline: Run, candidate: Run, policy: Policy | None
) -> Analysis | None:
    """The completed analysis an earlier open kept for these inputs, spec and policy, around
    the runs read now (shaped as pairing shapes them), or None. A pass threshold reshapes the
    runs' verdicts before pairing: such specs are not cached. (`compare`'s, and the early
    read's for a pair `probably_kept` sees.)"""
    if spec.design != "paired" or spec.analysis.pass_threshold is not None:
        return None
    if cache_root() is None:
        return None
    baseline, candidate = baseline.resolved(), candidate.resolved()
    key = entry_key(spec, policy, baseline.source, candidate.source)
    if key is None:
        return None
    baseline, candidate = paired_shapes(baseline, candidate)
    return load(key, baseline, candidate, spec, policy)


def entry_key(
    spec: CompareSpec, policy: Policy | None, baseline: RunSource, candidate: RunSource
) -> EntryKey | None:
    """The key of the analysis of these inputs under this spec and policy; None when an
    input's sha256 is not known yet (a deferred or remote hash: nothing to key on)."""
    identity: dict[str, Any] = {
        "version": VERSION,
        "evaltui": __version__,
        "spec": spec.to_dict(),
        "policy": policy.hash if policy is not None else None,
    }
    paths, stamps = [], []
    for arm, source in (("baseline", baseline), ("candidate", candidate)):
        if not source.sha256:
            return None
        path = Path(source.path)
        try:
            stat = path.stat()
        except OSError:  # a URL, or gone: not cached
            return None
        resolved = str(path.resolve())
        paths.append(resolved)
        stamps.append((stat.st_size, stat.st_mtime_ns))
        identity[arm] = {
            "path": resolved,
            "format": source.format,
            "size": stat.st_size,
            "mtime_ns": stat.st_mtime_ns,
            "sha256": source.sha256,
        }
    digest = hashlib.sha256(json.dumps(identity, sort_keys=True).encode()).hexdigest()[:32]
    return EntryKey(digest, (paths[0], paths[1]), tuple(stamps))


def is_complete(analysis: Analysis) -> bool:
    """Only a finished analysis is kept: a partial one would be shown as if it decided."""
    return not analysis.clusters_pending and not analysis.breakdowns_pending


def store(key: EntryKey, analysis: Analysis) -> None:
    """Keep a completed analysis under `key`: written aside and renamed into place, so a
    killed process leaves no half entry. A value the codec cannot store: not cached."""
    root = cache_root()
    if root is None or not is_complete(analysis) or analysis.paired.n < MIN_ITEMS:
        return
    staging: Path | None = None
    try:
        columns = Columns()
        kept = {
            name: encode(value, columns)
            for name, value in vars_of(analysis).items()
            if name not in SKIPPED
        }
        paired = analysis.paired
        meta = {
            "version": VERSION,
            "key": key.digest,
            "paths": list(key.paths),
            "stamps": [list(stamp) for stamp in key.stamps],
            "analysis": kept,
            "report": encode(paired.report, columns),
            "score_columns": list(paired.score_columns),
            "verdict_columns": list(paired.verdict_columns),
            "positions": [
                columns.add(pl.Series("positions", at, dtype=pl.Int64))
                for at in _positions(paired.items, (analysis.regressions, analysis.improvements))
            ],
            "columns": len(columns.series),
        }
        root.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=STAGING, dir=root))
        paired.items.write_parquet(staging / ITEMS, compression="uncompressed")
        for index, series in enumerate(columns.series):
            series.to_frame().write_parquet(staging / _column(index), compression="uncompressed")
        (staging / META).write_text(json.dumps(meta), encoding="utf-8")
        seal(staging)  # (last: each file's size and CRC-32, checked on every use)
        entry = root / key.digest
        shutil.rmtree(entry, ignore_errors=True)
        os.replace(staging, entry)
        staging = None
        _prune(root)
    except (Unstorable, OSError, ValueError):  # nothing to keep, or a full/read-only disk
        if staging is not None:
            shutil.rmtree(staging, ignore_errors=True)


def load(
    key: EntryKey,
    baseline: Run,
    candidate: Run,
    spec: CompareSpec,
    policy: Policy | None,
) -> Analysis | None:
    """The analysis kept under `key`, rebuilt around the runs this open read (their sources,
    transcripts and metadata), with this open's spec and policy; None when there is none or
    it cannot be read (it is then dropped, and the caller computes the analysis)."""
    root = cache_root()
    if root is None:
        return None
    entry = root / key.digest
    if not (entry / META).is_file():
        return None
    checking: Checking | None = None
    try:
        sealed = Seal(entry)
        meta = json.loads(sealed.read_bytes(META))
        if not isinstance(meta, dict) or meta.get("version") != VERSION:
            raise Unreadable("another version")
        if meta.get("key") != key.digest or meta.get("paths") != list(key.paths):
            raise Unreadable("an entry of other inputs")
        count = meta.get("columns")
        if not isinstance(count, int) or count < 0:
            raise Unreadable("no column count")
        names = [_column(i) for i in range(count)]
        checking = sealed.check_beside([ITEMS, *names])  # (beside the reads below)
        columns = Columns([_read_column(entry / name) for name in names])
        items = pl.read_parquet(entry / ITEMS)
        report = decode(meta.get("report"), columns)
        if not isinstance(report, PairingReport) or not isinstance(report.baseline, ArmReport):
            raise Unreadable("no pairing report")
        paired = PairedRuns(
            baseline,
            candidate,
            items,
            report,
            tuple(_strings(meta.get("score_columns"))),
            tuple(_strings(meta.get("verdict_columns"))),
        )
        stored = meta.get("analysis")
        if not isinstance(stored, dict):
            raise Unreadable("no analysis")
        rebuilt = {name: decode(value, columns) for name, value in stored.items()}
        analysis = Analysis(paired=paired, spec=spec, policy=policy, **rebuilt)
        _check(analysis)
        if "positions" in meta:  # (an entry written before they were kept has none)
            _POSITIONS[analysis] = _read_positions(meta["positions"], columns, analysis)
        checking.confirm()  # (no number of the entry is shown before its bytes are proven)
        os.utime(entry / META)  # recently used: pruned last
    except (Exception, PanicException) as exc:  # noqa: BLE001
        # Damaged, truncated or foreign: computed afresh (and written again by the caller).
        found = checking.problem() if checking is not None else None
        shutil.rmtree(entry, ignore_errors=True)
        inputs = " and ".join(key.paths)
        say_damaged(f"the kept analysis of {inputs}", found or exc, "computed afresh")
        return None
    return analysis


def kept_positions(analysis: Analysis) -> tuple[np.ndarray, np.ndarray] | None:
    """Where `analysis`' regressions and improvements are in `analysis.paired.items` (int64
    positions, in the lists' order), when it was rebuilt from an entry that kept them; None
    otherwise (an analysis computed in this process, or an older entry). A hint its user checks
    (the ids at these positions are the lists'), never trusted blind."""
    return _POSITIONS.get(analysis)


def _positions(items: pl.DataFrame, lists: tuple[tuple[str, ...], ...]) -> list[np.ndarray]:
    """Each list's positions in `items` (the paired items, one row per id)."""
    index = items.select(ITEM_ID).with_row_index("_at")
    found = []
    for ids in lists:
        wanted = pl.Series(ITEM_ID, ids, dtype=pl.String).to_frame()
        placed = wanted.join(index, on=ITEM_ID, how="left", maintain_order="left")["_at"]
        if placed.null_count():  # (an id not among the items: nothing to keep of it)
            raise Unstorable("a listed item that is not among the paired items")
        found.append(placed.to_numpy().astype(np.int64))
    return found


def _read_positions(
    stored: Any, columns: Columns, analysis: Analysis
) -> tuple[np.ndarray, np.ndarray]:
    if not isinstance(stored, list) or len(stored) != 2:
        raise Unreadable("positions that are not two columns")
    read = []
    for index, ids in zip(stored, (analysis.regressions, analysis.improvements), strict=True):
        series = columns.get(index)
        if series.dtype != pl.Int64 or series.null_count() or len(series) != len(ids):
            raise Unreadable("positions that do not fit their list")
        at = series.to_numpy()
        if len(at) and (at.min() < 0 or at.max() >= analysis.paired.items.height):
            raise Unreadable("positions outside the paired items")
        read.append(at)
    return read[0], read[1]


def forget(path: str | Path) -> None:
    """Drop every analysis made from `path` (its bytes are no longer what they were)."""
    root = cache_root()
    if root is None or not root.is_dir():
        return
    target = str(Path(path).resolve())
    for entry in root.iterdir():
        try:
            meta = json.loads((entry / META).read_text(encoding="utf-8"))
            if target in meta.get("paths", ()):
                shutil.rmtree(entry, ignore_errors=True)
        except (OSError, ValueError, AttributeError, TypeError):
            continue  # a staging folder or a damaged entry: dropped by `load` or `_prune`


def vars_of(analysis: Analysis) -> dict[str, Any]:
    """The analysis' dataclass fields by name (what `store` keeps, less `SKIPPED`)."""
    return {f.name: getattr(analysis, f.name) for f in fields(analysis)}


def _check(analysis: Analysis) -> None:
    """What a rebuilt analysis must hold for the screens not to fail on it later."""
    if not is_complete(analysis):
        raise Unreadable("an analysis still pending")
    if len(analysis.deltas) != analysis.paired.items.height:
        raise Unreadable("deltas and items of different lengths")
    for ids in (analysis.regressions, analysis.improvements):  # (a long list: a text column)
        if (
            not isinstance(ids, tuple)
            or len(ids) <= ASIDE
            and not all(isinstance(i, str) for i in ids)
        ):
            raise Unreadable("item ids that are not text")


def _read_column(path: Path) -> pl.Series:
    frame = pl.read_parquet(path)
    if frame.width != 1:
        raise Unreadable(f"{path.name}: {frame.width} columns")
    return frame.to_series()


def _strings(value: Any) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise Unreadable("expected a list of names")
    return value


def _column(index: int) -> str:
    return f"column-{index}.parquet"


def _prune(root: Path) -> None:
    """Least recently used entries beyond MAX_ENTRIES and stale staging folders dropped, as
    the scan cache drops its own."""
    scan_cache.prune(root, META, MAX_ENTRIES)
