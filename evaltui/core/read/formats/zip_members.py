"""Reading one member of a zip archive, zstd-compressed members (method 93) included.

Inspect AI writes its `.eval` members with zstd by default since 0.3.206. `zipfile` reads zstd
only from Python 3.14, and even there a member written as several zstd frames (Inspect splits
members over 200 MiB into frames for its viewer) stops at the first frame and fails its CRC.
So stored and deflate members go through `zipfile` as before, and a zstd member is read here:
its raw bytes from the local header on, inflated frame after frame with `compression.zstd`
(the `backports.zstd` package below 3.14: the same API, so the code is one), capped and checked
against the CRC the central directory declares. `zipfile` still lists the members: listing
never looks at the compression method.
"""

from __future__ import annotations

import struct
import sys
import zipfile
import zlib
from pathlib import Path
from typing import Any, BinaryIO, Protocol

if sys.version_info >= (3, 14):  # pragma: no cover - exercised on 3.14 only
    from compression import zstd
else:
    from backports import zstd

ZIP_ZSTANDARD = 93
LOCAL_HEADER = struct.Struct("<4s2B4HL2L2H")  # the 30-byte local file header
LOCAL_MAGIC = b"PK\x03\x04"
CHUNK = 1 << 20


class Openable(Protocol):
    """A local `Path`, or a remote object read by byte ranges (`remote.blob.RemoteBlob`):
    every member read, local or remote, goes through `read_member`."""

    def open(self, mode: str = ..., buffering: int = ...) -> Any: ...


class MemberError(Exception):
    """The member cannot be read; the caller names the file and the member."""


def read_member(
    archive: zipfile.ZipFile, info: zipfile.ZipInfo, path: Openable | Path, cap: int
) -> bytes:
    """The member's bytes, at most `cap + 1` of them (the caller refuses more than `cap`).

    Raises MemberError for anything wrong with the member itself (a bad zstd stream, a CRC
    mismatch, encryption), and lets zipfile's own errors through for the other methods."""
    if info.compress_type != ZIP_ZSTANDARD:
        with archive.open(info) as handle:
            return handle.read(cap + 1)
    if info.flag_bits & 0x1:
        raise MemberError("the member is encrypted")
    with path.open("rb") as handle:
        handle.seek(info.header_offset)
        header = handle.read(LOCAL_HEADER.size)
        if len(header) < LOCAL_HEADER.size or not header.startswith(LOCAL_MAGIC):
            raise MemberError("its local header is missing or damaged (a truncated file?)")
        fields = LOCAL_HEADER.unpack(header)
        name_length, extra_length = fields[-2], fields[-1]
        handle.seek(name_length + extra_length, 1)
        return _inflate(handle, info.compress_size, info.CRC, cap)


def _inflate(handle: BinaryIO, compressed: int, crc: int, cap: int) -> bytes:
    """Inflate `compressed` bytes of zstd frames; stop once more than `cap` bytes come out (a
    small member may declare any size, so the output is bounded, not the declaration)."""
    out = bytearray()
    decompressor = zstd.ZstdDecompressor()
    inside_frame = False
    left = compressed
    try:
        while left > 0:
            data = handle.read(min(CHUNK, left))
            if not data:
                raise MemberError(
                    f"the member ends {left} bytes early (a truncated file, or one still "
                    "being written?)"
                )
            left -= len(data)
            while data:
                out += decompressor.decompress(data, cap + 1 - len(out))
                inside_frame = True
                if len(out) > cap:
                    return bytes(out)
                if decompressor.eof:  # a frame ended; the next one starts in unused_data
                    data = decompressor.unused_data
                    decompressor = zstd.ZstdDecompressor()
                    inside_frame = False
                else:  # the input is used up (the output limit was not reached)
                    data = b""
    except zstd.ZstdError as exc:
        raise MemberError(f"the zstd data is damaged: {exc}") from None
    if inside_frame:
        raise MemberError("the zstd data ends inside a frame (a truncated member?)")
    if zlib.crc32(out) != crc:
        raise MemberError("its CRC-32 does not match the archive's (a damaged file?)")
    return bytes(out)
