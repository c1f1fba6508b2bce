"""A zip archive's central directory, read in one request and parsed in one vectorised pass.

`zipfile.ZipFile` builds a full `ZipInfo` (twenty-odd attributes, its extra fields decoded in
Python) per entry: for a 200,000-sample Inspect log that was seconds of its open, paid before a
byte of a summary was read. The readers need six numbers and a name per entry, so
`read_directory` reads the end record (zip64 included) and the whole directory with one `read`
(one ranged request for a remote log), finds every entry at once with numpy
(`_entries_vectorised`, checked to be exactly what zipfile's walk would find, else that walk
runs), and keeps the listing as columns; a `ZipEntry` is built when one is looked up. What the
archive limits check is unchanged: a name listed twice, overlapping entries and an entry
running into the directory are found on the columns (`ZipDirectory.layout_suspect`) and then
refused by `archive_limits.check_layout` in its own words; members are still read and bounded
by `zip_members.read_member`.

Everything wrong with the directory itself raises `zipfile.BadZipFile` with zipfile's own words
where it has them, so the callers' one-line errors are the same as before.
"""

from __future__ import annotations

import struct
import zipfile
from collections.abc import Callable, Iterator, Mapping
from functools import cached_property
from itertools import filterfalse
from operator import methodcaller
from typing import BinaryIO

import numpy as np

from evaltui.core.read.archive_limits import LOCAL_HEADER_SIZE

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
COLUMNS = ("header_offset", "compress_size", "file_size", "CRC", "compress_type", "flag_bits")


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
    """The entries of one archive, in directory order, and where the directory starts.

    Held as columns (names, and numpy arrays of offsets, sizes, CRCs, methods and flags): a
    `ZipEntry` is built when one is asked for (`getinfo`, `infolist`), never 200,000 at once
    for a listing, and the layout is checked on the columns (`check`)."""

    def __init__(self, names: list[str], columns: np.ndarray, start_dir: int) -> None:
        self.names = names
        self.columns = columns  # one row per entry: COLUMNS
        self.start_dir = start_dir

    @cached_property
    def _index(self) -> dict[str, int]:
        """Each name's entry (a name listed twice: its last), built when first looked up: a
        log read in another process (`inspect_elsewhere`) needs none before its first item,
        and 200,000 names took a fifth of unpacking its answer."""
        return dict(zip(self.names, range(len(self.names)), strict=True))

    def __len__(self) -> int:
        return len(self.names)

    def entry(self, i: int) -> ZipEntry:
        offset, compressed, size, crc, method, flags = (int(v) for v in self.columns[i])
        return ZipEntry(self.names[i], offset, compressed, size, crc, method, flags)

    def infolist(self) -> list[ZipEntry]:
        return [self.entry(i) for i in range(len(self.names))]

    def namelist(self) -> list[str]:
        return list(self.names)

    def getinfo(self, name: str) -> ZipEntry:
        """The entry named `name` (KeyError when there is none), as `ZipFile.getinfo`."""
        return self.entry(self._index[name])

    def members(self) -> Members:
        """The file members (not directories) by name, built as they are looked up."""
        return Members(self)

    def layout_suspect(self) -> bool:
        """Whether `archive_limits.check_layout` could refuse this listing: a name listed
        twice, entries sharing bytes, an entry reaching into the directory or starting before
        the archive. Vectorised; only when it says so are the entries built and checked one by
        one (`check_layout` then says which and why, in its words). It is never less strict:
        the spans are those `check_layout` computes (the name's UTF-8 length)."""
        if len(self._index) != len(self.names):
            return True
        if not self.names:
            return False
        # (an ASCII name's UTF-8 length is its length: counted in C, the common case)
        lengths = (
            map(len, self.names)
            if "".join(self.names).isascii()
            else (len(n.encode("utf-8", "surrogateescape")) for n in self.names)
        )
        name_bytes = np.fromiter(lengths, dtype=np.int64, count=len(self.names))
        starts = self.columns[:, 0]
        ends = starts + LOCAL_HEADER_SIZE + name_bytes + self.columns[:, 1]
        order = np.argsort(starts, kind="stable")
        starts, ends = starts[order], ends[order]
        return bool(
            starts[0] < 0 or (ends[:-1] > starts[1:]).any() or (ends > self.start_dir).any()
        )

    def close(self) -> None:
        """Nothing is held open (the directory was read whole); kept for the callers that
        close what they opened."""


