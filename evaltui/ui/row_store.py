"""The rows of one list, made as the list needs them: columns, and a `ListRow` per item only
when something asks for that item.

At a million items a pair has a quarter of a million discordant items; making a `ListRow` for
each before the first screen took 0.3-0.8 s, for a screen that shows forty. A `RowStore` holds
the list's columns (ids, file positions, record rows, deltas; slices read on first use) and
makes an item's row the first time it is asked for (the window drawn, an item opened, a filter
or a search that tests every row), then keeps it: a row is one object for the life of the
list, so a tag shown on it, or its preview, is the same wherever it is listed.

The previews' and the search texts' fill (`loading.fill_previews`, a worker thread) writes into
the store's arrays and into the rows already made, under one lock, so a row made while the
fill runs holds either the old texts (and is then updated) or the new ones, never a mix.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import overload

import numpy as np


@dataclass(slots=True)
class ListRow:
    """One item as a list shows it (a regression, an improvement, or an unchanged item).

    A `RowStore` makes one when the item is first asked for, positionally: keep the
    fields' order in step with `RowStore.row` (slots: smaller and quicker to make)."""

    index: int  # position in file order
    item_id: str
    slice: str
    preview: str  # one line of the input
    search_text: str  # lower-cased id + input (outputs, targets, graders: `search.SearchIndex`)
    tag: str | None = None
    disputed: bool = False  # a shared review whose reviewers' tags disagree (tag is then None)
    # A team's review (`core/record/assignment.py`): assigned to the reviewer at the keys, and
    # how many other reviewers' reviews are hidden until they tag it (`team_view.shown_review`).
    assigned: bool = False
    hidden: int = 0
    delta: float | None = None  # graded metrics: candidate - baseline
    rows: tuple[int, int] = (0, 0)  # record rows in the baseline and candidate files


Dress = Callable[[ListRow], None]  # sets a new row's tag, disputed, assigned and hidden


def _undressed(row: ListRow) -> None:
    """Rows whose tags nobody supplies (a store made from rows already built)."""


