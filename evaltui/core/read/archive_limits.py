"""Bounded reading of zip archives: what one hostile `.eval` log may cost, and the refusals.

A 188 KB log whose `summaries.json` inflated (zstd) to 511 MiB took `report` to 13 GB of memory;
215 KB with 3,000 zip entries pointing at the same 8 MiB of compressed data kept it inflating
for minutes. An eval box that opens logs from a shared bucket must end such a file in seconds,
in bounded memory, with one line. So every member is inflated here, chunk by chunk, against:

- **the member limit**: at most `member_bytes` out, and never more than the central directory
  declared for it (a declaration is checked while inflating, not trusted);
- **the ratio limit**: once past `ratio_floor` bytes out, no more than `ratio` bytes out per
  compressed byte read (real Inspect logs inflate 5 to 15 times; a bomb thousands of times);
- **the log limit**: at most `log_bytes` out over every member one load reads (`Budget`);
- **the layout**: no member name twice, no two entries sharing compressed bytes (overlapping
  entries are how a small file holds thousands of bombs), no entry running past the central
  directory (`check_layout`).

A limit exceeded raises `LimitExceeded` naming the member and the limit; the format names the
file (an `InputError`, exit 2). `Inflater` takes the compressed bytes as they come (a local
file, or a remote read's ranges: it never needs the whole member), so any reader can use it.
"""

from __future__ import annotations

import sys
import zlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Protocol

if sys.version_info >= (3, 14):  # pragma: no cover - exercised on 3.14 only
    from compression import zstd
else:
    from backports import zstd

STORED, DEFLATED, ZSTANDARD = 0, 8, 93
MiB = 1 << 20
STEP = MiB  # inflated bytes per call between two checks of the limits


@dataclass(frozen=True)
class ZipLimits:
    """What one archive may cost. The defaults leave real logs far inside (the largest member
    of the Inspect logs we have seen is tens of MB, inflating 5 to 15 times) and keep a
    refused bomb well under a 3 GiB address space."""

    member_bytes: int = 256 * MiB
    ratio: int = 200
    ratio_floor: int = 8 * MiB  # below this, any ratio (a small member of spaces is harmless)
    log_bytes: int = 1024 * MiB


DEFAULT_LIMITS = ZipLimits()


class LimitExceeded(ValueError):
    """A member or an archive went past a limit; `str()` says which and what it is."""

    def __init__(self, member: str, text: str) -> None:
        super().__init__(text)
        self.member = member


class DamagedMember(ValueError):
    """The compressed data itself is wrong (a bad stream, a truncated member, a CRC mismatch)."""


class Budget:
    """The bytes one load may still inflate over all its members (`ZipLimits.log_bytes`)."""

    def __init__(self, limits: ZipLimits = DEFAULT_LIMITS) -> None:
        self.limits = limits
        self.used = 0

    def take(self, member: str, size: int) -> None:
        self.used += size
        if self.used > self.limits.log_bytes:
            raise LimitExceeded(
                member,
                f"the log's members inflate to more than {self.limits.log_bytes} bytes together, "
                "the limit for one log; refusing to read on",
            )


class EntryLike(Protocol):
    """What `check_layout` reads of an entry (zipfile.ZipInfo has it; a remote listing may)."""

    filename: str
    header_offset: int
    compress_size: int


LOCAL_HEADER_SIZE = 30


def check_layout(entries: Sequence[EntryLike], directory_start: int) -> None:
    """Refuse a central directory naming a member twice, entries whose bytes overlap, or an
    entry reaching into the central directory (`directory_start`: its offset in the file)."""
    seen: set[str] = set()
    for entry in entries:
        if entry.filename in seen:
            raise LimitExceeded(
                entry.filename, "the archive lists this member twice (a duplicate entry)"
            )
        seen.add(entry.filename)
    spans = sorted(
        (
            e.header_offset,
            e.header_offset + LOCAL_HEADER_SIZE + len(e.filename.encode()) + e.compress_size,
            e.filename,
        )
        for e in entries
    )
    for (start, end, name), following in zip(spans, [*spans[1:], None], strict=True):
        if start < 0:
            raise LimitExceeded(name, "the entry starts before the archive")
        if following is not None and end > following[0]:
            raise LimitExceeded(
                name,
                f"the entry overlaps the entry of {following[2]!r}: overlapping entries share "
                "compressed bytes (a zip bomb's layout); refusing the archive",
            )
        if end > directory_start:
            raise LimitExceeded(name, "the entry runs into the archive's central directory")