class Members(Mapping[str, ZipEntry]):
    """A directory's file members by name (`ZipDirectory.members`)."""

    def __init__(self, directory: ZipDirectory) -> None:
        self._directory = directory
        names = directory.names  # (a directory's name ends with "/": filtered in C)
        self._names = list(filterfalse(methodcaller("endswith", "/"), names))

    def __getitem__(self, name: str) -> ZipEntry:
        if name.endswith("/"):
            raise KeyError(name)
        return self._directory.getinfo(name)

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and not name.endswith("/") and name in self._directory._index

    def __iter__(self) -> Iterator[str]:
        return iter(self._names)

    def __len__(self) -> int:
        return len(self._names)

    def listing(self) -> tuple[list[str], dict[str, int]]:
        """Every name the directory lists (a directory's too), in its order, and each name's
        place in that list: what a reader finds names in at once, in C."""
        return self._directory.names, self._directory._index


def read_directory(
    handle: BinaryIO, read_behind: Callable[[int], int] | None = None
) -> ZipDirectory:
    """The central directory of the seekable zip `handle` (BadZipFile when there is none).

    `read_behind(directory_size)`: how many bytes just before the directory the same read
    takes (`behind`, `header_behind`). A remote log's handle reads by ranged requests, and an
    Inspect log writes its summaries and header last, just before its directory: read with
    it, they cost no request of their own (on a store whose every request counts, as moto's
    reads the whole object for each range, 0.7 s a request for a 1 GB log)."""
    size, tail_start, tail, at = _tail(handle)
    end_offset = tail_start + at  # where the end record sits in the file
    fields = END.unpack_from(tail, at)
    disk, directory_size, directory_offset = fields[1], fields[5], fields[6]
    located = at - END64_LOCATOR.size
    if located >= 0 and tail[located : located + 4] == END64_LOCATOR_MAGIC:
        directory_size, directory_offset, end_offset = _zip64_end(
            handle, tail, located, end_offset, tail_start
        )
    elif disk != 0:
        raise zipfile.BadZipFile("zipfiles that span multiple disks are not supported")
    # data before the archive (a self-extractor's stub): zipfile shifts every offset by it
    concat = end_offset - directory_size - directory_offset
    start_dir = directory_offset + concat
    if start_dir < 0:
        raise zipfile.BadZipFile("Bad offset for central directory")
    before = min(start_dir, read_behind(directory_size)) if read_behind else 0
    handle.seek(start_dir - before)
    data = handle.read(before + directory_size)
    if len(data) != before + directory_size:
        raise zipfile.BadZipFile("Truncated central directory")
    names, columns = _entries(data[before:] if before else data, concat)
    return ZipDirectory(names, columns, start_dir)


