"""Search that finds what the reviewer remembers: the input, both outputs, the target, the tag
and the note of every listed item.

The ids and inputs are searchable as soon as the previews are read (`ListRow.search_text`);
the outputs and targets are read afterwards by a worker, chunk by chunk, into polars string
columns (capped per field), and a search is one case-insensitive `str.contains` per column
over them, on every core, instead of a Python loop over a million strings. Until the worker is done
the list says the search does not cover everything yet.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

import polars as pl
from textual.message import Message

from evaltui.core.errors import EvalTuiError
from evaltui.core.read.field_reads import Refusals, read_field_each
from evaltui.core.read.runs import Transcript
from evaltui.ui.row_store import as_stores

SEARCH_CHARS = 8000  # characters of each field kept for search (a long output's tail is not)
# What the index holds beyond the ids and inputs, in the order a match is looked for (the list
# shows the first field that holds it). The graders' explanations of both sides share one
# column (GRADERS, the two joined by GRADER_JOIN, which no typed needle holds): each column is
# one more pass of every search, and an explanation is short beside an output.
GRADERS = "graders"
GRADER_SIDES = ("baseline grader", "candidate grader")
GRADER_JOIN = "\x00"
FIELDS = ("baseline output", "candidate output", "target", GRADERS)
SNIPPET = 40  # characters shown either side of a match in the list


def _column(values: Iterable[str | None]) -> pl.Series:
    return pl.Series([v[:SEARCH_CHARS] if v else "" for v in values], dtype=pl.String)


class SearchGrew(Message):
    """More outputs and targets are searchable; a burst of these is drawn once."""

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, SearchGrew)


@dataclass
class SearchIndex:
    """The outputs and targets of the listed items, for search; filled by `fill`.

    Keyed by `ListRow.index` (the item's row in the paired table). The text is kept once, as
    written, in polars string columns, and matched case-insensitively (an escaped `(?i)`
    pattern: as fast here as a literal search over a lower-cased copy, at half the memory).
    Chunks are appended by one worker thread and read by the UI thread; a chunk is complete
    before it is published.
    """

    covered: int = 0  # items whose outputs and target are in the index
    total: int = 0
    chunks: list[pl.DataFrame] = field(default_factory=list)
    _where: dict[int, tuple[int, int]] = field(default_factory=dict)  # index: (chunk, row)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _last: tuple[str, frozenset[int]] | None = None

    @property
    def complete(self) -> bool:
        return self.total > 0 and self.covered >= self.total

    def add(self, indices: Sequence[int], texts: dict[str, list[str | None]]) -> None:
        graders = [
            GRADER_JOIN.join((text or "")[:SEARCH_CHARS].replace(GRADER_JOIN, " ") for text in pair)
            for pair in zip(*(texts[side] for side in GRADER_SIDES), strict=True)
        ]  # (a NUL written in a run's text is a space here: the join splits in exactly two)
        frame = pl.DataFrame(
            {"index": pl.Series(list(indices), dtype=pl.Int64)}
            | {name: _column(texts[name]) for name in FIELDS if name != GRADERS}
            | {GRADERS: pl.Series(graders, dtype=pl.String)}
        )
        with self._lock:
            number = len(self.chunks)
            self.chunks.append(frame)
            self._where.update((i, (number, k)) for k, i in enumerate(indices))
            self.covered += len(indices)
            self._last = None

    def matches(self, needle: str) -> frozenset[int]:
        """The items (by `ListRow.index`) whose outputs or target hold `needle`, in any case."""
        needle = needle.lower()
        if not needle:
            return frozenset()
        with self._lock:
            chunks, last = list(self.chunks), self._last
        if (
            last is not None
            and last[0] in needle
            and self.complete
            and len(last[1]) <= max(1000, self.covered // 10)
        ):  # typing on: only the last key's few hits can still match
            keep = pl.Series(list(last[1]), dtype=pl.Int64)
            chunks = [c.filter(pl.col("index").is_in(keep.implode())) for c in chunks]
        pattern = "(?i)" + re.escape(needle)
        found: set[int] = set()
        for chunk in chunks:
            if not chunk.height:
                continue
            hit = pl.any_horizontal(pl.col(name).str.contains(pattern) for name in FIELDS)
            found.update(chunk.filter(hit)["index"].to_list())
        result = frozenset(found)
        with self._lock:
            self._last = (needle, result)
        return result

    def where(self, index: int, needle: str) -> tuple[str, str] | None:
        """The first field of item `index` that holds `needle`, and a stretch of it around the
        match: what the list shows in place of the input while searching."""
        spot = self._where.get(index)
        if spot is None or not needle:
            return None
        chunk = self.chunks[spot[0]]
        for name in FIELDS:
            text = chunk[name][spot[1]] or ""
            if name == GRADERS:
                parts = list(zip(GRADER_SIDES, text.split(GRADER_JOIN), strict=True))
            else:
                parts = [(name, text)]
            for label, part in parts:
                around = snippet_around(part, needle)
                if around is not None:
                    return label, around
        return None


def _snippet(text: str, at: int, length: int) -> str:
    start, end = max(at - SNIPPET, 0), min(at + length + SNIPPET, len(text))
    return ("…" if start else "") + text[start:end] + ("…" if end < len(text) else "")


def snippet_around(text: str, needle: str) -> str | None:
    """A stretch of `text` around the first `needle` (case-insensitive), or None."""
    at = text.lower().find(needle.lower()) if needle else -1
    return _snippet(text, at, len(needle)) if at >= 0 else None


def _answer(t: Transcript) -> str | None:
    if t.output:
        return t.output
    for message in reversed(t.messages):
        if message.role == "assistant":
            return message.content
    return None


def fill(
    index: SearchIndex,
    rows: Sequence,  # RowStores, or ListRows (`loading.as_stores`)
    baseline,  # TranscriptReader
    candidate,  # TranscriptReader
    done: Callable[[], object],  # (its result unused: `post_message` gives a bool)
    cancelled: Callable[[], bool] = lambda: False,
    chunk_size: int = 5000,
    pause: Callable[[], None] = lambda: None,
    refusals: Refusals | None = None,
) -> Refusals:
    """Read both outputs, the target and both graders' explanations of every row in chunks (a
    worker thread); `done` after each chunk so the list can say how far the search reaches.
    `pause` is called between reads (and every `PAUSE_EVERY` records read one at a time): it
    waits while an item is opening (`background_gate.py`). The record rows come from the
    stores' columns: no list row is made here. A record a reader refuses is not searched and
    is counted in the returned `refusals` (`field_reads`); a chunk whose every record is
    refused raises."""
    refusals = Refusals() if refusals is None else refusals
    stores = as_stores(rows)
    index.total = sum(len(store) for store in stores)
    step = min(getattr(baseline, "batch_size", chunk_size), chunk_size)
    for store in stores:
        for start in range(0, len(store), step):
            if cancelled():
                return refusals
            end = min(start + step, len(store))
            base_rows = store.base_rows[start:end].tolist()
            cand_rows = store.cand_rows[start:end].tolist()
            texts = {
                "baseline output": _field(baseline, base_rows, "output", refusals, pause),
                "candidate output": _field(candidate, cand_rows, "output", refusals, pause),
                "target": _field(baseline, base_rows, "target", refusals, pause),
            }
            if all(t is None for t in texts["target"]):
                texts["target"] = _field(candidate, cand_rows, "target", refusals, pause)
            for side, reader, side_rows in zip(
                GRADER_SIDES, (baseline, candidate), (base_rows, cand_rows), strict=True
            ):
                texts[side] = _field(reader, side_rows, "explanation", refusals, pause)
            index.add(store.indices[start:end].tolist(), texts)
            done()
    return refusals


PAUSE_EVERY = 500  # records read one at a time between two passes through `pause`


def _field(
    reader,
    rows: list[int],
    name: str,
    refusals: Refusals,
    pause: Callable[[], None] = lambda: None,
) -> list[str | None]:
    """One text field of many records; an output the run keeps only as the last assistant
    message (no output field) is read from the messages, record by record: a Python loop
    (about 12 us a JSONL record), so it passes through `pause` every `PAUSE_EVERY` records."""
    pause()
    values = read_field_each(reader, rows, name, refusals)
    if name == "output" and all(v is None for v in values):
        values = []
        for at in range(0, len(rows), PAUSE_EVERY):
            pause()
            for row in rows[at : at + PAUSE_EVERY]:
                try:
                    values.append(_answer(reader.read(row)))
                except EvalTuiError as refusal:  # (that record alone: `field_reads`)
                    refusals.add(reader, row, refusal)
                    values.append(None)
    return values
