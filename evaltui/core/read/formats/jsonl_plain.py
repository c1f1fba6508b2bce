"""A proof, from two byte counts and the parsed columns, that no line of a JSONL file is suspect.

The strict line check (`jsonl_scan.LineCheck`) runs a regular expression over every line: 0.15 s
of CPU per file of a million short id/pass/score lines, a third of the scan. Files written by a
program usually have a shape where far less proves the same thing. If the file holds no
backslash, no key can be escaped. If, besides, every line holds every statistics key (no null
in any parsed column) and the file holds exactly as many colons as lines times keys, each line
holds exactly one colon per statistics key and no other: a key written twice, another key, a
nested object or a colon inside a string would each add one. And a text or id column whose
every parsed value starts with a character no other JSON value renders to (polars writes a
number, `true`, `false`, an array or an object read into a text column as its JSON text:
`-`, a digit, the word, `[` or `{`) was read from strings. Then every key the check looks at
is written once, as spelled, holding a value of the right type: no line is a suspect.

Counting colons (vectorised, in slices) and looking for a backslash (memchr) cost ~0.007 s per
56 MB, the first-character test ~0.015 s per text column. When the proof fails, the caller runs
the line check as before; a file whose first 64 KiB already fail it (`looks_plain`) gets the
line check beside the parse as before, so it pays nothing more.
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection

import numpy as np
import polars as pl

COLON = 0x3A
_SLICE = 1 << 18  # bytes compared at once: the temporary stays in cache and is reused
# The start of a text column's value that polars may have read from a non-string JSON value
# (a number, true/false, an array, an object): such a column proves nothing.
_NOT_FROM_A_STRING = r"^(?:[-0-9\[{]|true$|false$)"


def looks_plain(sample: bytes, keys: int, typed: Collection[str] = ()) -> bool:
    """Whether the first bytes of a file have the shape `PlainCount` can vouch for: no
    backslash, at most `keys` colons per line, and no key of `typed` holding anything but a
    string (an integer id, say, which the proof leaves to the line check). Only a guess of
    whether to run the line check beside the parse; the proof is `PlainCount.vouches`."""
    cut = sample.rfind(b"\n") + 1
    if keys < 1 or cut == 0 or b"\\" in sample:
        return False
    if sample.count(b":", 0, cut) > keys * sample.count(b"\n", 0, cut):
        return False
    return not any(_other_than_a_string(key).search(sample) for key in typed)


def _other_than_a_string(key: str) -> re.Pattern[bytes]:
    """The key, as JSON spells it, followed by a value that does not start with a quote."""
    token = re.escape(json.dumps(key, ensure_ascii=False).encode())
    return re.compile(token + rb'[ \t\r]*:[ \t\r]*[^" \t\r]')


class PlainCount:
    """The colons and backslashes of a file, added block by block as it is read."""

    def __init__(self) -> None:
        self.colons = 0
        self.backslash = False

    def add(self, data: bytes | bytearray, cut: int) -> None:
        """Count data[:cut]."""
        if self.backslash or data.find(b"\\", 0, cut) != -1:
            self.backslash = True
            return
        view = np.frombuffer(data, np.uint8, count=cut)
        for at in range(0, cut, _SLICE):
            self.colons += int(np.count_nonzero(view[at : at + _SLICE] == COLON))

    def vouches(self, frame: pl.DataFrame, typed: Collection[str]) -> bool:
        """Whether no line of the counted file is suspect (the module docstring's proof):
        `frame` is polars' parse of it, `typed` the columns that must hold strings (the line
        check's texts and ids; an id held as an integer leaves it to the line check)."""
        keys = frame.width
        if self.backslash or keys == 0 or frame.height == 0:
            return False
        if self.colons != keys * frame.height:
            return False
        if any(count for count in frame.null_count().row(0)):
            return False
        columns = [key for key in typed if key in frame.columns]
        if any(frame.schema[key] != pl.String for key in columns):
            return False
        if not columns:
            return True
        found = frame.select(
            pl.any_horizontal(
                *[pl.col(key).str.contains(_NOT_FROM_A_STRING).any() for key in columns]
            )
        )
        return not found.item()
