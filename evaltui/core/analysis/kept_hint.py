"""Whether an analysis of two files is likely kept, asked before they are read.

The analysis cache (`analysis_cache.py`) imports the result classes and the statistics they
hold (~50 modules); the CLI's early read (`early_read.start_reading`) asks this hint before it
starts reading, so it lives here, on the scan cache's imports alone (which the read needs
anyway): the read starts before the analysis modules are imported.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from evaltui.core.read.formats import scan_cache
from evaltui.core.read.remote.cache import NO_CACHE_ENV

FOLDER = "analyses"  # the analysis cache's folder inside the scan cache's
META = "analysis.json"  # an entry's description (the paths and stamps it was made from)


def cache_root() -> Path | None:
    """The folder of analysis entries (inside the scan cache's), or None when caching is off."""
    if os.environ.get(NO_CACHE_ENV, "").strip() not in ("", "0"):
        return None
    root = scan_cache.cache_root()
    return None if root is None else root / FOLDER


def probably_kept(baseline: str | Path, candidate: str | Path) -> bool:
    """Whether some entry was made from these two files at their present size and time: a
    hint read before the files are (a few small JSON reads), so a reopen likely to rebuild its
    analysis does not start importing the statistics' scipy beside the read. Never trusted
    for more: `analysis_cache.load` decides, by the full key."""
    root = cache_root()
    if root is None or not root.is_dir():
        return False
    try:
        wanted = []
        for path in (Path(baseline), Path(candidate)):
            stat = path.stat()
            wanted.append([str(path.resolve()), stat.st_size, stat.st_mtime_ns])
        entries = list(root.iterdir())
    except OSError:  # (a URL, or a file gone: the read says what is wrong)
        return False
    for entry in entries:
        try:
            meta = json.loads((entry / META).read_text(encoding="utf-8"))
            found = [[p, *s] for p, s in zip(meta["paths"], meta["stamps"], strict=True)]
        except (OSError, ValueError, KeyError, TypeError):
            continue  # a staging folder or a damaged entry
        if found == wanted:
            return True
    return False
