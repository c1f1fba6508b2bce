"""Inspect's chunked samples (design/large-samples.md, "Chunked on-disk layout"): one sample
split over several zip members, read back into the one sample dict the transcript code knows.

A chunked sample lives under `samples/{id}_epoch_{e}/`: `sample.json` (the shell: id, epoch,
input, target, output, scores, error... and `message_refs`, half-open ranges into the message
sequence that make up the final conversation) and flat index-addressed sequences whose chunks
are named by their first index only (`messages/{start}.json`, `attachments/{start}.json`...):
the chunk holding index i is the one with the greatest start <= i, and the central directory's
member names are the only record of the layout. Attachments are bare strings referenced as
`attachment://<index>`. Statistics need none of this (the summaries and the shell's scores
suffice); opening an item reads the shell, the message chunks its refs name and the attachment
chunks those messages reference, nothing else (never events, calls or the skeleton).
"""

from __future__ import annotations

import bisect
import json
import re
from collections.abc import Callable, Iterable
from typing import Any

from evaltui.core.errors import InputError

SHELL = re.compile(r"^(?P<prefix>samples/(?P<id>.+)_epoch_(?P<epoch>\d+))/sample\.json$")
CHUNK = re.compile(r"^(?P<prefix>samples/.+_epoch_\d+)/(?P<sequence>messages|attachments)/"
                   r"(?P<start>\d+)\.json$")  # fmt: skip
ATTACHMENT_REF = re.compile(r"attachment://(\d+)")


class ChunkIndex:
    """The start indexes of every chunk of every chunked sample, from the member names."""

    def __init__(self, names: Iterable[str]) -> None:
        starts: dict[tuple[str, str], list[int]] = {}
        names = list(names)
        joined = "\n".join(names)  # a chunk's name holds one of the two, as the pattern says:
        if "/messages/" not in joined and "/attachments/" not in joined:  # a log without any
            names = []  # chunk is listed in C, not by 200,000 matches (a twentieth of its open)
        for name in names:
            match = CHUNK.match(name)
            if match is not None:
                key = (match["prefix"], match["sequence"])
                starts.setdefault(key, []).append(int(match["start"]))
        self._starts = {key: sorted(values) for key, values in starts.items()}

    def starts(self) -> list[tuple[str, str, list[int]]]:
        """(prefix, sequence, starts) of every chunked sequence: what `of_starts` rebuilds the
        index from (a log read in another process, `inspect_elsewhere`)."""
        return [(prefix, sequence, list(s)) for (prefix, sequence), s in self._starts.items()]

    @classmethod
    def of_starts(cls, starts: Iterable[tuple[str, str, list[int]]]) -> ChunkIndex:
        index = cls(())
        index._starts = {(prefix, sequence): sorted(s) for prefix, sequence, s in starts}
        return index

    def chunk_of(self, prefix: str, sequence: str, index: int) -> int | None:
        """The start of the chunk that holds `index` (None: no such chunk)."""
        starts = self._starts.get((prefix, sequence), [])
        k = bisect.bisect_right(starts, index) - 1
        return starts[k] if k >= 0 else None


def is_shell(member: str) -> bool:
    return SHELL.match(member) is not None


def assemble(
    path: Any, shell: dict[str, Any], member: str, index: ChunkIndex,
    read: Callable[[str], Any],
) -> dict[str, Any]:  # fmt: skip
    """The shell with its final conversation (`messages`) and the attachments they reference
    (`attachments`, by index) filled in from the chunks; `read(member)` parses one member."""
    match = SHELL.match(member)
    assert match is not None
    prefix = match["prefix"]
    chunks: dict[tuple[str, int], list[Any]] = {}

    def item(sequence: str, i: int) -> Any:
        start = index.chunk_of(prefix, sequence, i)
        name = f"{prefix}/{sequence}/{start}.json"
        if start is None:
            raise InputError(path, f"no {sequence} chunk holds item {i}", record=member)
        if (sequence, start) not in chunks:
            data = read(name)
            if not isinstance(data, list):
                raise InputError(path, "expected a JSON array (a chunk)", record=name)
            chunks[(sequence, start)] = data
        chunk = chunks[(sequence, start)]
        if not 0 <= i - start < len(chunk):
            raise InputError(path, f"item {i} is past the chunk's {len(chunk)} items", record=name)
        return chunk[i - start]

    messages: list[Any] = []
    for pair in shell.get("message_refs") or ():
        if not (
            isinstance(pair, list) and len(pair) == 2 and all(isinstance(v, int) for v in pair)
        ):
            raise InputError(path, f"expected [start, end) pairs, got {pair!r}", record=member,
                             field="message_refs")  # fmt: skip
        messages.extend(item("messages", i) for i in range(pair[0], pair[1]))
    sample = dict(shell)
    sample["messages"] = messages
    referenced = json.dumps([shell.get("input"), shell.get("output"), shell.get("scores"),
                             messages])  # fmt: skip
    needed = sorted({int(n) for n in ATTACHMENT_REF.findall(referenced)})
    sample["attachments"] = {str(i): item("attachments", i) for i in needed}
    return sample
