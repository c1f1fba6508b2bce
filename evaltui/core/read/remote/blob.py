"""One remote object: its identity (size, ETag) and its bytes by range, every read pinned.

Each ranged read carries the ETag seen when the object was first looked at (`If-Match` for S3
and HTTP, the Azure SDK's `etag` with `IfNotModified` for Azure, whose adlfs reads take no
condition), so an object replaced while a log is being read fails that read instead of mixing
two files' bytes; stores without a conditional read here (Google Cloud Storage, the Hugging
Face hub) are checked again at the end of a load (`check_unchanged`). `TRAFFIC` counts requests
and bytes (what a listing reports, and what the tests assert on), and every read goes through
`retry.with_retries`.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any

from evaltui.core.read import meter
from evaltui.core.read.remote.failures import NO_CONTAINER, RemoteError
from evaltui.core.read.remote.retry import with_retries
from evaltui.core.read.remote.stores import filesystem
from evaltui.core.read.remote.urls import base_name, scheme_of


@dataclass(frozen=True)
class Stamp:
    """What identifies one version of an object: its ETag, else its size and time."""

    size: int
    etag: str | None = None
    modified: str | None = None

    @property
    def version(self) -> str:
        return self.etag or f"{self.size}@{self.modified}"


class Traffic:
    """Requests made and bytes received, for the whole process (thread-safe)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.requests = 0
        self.bytes = 0

    def add(self, n_bytes: int, requests: int = 1) -> None:
        """One request's bytes; or, with `requests`, what another process counted
        (`inspect_elsewhere`: a log read by a second process is still this process's traffic)."""
        with self._lock:
            self.requests += requests
            self.bytes += n_bytes

    def snapshot(self) -> tuple[int, int]:
        with self._lock:
            return self.requests, self.bytes


TRAFFIC = Traffic()
AZURE = ("az", "abfs", "abfss")


def _azure_range(fs: Any, path: str, start: int, end: int, etag: str) -> bytes:
    """Bytes [start, end) of an Azure blob if its ETag is still `etag` (a 412 otherwise,
    which `failures` calls a changed object): adlfs's `cat_file` as adlfs reads, with the
    condition its signature does not pass on."""
    from azure.core import MatchConditions
    from fsspec.asyn import sync

    container, blob, version = fs.split_path(path)
    timeouts = getattr(fs, "_timeout_kwargs", {})  # (adlfs's connection and read timeouts)

    async def download() -> bytes:
        async with fs.service_client.get_blob_client(container=container, blob=blob) as client:
            stream = await client.download_blob(
                offset=start, length=end - start, version_id=version, etag=etag,
                match_condition=MatchConditions.IfNotModified, **timeouts,
            )  # fmt: skip
            return bytes(await stream.readall())

    return sync(fs.loop, download)


def stamp_of(info: dict[str, Any]) -> Stamp:
    """A Stamp from an fsspec `info`/listing entry, whatever the store calls its fields. The
    Hugging Face hub's entries have no ETag and no time, but a `blob_id` (the file's git blob
    hash), which changes with its bytes: without it a file replaced by one of the same size
    kept its stamp, so the cache served the old copy and a load's last look saw no change."""
    lowered = {str(k).lower().replace("-", "_"): v for k, v in info.items()}
    etag = lowered.get("etag") or lowered.get("blob_id")
    modified = next(
        (lowered[k] for k in ("lastmodified", "last_modified", "updated", "mtime") if k in lowered),
        None,
    )
    return Stamp(
        size=int(lowered.get("size") or 0),
        etag=str(etag) if etag else None,
        modified=str(modified) if modified is not None else None,
    )


