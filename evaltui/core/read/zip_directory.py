"""A zip archive's central directory, read in one request and parsed in one struct pass.

`zipfile.ZipFile` builds a full `ZipInfo` (twenty-odd attributes, its extra fields decoded in
Python) per entry: for a 200,000-sample Inspect log that was seconds of its open, paid before a
byte of a summary was read. The readers here need seven numbers and a name per entry, so
`read_directory` reads the end record (zip64 included), the whole directory with one `read`
(one ranged request for a remote log), and unpacks each 46-byte entry with `struct.unpack_from`
into a small `ZipEntry`. What the archive limits check is unchanged: `check_layout`
(`archive_limits`) still refuses a name listed twice, overlapping entries and an entry running
into the directory, on these entries; members are still read and bounded by
`zip_members.read_member`.

Everything wrong with the directory itself raises `zipfile.BadZipFile` with zipfile's own words
where it has them, so the callers' one-line errors are the same as before.
"""

from __future__ import annotations

import struct
import zipfile
from typing import BinaryIO

END = struct.Struct("<4s4H2LH")  # end of central directory record, 22 bytes
END_MAGIC = b"PK\x05\x06"
END64_LOCATOR = struct.Struct("<4sLQL")  # zip64 end of central directory locator, 20 bytes
END64_LOCATOR_MAGIC = b"PK\x06\x07"
END64 = struct.Struct("<4sQ2H2L4Q")  # zip64 end of central directory record, 56 bytes
END64_MAGIC = b"PK\x06\x06"
CENTRAL = struct.Struct("<4s4B4HL2L5H2L")  # a central directory entry's fixed part, 46 bytes
CENTRAL_MAGIC = b"PK\x01\x02"
ZIP64_EXTRA = 0x0001
MAX_COMMENT = 0xFFFF
UTF8_NAME = 0x800  # general purpose flag bit 11: the name is UTF-8 (else cp437)
ZIP64_MARK = 0xFFFFFFFF


class ZipEntry:
    """One member as the central directory lists it: what reading and checking it needs
    (the attribute names are `zipfile.ZipInfo`'s, so `check_layout` and `read_member` take
    either)."""

    __slots__ = (
        "CRC",
        "compress_size",
        "compress_type",
        "file_size",
        "filename",
        "flag_bits",
        "header_offset",
    )

    def __init__(
        self,
        filename: str,
        header_offset: int,
        compress_size: int,
        file_size: int,
        crc: int,
        compress_type: int,
        flag_bits: int,
    ) -> None:
        self.filename = filename
        self.header_offset = header_offset
        self.compress_size = compress_size
        self.file_size = file_size
        self.CRC = crc
        self.compress_type = compress_type
        self.flag_bits = flag_bits

    def is_dir(self) -> bool:
        return self.filename.endswith("/")

    def __repr__(self) -> str:
        return f"ZipEntry({self.filename!r}, offset {self.header_offset})"


class ZipDirectory:
    """The entries of one archive, in directory order, and where the directory starts."""

    def __init__(self, entries: list[ZipEntry], start_dir: int) -> None:
        self.entries = entries
        self.start_dir = start_dir
        self._by_name = {entry.filename: entry for entry in entries}

    def infolist(self) -> list[ZipEntry]:
        return self.entries

    def namelist(self) -> list[str]:
        return [entry.filename for entry in self.entries]

    def getinfo(self, name: str) -> ZipEntry:
        """The entry named `name` (KeyError when there is none), as `ZipFile.getinfo`."""
        return self._by_name[name]

    def close(self) -> None:
        """Nothing is held open (the directory was read whole); kept for the callers that
        close what they opened."""


def read_directory(handle: BinaryIO) -> ZipDirectory:
    """The central directory of the seekable zip `handle` (BadZipFile when there is none)."""
    handle.seek(0, 2)
    size = handle.tell()
    tail_size = min(size, END.size + MAX_COMMENT + END64_LOCATOR.size + END64.size)
    handle.seek(size - tail_size)
    tail = handle.read(tail_size)
    at = _end_record_at(tail)
    if at < 0:
        raise zipfile.BadZipFile("File is not a zip file")
    end_offset = size - tail_size + at  # where the end record sits in the file
    fields = END.unpack_from(tail, at)
    disk, directory_size, directory_offset = fields[1], fields[5], fields[6]
    located = at - END64_LOCATOR.size
    if located >= 0 and tail[located : located + 4] == END64_LOCATOR_MAGIC:
        directory_size, directory_offset, end_offset = _zip64_end(
            handle, tail, located, end_offset, size - tail_size
        )
    elif disk != 0:
        raise zipfile.BadZipFile("zipfiles that span multiple disks are not supported")
    # data before the archive (a self-extractor's stub): zipfile shifts every offset by it
    concat = end_offset - directory_size - directory_offset
    start_dir = directory_offset + concat
    if start_dir < 0:
        raise zipfile.BadZipFile("Bad offset for central directory")
    handle.seek(start_dir)
    data = handle.read(directory_size)
    if len(data) != directory_size:
        raise zipfile.BadZipFile("Truncated central directory")
    return ZipDirectory(_entries(data, concat), start_dir)


