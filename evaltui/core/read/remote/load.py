"""`load_run` for a URL: an `.eval` log by byte ranges, anything else from a local copy.

An Inspect `.eval` log is a zip whose central directory, header and summaries are a small part
of it: those are read by range (`rangefile.py`) and the samples only when an item is opened.
Every other format parses its whole file, so it is downloaded once into the cache
(`download.py`) and read there; its errors name the URL, not the cache file.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from evaltui.core.errors import InputError
from evaltui.core.read import meter
from evaltui.core.read.remote import cache
from evaltui.core.read.remote.blob import RemoteBlob, Stamp
from evaltui.core.read.remote.download import local_copy
from evaltui.core.read.remote.failures import RemoteError
from evaltui.core.read.runs import Run

EVAL = "inspect_eval"


def load_remote(
    url: str,
    format_name: str | None,
    options: Any,
    *,
    load_local: Callable[..., Run],
    eval_format: Any,
    own_options: Callable[..., Any],
    stamp: Stamp | None = None,
) -> Run:
    """`load_run` of `url` (formats/__init__.py hands in its own loader, the `.eval` format's
    module and its options check, so this module never imports the formats package). With
    `stamp`, the object is read at that version (its ETag pinned, no new look): a second
    process reading a log the caller has looked at already (`inspect_elsewhere`)."""
    from evaltui.core.read.remote.registry import blob_for, remember

    if stamp is None:
        blob = blob_for(url)
    else:
        blob = RemoteBlob(url, stamp)
        remember(blob)
    stamp = blob.stat()
    cached = cache.lookup(url, stamp)
    if cached is None and format_name in (None, EVAL) and blob.name.endswith(".eval"):
        own = own_options(eval_format, options, blob)
        return eval_format.load(blob, replace(options, format_options=()), own)
    local, _ = cached or local_copy(blob)  # (its download: the read's progress)
    try:
        with meter.unmetered():  # (the copy's parse and hash read those bytes again)
            run = load_local(local, format_name, options, wait_for_hash=True)
    except InputError as exc:
        raise renamed(exc, url, local) from None
    return replace(run, source=replace(run.source, path=url))


def renamed(exc: InputError, url: str, local: Path) -> InputError:
    """The error about the local copy, naming the URL the user gave."""
    problem = exc.problem.replace(str(local), url)
    if isinstance(exc, RemoteError):
        return exc
    return InputError(url, problem, line=exc.line, record=exc.record, field=exc.field)