class RowStore(Sequence[ListRow]):
    """One list's items, in the list's order (the analysis' order of its ids), as columns;
    `ListRow`s made on first access and kept. `made` counts the rows made so far."""

    def __init__(
        self,
        ids: Sequence[str],  # (a tuple or list: `position_of` scans it with `index`)
        indices: np.ndarray,
        record_rows: tuple[np.ndarray, np.ndarray],
        deltas: np.ndarray | None,
        slices: Callable[[], list[str]],
        dress: Dress = _undressed,
        marked: Callable[[], Iterable[str]] = tuple,
        slice_summary: Callable[[], tuple[list[str], int]] | None = None,
    ) -> None:
        self.ids = ids
        self.indices = np.asarray(indices, dtype=np.int64)  # position in `paired.items`
        self.base_rows = np.asarray(record_rows[0], dtype=np.int64)
        self.cand_rows = np.asarray(record_rows[1], dtype=np.int64)
        self.deltas = deltas  # graded: candidate - baseline per row; None: no deltas
        # What the delta sort orders by (a row without a delta: 0.0, as `ListView` sorts it)
        self.sort_deltas = deltas if deltas is not None else np.zeros(len(ids))
        self._read_slices = slices
        self._slices: list[str] | None = None
        # The sorted slice names and the longest slice, without every row's slice as a Python
        # string (what the footer and the list's column width ask before the first screen).
        self._read_summary = slice_summary
        # How a new row gets its tag (the review state's view of the session), and which ids
        # may have one at all (the session's reviewed items): the tag column's width asks.
        self.dress = dress
        self.marked = marked
        self.assigned_ids: frozenset[str] | set[str] = frozenset()  # a team's: the reviewer's
        self.made = 0
        self._made: list[ListRow | None] = [None] * len(ids)
        self._made_order: list[ListRow] = []  # (the same rows, in the order they were made)
        self._made_at: list[int] = []  # (and their positions)
        self._ids_lower: list[str] | None = None
        self._previews: list[str] | None = None
        self._searched: list[str | None] | None = None
        self._lock = threading.Lock()
        self._where: dict[str, int] | None = None
        self._asked = 0
        self._widths: tuple[int, int] | None = None
        self._slice_names: list[str] | None = None
        self._slice_width = 0

    @classmethod
    def of_rows(cls, rows: Sequence[ListRow]) -> RowStore:
        """A store over rows already made (a list built eagerly: tests, small lists)."""
        listed = list(rows)
        store = cls(
            [r.item_id for r in listed],
            np.array([r.index for r in listed], dtype=np.int64),
            (
                np.array([r.rows[0] for r in listed], dtype=np.int64),
                np.array([r.rows[1] for r in listed], dtype=np.int64),
            ),
            None,
            lambda: [r.slice for r in listed],
        )
        store._made = list(listed)
        store._made_order = list(listed)
        store._made_at = list(range(len(listed)))
        store.sort_deltas = np.array(
            [r.delta if r.delta is not None else 0.0 for r in listed], dtype=np.float64
        )
        store._previews = [r.preview for r in listed]  # (the rows' own texts, for searches)
        store._searched = [r.search_text for r in listed]
        store.made = len(listed)
        return store

    # -- the sequence ----------------------------------------------------------------------

    def __len__(self) -> int:
        return len(self.ids)

    @overload
    def __getitem__(self, at: int) -> ListRow: ...

    @overload
    def __getitem__(self, at: slice) -> RowsAt: ...

    def __getitem__(self, at: int | slice) -> ListRow | RowsAt:
        if isinstance(at, slice):
            return RowsAt(self, np.arange(len(self), dtype=np.int64)[at])
        n = len(self)
        if not -n <= at < n:
            raise IndexError(at)
        return self.row(at % n)

    def __iter__(self) -> Iterator[ListRow]:
        made = self._made
        for position in range(len(self)):
            yield made[position] or self.row(position)

    def __repr__(self) -> str:  # (workers describe their arguments: never 100k rows)
        return f"RowStore({len(self)} rows, {self.made} made)"

    # -- one row -----------------------------------------------------------------------------

    def row(self, position: int) -> ListRow:
        """The row at `position` (0-based, in list order), made now if it was not yet."""
        row = self._made[position]
        if row is not None:
            return row
        with self._lock:
            row = self._made[position]
            if row is not None:
                return row
            item_id = self.ids[position]
            searched = self._searched[position] if self._searched is not None else None
            row = ListRow(
                int(self.indices[position]),
                item_id,
                self.slices[position],
                self._previews[position] if self._previews is not None else "",
                searched if searched is not None else item_id.lower(),
                delta=float(self.deltas[position]) if self.deltas is not None else None,
                rows=(int(self.base_rows[position]), int(self.cand_rows[position])),
            )
            self.dress(row)
            self._made[position] = row
            self._made_order.append(row)
            self._made_at.append(position)
            self.made += 1
        return row

    def assigned(self, position: int) -> bool:
        """Whether the row at `position` is assigned to the reviewer, without making it."""
        row = self._made[position]
        return row.assigned if row is not None else self.ids[position] in self.assigned_ids

    def made_rows(self) -> list[ListRow]:
        """The rows made so far (in the order they were made)."""
        with self._lock:
            return list(self._made_order)

    def position_of(self, item_id: str) -> int | None:
        """Where `item_id` is listed, or None. The first ask scans the ids (a few ms at a
        quarter of a million: the place kept for a reopen); the next builds a dict of them
        (the lookups after each tag)."""
        if self._where is None:
            self._asked += 1
            if self._asked == 1:
                try:
                    return self.ids.index(item_id)
                except ValueError:
                    return None
            self._where = {item_id: at for at, item_id in enumerate(self.ids)}
        return self._where.get(item_id)

    def tags(self) -> dict[int, str]:
        """The tag shown on each row that has one, by position: the rows made, and the rows
        of the ids that may carry one (`marked`, made now); every other row is untagged."""
        for item_id in self.marked():
            at = self.position_of(item_id)
            if at is not None:
                self.row(at)
        with self._lock:
            made = list(zip(self._made_at, self._made_order, strict=True))
        return {at: row.tag for at, row in made if row.tag is not None}

    def search_texts(self) -> list[str]:
        """Each row's search text (lower-cased id and input; the id alone until the previews'
        fill reaches it), without making a row."""
        if self._ids_lower is None:
            self._ids_lower = [item_id.lower() for item_id in self.ids]
        searched = self._searched
        if searched is None:
            return self._ids_lower
        return [s if s is not None else i for s, i in zip(searched, self._ids_lower, strict=True)]

    def positions_in_slice(self, name: str) -> list[int]:
        """The positions of the rows in slice `name` (no row made)."""
        return [at for at, found in enumerate(self.slices) if found == name]

    def redress(
        self,
        dress: Dress,
        marked: Callable[[], Iterable[str]],
        assigned_ids: frozenset[str] | set[str] = frozenset(),
    ) -> None:
        """New tags for every row: the rows made so far now, the others when they are made."""
        with self._lock:
            self.dress, self.marked, self.assigned_ids = dress, marked, assigned_ids
            made = list(self._made_order)
        for row in made:
            dress(row)

    # -- columns -----------------------------------------------------------------------------

    @property
    def slices(self) -> list[str]:
        """Each row's slice ("" for none), read from the items on first use."""
        if self._slices is None:
            self._slices = self._read_slices()
        return self._slices

    def slice_names(self) -> list[str]:
        """The slices the rows belong to, sorted (a row's slice never changes)."""
        return list(self._summary()[0])

    def _summary(self) -> tuple[list[str], int]:
        if self._slice_names is None:
            if self._read_summary is not None and self._slices is None:
                self._slice_names, self._slice_width = self._read_summary()
            else:
                self._slice_names = sorted({s for s in self.slices if s})
                self._slice_width = max(map(len, self.slices), default=0)
        return self._slice_names, self._slice_width

    def id_and_slice_widths(self) -> tuple[int, int]:
        """The longest id and the longest slice of every row (kept: neither ever changes)."""
        if self._widths is None:
            self._widths = (max(map(len, self.ids), default=0), self._summary()[1])
        return self._widths

    def tag_width(self, tag_text: Callable[[ListRow], str], within: set[int] | None = None) -> int:
        """The widest `tag_text` of every row (or of the rows at the positions `within`),
        making only the rows that may have a tag (the reviewed ids `marked` names); the rows
        not made show the one-character "untagged" mark."""
        for item_id in self.marked():
            at = self.position_of(item_id)
            if at is not None:
                self.row(at)
        with self._lock:
            made = list(zip(self._made_at, self._made_order, strict=True))
        rows = [row for at, row in made if within is None or at in within]
        widest = max((len(tag_text(row)) for row in rows), default=0)
        shown = len(self) if within is None else len(within)
        return max(widest, 1) if len(rows) < shown else widest

    # -- the texts the previews' fill reads --------------------------------------------------

    def write_texts(self, start: int, previews: list[str], searched: list[str]) -> None:
        """Rows `start`... got their input: kept for rows made later, set on rows made."""
        end = start + len(previews)
        with self._lock:
            if self._previews is None or self._searched is None:
                self._previews = [""] * len(self)
                self._searched = [None] * len(self)
            self._previews[start:end] = previews
            self._searched[start:end] = searched
            for at, row in enumerate(self._made[start:end]):
                if row is not None:
                    row.preview, row.search_text = previews[at], searched[at]