def _end_record_at(tail: bytes) -> int:
    """The offset in `tail` of the end record, searched from the end (a comment may follow)."""
    at = tail.rfind(END_MAGIC, 0, len(tail) - END.size + len(END_MAGIC))
    while at >= 0:
        (comment_length,) = struct.unpack_from("<H", tail, at + 20)
        if at + END.size + comment_length <= len(tail):
            return at
        at = tail.rfind(END_MAGIC, 0, at + len(END_MAGIC) - 1)
    return -1


def _zip64_end(
    handle: BinaryIO, tail: bytes, located: int, end_offset: int, tail_start: int
) -> tuple[int, int, int]:
    """(directory size, directory offset, where the zip64 end record sits)."""
    _, disk, record_offset, disks = END64_LOCATOR.unpack_from(tail, located)
    if disk != 0 or disks > 1:
        raise zipfile.BadZipFile("zipfiles that span multiple disks are not supported")
    record_at = end_offset - END64_LOCATOR.size - END64.size  # where it sits if nothing is between
    if record_at >= tail_start:
        record = tail[record_at - tail_start : record_at - tail_start + END64.size]
    else:
        handle.seek(record_at)
        record = handle.read(END64.size)
    if len(record) != END64.size or not record.startswith(END64_MAGIC):
        raise zipfile.BadZipFile("Corrupt zip64 end of central directory record")
    fields = END64.unpack(record)
    del record_offset  # zipfile too locates the record by position, not by this offset
    return fields[8], fields[9], record_at


def _entries(data: bytes, concat: int) -> list[ZipEntry]:
    """Every entry of the directory bytes `data`, read to its end whatever the end record's
    count says (as zipfile does)."""
    entries: list[ZipEntry] = []
    unpack = CENTRAL.unpack_from
    fixed = CENTRAL.size
    at, end = 0, len(data)
    while at < end:
        if end - at < fixed:
            raise zipfile.BadZipFile("Truncated central directory")
        fields = unpack(data, at)
        if fields[0] != CENTRAL_MAGIC:
            raise zipfile.BadZipFile("Bad magic number for central directory")
        # (signature, versions, flags, method, time, date, CRC, sizes, name/extra/comment
        # lengths, disk, attributes, local header offset): zipfile's `structCentralDir`
        flags, method, crc, compressed, size = (
            fields[5],
            fields[6],
            fields[9],
            fields[10],
            fields[11],
        )
        name_length, extra_length, comment_length = fields[12], fields[13], fields[14]
        offset = fields[18]
        name_end = at + fixed + name_length
        if name_end + extra_length + comment_length > end:
            raise zipfile.BadZipFile("Truncated central directory")
        raw_name = data[at + fixed : name_end]
        name = raw_name.decode("utf-8" if flags & UTF8_NAME else "cp437")
        if "\x00" in name:  # zipfile ends a name at its first NUL
            name = name[: name.index("\x00")]
        if ZIP64_MARK in (size, compressed, offset):
            size, compressed, offset = _zip64_values(
                data[name_end : name_end + extra_length], size, compressed, offset
            )
        entries.append(ZipEntry(name, offset + concat, compressed, size, crc, method, flags))
        at = name_end + extra_length + comment_length
    return entries


def _zip64_values(extra: bytes, size: int, compressed: int, offset: int) -> tuple[int, int, int]:
    """The sizes and offset an entry marks 0xFFFFFFFF, from its zip64 extra field, in the
    order the format gives them (only the marked ones are present)."""
    at = 0
    while at + 4 <= len(extra):
        kind, length = struct.unpack_from("<2H", extra, at)
        if at + 4 + length > len(extra):
            raise zipfile.BadZipFile(f"Corrupt extra field {kind:04x} (size={length})")
        if kind == ZIP64_EXTRA:
            values = list(struct.unpack_from(f"<{length // 8}Q", extra, at + 4))
            try:
                if size == ZIP64_MARK:
                    size = values.pop(0)
                if compressed == ZIP64_MARK:
                    compressed = values.pop(0)
                if offset == ZIP64_MARK:
                    offset = values.pop(0)
            except IndexError:
                raise zipfile.BadZipFile("Corrupt zip64 extra field") from None
            return size, compressed, offset
        at += 4 + length
    return size, compressed, offset
