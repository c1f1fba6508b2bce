"""A large JSON array's elements decoded a batch at a time, each batch checked like `loads`.

Decoding the 200,000 summaries of an Inspect log at once held the whole tree of Python objects
(about 2.5 KB a summary: 500 MB a log, a gigabyte for a pair opened side by side) while only the
few fields the statistics keep outlive the pass. `ArrayElements` splits the array into its
elements' raw bytes first (msgspec, in C), copies each batch of `BATCH` elements into its own
bytes (so the document need not be kept, and a batch's bytes go once the last pass decoded it),
then decodes a batch at a time with `jsontext.fast_loads` (its byte comparison proves no
duplicate key was dropped, see there), so at most one batch's tree is alive.

Nothing is lost: a batch the fast path cannot prove exact (an exponent or escape written
otherwise than msgspec writes it, a NaN, a duplicate key) is decoded by the checking decoder;
when that refuses it, the whole document (read again) goes through the checking decoder
(`parse_whole`),
which raises the error the document always gave (the same words, line and field). A document
that is no plain array (`of` returns None) is parsed whole by the caller, as before. One
difference in order only: a document with a duplicate key in a late element and a wrong field in
an earlier one is refused for the wrong field (a batch's fields are checked before the next
batch is decoded); both are refusals naming the file, the record and the field.

An array found inside a larger document (`json_document.array_apart`: an Inspect `.json` log's
samples) is taken as its elements' raw slices instead (`of_split`), joined a batch at a time as
the batches are reached, in batches bounded by their bytes as well as their count.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterator
from typing import Any

from evaltui.core.read.formats.jsontext import fast_loads, is_exact, loads

BATCH = 2_500  # elements decoded at once: ~6 MB of objects for Inspect summaries (10,000: a
# 200,000-sample log's open peaked 35 MB higher, for no less CPU: a smaller batch stays in cache)
BATCH_BYTES = 4_000_000  # and at most this many bytes of text (`of_split`)


class ArrayElements:
    """The elements of the JSON array `data`, iterable (again) and sized without decoding
    them all. `of` splits the array (msgspec, in C) and copies each batch's elements into
    their own bytes at once, so the document itself is not held: a batch's bytes are freed
    when a releasing pass (`batches(release=True)`) has decoded it, and the whole document is
    read again (`parse_whole`) only on the error path. A 200,000-sample Inspect log's
    summaries (103 MB) were held to the end of its pass, beside every fact already built."""

    def __init__(
        self,
        parts: list[bytes | list[Any] | None],
        starts: list[int],
        count: int,
        parse_whole: Callable[[], Any],
    ):
        # each batch as a JSON array's bytes, or its elements' raw slices (`of_split`: joined
        # when the batch is reached); None once released
        self._parts = parts
        self._starts = starts  # the index of each batch's first element
        self._count = count
        self._parse_whole = parse_whole

    @classmethod
    def of(cls, data: bytes, parse_whole: Callable[[], Any]) -> ArrayElements | None:
        """The elements, or None when `data` is not an array the fast path can split (the
        caller parses it whole, as before). `parse_whole` must read the document again (the
        caller need not keep `data`)."""
        import msgspec

        try:
            split = msgspec.json.decode(data, type=list[msgspec.Raw])
        except (msgspec.MsgspecError, ValueError, RecursionError):
            return None
        starts = list(range(0, len(split), BATCH))
        parts: list[bytes | list[Any] | None] = [
            b"[" + b",".join(split[start : start + BATCH]) + b"]" for start in starts
        ]
        return cls(parts, starts, len(split), parse_whole)

    @classmethod
    def of_split(cls, split: list[Any], parse_whole: Callable[[], Any]) -> ArrayElements:
        """The elements whose raw bytes `split` holds (`msgspec.Raw` slices of a document the
        caller keeps alive meanwhile, as `json_document.array_apart` gives them): a batch's
        bytes are joined only when it is reached, so a large document is not copied whole
        beside itself (an Inspect `.json` log's samples, hundreds of MB). A batch holds up to
        `BATCH` elements and `BATCH_BYTES` of them (an agent's sample can be megabytes: 2,500
        of them a batch held gigabytes of objects at once)."""
        parts: list[bytes | list[Any] | None] = []
        starts: list[int] = []
        start = size = 0
        for index, raw in enumerate(split):
            if index > start and (index - start >= BATCH or size + len(raw) > BATCH_BYTES):
                parts.append(split[start:index])
                starts.append(start)
                start, size = index, 0
            size += len(raw)
        if start < len(split):
            parts.append(split[start:])
            starts.append(start)
        return cls(parts, starts, len(split), parse_whole)

    def __len__(self) -> int:
        return self._count

    def __iter__(self) -> Iterator[Any]:
        for values in self.batches():
            yield from values

    def batches(self, *, release: bool = False) -> Iterator[list[Any]]:
        """The elements, a decoded batch (a list) at a time, in order: a reader that works
        column-wise (`inspect_summaries`) takes a batch at once. `release`: each batch's bytes
        are freed once decoded (the last pass over them; another raises RuntimeError)."""
        for batch in self.raw_batches(release=release):
            yield batch.values()

    def raw_batches(self, *, release: bool = False) -> Iterator[RawBatch]:
        """`batches`, each batch undecoded (`RawBatch`): a reader may decode its bytes its own
        way first (`inspect_typed`) and ask for the checked values only when that fails."""
        for number, part in enumerate(self._parts):
            if part is None:
                raise RuntimeError("the array's batches were released by an earlier pass")
            if release:
                self._parts[number] = None
            batch = part if isinstance(part, bytes) else b"[" + b",".join(part) + b"]"
            del part
            raw = RawBatch(self, number, self._starts[number], batch)
            del batch
            yield raw
            if raw.whole:  # its values were the rest of the document (the error path)
                return
            del raw  # (its values freed before the next batch is decoded)

    def _decode(self, number: int, batch: bytes) -> tuple[list[Any], bool]:
        """Batch `number`'s values, checked as `loads` checks them, and whether they are the
        rest of the whole document instead (read again for its error in its words)."""
        value = fast_loads(batch)
        if not is_exact(value):  # the checking decoder decides: on this batch first
            try:
                value = loads(batch)
            except (ValueError, RecursionError):  # the whole document's error, its words
                return self._parse_whole()[self._starts[number] :], True
        return value, False


class RawBatch:
    """One batch of an `ArrayElements`, its bytes (`raw`, a JSON array of the batch's
    elements) and, on demand, its checked values (`values`, decoded once)."""

    def __init__(self, owner: ArrayElements, number: int, start: int, raw: bytes) -> None:
        self.raw: bytes | None = raw
        self.start = start  # the index of its first element in the array
        self.whole = False  # whether `values` gave the rest of the document instead
        self._owner = owner
        self._number = number
        self._values: list[Any] | None = None

    def values(self) -> list[Any]:
        """The elements, checked as `jsontext.loads` checks them (see `ArrayElements`); the
        bytes are dropped once decoded."""
        if self._values is None:
            assert self.raw is not None
            self._values, self.whole = self._owner._decode(self._number, self.raw)
            self.raw = None
        return self._values


class Numbered(Collection[tuple[str, Any]]):
    """The elements as (record, element), the record named as `fields.element` names it
    (`summaries.json[12]`), decoded as iterated (`ArrayElements`)."""

    def __init__(self, member: str, elements: ArrayElements) -> None:
        self._member = member
        self._elements = elements

    def __len__(self) -> int:
        return len(self._elements)

    def __iter__(self) -> Iterator[tuple[str, Any]]:
        for records, values in self.batches():
            yield from zip(records, values, strict=True)

    def batches(self, *, release: bool = False) -> Iterator[tuple[list[str], list[Any]]]:
        """(records, elements) a decoded batch at a time (`ArrayElements.batches`)."""
        for batch in self._elements.raw_batches(release=release):
            values = batch.values()
            yield self.records(batch.start, len(values)), values
            del batch, values

    def raw_batches(self, *, release: bool = False) -> Iterator[RawBatch]:
        """The batches undecoded (`ArrayElements.raw_batches`); `records` names them."""
        return self._elements.raw_batches(release=release)

    def records(self, start: int, count: int) -> list[str]:
        """The records of `count` elements from index `start` (`summaries.json[12]`)."""
        # `element` of each, in C: a call of it a summary was a fiftieth of a large log's open
        name = self._member.replace("{", "{{").replace("}", "}}")
        return list(map(f"{name}[{{}}]".format, range(start, start + count)))

    def __contains__(self, pair: object) -> bool:
        return any(pair == mine for mine in self)
