"""The store behind a URL: an fsspec filesystem, built once per scheme and endpoint.

Why fsspec (with s3fs, gcsfs, adlfs, huggingface_hub, aiohttp) rather than obstore: it is what
Inspect itself reads and writes logs with, so a URL that works for `inspect view` works here,
with the same credential chain (each store's own: environment, config files, instance roles;
evaltui takes no credentials of its own), and it is the one library that also reads `hf://`.
obstore is faster per request, but evaltui's requests are few and ranged (`rangefile.py`).

Each store package is an optional extra (`pip install 'evaltui[s3]'`, `[gcs]`, `[azure]`,
`[hf]`, `[http]`, or `[remote]` for all); a missing one is a one-line error naming the extra.
The libraries' own retry loops are set to one try: `retry.py` owns backoff, so it is bounded
and reported in one place.
"""

from __future__ import annotations

import importlib
import os
import threading
from typing import Any

from evaltui.core.errors import UsageError
from evaltui.core.read.remote.urls import STORE_MODULES, extra_for, scheme_of

CONNECT_TIMEOUT = 10.0
READ_TIMEOUT = 60.0
_lock = threading.Lock()
_cache: dict[tuple[str, ...], Any] = {}


def require(url: str) -> None:
    """Refuse, in one line naming the extra, a URL whose store package is not installed."""
    extra = extra_for(url)
    for module in ("fsspec", STORE_MODULES[extra]):
        try:
            importlib.import_module(module)
        except ImportError:
            raise UsageError(
                f"{url}: reading {scheme_of(url)}:// needs the optional store package "
                f"{module}: pip install 'evaltui[{extra}]'"
            ) from None


def filesystem(url: str) -> tuple[Any, str]:
    """The fsspec filesystem for `url` and the path inside it."""
    require(url)
    scheme = scheme_of(url)
    endpoint = os.environ.get("AWS_ENDPOINT_URL_S3") or os.environ.get("AWS_ENDPOINT_URL") or ""
    key = (scheme, endpoint if scheme == "s3" else "")
    with _lock:
        fs = _cache.get(key)
        if fs is None:
            fs = _cache[key] = _build(scheme, endpoint)
    return fs, fs._strip_protocol(url) if scheme not in ("http", "https") else url


def _build(scheme: str, endpoint: str) -> Any:
    import fsspec

    if scheme == "s3":
        options: dict[str, Any] = {
            "skip_instance_cache": True,
            "config_kwargs": {
                "retries": {"max_attempts": 1, "mode": "standard"},
                "connect_timeout": CONNECT_TIMEOUT,
                "read_timeout": READ_TIMEOUT,
            },
        }
        if endpoint:
            options["endpoint_url"] = endpoint
        fs = fsspec.filesystem("s3", **options)
        fs.retries = 1  # s3fs's own loop; retry.py retries
        return fs
    if scheme in ("http", "https"):
        import aiohttp

        timeout = aiohttp.ClientTimeout(sock_connect=CONNECT_TIMEOUT, sock_read=READ_TIMEOUT)
        return fsspec.filesystem(
            "http", skip_instance_cache=True, client_kwargs={"timeout": timeout}
        )
    protocol = {"gs": "gcs", "az": "abfs", "abfss": "abfs"}.get(scheme, scheme)
    return fsspec.filesystem(protocol, skip_instance_cache=True)


def forget() -> None:
    """Drop the built filesystems (tests that restart a server on another port)."""
    with _lock:
        _cache.clear()
