"""A whole remote object as a local file: from the cache, else downloaded by ranges.

Formats that parse a whole file (JSONL, CSV, Parquet, Inspect `.json`, a policy) read the local
copy; the copy's sha256 is computed while it downloads, so it is the hash of exactly the bytes
compared. The download is pinned to the object's ETag (`blob.read`) and written to a staging
file renamed into place only once complete: a failure leaves nothing half-written.
"""

from __future__ import annotations

import atexit
import contextlib
import hashlib
from pathlib import Path

from evaltui.core.read.remote import cache
from evaltui.core.read.remote.blob import RemoteBlob
from evaltui.core.read.remote.rangefile import WHOLE_BELOW

PIECE = 8 << 20
_temporary: list[Path] = []


def _remove_temporary() -> None:
    for path in _temporary:
        with contextlib.suppress(OSError):
            path.unlink()


atexit.register(_remove_temporary)


def local_copy(blob: RemoteBlob) -> tuple[Path, str]:
    """A local file holding the object's bytes at its first-seen stamp, and their sha256."""
    stamp = blob.stat()
    found = cache.lookup(blob.url, stamp)
    if found is not None:
        return found
    staged, keepable = cache.staging(blob.url, stamp.size)
    digest = hashlib.sha256()
    try:
        with staged.open("wb") as handle:
            small = stamp.size <= WHOLE_BELOW  # already in the blob's blocks, likely
            source = blob.open("rb") if small else None
            for start in range(0, stamp.size, PIECE):
                end = min(stamp.size, start + PIECE)
                data = source.read(end - start) if source is not None else blob.read(start, end)
                digest.update(data)
                handle.write(data)
        blob.check_unchanged()
    except BaseException:
        with contextlib.suppress(OSError):
            staged.unlink()
        raise
    sha256 = digest.hexdigest()
    if keepable:
        return cache.keep(blob.url, stamp, staged, sha256), sha256
    _temporary.append(staged)
    return staged, sha256


def sha256_of_remote(blob: RemoteBlob) -> str:
    """The sha256 of the object (from the cache, else by reading it once into the cache)."""
    return local_copy(blob)[1]
