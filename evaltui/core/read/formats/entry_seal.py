"""Every file of a cache entry proven intact before its numbers are used.

A reopen shows numbers read back from the scan cache (`scan_cache.py`) and the analysis cache
(`core/analysis/analysis_cache.py`). Their keys prove an entry was made from these inputs, not
that its bytes are still the ones written: a flipped bit in a Parquet data page, a file
truncated and padded back to its size, or a value edited by hand can still decode, into other
numbers, which would be shown as the pair's. So every entry carries a seal, written last into
the staging folder before it is renamed into place (`seal`): `seal.json`, each file's size and
CRC-32. A read checks every file it uses against it (`Seal`): a file the seal does not name, a
size or CRC that differs, or no seal at all make the entry `Damaged`; the caller then computes
afresh, replaces the entry, and says so in one warning line (`say_damaged`, no traceback).

Why CRC-32 over whole files: polars (2.1) neither writes Parquet page checksums nor verifies
them, and the `.npy` and JSON files have none; `zlib.crc32` is ~2 GB/s here (sha256 ~1 GB/s,
blake2b 0.9 GB/s) and releases the GIL on large buffers. It catches every burst of up to 32
flipped bits and any other accidental change but for one in 2**32. It is no defence against
someone who can write the cache folder (who could write a matching seal): the folder is the
user's own, and what is guarded against is damage, not forgery.

The big files are checked through a read-only memory map (no copy of the bytes) in a thread
beside the parse (`Seal.check_beside`), which reads the same files: about 20 ms of CPU per
40 MB scan entry and 40 ms per 87 MB analysis entry (a million scored items), off the GIL.
"""

from __future__ import annotations

import json
import logging
import mmap
import os
import threading
import zlib
from collections.abc import Iterable
from pathlib import Path

from evaltui.core.held_warnings import LOGGER

SEAL = "seal.json"
ALGORITHM = "crc32"
LOG = logging.getLogger(LOGGER)  # (held while the app runs: `core/held_warnings.py`)


class Damaged(ValueError):
    """An entry whose bytes are not those its seal records (or that has no seal)."""


def crc_of(path: Path) -> tuple[int, int]:
    """(size, CRC-32) of a file's bytes, read through a memory map (no copy)."""
    with path.open("rb") as handle:
        size = os.fstat(handle.fileno()).st_size
        if size == 0:
            return 0, zlib.crc32(b"")
        with mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) as mapped:
            return size, zlib.crc32(mapped)


def seal(folder: Path) -> None:
    """Record the size and CRC-32 of every file now in `folder` (an entry's staging folder,
    complete) in its `SEAL`, written last: an entry is whole only with it."""
    files = {
        path.name: list(crc_of(path))
        for path in sorted(folder.iterdir())
        if path.is_file() and path.name != SEAL
    }
    text = json.dumps({"algorithm": ALGORITHM, "files": files}, sort_keys=True)
    (folder / SEAL).write_text(text, encoding="utf-8")


class Seal:
    """An entry's seal, read: the files it names and their sizes and CRC-32s."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        try:
            data = json.loads((folder / SEAL).read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise Damaged("no seal (written by another build, or cut short)") from None
        except (OSError, ValueError) as exc:
            raise Damaged(f"an unreadable seal ({exc})") from None
        if not isinstance(data, dict) or data.get("algorithm") != ALGORITHM:
            raise Damaged("a seal of another form")
        files = data.get("files")
        if not isinstance(files, dict):
            raise Damaged("a seal of another form")
        self.sums: dict[str, tuple[int, int]] = {}
        for name, sums in files.items():
            if not (
                isinstance(sums, list) and len(sums) == 2 and all(type(v) is int for v in sums)
            ):
                raise Damaged(f"a seal entry for {name!r} that is not a size and a CRC")
            self.sums[name] = (sums[0], sums[1])

    def expected(self, name: str) -> tuple[int, int]:
        try:
            return self.sums[name]
        except KeyError:
            raise Damaged(f"{name} is not in the entry's seal") from None

    def read_bytes(self, name: str) -> bytes:
        """A small file's bytes (the entry's JSON), once checked against the seal."""
        size, crc = self.expected(name)
        data = (self.folder / name).read_bytes()
        if len(data) != size or zlib.crc32(data) != crc:
            raise Damaged(f"{name}: its bytes differ from those it was written with")
        return data

    def check(self, name: str) -> None:
        """A file checked against the seal in this thread."""
        size, crc = self.expected(name)
        try:
            found = crc_of(self.folder / name)
        except (OSError, ValueError) as exc:
            raise Damaged(f"{name}: unreadable ({exc})") from None
        if found[0] != size:
            raise Damaged(f"{name}: {found[0]} bytes instead of the {size} written")
        if found[1] != crc:
            raise Damaged(f"{name}: its bytes differ from those it was written with (CRC-32)")

    def check_beside(self, names: Iterable[str]) -> Checking:
        """The named files checked in a thread of their own while the caller parses them
        (the CRC and the reads release the GIL); `Checking.confirm` waits and says."""
        return Checking(self, tuple(names))


class Checking:
    """Files of an entry being checked against its seal in a thread (`Seal.check_beside`)."""

    def __init__(self, seal: Seal, names: tuple[str, ...]) -> None:
        for name in names:  # (a file the seal does not name: damaged at once)
            seal.expected(name)
        self._seal = seal
        self._names = names
        self._problem: Damaged | None = None
        self._thread = threading.Thread(target=self._run, name="evaltui-entry-seal", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        try:
            for name in self._names:
                self._seal.check(name)
        except Damaged as exc:
            self._problem = exc
        except Exception as exc:  # noqa: BLE001 - whatever it is, the entry is not proven
            self._problem = Damaged(f"not checked ({exc})")

    def problem(self) -> Damaged | None:
        """What the check found (None: every file intact), once it is done."""
        self._thread.join()
        return self._problem

    def confirm(self) -> None:
        """Wait for the check; `Damaged` if a file differs from its seal."""
        problem = self.problem()
        if problem is not None:
            raise problem


def say_damaged(what: str, reason: object, then: str) -> None:
    """One warning line for an entry dropped as damaged (on stderr unless logging is set up
    otherwise: Python's last-resort handler prints the message alone, never a traceback)."""
    text = f"evaltui: warning: {what} was damaged ({reason}): {then}"
    LOG.warning("%s", "".join(c if c.isprintable() else f"\\x{ord(c):02x}" for c in text))
