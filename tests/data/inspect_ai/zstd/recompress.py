"""Re-compress Inspect `.eval` fixtures with zstd (zip method 93), as Inspect >= 0.3.206 writes.

Usage: python recompress.py SRC.eval DEST.eval [--frames N]

Every member keeps its name, order, date and bytes; only the compression changes. `--frames N`
writes each member as N zstd frames (Inspect splits members over 200 MiB of input into frames of
at most 200 MiB; N small frames reproduce that layout in a small file). Needs `backports.zstd`
(a dependency of evaltui below Python 3.14); run it from the repository's venv.
"""

from __future__ import annotations

import argparse
import sys

from backports import zstd
from backports.zstd import zipfile as zstd_zipfile


class _Frames:
    """A compressobj that writes its input as `n` separate zstd frames."""

    def __init__(self, n: int) -> None:
        self.n = n
        self.parts: list[bytes] = []

    def compress(self, data: bytes) -> bytes:
        self.parts.append(data)
        return b""

    def flush(self) -> bytes:
        data = b"".join(self.parts)
        step = max(1, -(-len(data) // self.n))
        chunks = [data[i : i + step] for i in range(0, len(data), step)] or [b""]
        return b"".join(zstd.compress(chunk) for chunk in chunks)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("source")
    parser.add_argument("dest")
    parser.add_argument("--frames", type=int, default=1)
    args = parser.parse_args()
    if args.frames > 1:  # this script's own copy of zipfile (the backport's), not the stdlib's
        original = zstd_zipfile._get_compressor
        zstd_zipfile._get_compressor = lambda kind, level=None: (
            _Frames(args.frames) if kind == zstd_zipfile.ZIP_ZSTANDARD else original(kind, level)
        )
    with (
        zstd_zipfile.ZipFile(args.source) as source,
        zstd_zipfile.ZipFile(args.dest, "w", compression=zstd_zipfile.ZIP_ZSTANDARD) as dest,
    ):
        for info in source.infolist():
            copy = zstd_zipfile.ZipInfo(info.filename, date_time=info.date_time)
            copy.compress_type = zstd_zipfile.ZIP_ZSTANDARD
            copy.external_attr = info.external_attr
            dest.writestr(copy, source.read(info))
    return 0


if __name__ == "__main__":
    sys.exit(main())
