"""Reading one member of a zip archive (stored, deflate or zstd), within the archive limits.

Inspect AI writes its `.eval` members with zstd by default since 0.3.206. `zipfile` reads zstd
only from Python 3.14, and even there a member written as several zstd frames (Inspect splits
members over 200 MiB into frames for its viewer) stops at the first frame and fails its CRC.
And `zipfile` inflates what a member's bytes say, however much that is. So every member is read
here: its raw bytes from the local header on, a chunk at a time, through
`evaltui.core.read.archive_limits.Inflater` (the member, ratio and per-log limits, checked
while inflating), and checked against the CRC and size the central directory declares.
The members are listed by `zip_directory` (or `zipfile`; `check_layout` refuses a listing with
duplicate or overlapping entries first): listing never looks at the compression method.
"""

from __future__ import annotations

import struct
import zipfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Protocol

from evaltui.core.read.archive_limits import (
    DEFAULT_LIMITS,
    ZSTANDARD,
    Budget,
    DamagedMember,
    Inflater,
    LimitExceeded,
    ZipLimits,
    check_layout,
)
from evaltui.core.read.archive_limits import zstd as zstd  # re-exported: tests write zstd with it
from evaltui.core.read.zip_directory import ZipDirectory

ZIP_ZSTANDARD = ZSTANDARD
LOCAL_HEADER = struct.Struct("<4s2B4HL2L2H")  # the 30-byte local file header
LOCAL_MAGIC = b"PK\x03\x04"
CHUNK = 1 << 20


class Openable(Protocol):
    """A local `Path`, or a remote object read by byte ranges (`remote.blob.RemoteBlob`):
    every member read, local or remote, goes through `read_member`."""

    def open(self, mode: str = ..., buffering: int = ...) -> Any: ...


Archive = zipfile.ZipFile | ZipDirectory  # zipfile's listing, or ours (`zip_directory`)


class MemberError(Exception):
    """The member cannot be read; the caller names the file and the member."""


def checked_members(archive: Archive) -> Mapping[str, Any]:
    """The archive's file members by name, once its layout is checked (LimitExceeded: a
    name listed twice, entries sharing bytes, an entry running into the central directory).
    Our own listing is checked on its columns first; its entries are built one by one only
    when that check finds something `check_layout` would refuse."""
    if isinstance(archive, ZipDirectory):
        if archive.layout_suspect():
            check_layout(archive.infolist(), archive.start_dir)
        return archive.members()
    infos = archive.infolist()
    start_dir = getattr(archive, "start_dir", None)
    check_layout(infos, start_dir if isinstance(start_dir, int) else 1 << 62)
    return {info.filename: info for info in infos if not info.is_dir()}


def read_member(
    archive: Archive,
    info: Any,
    path: Openable | Path,
    cap: int,
    limits: ZipLimits = DEFAULT_LIMITS,
    budget: Budget | None = None,
) -> bytes:
    """The member's bytes, within `limits` (`cap` bounds this one member further).

    Raises LimitExceeded for a limit, MemberError for anything wrong with the member itself
    (a bad stream, a size or CRC mismatch, encryption, a damaged local header)."""
    if info.flag_bits & 0x1:
        raise MemberError("the member is encrypted")
    if cap < limits.member_bytes:
        limits = ZipLimits(cap, limits.ratio, limits.ratio_floor, limits.log_bytes)
    with path.open("rb") as handle:
        handle.seek(info.header_offset)
        header = handle.read(LOCAL_HEADER.size)
        if len(header) < LOCAL_HEADER.size or not header.startswith(LOCAL_MAGIC):
            raise MemberError("its local header is missing or damaged (a truncated file?)")
        fields = LOCAL_HEADER.unpack(header)
        name_length, extra_length = fields[-2], fields[-1]
        handle.seek(name_length + extra_length, 1)
        try:
            inflater = Inflater(info.filename, info.compress_type, info.file_size, limits, budget)
            left = info.compress_size
            while left > 0:
                data = handle.read(min(CHUNK, left))
                if not data:
                    raise MemberError(
                        f"the member ends {left} bytes early (a truncated file, or one still "
                        "being written?)"
                    )
                left -= len(data)
                inflater.feed(data)
            return inflater.finish(info.CRC)
        except DamagedMember as exc:
            raise MemberError(str(exc)) from None


__all__ = ["LimitExceeded", "MemberError", "checked_members", "read_member", "zstd"]