def behind(directory_size: int) -> int:
    """What a remote Inspect log's open reads before its directory: a quarter of the directory
    (a log's summaries grow with its samples as its directory does: 0.7 MB for 200,000
    samples, whose directory is 14 MB), at least 2 MB."""
    return max(2 << 20, directory_size // 4)


def header_behind(directory_size: int) -> int:
    """What a listing reads before a remote log's directory: its header (a few kilobytes)."""
    return 64 << 10


def entry_count(handle: BinaryIO) -> int:
    """How many entries the end record (zip64's when there is one) says the archive holds,
    from its last kilobytes alone: a cheap size for deciding how to read it (no entry is read
    and nothing is checked; `read_directory` reads and checks the directory itself). A tail
    with no end record is BadZipFile."""
    _, _, tail, at = _tail(handle)
    located = at - END64_LOCATOR.size
    if located >= 0 and tail[located : located + 4] == END64_LOCATOR_MAGIC:
        record_at = at - END64_LOCATOR.size - END64.size
        if record_at >= 0 and tail[record_at : record_at + 4] == END64_MAGIC:
            return int(END64.unpack_from(tail, record_at)[7])
    return int(END.unpack_from(tail, at)[4])


def _tail(handle: BinaryIO) -> tuple[int, int, bytes, int]:
    """(the file's size, where its tail starts, the tail, the end record's offset in it): the
    last bytes that can hold the end record, its longest comment and zip64's locator and
    record. BadZipFile when they hold no end record."""
    handle.seek(0, 2)
    size = handle.tell()
    tail_start = size - min(size, END.size + MAX_COMMENT + END64_LOCATOR.size + END64.size)
    handle.seek(tail_start)
    tail = handle.read(size - tail_start)
    at = _end_record_at(tail)
    if at < 0:
        raise zipfile.BadZipFile("File is not a zip file")
    return size, tail_start, tail, at


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


def _entries(data: bytes, concat: int) -> tuple[list[str], np.ndarray]:
    """The names and COLUMNS of every entry of the directory bytes `data`, read to its end
    whatever the end record's count says (as zipfile does)."""
    found = _entries_vectorised(data)
    if found is None:
        names, rows = _entries_one_by_one(data)
        columns = np.array(rows, dtype=np.int64).reshape(len(rows), len(COLUMNS))
    else:
        names, columns = found
    columns[:, 0] += concat
    return names, columns


def _entries_vectorised(data: bytes) -> tuple[list[str], np.ndarray] | None:
    """Every entry at once, or None when this pass cannot be sure (`_entries_one_by_one`
    decides then). Each place the entry signature occurs is taken for an entry and its length
    read there; the guess holds only when the first sits at 0, each one ends exactly where the
    next begins and the last at the end: then a walk from 0 (zipfile's) visits exactly these
    places, so a signature inside a name or an extra field cannot pass for an entry. Entries
    with zip64 values are read one at a time (`_zip64_values`)."""
    raw = np.frombuffer(data, dtype=np.uint8)
    n = len(raw)
    if n < CENTRAL.size:
        return None
    at = np.flatnonzero(
        (raw[: n - 3] == 0x50) & (raw[1 : n - 2] == 0x4B) & (raw[2 : n - 1] == 1) & (raw[3:] == 2)
    )
    at = at[at + CENTRAL.size <= n]
    if len(at) == 0 or at[0] != 0:
        return None

    def u16(k: int) -> np.ndarray:
        return raw[at + k].astype(np.int64) | (raw[at + k + 1].astype(np.int64) << 8)

    def u32(k: int) -> np.ndarray:
        return u16(k) | (u16(k + 2) << 16)

    name_length, extra_length, comment_length = u16(28), u16(30), u16(32)
    ends = at + CENTRAL.size + name_length + extra_length + comment_length
    if (ends[:-1] != at[1:]).any() or ends[-1] != n:
        return None
    # header_offset, compress_size, file_size, CRC, compress_type, flag_bits (COLUMNS)
    columns = np.stack([u32(42), u32(20), u32(24), u32(16), u16(10), u16(8)], axis=1)
    flags = columns[:, 5]
    name_at = at + CENTRAL.size
    starts, stops = name_at.tolist(), (name_at + name_length).tolist()
    names = _names(data, starts, stops, (flags & UTF8_NAME).astype(bool))
    if "\x00" in "".join(names):  # (a name is cut at a NUL, as zipfile cuts it)
        names = [name.split("\x00", 1)[0] if "\x00" in name else name for name in names]
    marked = np.flatnonzero((columns[:, :3] == ZIP64_MARK).any(axis=1))
    for i in marked.tolist():  # zip64: the sizes and offset from the extra field
        extra_at = int(name_at[i] + name_length[i])
        size, compressed, offset = _zip64_values(
            data[extra_at : extra_at + int(extra_length[i])],
            int(columns[i, 2]),
            int(columns[i, 1]),
            int(columns[i, 0]),
        )
        columns[i, 0], columns[i, 1], columns[i, 2] = offset, compressed, size
    return names, columns


def _names(data: bytes, starts: list[int], stops: list[int], utf8: np.ndarray) -> list[str]:
    """The entries' names: all decoded at once when that reads each as its own decoding
    would (every name UTF-8-flagged, or all ASCII, where cp437 and UTF-8 agree, and no
    newline inside one), else one by one."""
    pieces = [data[a:b] for a, b in zip(starts, stops, strict=True)]
    joined = b"\n".join(pieces)
    if joined.count(b"\n") == len(pieces) - 1 and (utf8.all() or joined.isascii()):
        return joined.decode("utf-8").split("\n")
    flags = utf8.tolist()
    return [p.decode("utf-8" if u else "cp437") for p, u in zip(pieces, flags, strict=True)]


def _entries_one_by_one(data: bytes) -> tuple[list[str], list[tuple[int, ...]]]:
    """zipfile's walk: entry after entry from the start of the directory."""
    names: list[str] = []
    rows: list[tuple[int, ...]] = []
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
        flags, method, crc = fields[5], fields[6], fields[9]
        compressed, size = fields[10], fields[11]
        name_length, extra_length, comment_length = fields[12], fields[13], fields[14]
        offset = fields[18]
        name_end = at + fixed + name_length
        if name_end + extra_length + comment_length > end:
            raise zipfile.BadZipFile("Truncated central directory")
        name = data[at + fixed : name_end].decode("utf-8" if flags & UTF8_NAME else "cp437")
        if "\x00" in name:  # zipfile ends a name at its first NUL
            name = name[: name.index("\x00")]
        if ZIP64_MARK in (size, compressed, offset):
            size, compressed, offset = _zip64_values(
                data[name_end : name_end + extra_length], size, compressed, offset
            )
        names.append(name)
        rows.append((offset, compressed, size, crc, method, flags))
        at = name_end + extra_length + comment_length
    return names, rows


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
