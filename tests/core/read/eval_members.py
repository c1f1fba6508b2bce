"""A real `.eval` log with one member's bytes changed, for tests that need Inspect's own
layout around a single edit (a key twice, a field Inspect never wrote, a mistyped value)."""

from __future__ import annotations

import zipfile
from collections.abc import Callable
from pathlib import Path


def with_member_changed(
    source: Path, folder: Path, member: str, change: Callable[[bytes], bytes]
) -> Path:
    """A copy of `source` in `folder`, same name, with `member`'s bytes replaced by
    `change(bytes)` and every other member as it was (deflated)."""
    path = folder / source.name
    with zipfile.ZipFile(source) as src, zipfile.ZipFile(path, "w") as dst:
        for name in src.namelist():
            data = src.read(name)
            if name == member:
                data = change(data)
            dst.writestr(name, data, compress_type=zipfile.ZIP_DEFLATED)
    return path
