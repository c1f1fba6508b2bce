"""Hostile Inspect `.eval` archives, built on the fly (never committed): a member that inflates
far past its size, entries that share compressed bytes, a member named twice, a member that
inflates past what the central directory declares. Used by tests/core/read/test_archive_limits.py
and bench/fuzz_inputs.py."""

from __future__ import annotations

import struct
import zipfile
import zlib
from pathlib import Path

from backports.zstd import ZstdCompressor
from backports.zstd import zipfile as zstd_zipfile  # writes method 93 below 3.14

DATA = Path(__file__).resolve().parents[2] / "data" / "inspect_ai"
TEMPLATE = DATA / "zstd" / "2025-09-15T15-04-34-04-00_popularity_jKN69eAYYpZFAZhRgMAztp.eval"
ZSTD = 93
MiB = 1 << 20
# what the bomb repeats: one JSON summary, so the inflated text is a plausible member
SUMMARY = b'{"id": "x", "epoch": 1, "input": "aaaaaaaa", "target": "b", "scores": {}},'


def _template_members(skip: set[str], source: Path = TEMPLATE) -> list[tuple[str, bytes]]:
    with zipfile.ZipFile(source) as template:
        from evaltui.core.read.formats.zip_members import read_member

        return [
            (info.filename, read_member(template, info, source, 1 << 30))
            for info in template.infolist()
            if info.filename not in skip
        ]


def summaries_bomb(
    dest: Path,
    inflated: int,
    method: int = ZSTD,
    member_name: str = "summaries.json",
    template: Path = TEMPLATE,
) -> Path:
    """The template log with a summaries.json (or `member_name`, e.g. a sample that is only
    inflated when its item is opened) that inflates to `inflated` bytes (a JSON list of one
    summary repeated), compressed with `method`; written in 1 MiB pieces. `template`: the log
    whose other members are kept (e.g. one in Inspect's chunked layout)."""
    with zstd_zipfile.ZipFile(dest, "w", compression=method) as out:
        for name, data in _template_members({member_name}, template):
            out.writestr(name, data)
        block = SUMMARY * (MiB // len(SUMMARY))
        with out.open(member_name, "w", force_zip64=True) as member:
            member.write(b"[")
            left = inflated - 2
            while left > 0:
                piece = block[: min(left, len(block))]
                member.write(piece)
                left -= len(piece)
            member.write(b"]")
    return dest


def _local(name: bytes, method: int, crc: int, csize: int, usize: int) -> bytes:
    return (
        struct.pack(
            "<4s5H3L2H", b"PK\x03\x04", 63, 0, method, 0, 0, crc, csize, usize, len(name), 0
        )
        + name
    )


def _central(name: bytes, method: int, crc: int, csize: int, usize: int, offset: int) -> bytes:
    return struct.pack(
        "<4s6H3L5H2L", b"PK\x01\x02", 63, 63, 0, method, 0, 0, crc, csize, usize,
        len(name), 0, 0, 0, 0, 0, offset,
    ) + name  # fmt: skip


def _end(count: int, size: int, offset: int) -> bytes:
    return struct.pack("<4s4H2LH", b"PK\x05\x06", 0, 0, count, count, size, offset, 0)


def hand_zip(
    dest: Path, members: list[tuple[str, bytes]], extra_central: list[tuple[str, int]] = ()
) -> Path:
    """A zip written byte by byte: `members` as zstd members (name, inflated bytes), then
    further central directory entries (name, index of the member whose bytes they point at)."""
    body, central = bytearray(), bytearray()
    entries: list[tuple[bytes, int, int, int, int]] = []
    for name, data in members:
        packed = ZstdCompressor().compress(data, ZstdCompressor.FLUSH_FRAME)
        raw = name.encode()
        crc = zlib.crc32(data)
        entries.append((raw, crc, len(packed), len(data), len(body)))
        body += _local(raw, ZSTD, crc, len(packed), len(data)) + packed
    for raw, crc, csize, usize, offset in entries:
        central += _central(raw, ZSTD, crc, csize, usize, offset)
    for name, index in extra_central:
        _, crc, csize, usize, offset = entries[index]
        central += _central(name.encode(), ZSTD, crc, csize, usize, offset)
    count = len(entries) + len(extra_central)
    dest.write_bytes(bytes(body) + bytes(central) + _end(count, len(central), len(body)))
    return dest


def _header() -> bytes:
    return dict(_template_members(set()))["header.json"]


def overlap_bomb(dest: Path, entries: int = 3000, kernel: int = 8 * MiB) -> Path:
    """header.json, then `entries` sample entries all pointing at one zstd member of `kernel`
    bytes: a few hundred KB that would inflate to entries x kernel."""
    sample = b'{"id": 0, "epoch": 1, "input": "' + b"a" * kernel + b'"}'
    extra = [(f"samples/{i}_epoch_1.json", 1) for i in range(1, entries)]
    return hand_zip(dest, [("header.json", _header()), ("samples/0_epoch_1.json", sample)], extra)


def duplicate_name(dest: Path) -> Path:
    """header.json listed twice, each entry with its own bytes (which one is the header?)."""
    other = _header().replace(b'"status": "success"', b'"status": "error"', 1)
    return hand_zip(dest, [("header.json", _header()), ("header.json", other)])


def understated_size(dest: Path, declared: int = 1000) -> Path:
    """summaries.json whose central directory declares `declared` bytes for 4 MiB of output."""
    path = hand_zip(
        dest, [("header.json", _header()), ("summaries.json", b"[" + b" " * 4 * MiB + b"]")]
    )
    data = bytearray(path.read_bytes())
    name = b"summaries.json"
    for magic, at in ((b"PK\x03\x04", 22), (b"PK\x01\x02", 24)):  # uncompressed size fields
        start = data.find(magic + data[data.find(magic) + 4 : data.find(magic) + 4][:0])
        while start != -1:
            name_at = start + (30 if magic == b"PK\x03\x04" else 46)
            if bytes(data[name_at : name_at + len(name)]) == name:
                data[start + at : start + at + 4] = struct.pack("<L", declared)
            start = data.find(magic, start + 4)
    path.write_bytes(bytes(data))
    return path
