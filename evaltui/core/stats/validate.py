"""Argument checks for every statistic: one check, and one wording, per kind of argument.

The statistics contract (DESIGN.md): invalid arguments raise ``ValueError`` naming the argument
and the value; degenerate-but-valid data return a result with a flag instead. Each check returns
the value in the type the arithmetic wants (``float`` or ``int``), so a numpy scalar never leaks
into a frozen result and results compare and hash plainly.

Bools are refused wherever a number is expected (``True`` is neither one item nor a 100% level:
it is a caller passing the wrong field), and floats are refused, not rounded, where a count is
expected (2.0 passes may be a mean that slipped through).

The ``plan`` command shows some of these messages to its user (``cli/plan.py`` turns the
ValueError into its one-line error), so their wording is part of what a user sees.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from numbers import Integral, Real
from typing import TypeVar

import numpy as np

__all__ = [
    "aligned",
    "alpha",
    "confidence",
    "count",
    "counts",
    "instance",
    "integer",
    "non_negative",
    "number",
    "one_of",
    "positive",
    "probability",
    "sample",
    "some_items",
]

T = TypeVar("T")


def _real(name: str, value: object, expected: str) -> float:
    if isinstance(value, bool | np.bool_) or not isinstance(value, Real):
        raise ValueError(f"{name} must be {expected}, got {value!r}")
    result = float(value)
    if not math.isfinite(result):
        raise ValueError(f"{name} must be a finite number, got {value!r}")
    return result


def number(name: str, value: object) -> float:
    """A finite real number: NaN and infinities are refused (no statistic reads them)."""
    return _real(name, value, "a number")


def positive(name: str, value: object) -> float:
    """A finite number above zero (a standard deviation, a design effect, a margin)."""
    result = number(name, value)
    if result <= 0.0:
        raise ValueError(f"{name} must be a positive number, got {value!r}")
    return result


def non_negative(name: str, value: object) -> float:
    """A finite number, zero allowed (a variance, a tolerance)."""
    result = number(name, value)
    if result < 0.0:
        raise ValueError(f"{name} must be zero or positive, got {value!r}")
    return result


def probability(name: str, value: object, *, open_interval: bool = True) -> float:
    """A probability: strictly inside (0, 1) by default, as a confidence level, an alpha or a
    planned rate must be (0 and 1 give no interval, no test, no plan); ``open_interval=False``
    for a p-value, which may be 0 or 1."""
    bounds = "strictly between 0 and 1" if open_interval else "in [0, 1]"
    result = _real(name, value, f"a number {bounds}")
    inside = 0.0 < result < 1.0 if open_interval else 0.0 <= result <= 1.0
    if not inside:
        raise ValueError(f"{name} must be {bounds}, got {value!r}")
    return result


def confidence(value: object) -> float:
    """A confidence level, strictly between 0 and 1."""
    return probability("confidence", value)


def alpha(value: object) -> float:
    """A significance level, strictly between 0 and 1."""
    return probability("alpha", value)


def count(name: str, value: object) -> int:
    """A count of items or judgments: an integer >= 0 (numpy integers become ``int``)."""
    if not isinstance(value, Integral) or isinstance(value, bool | np.bool_) or value < 0:
        raise ValueError(f"{name} must be a non-negative integer count, got {value!r}")
    return int(value)


def counts(name: str, values: Iterable[object]) -> tuple[int, ...]:
    """Every entry a count; a bad one is named by its position, ``name[i]``."""
    return tuple(count(f"{name}[{i}]", value) for i, value in enumerate(values))


def integer(name: str, value: object, *, minimum: int) -> int:
    """A whole number of at least ``minimum`` (resamples, epochs, systems, a seed)."""
    if (
        not isinstance(value, Integral)
        or isinstance(value, bool | np.bool_)
        or int(value) < minimum
    ):
        if minimum == 0:
            raise ValueError(f"{name} must be a non-negative integer, got {value!r}")
        raise ValueError(f"{name} must be a whole number of at least {minimum}, got {value!r}")
    return int(value)


def one_of(what: str, value: object, options: Sequence[str]) -> str:
    """One of a fixed set of names (a method, a rule): refused by name, with the choices."""
    if not isinstance(value, str) or value not in options:
        raise ValueError(f"unknown {what} {value!r}; choose one of {', '.join(options)}")
    return value


def instance(name: str, value: object, kind: type[T]) -> T:
    """A value of the result or table type a statistic reads (a caller's bug otherwise)."""
    if not isinstance(value, kind):
        raise ValueError(f"{name} must be a {kind.__name__}, got {type(value).__name__}")
    return value


def some_items(n: int) -> int:
    """A paired table with no items has no rate and no difference to report."""
    if n == 0:
        raise ValueError("the table is empty (n = 0): there are no paired items to compare")
    return n


def aligned(name: str, values: object, other: str, size: int) -> np.ndarray:
    """A 1-D array with one entry per entry of ``other`` (cluster codes or item codes beside
    the values they label): a length mismatch means the two were never lined up."""
    arr = np.asarray(values)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional, got shape {arr.shape}")
    if arr.size != size:
        raise ValueError(
            f"{name} has {arr.size} entries but {other} has {size}; give one per entry of {other}"
        )
    return arr


def sample(name: str, values: object) -> np.ndarray:
    """One value per item as a 1-D float64 array: non-empty, every value finite.

    Non-finite values are refused rather than dropped: a silently shrunk sample would change
    the statistic without the reviewer knowing (reading list, 001).
    """
    try:
        arr = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} must be numeric, got {values!r:.80}") from exc
    if arr.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional, got shape {arr.shape}")
    if arr.size == 0:
        raise ValueError(f"{name} is empty: there are no items to compare")
    bad = np.flatnonzero(~np.isfinite(arr))
    if bad.size:
        i = int(bad[0])
        raise ValueError(
            f"{name}[{i}] is {float(arr[i])} ({bad.size} non-finite value(s)); "
            "fix or exclude those items before comparing"
        )
    return arr
