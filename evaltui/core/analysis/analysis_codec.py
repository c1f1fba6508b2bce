"""A completed analysis as plain data and back: JSON scalars, big columns aside.

The analysis cache (`analysis_cache.py`) keeps what a pair's first screen and its decision read
so a reopen rebuilds the `Analysis` without pairing or statistics. What it keeps is read back
from disk, so it must never run code: no pickle, no eval. Every result object is written as its
class's name and its fields, and read back only into a class named in `ALLOWED` (the frozen
result dataclasses of `core/stats` and `core/analysis`), through its own constructor, so its
own checks (`__post_init__`) run again. Anything else (an unknown name, a field the class does
not have, a value of another type) is `Unreadable`: the cache then recomputes.

Columns too long for JSON to be quick (the per-item deltas, the id lists of a million-item
pair) go to `Columns`, one Parquet file each, named in the JSON by number.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import numpy as np
import polars as pl

from evaltui.core.analysis.metric_row import MetricRow
from evaltui.core.analysis.slices import SliceResult
from evaltui.core.compare.options import AnalysisOptions
from evaltui.core.compare.pairing import ArmReport, PairingReport
from evaltui.core.stats.binary import BinaryComparison, UnpairedContrast
from evaltui.core.stats.categorical import (
    CategoricalComparison,
    CategoryChange,
    StuartMaxwellResult,
)
from evaltui.core.stats.categorical_table import CategoricalTable
from evaltui.core.stats.clusters import ClusteredComparison
from evaltui.core.stats.epochs import EpochSummary
from evaltui.core.stats.graded import GradedComparison
from evaltui.core.stats.interval import Interval
from evaltui.core.stats.mean_check import MeanCheck, SignTest
from evaltui.core.stats.paired_table import McNemarResult, PairedTable

# The only classes a cached analysis is rebuilt into (by name: the name is what is stored).
ALLOWED: dict[str, type] = {
    cls.__name__: cls
    for cls in (
        AnalysisOptions,
        ArmReport,
        BinaryComparison,
        CategoricalComparison,
        CategoricalTable,
        CategoryChange,
        ClusteredComparison,
        EpochSummary,
        GradedComparison,
        Interval,
        McNemarResult,
        MeanCheck,
        MetricRow,
        PairedTable,
        PairingReport,
        SignTest,
        SliceResult,
        StuartMaxwellResult,
        UnpairedContrast,
    )
}
# numpy dtypes an array may be stored as (kinds: bool, int, unsigned, float)
ARRAY_KINDS = frozenset("biuf")
ASIDE = 256  # arrays and id tuples longer than this go to a Parquet column of their own


class Unreadable(ValueError):
    """A stored value that is not what the codec writes: the entry is not used."""


class Unstorable(TypeError):
    """A value the codec has no form for: the analysis is not cached (never guessed at)."""


class Columns:
    """The long columns of one entry, numbered in the order they were written or are read."""

    def __init__(self, frames: list[pl.Series] | None = None) -> None:
        self.series: list[pl.Series] = frames if frames is not None else []
        self._written: list[tuple[tuple[str, ...], int]] = []  # id tuples and their column
        self._read: dict[int, tuple[str, ...]] = {}  # id columns already made tuples

    def add(self, series: pl.Series) -> int:
        self.series.append(series)
        return len(self.series) - 1

    def add_ids(self, ids: tuple[str, ...]) -> int:
        """The column of an id tuple: the one written for an equal tuple if there is one (the
        primary metric's row lists the analysis' own regressions), so a reopen reads and turns
        into Python strings each list once."""
        for kept, index in self._written:
            if kept is ids or (len(kept) == len(ids) and kept == ids):
                return index
        index = self.add(pl.Series("ids", ids, dtype=pl.String))
        self._written.append((ids, index))
        return index

    def ids(self, index: Any) -> tuple[str, ...]:
        """An id column as a tuple of text, made once per column (equal lists share it)."""
        if isinstance(index, int) and index in self._read:
            return self._read[index]
        series = self.get(index)
        if series.dtype != pl.String or series.null_count():
            raise Unreadable("an id column that is not text")
        ids = tuple(series.to_list())
        self._read[index] = ids
        return ids

    def get(self, index: Any) -> pl.Series:
        if not isinstance(index, int) or not 0 <= index < len(self.series):
            raise Unreadable(f"no column {index!r}")
        return self.series[index]


def encode(value: Any, columns: Columns) -> Any:
    """`value` as JSON-ready data; long arrays and id tuples into `columns`."""
    if value is None or isinstance(value, bool | str):
        return value
    if isinstance(value, np.bool_):
        return bool(value)
    if isinstance(value, int | np.integer):
        return int(value)
    if isinstance(value, float | np.floating):
        return float(value)  # (NaN and the infinities as Python's json writes them)
    if isinstance(value, np.ndarray):
        return _encode_array(value, columns)
    if isinstance(value, tuple):
        if len(value) > ASIDE and all(isinstance(v, str) for v in value):
            return {"ids": columns.add_ids(value)}
        return {"tuple": [encode(v, columns) for v in value]}
    if isinstance(value, list):
        return [encode(v, columns) for v in value]
    if isinstance(value, dict):
        return {"dict": [[encode(k, columns), encode(v, columns)] for k, v in value.items()]}
    name = type(value).__name__
    if dataclasses.is_dataclass(value) and ALLOWED.get(name) is type(value):
        init = [f.name for f in dataclasses.fields(value) if f.init]
        return {"class": name, "fields": {f: encode(getattr(value, f), columns) for f in init}}
    raise Unstorable(f"no stored form for {name}")


def _encode_array(array: np.ndarray, columns: Columns) -> dict[str, Any]:
    if array.ndim != 1 or array.dtype.kind not in ARRAY_KINDS:
        raise Unstorable(f"no stored form for a {array.ndim}-d {array.dtype} array")
    if array.size > ASIDE:
        return {"array": str(array.dtype), "column": columns.add(pl.Series("a", array))}
    return {"array": str(array.dtype), "values": array.tolist()}


def decode(data: Any, columns: Columns) -> Any:
    """What `encode` wrote, rebuilt; `Unreadable` for anything it would not have written."""
    if data is None or isinstance(data, bool | int | float | str):
        return data
    if isinstance(data, list):
        return [decode(v, columns) for v in data]
    if not isinstance(data, dict) or len(data) not in (1, 2):
        raise Unreadable(f"unexpected {type(data).__name__}")
    for key, rebuild in _DECODERS.items():
        if key in data:
            return rebuild(data, columns)
    raise Unreadable(f"unexpected keys {sorted(data)}")


def _tuple(data: dict[str, Any], columns: Columns) -> tuple[Any, ...]:
    return tuple(decode(v, columns) for v in _list(data["tuple"]))


def _ids(data: dict[str, Any], columns: Columns) -> tuple[str, ...]:
    return columns.ids(data["ids"])


def _dict(data: dict[str, Any], columns: Columns) -> dict[Any, Any]:
    out = {}
    for pair in _list(data["dict"]):
        if not isinstance(pair, list) or len(pair) != 2:
            raise Unreadable("a dict entry that is not a pair")
        out[decode(pair[0], columns)] = decode(pair[1], columns)
    return out


def _array(data: dict[str, Any], columns: Columns) -> np.ndarray:
    try:
        dtype = np.dtype(str(data["array"]))
    except TypeError:
        raise Unreadable(f"unknown dtype {data['array']!r}") from None
    if dtype.kind not in ARRAY_KINDS:
        raise Unreadable(f"dtype {dtype} not allowed")
    if "column" in data:
        series = columns.get(data["column"])
        if series.null_count() or not series.dtype.is_numeric() and series.dtype != pl.Boolean:
            raise Unreadable("an array column with gaps or text")
        return np.array(series.to_numpy(), dtype=dtype)  # (a copy the caller may own)
    values = _list(data.get("values"))
    if not all(isinstance(v, bool | int | float) for v in values):
        raise Unreadable("an array of something else than numbers")
    return np.array(values, dtype=dtype)


def _object(data: dict[str, Any], columns: Columns) -> Any:
    cls = ALLOWED.get(data["class"]) if isinstance(data["class"], str) else None
    stored = data.get("fields")
    if cls is None or not isinstance(stored, dict):
        raise Unreadable(f"class {data['class']!r} is not one a cached analysis holds")
    names = {f.name for f in dataclasses.fields(cls) if f.init}
    if not set(stored) <= names:
        raise Unreadable(f"{cls.__name__} has no field(s) {sorted(set(stored) - names)}")
    try:
        return cls(**{name: decode(v, columns) for name, v in stored.items()})
    except (TypeError, ValueError) as exc:  # its own checks refused the values
        raise Unreadable(f"{cls.__name__}: {exc}") from None


def _list(value: Any) -> list[Any]:
    if not isinstance(value, list):
        raise Unreadable(f"expected a list, found {type(value).__name__}")
    return value


_DECODERS: dict[str, Callable[[dict[str, Any], Columns], Any]] = {
    "tuple": _tuple,
    "ids": _ids,
    "dict": _dict,
    "array": _array,
    "class": _object,
}
