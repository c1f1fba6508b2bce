"""A seekable read-only file over a remote object, fetched in blocks by byte range.

`zipfile` needs a seekable file: it reads the end-of-central-directory record at the tail, the
central directory, then each member it is asked for. Over this file an `.eval` log is opened
with a few ranged requests instead of a download: an object under `WHOLE_BELOW` comes in one
request (most logs of a directory listing), a bigger one in `BLOCK`-sized blocks, with a
sequential reader's next blocks fetched ahead in the same request, and a read spanning several
missing runs of blocks fetching them in parallel. At most `MAX_BLOCKS` blocks are kept (least
recently used dropped), so memory stays bounded whatever the object's size.
"""

from __future__ import annotations

import io
import threading
from collections import OrderedDict
from concurrent.futures import ThreadPoolExecutor
from typing import Any

BLOCK = 1 << 20
WHOLE_BELOW = 2 << 20
READAHEAD = 7  # blocks fetched beyond a sequential read's need, in the same request
MAX_BLOCKS = 128
_POOL = ThreadPoolExecutor(max_workers=8, thread_name_prefix="evaltui-range")


class BlockCache:
    """The blocks of one object read so far (shared by every file opened on it)."""

    def __init__(self, blob: Any) -> None:
        self._blob = blob
        self._size = int(blob.stat().size)
        self._block = self._size if 0 < self._size <= WHOLE_BELOW else BLOCK
        self._blocks: OrderedDict[int, bytes] = OrderedDict()
        self._lock = threading.Lock()
        self._last = -2

    def read(self, start: int, end: int) -> bytes:
        end = min(end, self._size)
        if end <= start:
            return b""
        first, last = start // self._block, (end - 1) // self._block
        self._fetch_missing(first, last)
        with self._lock:
            parts = []
            for index in range(first, last + 1):
                block = self._blocks.get(index)
                if block is None:  # dropped by a concurrent reader's fetch: fetch it alone
                    block = self._fetch_run(index, index)[index]
                else:
                    self._blocks.move_to_end(index)
                parts.append(block)
            self._last = last
        data = b"".join(parts)
        offset = start - first * self._block
        return data[offset : offset + end - start]

    def _fetch_missing(self, first: int, last: int) -> None:
        with self._lock:
            missing = [i for i in range(first, last + 1) if i not in self._blocks]
            sequential = first in (self._last, self._last + 1)
        if not missing:
            return
        top = (self._size - 1) // self._block
        runs: list[tuple[int, int]] = []
        for index in missing:
            if runs and runs[-1][1] == index - 1:
                runs[-1] = (runs[-1][0], index)
            else:
                runs.append((index, index))
        if sequential:  # read ahead after the last run
            begin, stop = runs[-1]
            runs[-1] = (begin, min(top, stop + READAHEAD, begin + MAX_BLOCKS // 4))
        if len(runs) == 1:
            fetched = [self._fetch_run(*runs[0])]
        else:
            fetched = list(_POOL.map(lambda run: self._fetch_run(*run), runs))
        with self._lock:
            for blocks in fetched:
                for index, block in blocks.items():
                    self._blocks[index] = block
                    self._blocks.move_to_end(index)
            while len(self._blocks) > MAX_BLOCKS:
                self._blocks.popitem(last=False)

    def _fetch_run(self, first: int, last: int) -> dict[int, bytes]:
        start = first * self._block
        data = self._blob.read(start, min(self._size, (last + 1) * self._block))
        return {
            index: data[(index - first) * self._block : (index - first + 1) * self._block]
            for index in range(first, last + 1)
        }


class RangeFile(io.RawIOBase):
    """A file position over a BlockCache: what `zipfile.ZipFile` and `open()` callers see."""

    def __init__(self, blocks: BlockCache, size: int) -> None:
        super().__init__()
        self._blocks = blocks
        self._size = size
        self._position = 0

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def tell(self) -> int:
        return self._position

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        if whence == io.SEEK_SET:
            position = offset
        elif whence == io.SEEK_CUR:
            position = self._position + offset
        elif whence == io.SEEK_END:
            position = self._size + offset
        else:
            raise ValueError(f"bad whence {whence}")
        if position < 0:
            raise OSError(22, "negative seek position")
        self._position = position
        return position

    def readinto(self, buffer: Any) -> int:
        view = memoryview(buffer).cast("B")
        data = self._blocks.read(self._position, self._position + len(view))
        view[: len(data)] = data
        self._position += len(data)
        return len(data)

    def read(self, size: int | None = -1) -> bytes:
        if size is None or size < 0:
            size = max(0, self._size - self._position)
        data = self._blocks.read(self._position, self._position + size)
        self._position += len(data)
        return data
