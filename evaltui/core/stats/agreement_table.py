"""The input of the agreement statistics: a ratings table, items x reviewers, each cell one
nominal tag or missing, and the per-item sums every agreement statistic is built from.

Why a table and not the merged review itself: the statistics must not know how reviews are
stored (journals, folders, git). A merged review naturally holds item -> {reviewer: tag};
:meth:`Ratings.from_reviews` turns exactly that into the table, so the wiring is one call
(``agreement.agreement_of_reviews``).

Not every reviewer rates every item: a missing cell is simply no rating. An item with fewer than
two ratings carries no information about agreement and is left out of every statistic (the
summary counts how many were).

Why per-item sums: Cohen's kappa, Fleiss' kappa, Krippendorff's alpha (nominal), the raw
agreement and their tag-vs-rest versions are all functions of *totals over items* of a few
per-item numbers (:class:`Features`). A bootstrap resample of items is then a resample of those
rows, and items with identical rows are interchangeable, so resampling draws multinomial counts
over the distinct rows (the item *patterns*), which is exactly the item bootstrap's
distribution at a cost that does not grow with the number of items.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

__all__ = ["MISSING", "Features", "Ratings", "features"]

MISSING = -1
"""The code of a missing rating in :attr:`Ratings.codes`."""


def _name(what: str, value: object) -> str:
    if not isinstance(value, str) or value == "":
        raise ValueError(f"{what} must be a non-empty string, got {value!r}")
    return value


@dataclass(frozen=True)
class Ratings:
    """Items x reviewers: ``codes[i][r]`` is the index in ``labels`` of the tag reviewer
    ``reviewers[r]`` gave item ``items[i]``, or :data:`MISSING`.

    Validated on construction (names unique and non-empty, one code per reviewer per item,
    codes in range), because every statistic assumes it.
    """

    items: tuple[str, ...]
    reviewers: tuple[str, ...]
    labels: tuple[str, ...]
    codes: tuple[tuple[int, ...], ...]

    def __post_init__(self) -> None:
        for what, names in (("item", self.items), ("reviewer", self.reviewers)):
            for name in names:
                _name(f"an {what} name" if what == "item" else f"a {what} name", name)
            if len(set(names)) != len(names):
                raise ValueError(f"{what} names must be unique, got a repeated one in {names!r}")
        for label in self.labels:
            _name("a tag", label)
        if len(set(self.labels)) != len(self.labels):
            raise ValueError(f"tags must be unique, got {self.labels!r}")
        if len(self.codes) != len(self.items):
            raise ValueError(f"codes has {len(self.codes)} rows for {len(self.items)} items")
        k, width = len(self.labels), len(self.reviewers)
        for item, row in zip(self.items, self.codes, strict=True):
            if len(row) != width:
                raise ValueError(f"item {item!r} has {len(row)} codes for {width} reviewers")
            for code in row:
                if isinstance(code, bool) or not isinstance(code, int) or not -1 <= code < k:
                    raise ValueError(
                        f"item {item!r}: code {code!r} is neither a tag index (0 to {k - 1}) "
                        f"nor {MISSING} (missing)"
                    )

    @classmethod
    def from_reviews(
        cls,
        reviews: Mapping[str, Mapping[str, str | None]],
        labels: Sequence[str] | None = None,
    ) -> Ratings:
        """The table of a merged review: item -> {reviewer: tag}; a tag of None (or a reviewer
        absent from an item's mapping) is no rating.

        ``labels`` fixes the tag set and its order (a session's tags, so a tag nobody used is
        still listed); by default it is the sorted set of tags used. Reviewers are sorted by
        name, items kept in the mapping's order. A tag outside ``labels`` is refused, naming
        the item and the reviewer.
        """
        if not isinstance(reviews, Mapping):
            raise ValueError(
                f"reviews must map item -> {{reviewer: tag}}, got {type(reviews).__name__}"
            )
        for item, by_reviewer in reviews.items():
            _name("an item name", item)
            if not isinstance(by_reviewer, Mapping):
                raise ValueError(
                    f"reviews[{item!r}] must map reviewer -> tag, got {type(by_reviewer).__name__}"
                )
            for reviewer, tag in by_reviewer.items():
                _name(f"a reviewer name (item {item!r})", reviewer)
                if tag is not None and (not isinstance(tag, str) or tag == ""):
                    raise ValueError(
                        f"reviews[{item!r}][{reviewer!r}] must be a tag (a non-empty string) "
                        f"or None, got {tag!r}"
                    )
        used = {tag for row in reviews.values() for tag in row.values() if tag is not None}
        tags = tuple(sorted(used)) if labels is None else tuple(labels)
        index = {tag: j for j, tag in enumerate(tags)}
        reviewers = tuple(sorted({r for row in reviews.values() for r in row}))
        codes = []
        for item, row in reviews.items():
            line = []
            for reviewer in reviewers:
                tag = row.get(reviewer)
                if tag is not None and tag not in index:
                    raise ValueError(
                        f"reviews[{item!r}][{reviewer!r}] is {tag!r}, which is not one of the "
                        f"tags {list(tags)!r}"
                    )
                line.append(MISSING if tag is None else index[tag])
            codes.append(tuple(line))
        return cls(tuple(reviews), reviewers, tags, tuple(codes))

    def as_array(self) -> np.ndarray:
        """The codes as an (items, reviewers) integer array."""
        return np.array(self.codes, dtype=np.int64).reshape(len(self.items), len(self.reviewers))


@dataclass(frozen=True)
class Features:
    """The per-item numbers of the items with two or more ratings, one row per such item.

    Columns (``k`` tags): ``one`` (1), ``m`` (ratings of the item), ``pairs`` (the share of its
    m(m-1) ordered pairs of ratings that agree: the item's raw agreement), ``agree_m``
    (Krippendorff's sum_c n_c(n_c-1)/(m-1)), then k columns ``n_c`` (ratings with tag c), k
    columns ``agree_m`` of the tag-vs-rest dichotomy, and, with exactly two reviewers, k columns
    ``first_c`` and k ``second_c`` (which tag each gave) and k ``both_c`` (both gave c).
    """

    table: np.ndarray  # (n counted items, columns), float64
    counted: np.ndarray  # positions in Ratings.items of the counted items
    k: int
    two_reviewers: bool
    reviewers: tuple[int, ...]  # reviewer positions that rated a counted item

    ONE, M, PAIRS, AGREE = 0, 1, 2, 3

    def block(self, name: str) -> slice:
        """The k columns of ``n``, ``agree_tag``, ``first``, ``second`` or ``both``."""
        order = ("n", "agree_tag", "first", "second", "both")
        start = 4 + order.index(name) * self.k
        return slice(start, start + self.k)

    def patterns(self) -> tuple[np.ndarray, np.ndarray]:
        """The distinct rows (in ``numpy.unique`` order) as the position of one item having
        each (index into the counted items), and how many counted items have it.

        The bootstrap draws ``Multinomial(n, counts / n)`` over these patterns, so a reference
        computation can redraw the same resamples from the seed.
        """
        _, first, counts = np.unique(self.table, axis=0, return_index=True, return_counts=True)
        return first, counts


def features(ratings: Ratings) -> Features:
    """The :class:`Features` of ``ratings``' items with at least two ratings."""
    codes = ratings.as_array()
    k = len(ratings.labels)
    rated = codes != MISSING
    m_all = rated.sum(axis=1)
    counted = np.flatnonzero(m_all >= 2)
    codes, rated = codes[counted], rated[counted]
    m = m_all[counted].astype(np.float64)
    n_c = np.zeros((counted.size, k))
    for j in range(k):
        n_c[:, j] = (codes == j).sum(axis=1)
    who = tuple(int(r) for r in np.flatnonzero(rated.any(axis=0)))
    two = len(who) == 2
    with np.errstate(invalid="ignore", divide="ignore"):
        same = (n_c * (n_c - 1.0)).sum(axis=1)
        rest = m[:, None] - n_c
        agree_tag = (n_c * (n_c - 1.0) + rest * (rest - 1.0)) / (m[:, None] - 1.0)
        columns = [np.ones_like(m), m, same / (m * (m - 1.0)), same / (m - 1.0), n_c, agree_tag]
    if two:
        first = np.zeros((counted.size, k))
        second = np.zeros((counted.size, k))
        rows = np.arange(counted.size)
        first[rows, codes[:, who[0]]] = 1.0
        second[rows, codes[:, who[1]]] = 1.0
        columns += [first, second, first * second]
    table = np.column_stack([c if c.ndim == 2 else c[:, None] for c in columns])
    return Features(table, counted, k, two, who)
