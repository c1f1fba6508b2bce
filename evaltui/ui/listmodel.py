"""The rows behind a regression/improvement list: filter, search and sort, without Textual.

Kept apart from the widget so the same logic is tested directly and the widget only draws the
rows it is asked to show. Filtering 100,000 rows is a list comprehension, not a widget rebuild.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

SORT_KEYS = ("file", "item id", "slice", "tag", "input", "delta")
UNTAGGED = "(untagged)"


@dataclass(slots=True)
class ListRow:
    """One item as a list shows it (a regression, an improvement, or an unchanged item).

    `loading._rows` makes a quarter of a million of these at a million items, positionally:
    keep the fields' order in step with it (slots: smaller and quicker to make)."""

    index: int  # position in file order
    item_id: str
    slice: str
    preview: str  # one line of the input
    search_text: str  # lower-cased id + input (outputs, targets: `search.SearchIndex`)
    tag: str | None = None
    disputed: bool = False  # a shared review whose reviewers' tags disagree (tag is then None)
    # A team's review (`core/record/assignment.py`): assigned to the reviewer at the keys, and
    # how many other reviewers' reviews are hidden until they tag it (`team_view.shown_review`).
    assigned: bool = False
    hidden: int = 0
    delta: float | None = None  # graded metrics: candidate - baseline
    rows: tuple[int, int] = (0, 0)  # record rows in the baseline and candidate files


@dataclass
class ListView:
    """A filtered, sorted view over the rows of one list."""

    rows: list[ListRow]
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
    visible: list[ListRow] = field(default_factory=list)
    # What a search also looks in beyond the id and input: the outputs and targets (item
    # indices whose text holds the needle) and the notes (item ids); set by the screen.
    text_hits: Callable[[str], frozenset[int]] | None = None
    note_hits: Callable[[str], set[str]] | None = None
    # `slices()` as last computed, for the rows list it was computed over (id and length): the
    # footer asks on every refresh, a walk over a quarter of a million rows on the UI thread.
    _slices: tuple[int, int, list[str]] | None = field(default=None, repr=False, compare=False)

    def __post_init__(self) -> None:
        self.refresh()

    def refresh(self) -> None:
        needle = self.search.lower().strip()
        if not needle and self.unfiltered():  # (every row: no predicate per row at 1M)
            self._ordered(list(self.rows))
            return
        texts = self.text_hits(needle) if needle and self.text_hits else frozenset()
        notes = self.note_hits(needle) if needle and self.note_hits else set()
        out = [
            r
            for r in self.rows
            if (self.slice_filter is None or r.slice == self.slice_filter)
            and (self.id_filter is None or r.item_id in self.id_filter)
            and (not self.assigned_only or r.assigned)
            and (not self.untriaged_only or not self.is_triaged(r.tag))
            and (
                self.tag_filter is None
                or (r.tag is None if self.tag_filter == UNTAGGED else r.tag == self.tag_filter)
            )
            and (
                not needle
                or needle in r.search_text
                or r.index in texts
                or r.item_id in notes
                or (r.tag is not None and needle in r.tag.lower())
            )
        ]
        self._ordered(out)

    def unfiltered(self) -> bool:
        """No filter set (a search aside): every row passes the filters."""
        return (
            self.slice_filter is None
            and self.id_filter is None
            and not self.assigned_only
            and not self.untriaged_only
            and self.tag_filter is None
        )

    def _ordered(self, out: list[ListRow]) -> None:
        """`visible`: the rows that passed, in the order chosen."""
        if self.sort_key == "file":  # rows arrive in file order: keep it, or turn it round
            if self.reverse:
                out.reverse()
            self.visible = self._assigned_first(out)
            return
        key = {
            "item id": lambda r: (r.item_id, r.index),
            "slice": lambda r: (r.slice, r.index),
            "tag": lambda r: (r.tag is None, r.tag or "", r.index),
            "input": lambda r: (r.preview.lower(), r.index),
            "delta": lambda r: (r.delta if r.delta is not None else 0.0, r.index),
        }[self.sort_key]
        out.sort(key=key, reverse=self.reverse)
        self.visible = self._assigned_first(out)

    def _assigned_first(self, rows: list[ListRow]) -> list[ListRow]:
        """The reviewer's assigned items first, each part in the order chosen (a stable sort)."""
        if not self.assigned_first or self.assigned_only:
            return rows
        return sorted(rows, key=lambda r: not r.assigned)

    def slices(self) -> list[str]:
        """The slices the list's rows belong to (a row's slice never changes)."""
        key = (id(self.rows), len(self.rows))
        if self._slices is None or self._slices[:2] != key:
            self._slices = (*key, sorted({r.slice for r in self.rows if r.slice}))
        return list(self._slices[2])

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
