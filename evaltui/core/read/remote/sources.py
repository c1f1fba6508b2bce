"""A remote run's source record: its URL, size and sha256, and the blob it was read through.

The sha256 of a remote run is of the object's bytes at the ETag its statistics were read at
(the hash is read through the same pinned blob), so a local copy the user names later verifies
against the same record. The app defers it (`defer`: hashed by `confirm_inputs` after the first
screen); the headless commands hash beside the parsing (`pending`, like Parquet's hashing).
"""

from __future__ import annotations

from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import replace

from evaltui.core.read.hash_progress import hash_beside
from evaltui.core.read.remote import cache
from evaltui.core.read.remote.blob import RemoteBlob
from evaltui.core.read.remote.registry import remember
from evaltui.core.read.runs import RunSource

_HASHERS = ThreadPoolExecutor(max_workers=2, thread_name_prefix="evaltui-remote-sha256")


def remote_source(
    blob: RemoteBlob, format_name: str, *, defer: bool
) -> tuple[RunSource, Future[RunSource] | None]:
    """The source, and the future one holding the sha256 when it is being computed."""
    from evaltui.core.read.remote.download import sha256_of_remote

    remember(blob)
    stamp = blob.stat()
    unhashed = RunSource(path=blob.url, format=format_name, size=stamp.size, sha256="")
    cached = cache.lookup(blob.url, stamp)
    if cached is not None:
        return replace(unhashed, sha256=cached[1]), None
    if defer:
        return replace(unhashed, hash_checked=False), None

    def job() -> RunSource:  # (the whole object read once, into the cache)
        return replace(unhashed, sha256=sha256_of_remote(blob))

    return unhashed, hash_beside(_HASHERS, job, stamp.size)