class RemoteBlob:
    """A remote object read by ranges. `str()` is its URL, so error messages name it."""

    def __init__(self, url: str, stamp: Stamp | None = None) -> None:
        self.url = url
        self._fs, self._path = filesystem(url)
        self._scheme = scheme_of(url)
        self._stamp = stamp
        self._lock = threading.RLock()
        self._blocks: Any = None  # the shared block cache (rangefile.BlockCache)

    def __str__(self) -> str:
        return self.url

    def __repr__(self) -> str:
        return f"RemoteBlob({self.url!r})"

    @property
    def name(self) -> str:
        return base_name(self.url)

    def stat(self) -> Stamp:
        """The object's stamp, looked up once (one HEAD) unless a listing gave it."""
        with self._lock:
            if self._stamp is None:
                self._stamp = self._lookup()
            return self._stamp

    def _lookup(self) -> Stamp:
        def head() -> dict[str, Any]:
            self._fs.invalidate_cache(self._path)  # a listing's entry may be stale
            info = dict(self._fs.info(self._path))
            TRAFFIC.add(0)
            return info

        try:
            info = with_retries(self.url, head)
        except RemoteError as exc:
            if exc.kind == "missing" and self._scheme in AZURE and not self._container_exists():
                raise RemoteError(self.url, NO_CONTAINER, "bucket") from None
            raise
        if info.get("type") == "directory":
            raise RemoteError(self.url, "is a folder; expected a run file", "folder")
        return stamp_of(info)

    def _container_exists(self) -> bool:
        """Whether an Azure blob's container exists (one more request, on the error path
        only): adlfs answers a missing container and a missing blob with the same bare
        FileNotFoundError. True when the store will not say (the first answer stands)."""
        container = self._path.split("/", 1)[0]
        try:
            return bool(with_retries(self.url, lambda: self._fs.exists(container)))
        except RemoteError:
            return True

    @property
    def pinned(self) -> bool:
        """Whether every read is conditional on the first-seen ETag (S3, HTTP with an ETag)."""
        return self._scheme == "s3" or (
            self._scheme in ("http", "https", *AZURE) and self.stat().etag is not None
        )

    def __fspath__(self) -> str:
        return self.url

    def check_unchanged(self) -> None:
        """Refuse an object whose stamp moved since it was first seen (one more HEAD, only
        for stores whose reads are not pinned to the ETag already)."""
        seen = self.stat()
        if self.pinned:
            return
        now = self._lookup()
        if now.version != seen.version or now.size != seen.size:
            raise RemoteError(
                self.url,
                "the object changed while it was being read (its ETag moved); nothing was "
                "kept: open it again once the writer has finished",
                "changed",
            )

    def read(self, start: int, end: int) -> bytes:
        """Bytes [start, end) of the version first seen."""
        stamp = self.stat()
        end = min(end, stamp.size)
        if end <= start:
            return b""
        data = with_retries(self.url, lambda: self._fetch(start, end, stamp.etag))
        TRAFFIC.add(len(data))
        meter.read(len(data))
        if len(data) != end - start:
            raise RemoteError(
                self.url,
                f"asked for bytes {start}-{end - 1} and got {len(data)} bytes (the object "
                "changed, or the server ignores byte ranges)",
                "changed",
            )
        return data

    def _fetch(self, start: int, end: int, etag: str | None) -> bytes:
        if self._scheme == "s3":
            from s3fs.core import _fetch_range

            bucket, key, version = self._fs.split_path(self._path)
            return bytes(
                _fetch_range(
                    self._fs, bucket, key, version, start, end,
                    req_kw={"IfMatch": etag} if etag else {},
                )
            )  # fmt: skip
        if self._scheme in ("http", "https") and etag:
            return bytes(
                self._fs.cat_file(self._path, start=start, end=end, headers={"If-Match": etag})
            )
        if self._scheme in AZURE and etag:
            return _azure_range(self._fs, self._path, start, end, etag)
        return bytes(self._fs.cat_file(self._path, start=start, end=end))

    def open(self, mode: str = "rb", buffering: int = -1) -> Any:
        """A seekable binary file over the object (what zipfile and the zstd reader use);
        every file of one blob shares its block cache."""
        from evaltui.core.read.remote.rangefile import BlockCache, RangeFile

        if mode != "rb":
            raise ValueError(f"{self.url} is read-only")
        with self._lock:
            if self._blocks is None:
                self._blocks = BlockCache(self)
        return RangeFile(self._blocks, self.stat().size)
