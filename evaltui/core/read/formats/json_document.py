"""A JSON object document whose one large array is read apart from the rest.

An Inspect `.json` log is one object holding every sample inline (`"samples": [...]`): a
573 MB log was decoded whole, re-encoded and compared whole (`jsontext.fast_loads`), so a
pair of them peaked at 5.5 GB, and the reading step's line stood still for the ten seconds
of the parse. `array_apart` finds the array's bytes in the document (msgspec decodes the top
level into raw slices of the document, in C, without copying them), so the rest of the
document is parsed as a small document of its own (the array written `[]` in its place) and
the array's elements a batch at a time (`json_array.ArrayElements.of_split`), each batch
checked as `jsontext.loads` checks a document.

Nothing is lost: the rest is the document with exactly that array's bytes replaced, so a key
written twice at the top level (a second `"samples"` included) is still in it and refused by
`loads`, as are the array's elements by their batches. Any doubt (the value not a slice of
the document's own buffer, the value not an array, the document not an object, broken text) gives
None, and the caller parses the document whole, as before, with the errors in its words.
"""

from __future__ import annotations

from typing import Any

import msgspec
import numpy as np


def array_apart(data: bytes, key: str) -> tuple[bytes, list[msgspec.Raw]] | None:
    """(the document with the top-level `key`'s array replaced by `[]`, that array's elements
    as raw slices of `data`), or None when `data` cannot be split so (see the module). The
    slices point into `data`, which must be kept (unchanged) while they are used."""
    try:
        top = msgspec.json.decode(data, type=dict[str, msgspec.Raw])
    except (msgspec.MsgspecError, ValueError, RecursionError):
        return None
    raw = top.get(key)
    if raw is None:
        return None
    start = _offset(data, raw)
    if start is None:
        return None
    try:
        elements = msgspec.json.decode(raw, type=list[msgspec.Raw])
    except (msgspec.MsgspecError, ValueError, RecursionError):
        return None
    return data[:start] + b"[]" + data[start + len(raw) :], elements


def _offset(data: bytes, raw: Any) -> int | None:
    """Where `raw`'s bytes begin in `data`, when they are a slice of it (msgspec decodes a
    `Raw` from bytes without copying), else None. Memory inside `data`'s buffer is that
    buffer: no other live object's bytes can lie there, so the address alone proves it."""
    base = np.frombuffer(data, np.uint8).__array_interface__["data"][0]
    at = np.frombuffer(raw, np.uint8).__array_interface__["data"][0] - base
    return at if 0 <= at <= len(data) - len(raw) else None
