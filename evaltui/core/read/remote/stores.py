"""The store behind a URL: an fsspec filesystem, built once per scheme and endpoint.

Why fsspec (with s3fs, gcsfs, adlfs, huggingface_hub, aiohttp) rather than obstore: it is what
Inspect itself reads and writes logs with, so a URL that works for `inspect view` works here,
with the same credential chain (each store's own: environment, config files, instance roles;
evaltui takes no credentials of its own), and it is the one library that also reads `hf://`.
obstore is faster per request, but evaltui's requests are few and ranged (`rangefile.py`).

Each store package is an optional extra (`pip install 'evaltui[s3]'`, `[gcs]`, `[azure]`,
`[hf]`, `[http]`, or `[remote]` for all); a missing one is a one-line error naming the extra.
The libraries' own retry loops are set to one try: `retry.py` owns backoff, so it is bounded
and reported in one place. Left as shipped, gcsfs tried each request 6 times (waits up to
16 s) and the Azure SDK 4 times (waits of 15 s and more): with `retry.py`'s tries around them,
a stopped endpoint kept `report` waiting 2-4 minutes. The libraries' loggers are given a
handler that drops what they log (gcsfs logs a traceback when it gives up): with none, Python
printed it on stderr above evaltui's one line. A store that cannot even be set up (Azure with
no account named) is that one line too.
"""

from __future__ import annotations

import importlib
import logging
import os
import threading
from functools import partial
from typing import Any

from evaltui.core.errors import UsageError
from evaltui.core.read.remote.failures import remote_error
from evaltui.core.read.remote.urls import STORE_MODULES, extra_for, scheme_of

CONNECT_TIMEOUT = 10.0
READ_TIMEOUT = 60.0
_lock = threading.Lock()
_cache: dict[tuple[str, ...], Any] = {}
# The store libraries' loggers: what they log is said by evaltui's own line, or not at all.
QUIET_LOGGERS = ("gcsfs", "adlfs", "azure", "s3fs", "aiobotocore", "botocore", "fsspec",
                 "huggingface_hub", "aiohttp")  # fmt: skip


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
            _quiet_libraries()
            try:
                fs = _build(scheme, endpoint)
            except Exception as exc:  # noqa: BLE001 - set-up refused (no account, bad key)
                raise remote_error(url, exc) from None
            _cache[key] = fs
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
    if protocol == "abfs":
        fs = fsspec.filesystem(
            protocol,
            skip_instance_cache=True,
            connection_timeout=CONNECT_TIMEOUT,
            read_timeout=READ_TIMEOUT,
        )
        _one_azure_try(fs.service_client)
        return fs
    fs = fsspec.filesystem(protocol, skip_instance_cache=True)
    if protocol == "gcs":
        _one_gcs_try(fs)
    return fs


def _one_azure_try(client: Any) -> None:
    """The Azure SDK's retry policy (shared by every container and blob client the service
    client makes) set to no retry. adlfs builds the client itself and passes no retry
    settings through; each request reads these attributes as its defaults."""
    for policy in getattr(getattr(client, "_pipeline", None), "_impl_policies", ()):
        if hasattr(policy, "total_retries"):
            for name in ("total_retries", "connect_retries", "read_retries", "status_retries"):
                setattr(policy, name, 0)


def _one_gcs_try(fs: Any) -> None:
    """gcsfs's requests without its retry decorator (6 tries, bound when the class was
    defined): the undecorated method, which the decorator package keeps as `__wrapped__`.
    A gcsfs without it keeps its own loop (bounded, only longer)."""
    undecorated = getattr(type(fs)._request, "__wrapped__", None)
    if undecorated is not None:
        fs._request = partial(undecorated, fs)


def _quiet_libraries() -> None:
    """A handler that drops records on each store library's logger (see the module)."""
    for name in QUIET_LOGGERS:
        logger = logging.getLogger(name)
        if not any(isinstance(h, logging.NullHandler) for h in logger.handlers):
            logger.addHandler(logging.NullHandler())


def forget() -> None:
    """Drop the built filesystems (tests that restart a server on another port)."""
    with _lock:
        _cache.clear()
