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
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from evaltui.core.errors import EvalTuiError
from evaltui.core.read.runs import TranscriptReader


@dataclass
class Refusals:
    """A running tally of the records a fill could not read (mutable: a fill adds to it chunk
    by chunk from its worker thread, and says it once at the end). A record is counted once
    however many of its fields were refused: by its reader and row."""

    records: set[tuple[int, int]] = field(default_factory=set)
    first: EvalTuiError | None = None

    @property
    def count(self) -> int:
        return len(self.records)

    def add(self, reader: object, row: int, refusal: EvalTuiError) -> None:
        self.records.add((id(reader), row))
        if self.first is None:
            self.first = refusal

    def told(self, what: str) -> str | None:
        """One line for the reviewer, or None when every record was read."""
        if self.first is None:
            return None
        records = "record" if self.count == 1 else "records"
        return (
            f"{what}: {self.count:,} {records} could not be read and show none "
            f"(opening the item says why); the first: {self.first}"
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