class Inflater:
    """Inflates one member's compressed bytes, fed in pieces, within the limits.

    `declared` is the inflated size the central directory gives: more than that is refused as
    soon as it comes out, and so is more than the member limit or the ratio."""

    def __init__(
        self,
        member: str,
        method: int,
        declared: int,
        limits: ZipLimits = DEFAULT_LIMITS,
        budget: Budget | None = None,
    ) -> None:
        self.member = member
        self.method = method
        self.limits = limits
        self.budget = budget
        self.cap = min(declared, limits.member_bytes)
        self.declared = declared
        # the output's pieces, joined once at the end: a bytearray grown a step at a time and
        # copied out again was a third of inflating a large log's `summaries.json`
        self.chunks: list[bytes] = []
        self.size = 0  # bytes out so far
        self.crc = 0  # their CRC-32, computed piece by piece
        self.fed = 0
        self._ended_frame = True  # zstd: between frames (a member may be several)
        if method == DEFLATED:
            self._deflate = zlib.decompressobj(-15)
        elif method == ZSTANDARD:
            self._zstd = zstd.ZstdDecompressor()
        elif method != STORED:
            raise DamagedMember(f"compression method {method} is not one evaltui reads")

    def feed(self, data: bytes) -> None:
        self.fed += len(data)
        try:
            if self.method == STORED:
                self._emit(bytes(data))  # kept as a piece: never a caller's buffer
            elif self.method == DEFLATED:
                self._feed_deflate(data)
            else:
                self._feed_zstd(data)
        except zlib.error as exc:
            raise DamagedMember(f"the deflate data is damaged: {exc}") from None
        except zstd.ZstdError as exc:
            raise DamagedMember(f"the zstd data is damaged: {exc}") from None

    def _room(self) -> int:
        """Bytes the next call may inflate: a step at a time, so every limit is checked every
        STEP bytes (one call could otherwise inflate a whole declared size at once), and one
        more than the cap, so going past it is seen."""
        return min(STEP, self.cap + 1 - self.size)

    def _feed_deflate(self, data: bytes) -> None:
        while data and not self._deflate.eof:
            self._emit(self._deflate.decompress(data, self._room()))
            data = self._deflate.unconsumed_tail

    def _feed_zstd(self, data: bytes) -> None:
        while True:
            if data:
                self._ended_frame = False
            self._emit(self._zstd.decompress(data, self._room()))
            if self._zstd.eof:  # a frame ended; the next one starts in unused_data
                data = self._zstd.unused_data
                self._zstd = zstd.ZstdDecompressor()
                self._ended_frame = True
                if not data:
                    return
            elif self._zstd.needs_input:
                return
            else:  # more output is held for the next step
                data = b""

    def _emit(self, chunk: bytes) -> None:
        size = self.size + len(chunk)
        self._check_size(size)
        if chunk:
            self.chunks.append(chunk)
            self.crc = zlib.crc32(chunk, self.crc)
        self.size = size
        if self.budget is not None:
            self.budget.take(self.member, len(chunk))
        if size > self.limits.ratio_floor and size > self.limits.ratio * max(self.fed, 1):
            raise LimitExceeded(
                self.member,
                f"the member inflates more than {self.limits.ratio} times its compressed size "
                f"({size} bytes out of {self.fed}), the limit for one member; refusing to "
                "inflate it",
            )

    def _check_size(self, size: int) -> None:
        if size > self.limits.member_bytes:
            raise LimitExceeded(
                self.member,
                f"the member inflates to more than the {self.limits.member_bytes}-byte limit "
                "for one member; refusing to inflate it",
            )
        if size > self.declared:
            raise LimitExceeded(
                self.member,
                f"the member inflates past the {self.declared} bytes the archive declares for "
                "it; refusing to inflate it",
            )

    def finish(self, crc: int) -> bytes:
        """The member's bytes, once they are complete and match the declared CRC-32."""
        if self.method == DEFLATED and not self._deflate.eof:
            raise DamagedMember("the deflate data ends early (a truncated member?)")
        if self.method == ZSTANDARD and not self._ended_frame:
            raise DamagedMember("the zstd data ends inside a frame (a truncated member?)")
        if self.crc != crc:
            raise DamagedMember("its CRC-32 does not match the archive's (a damaged file?)")
        if self.size != self.declared:
            raise DamagedMember(
                f"it inflates to {self.size} bytes, not the {self.declared} the archive "
                "declares (a damaged file?)"
            )
        return bytes(self.chunks[0]) if len(self.chunks) == 1 else b"".join(self.chunks)


def inflate(
    chunks: Iterable[bytes],
    member: str,
    method: int,
    declared: int,
    crc: int,
    limits: ZipLimits = DEFAULT_LIMITS,
    budget: Budget | None = None,
) -> bytes:
    """One member from its compressed bytes (`chunks`, in order), within `limits`."""
    inflater = Inflater(member, method, declared, limits, budget)
    for chunk in chunks:
        inflater.feed(chunk)
    return inflater.finish(crc)
