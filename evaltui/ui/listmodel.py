"""The rows behind a regression/improvement list: filter, search and sort, without Textual.

Kept apart from the widget so the same logic is tested directly and the widget only draws the
rows it is asked to show. Filtering 100,000 rows is a list comprehension, not a widget rebuild.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from evaltui.ui.row_store import ListRow, RowsAt, RowStore

__all__ = ["SORT_KEYS", "UNTAGGED", "ListRow", "ListView", "cycle", "singular"]

SORT_KEYS = ("file", "item id", "slice", "tag", "input", "delta")
UNTAGGED = "(untagged)"


@dataclass
class ListView:
    """A filtered, sorted view over the rows of one list.

    `rows` is the list's `RowStore` (a list of rows is taken too, and kept in one): its rows
    are made as they are needed. Filters and searches test the store's columns (ids, slices,
    search texts) and the tags of the rows that may carry one (`RowStore.tags`), and the sorts
    by delta, id and slice order its columns, so none of them makes the other rows; the tag and
    input sorts order the rows themselves and make them all, once."""

    rows: Any  # RowStore (a list of ListRow is wrapped in one)
    slice_filter: str | None = None
    tag_filter: str | None = None  # a tag, or UNTAGGED
    # `u`: the rows the decision line counts as untriaged (untagged, or tagged with a tag that
    # leaves the item open, such as "needs investigation"), one set under one word everywhere.
    untriaged_only: bool = False
    is_triaged: Callable[[str | None], bool] = lambda tag: tag is not None
    search: str = ""
    sort_key: str = "file"
    reverse: bool = False
    id_filter: frozenset[str] | None = None  # a gate's or a slice's items
    id_filter_label: str = ""
    # A team's review: the items assigned to the reviewer first, or (w) only those.
    assigned_first: bool = False
    assigned_only: bool = False
    visible: Any = field(default_factory=list)  # RowsAt: the rows shown, in order
    # What a search also looks in beyond the id and input: the outputs and targets (item
    # indices whose text holds the needle) and the notes (item ids); set by the screen.
    text_hits: Callable[[str], frozenset[int]] | None = None
    note_hits: Callable[[str], set[str]] | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.rows, RowStore):
            self.rows = RowStore.of_rows(self.rows)
        self.refresh()

    def refresh(self) -> None:
        needle = self.search.lower().strip()
        if not needle and self.unfiltered():  # (every row: none made, no predicate at 1M)
            self._ordered(None)
            return
        texts = self.text_hits(needle) if needle and self.text_hits else frozenset()
        notes = self.note_hits(needle) if needle and self.note_hits else set()
        store = self.rows  # (its columns: only the rows that may carry a tag are made)
        ids, tags = store.ids, store.tags()
        slices = store.slices if self.slice_filter is not None else None
        searched = store.search_texts() if needle else []
        indices = store.indices.tolist() if texts else []
        out = []
        for at in range(len(store)):
            tag = tags.get(at)
            if (
                (slices is None or slices[at] == self.slice_filter)
                and (self.id_filter is None or ids[at] in self.id_filter)
                and (not self.assigned_only or store.assigned(at))
                and (not self.untriaged_only or not self.is_triaged(tag))
                and (
                    self.tag_filter is None
                    or (tag is None if self.tag_filter == UNTAGGED else tag == self.tag_filter)
                )
                and (
                    not needle
                    or needle in searched[at]
                    or (texts and indices[at] in texts)
                    or ids[at] in notes
                    or (tag is not None and needle in tag.lower())
                )
            ):
                out.append(at)
        self._ordered(np.array(out, dtype=np.int64))

    def unfiltered(self) -> bool:
        """No filter set (a search aside): every row passes the filters."""
        return (
            self.slice_filter is None
            and self.id_filter is None
            and not self.assigned_only
            and not self.untriaged_only
            and self.tag_filter is None
        )

    def _ordered(self, passed: np.ndarray | None) -> None:
        """`visible`: the rows that passed (None: every row), in the order chosen. Every sort
        key ends with the file position, so the order is total: sorting by the store's columns
        gives the order sorting the rows gives, without making them."""
        store = self.rows
        whole = passed is None
        at = np.arange(len(store), dtype=np.int64) if passed is None else passed
        if self.sort_key == "file":  # rows arrive in file order: keep it, or turn it round
            order = at[::-1] if self.reverse else at
        elif self.sort_key == "delta":
            deltas = store.sort_deltas[at]
            if np.isnan(deltas).any():  # (NaN: the rows' own comparison, as before)
                order = self._sorted_rows(at)
            else:
                order = at[np.lexsort((store.indices[at], deltas))]
                order = order[::-1] if self.reverse else order
        elif self.sort_key in ("item id", "slice"):
            column = store.ids if self.sort_key == "item id" else store.slices
            indices = store.indices
            keyed = sorted(at.tolist(), key=lambda p: (column[p], indices[p]), reverse=self.reverse)
            order = np.array(keyed, dtype=np.int64)
        else:
            order = self._sorted_rows(at)
        self.visible = RowsAt(store, self._assigned_first(order), whole=whole)

    def _sorted_rows(self, at: np.ndarray) -> np.ndarray:
        """Positions sorted by their rows' values (tag, input: what the rows hold)."""
        key: Callable[[ListRow], tuple] = {
            "item id": lambda r: (r.item_id, r.index),
            "slice": lambda r: (r.slice, r.index),
            "tag": lambda r: (r.tag is None, r.tag or "", r.index),
            "input": lambda r: (r.preview.lower(), r.index),
            "delta": lambda r: (r.delta if r.delta is not None else 0.0, r.index),
        }[self.sort_key]
        row = self.rows.row
        keyed = sorted(at.tolist(), key=lambda p: key(row(p)), reverse=self.reverse)
        return np.array(keyed, dtype=np.int64)

    def _assigned_first(self, order: np.ndarray) -> np.ndarray:
        """The reviewer's assigned items first, each part in the order chosen (a stable sort)."""
        if not self.assigned_first or self.assigned_only:
            return order
        assigned = self.rows.assigned
        mine = np.array([assigned(p) for p in order.tolist()], dtype=bool)
        return np.concatenate((order[mine], order[~mine]))

    def slices(self) -> list[str]:
        """The slices the list's rows belong to (a row's slice never changes)."""
        return self.rows.slice_names()

    def describe_filters(self) -> str:
        parts = []
        if self.id_filter is not None:
            parts.append(self.id_filter_label or f"{len(self.id_filter)} chosen items")
        if self.slice_filter:
            parts.append(f"slice={self.slice_filter}")
        if self.tag_filter:
            parts.append(f"tag={self.tag_filter}")
        if self.untriaged_only:
            parts.append("untriaged only")
        if self.assigned_only:
            parts.append("assigned to you")
        if self.search:
            parts.append(f"search={self.search!r}")
        return ", ".join(parts) if parts else "no filter"


def cycle(options: list, current):
    """The next option after `current` in `[None, *options]` (None means 'all')."""
    choices = [None, *options]
    try:
        return choices[(choices.index(current) + 1) % len(choices)]
    except ValueError:
        return None


SINGULAR = {
    "regressions": "regression",
    "improvements": "improvement",
    "both pass": "item both runs pass",
    "both fail": "item both runs fail",
    "unchanged": "unchanged item",
}


def singular(list_name: str) -> str:
    """One item of a list, in words ("regression", "item both runs pass")."""
    return SINGULAR.get(list_name, list_name.rstrip("s"))