class RowsAt(Sequence[ListRow]):
    """Some of a store's rows, in a chosen order (a filter's, a sort's): positions in the
    store; a row is made when it is asked for. `whole`: every row of the store is here."""

    def __init__(self, store: RowStore, positions: np.ndarray, whole: bool = False) -> None:
        self.store = store
        self.positions = positions
        self.whole = whole

    def __len__(self) -> int:
        return len(self.positions)

    @overload
    def __getitem__(self, at: int) -> ListRow: ...

    @overload
    def __getitem__(self, at: slice) -> RowsAt: ...

    def __getitem__(self, at: int | slice) -> ListRow | RowsAt:
        if isinstance(at, slice):
            return RowsAt(self.store, self.positions[at])
        return self.store.row(int(self.positions[at]))

    def __iter__(self) -> Iterator[ListRow]:
        row = self.store.row
        for position in self.positions.tolist():
            yield row(position)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, RowsAt | list | tuple):
            return len(self) == len(other) and all(
                a is b or a == b for a, b in zip(self, other, strict=True)
            )
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"RowsAt({len(self)} of {self.store!r})"

    def item_ids(self) -> list[str]:
        """The ids listed, in order, without making a row."""
        ids = self.store.ids
        return [ids[at] for at in self.positions.tolist()]

    def position_of(self, item_id: str) -> int | None:
        """Where `item_id` is in this order, or None; no row is made."""
        at = self.store.position_of(item_id)
        if at is None:
            return None
        found = np.flatnonzero(self.positions == at)
        return int(found[0]) if len(found) else None

    def column_widths(self, tag_text: Callable[[ListRow], str]) -> tuple[int, int, int]:
        """The longest id, slice and tag text listed, from the store's columns (every row of
        the store: its own kept widths); only the rows that may carry a tag are made."""
        store = self.store
        if self.whole:
            id_width, slice_width = store.id_and_slice_widths()
            return id_width, slice_width, store.tag_width(tag_text)
        at = self.positions.tolist()
        ids, slices = store.ids, store.slices
        return (
            max((len(ids[p]) for p in at), default=0),
            max((len(slices[p]) for p in at), default=0),
            store.tag_width(tag_text, set(at)),
        )


class RowsById:
    """The rows of several stores by item id (the review state's lookup after a tag): a row
    is made when asked for by `get` or `[]`; `made` answers without making one."""

    def __init__(self, stores: Sequence[RowStore]) -> None:
        self.stores = list(stores)

    def _find(self, item_id: str) -> tuple[RowStore, int] | None:
        for store in self.stores:
            at = store.position_of(item_id)
            if at is not None:
                return store, at
        return None

    def get(self, item_id: str) -> ListRow | None:
        found = self._find(item_id)
        return found[0].row(found[1]) if found is not None else None

    def __getitem__(self, item_id: str) -> ListRow:
        row = self.get(item_id)
        if row is None:
            raise KeyError(item_id)
        return row

    def __contains__(self, item_id: object) -> bool:
        return isinstance(item_id, str) and self._find(item_id) is not None

    def made(self, item_id: str) -> ListRow | None:
        """The item's row if it was made, else None (nothing made here)."""
        found = self._find(item_id)
        return found[0]._made[found[1]] if found is not None else None


def as_stores(rows: RowStore | Sequence[RowStore] | Sequence[ListRow]) -> list[RowStore]:
    """The stores a reader walks: the one given, those given, or one over a list of rows."""
    if isinstance(rows, RowStore):
        return [rows]
    listed = list(rows)
    if all(isinstance(r, RowStore) for r in listed) and listed:
        return listed  # type: ignore[return-value]
    return [RowStore.of_rows(listed)]  # type: ignore[arg-type]
