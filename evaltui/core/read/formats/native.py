"""What the three native formats (JSONL, CSV, Parquet) share: checking and canonicalising.

The fast path lets polars read the statistics columns; this module then checks every value
against the canonical schema and, when something is wrong, names the first offending record so
the user can open the file at that line. Nothing is coerced quietly: a verdict is `true` or
`false` and nothing else (not 1, not "pass", not null) unless the record's status says it errored.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import polars as pl
from polars.exceptions import PanicException

from evaltui.core.errors import InputError
from evaltui.core.read.formats.fields import INT_MAX, id_problem, text_problem
from evaltui.core.read.formats.jsontext import describe, loads
from evaltui.core.read.runs import (
    CLUSTER,
    EPOCH,
    FAILURE_STATUSES,
    ITEM_ID,
    MESSAGES,
    OUTCOME,
    PASSED,
    ROW,
    SLICE,
    STATUS,
    STATUS_VALUES,
    TEXT_FIELDS,
    Message,
    Transcript,
    is_score_column,
)

# Where a record sits in its file, for error messages: (line, record label).
Locator = Callable[[int], tuple[int | None, str | None]]

# What polars raises on input it cannot read: its errors, and a Rust panic (pyo3's PanicException
# derives from BaseException: `except Exception` lets it through as a traceback and exit 1)
POLARS_FAILURES = (Exception, PanicException)

# Bump when a check of `canonical_stats`, `check_record` or a reader's own line checks changes
# what it refuses: a scan cache entry made under other checks is then checked again on reopen
# (`canonical_stats(checked=...)`).
CHECKS = 1

OPTIONAL_STAT_COLUMNS = (EPOCH, STATUS, SLICE, CLUSTER, OUTCOME)
EXPECTED_COLUMNS = "item_id plus passed (true/false) and/or score"


def fingerprint(path: Path) -> tuple[int, int]:
    """Size and modification time: enough to notice a file rewritten after it was loaded."""
    try:
        stat = path.stat()
    except OSError as exc:
        raise InputError(path, f"cannot read the file: {exc.strerror or exc}") from None
    return stat.st_size, stat.st_mtime_ns


def first_line(exc: BaseException) -> str:
    """A library's error as one short line for "cannot be read as ...": its first line, or its
    type when it says nothing."""
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


def ensure_unchanged(path: Path, seen: tuple[int, int], line: int | None = None) -> None:
    """Refuse to read transcripts from a file that changed since its statistics were read:
    offsets and row numbers would point at other items."""
    if fingerprint(path) != seen:
        raise InputError(path, "changed on disk since it was loaded; reopen the pair", line=line)


def stat_columns(available: list[str]) -> list[str]:
    """The columns the statistics need, in a stable order; everything else is read lazily."""
    wanted = [ITEM_ID, PASSED, *OPTIONAL_STAT_COLUMNS]
    cols = [c for c in wanted if c in available]
    cols += [c for c in available if is_score_column(c)]
    return cols


def polars_stat_schema(columns: list[str]) -> dict[str, pl.DataType]:
    """A strict schema for the fast path: polars refuses a wrong-typed value instead of guessing."""
    schema: dict[str, pl.DataType] = {}
    for col in columns:
        if col == PASSED:
            schema[col] = pl.Boolean()
        elif col == EPOCH:
            schema[col] = pl.Int64()
        elif is_score_column(col):
            schema[col] = pl.Float64()
        else:
            schema[col] = pl.String()
    return schema


def check_columns(path: Path, columns: list[str]) -> None:
    if ITEM_ID not in columns:
        raise InputError(path, f"no 'item_id' column; expected {EXPECTED_COLUMNS}", field=ITEM_ID)
    if PASSED not in columns and not any(is_score_column(c) for c in columns):
        raise InputError(
            path,
            f"no verdict column; expected {EXPECTED_COLUMNS} (found: {', '.join(columns)})",
            field=PASSED,
        )


def canonical_stats(
    df: pl.DataFrame, path: Path, locate: Locator, *, checked: bool = False
) -> pl.DataFrame:
    """Check a freshly read statistics frame and return it in canonical types, with a `row` index.

    `locate(i)` turns a 0-based record index into (line, record) for the error message.

    `checked=True`: `df` is a frame every check below was run on and passed before, so the
    scans over its values (`first_row`) are skipped and only the conversions run. The caller
    vouches for that: the scan cache says so of an entry only when it was written after this
    function passed on the same frame (the entry's Parquet holds it value for value) read by
    the same plan (the same columns under the same names, the same verdict parsing) by checks
    of the same `CHECKS` and evaltui version (`scan_cache.checked_under`). Every check here is
    a function of those alone, so it would pass again; what depends only on the frame's types
    (a column of the wrong type) still runs, and costs nothing. Without that word, every
    check runs.
    """
    check_columns(path, df.columns)
    if df.height == 0:
        raise InputError(path, "holds no records; expected one record per item and epoch")
    df = df.with_row_index(ROW).with_columns(pl.col(ROW).cast(pl.Int64))

    def fail(row: int, field: str, problem: str) -> InputError:
        line, record = locate(row)
        return InputError(path, problem, line=line, record=record, field=field)

    def first_row(mask: pl.Expr) -> int | None:
        if checked:  # (it found none when the frame was checked: see the docstring)
            return None
        hit = df.select(mask.arg_true().first()).item()
        return None if hit is None else int(hit)

    # item_id: a non-empty string or an integer.
    id_dtype = df.schema[ITEM_ID]
    if id_dtype.is_integer():
        df = df.with_columns(pl.col(ITEM_ID).cast(pl.String))
    elif id_dtype != pl.String:
        raise fail(0, ITEM_ID, f"expected a string or integer id, got values of type {id_dtype}")
    row = first_row(pl.col(ITEM_ID).is_null() | (pl.col(ITEM_ID).str.strip_chars() == ""))
    if row is not None:
        raise fail(row, ITEM_ID, "missing or empty; expected a string or integer id")
    for col in (
        SLICE,
        CLUSTER,
        STATUS,
        OUTCOME,
    ):  # labels are text (a number or a list is not a name)
        if col in df.columns and not _is_text_dtype(df.schema[col]):
            raise fail(
                first_row(pl.col(col).is_not_null()) or 0,
                col,
                f"expected text (a string column), got values of type {df.schema[col]}",
            )
    for col in (ITEM_ID, SLICE, CLUSTER, STATUS, OUTCOME):
        if col in df.columns:
            row = first_row(pl.col(col).cast(pl.String).str.contains("\x00", literal=True))
            if row is not None:
                raise fail(
                    row,
                    col,
                    f"expected text, got {_quoted(df[col][row])}, which holds a NUL character "
                    "(U+0000; polars also reads a lone surrogate escape such as \\ud800 as one)",
                )

    # status: ok / error / timeout; absent means ok.
    if STATUS in df.columns:
        df = df.with_columns(pl.col(STATUS).cast(pl.String).fill_null("ok"))
        row = first_row(~pl.col(STATUS).is_in(list(STATUS_VALUES)))
        if row is not None:
            value = df[STATUS][row]
            raise fail(row, STATUS, f"expected one of {', '.join(STATUS_VALUES)}, got {value!r}")
    else:
        df = df.with_columns(pl.lit("ok").alias(STATUS))

    if PASSED in df.columns:
        df = _check_passed(df, fail, first_row)
    for col in [c for c in df.columns if is_score_column(c)]:
        df = _check_score(df, col, fail, first_row)

    if EPOCH in df.columns:
        if not df.schema[EPOCH].is_integer():
            raise fail(0, EPOCH, f"expected an integer epoch >= 1, got type {df.schema[EPOCH]}")
        row = first_row(pl.col(EPOCH) > INT_MAX)  # an unsigned 64-bit column may hold more
        if row is not None:
            raise fail(
                row, EPOCH, f"expected an integer epoch that fits in 64 bits, got {df[EPOCH][row]}"
            )
        df = df.with_columns(pl.col(EPOCH).cast(pl.Int64).fill_null(1))
        row = first_row(pl.col(EPOCH) < 1)
        if row is not None:
            raise fail(row, EPOCH, f"expected an integer epoch >= 1, got {df[EPOCH][row]}")
    else:
        df = df.with_columns(pl.lit(1, dtype=pl.Int64).alias(EPOCH))
    for col in (SLICE, CLUSTER):
        if col in df.columns:
            df = df.with_columns(pl.col(col).cast(pl.String))
    if OUTCOME in df.columns:
        df = _check_outcome(df, fail, checked)
    return df


def _check_outcome(df: pl.DataFrame, fail: Callable, checked: bool = False) -> pl.DataFrame:
    """Once a file has outcomes every record needs one: the categorical comparison counts
    every item, and a missing one would be dropped or invented. An errored record without
    one takes its status (`error`, `timeout`), the outcome it had."""
    outcome = pl.col(OUTCOME).cast(pl.String)
    errored = pl.col(STATUS).is_in(list(FAILURE_STATUSES))
    filled = pl.when(outcome.is_null() & errored).then(pl.col(STATUS)).otherwise(outcome)
    df = df.with_columns(filled.alias(OUTCOME))
    bad = pl.col(OUTCOME).is_null() | (pl.col(OUTCOME).str.strip_chars() == "")
    # (the filled frame's rows: `first_row` would scan the frame before the fill)
    found_row = None if checked else df.select(bad.arg_true().first()).item()
    hit = None if found_row is None else int(found_row)
    if hit is not None:
        value = df[OUTCOME][hit]
        found = "missing (null)" if value is None else f"empty ({_quoted(value)})"
        raise fail(
            hit,
            OUTCOME,
            f"{found}; expected the item's outcome category as text (once a file has "
            "outcomes, every record that did not error needs one)",
        )
    return df


def _is_text_dtype(dtype: pl.DataType) -> bool:
    """Text a label can be read from: strings, categoricals, or a column with no values."""
    return dtype == pl.String or isinstance(dtype, pl.Categorical | pl.Enum) or dtype == pl.Null


def _check_passed(df: pl.DataFrame, fail: Callable, first_row: Callable) -> pl.DataFrame:
    dtype = df.schema[PASSED]
    if dtype != pl.Boolean:
        row = first_row(pl.col(PASSED).is_not_null())
        value = df[PASSED][row if row is not None else 0]
        raise fail(row or 0, PASSED, f"expected true or false, got {value!r}")
    errored = pl.col(STATUS).is_in(list(FAILURE_STATUSES))
    row = first_row(pl.col(PASSED).is_null() & ~errored)
    if row is not None:
        raise fail(row, PASSED, "missing (null); expected true or false")
    return df


def _check_score(df: pl.DataFrame, col: str, fail: Callable, first_row: Callable) -> pl.DataFrame:
    dtype = df.schema[col]
    if not dtype.is_numeric():
        row = first_row(pl.col(col).is_not_null())
        value = df[col][row if row is not None else 0]
        raise fail(row or 0, col, f"expected a number, got {value!r}")
    df = df.with_columns(pl.col(col).cast(pl.Float64))
    row = first_row(pl.col(col).is_nan() | pl.col(col).is_infinite())
    if row is not None:
        raise fail(row, col, f"expected a finite number, got {df[col][row]}")
    errored = pl.col(STATUS).is_in(list(FAILURE_STATUSES))
    if PASSED not in df.columns:
        row = first_row(pl.col(col).is_null() & ~errored)
        if row is not None:
            raise fail(row, col, "missing (null); expected a number")
    return df


def check_record(
    record: Any, columns: list[str], *, loose_verdicts: bool = False
) -> tuple[str, str] | None:
    """Check one parsed record in Python; return (field, problem) for the first fault.

    Used to pinpoint the line when the fast reader refuses a file without saying where, and
    on the lines it could not vouch for. `loose_verdicts`: the verdict comes from `--pass-col`,
    whose 0/1 the loader checks itself.
    """
    if not isinstance(record, dict):
        return ("", f"expected a JSON object, got {_quoted(record)}")
    if ITEM_ID not in record or record[ITEM_ID] is None:
        return (ITEM_ID, "missing; expected a string or integer id")
    problem = id_problem(record[ITEM_ID])
    if problem is not None:
        return (ITEM_ID, problem)
    verdict = record.get(PASSED)
    if not loose_verdicts and verdict is not None and not isinstance(verdict, bool):
        return (PASSED, f"expected true or false, got {_quoted(verdict)}")
    for col in columns:
        if is_score_column(col) and record.get(col) is not None:
            value = record[col]
            if isinstance(value, bool) or not isinstance(value, int | float):
                return (col, f"expected a number, got {_quoted(value)}")
    epoch = record.get(EPOCH)
    if epoch is not None and (
        isinstance(epoch, bool) or not isinstance(epoch, int) or not 1 <= epoch <= INT_MAX
    ):
        return (EPOCH, f"expected an integer epoch >= 1 that fits in 64 bits, got {_quoted(epoch)}")
    for col in (STATUS, SLICE, CLUSTER, OUTCOME):  # labels: text, as the run format says
        value = record.get(col)
        if value is not None and not isinstance(value, str):
            return (col, f"expected a string or null, got {_quoted(value)}")
        problem = None if value is None else text_problem(value)
        if problem is not None:
            return (col, f"expected a string, got {_quoted(value)}, which {problem}")
    return None


def transcript_from_record(record: Mapping[str, Any]) -> Transcript:
    """Build the drill-down view of one record; every value is kept as literal text."""
    messages = parse_messages(record.get(MESSAGES))
    known = {*TEXT_FIELDS, MESSAGES, ITEM_ID, PASSED, EPOCH, STATUS, SLICE, CLUSTER, OUTCOME}
    metadata = {
        str(k): _as_text(v) or ""
        for k, v in record.items()
        if k not in known and not is_score_column(str(k))
    }
    input_, output, target, explanation = (_as_text(record.get(name)) for name in TEXT_FIELDS)
    return Transcript(
        input=input_,
        output=output,
        target=target,
        explanation=explanation,
        messages=messages,
        metadata=metadata,
    )


def parse_messages(value: Any) -> tuple[Message, ...]:
    """Messages as a list of {role, content}; a JSON string (CSV) is parsed first."""
    if value is None:
        return ()
    if isinstance(value, str):
        try:
            value = loads(value)
        except (ValueError, RecursionError):  # not JSON, or a duplicate key: shown as written
            return (Message("transcript", value),)
    if not isinstance(value, list):
        return (Message("transcript", _as_text(value) or ""),)
    out = []
    for entry in value:
        if isinstance(entry, Mapping):
            role = _as_text(entry.get("role")) or "?"
            out.append(Message(role, content_text(entry.get("content"))))
        else:
            out.append(Message("?", _as_text(entry) or ""))
    return tuple(out)


def content_text(content: Any) -> str:
    """Message content may be a string or a list of blocks ({type: text, text: ...})."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for block in content:
            if isinstance(block, Mapping) and isinstance(block.get("text"), str):
                parts.append(block["text"])
            elif isinstance(block, str):
                parts.append(block)
            else:
                parts.append(_as_text(block) or "")
        return "\n".join(parts)
    return _as_text(content) or ""


def _as_text(value: Any) -> str | None:
    if value is None:
        return None
    if isinstance(value, str):
        return value
    if isinstance(value, float) and math.isnan(value):
        return None
    return json.dumps(value, ensure_ascii=False, default=str)


def _quoted(value: Any) -> str:
    return describe(value, 40, ascii_only=True)
