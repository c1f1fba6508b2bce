"""Many records' text field read at once, where a refused record costs its own text only.

`TranscriptReader.read_field` reads a chunk of records in one pass (the list's previews, the
search index). A record it refuses (an lm-eval line with a key written twice where the load
reads no value, `lm_eval_records`; a record damaged in place) raised for the whole chunk, and
the fill that asked stopped there: every later item of the list went without its preview and
its search text, for one line. Here a refused chunk is read again record by record: a refused
record reads as None and is counted (`Refusals`), the others as they are, and the fill goes on.
Opening that item says why, in the reader's words. When every record of a chunk of several is
refused, the trouble is the file's rather than a record's (changed since it was read, gone):
that refusal is raised, as before, and the fill stops.

Several fills read the same records (the previews read the inputs, then the search index the
outputs and targets), and a record refused whole is refused by each: they share what was said
(`Said`), and each says only the records no fill has said yet (`Refusals.told`), so a record
is said once, by the first fill to meet it; the others go on past it quietly.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass, field

from evaltui.core.errors import EvalTuiError
from evaltui.core.read.runs import TranscriptReader


class Said:
    """The refused records already said to the reviewer, shared by the fills of one pair (each
    in its own worker thread): a record is said once, by the first fill to tell it."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._keys: set[tuple[int, int]] = set()

    def fresh(self, keys: Sequence[tuple[int, int]]) -> list[tuple[int, int]]:
        """Those of `keys` not said yet, which count as said from now on."""
        with self._lock:
            new = [key for key in keys if key not in self._keys]
            self._keys.update(new)
        return new


@dataclass
class Refusals:
    """A running tally of the records a fill could not read (mutable: a fill adds to it chunk
    by chunk from its worker thread, and says it once at the end). A record is counted once
    however many of its fields were refused: by its reader and row, with the first refusal.
    `said` is shared with the pair's other fills (`Said`; the module says why)."""

    records: dict[tuple[int, int], EvalTuiError] = field(default_factory=dict)
    said: Said = field(default_factory=Said)

    @property
    def count(self) -> int:
        return len(self.records)

    @property
    def first(self) -> EvalTuiError | None:
        return next(iter(self.records.values()), None)

    def add(self, reader: object, row: int, refusal: EvalTuiError) -> None:
        self.records.setdefault((id(reader), row), refusal)

    def told(self, what: str) -> str | None:
        """One line for the reviewer about the records this fill could not read and no fill
        has said yet; None when there are none (every record read, or each refused one said
        already by another fill)."""
        fresh = self.said.fresh(list(self.records))
        if not fresh:
            return None
        records = "record" if len(fresh) == 1 else "records"
        return (
            f"{what}: {len(fresh):,} {records} could not be read and show none "
            f"(opening the item says why); the first: {self.records[fresh[0]]}"
        )


def read_field_each(
    reader: TranscriptReader, rows: Sequence[int], name: str, refusals: Refusals
) -> list[str | None]:
    """`reader.read_field(rows, name)`, a refused record None and counted in `refusals` (the
    module docstring says why, and when the chunk's refusal is raised instead)."""
    try:
        return reader.read_field(rows, name)
    except EvalTuiError as whole:
        if len(rows) < 2:
            for row in rows:
                refusals.add(reader, row, whole)
            return [None] * len(rows)
        chunk_refusal = whole
    values: list[str | None] = []
    refused: list[tuple[int, EvalTuiError]] = []
    for row in rows:
        try:
            values.extend(reader.read_field([row], name))
        except EvalTuiError as problem:
            refused.append((row, problem))
            values.append(None)
    if len(refused) == len(rows):
        raise chunk_refusal
    for row, record_refusal in refused:
        refusals.add(reader, row, record_refusal)
    return values
