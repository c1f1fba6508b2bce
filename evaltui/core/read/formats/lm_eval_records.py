"""The records of an lm-eval samples file, with where each one sits, in both layouts lm-eval
has written.

- lm-eval >= 0.4.3 (`EvaluationTracker`): `samples_<task>_<date>.jsonl`, JSON Lines, one
  `json.dumps(sample, ensure_ascii=False)` per line. The file is opened in append mode, so a
  re-run into the same folder and date leaves lines repeated byte for byte.
- lm-eval 0.4.0 to 0.4.2 (`__main__.py`): `<model_args>_<task>.jsonl` holding one JSON array,
  `json.dumps(samples, indent=2)`: the name says JSON Lines, the content is not.

Each record carries its 1-based line (where the object starts), its byte offset and length (so
drill-down re-reads just that record), and a digest of its bytes, by which a repeated record is
told from a different one with the same doc_id without keeping the text.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from evaltui.core.errors import InputError
from evaltui.core.read.formats.jsontext import UTF8_BOM, numbered_lines, parse_json_object_line

JSONL = "jsonl"
ARRAY = "json array (lm-eval 0.4.0-0.4.2)"
_WHITESPACE = " \t\r\n"
# Keys of a sample line that are not metric values.
RECORD_KEYS = frozenset(
    {
        "doc_id",
        "doc",
        "target",
        "arguments",
        "resps",
        "filtered_resps",
        "filter",
        "metrics",
        "doc_hash",
        "prompt_hash",
        "target_hash",
        "task_name",
    }
)


@dataclass(frozen=True)
class SampleRecord:
    number: int  # the 1-based line the record starts on
    offset: int  # byte offset of the record
    length: int  # its length in bytes
    digest: bytes  # of its bytes (trailing newline aside): equal digests, identical records
    index: int | None  # position in the array (the array layout only)
    record: dict[str, Any]


def is_array(head: bytes) -> bool:
    """True when the file is one JSON array rather than JSON Lines."""
    return head.removeprefix(UTF8_BOM).lstrip().startswith(b"[")


def read_records(path: Path, head: bytes) -> tuple[str, Iterator[SampleRecord]]:
    """The layout's name and its records in file order."""
    if is_array(head):
        return ARRAY, _array_records(path)
    return JSONL, _line_records(path)


def read_one(path: Path, offset: int, length: int, number: int) -> dict[str, Any]:
    """The record at `offset` again (drill-down)."""
    try:
        with path.open("rb") as handle:
            handle.seek(offset)
            raw = handle.read(length)
    except OSError as exc:
        raise InputError(path, f"cannot read the file: {exc}", line=number) from None
    return parse_json_object_line(path, raw, number)


def _digest(raw: bytes) -> bytes:
    return hashlib.blake2b(raw.rstrip(b"\r\n"), digest_size=16).digest()


def _line_records(path: Path) -> Iterator[SampleRecord]:
    with path.open("rb") as handle:
        for number, start, raw in numbered_lines(handle):
            record = parse_json_object_line(path, raw, number)
            yield SampleRecord(number, start, len(raw), _digest(raw), None, record)


def _array_records(path: Path) -> Iterator[SampleRecord]:
    """Walk the array element by element (`raw_decode`), tracking each element's line and byte
    offset, so errors name a line and drill-down seeks instead of parsing the file again."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise InputError(path, f"cannot read the file: {exc.strerror or exc}") from None
    bom = len(UTF8_BOM) if data.startswith(UTF8_BOM) else 0
    try:
        text = data[bom:].decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(path, f"not UTF-8 JSON: {exc}") from None
    decoder = json.JSONDecoder()
    pos = _skip(text, 0)
    pos += 1  # the opening bracket (is_array checked it)
    line, line_pos = 1, 0  # the line of text[line_pos]
    byte, byte_pos = bom, 0  # the byte offset of text[byte_pos]
    index = 0
    while True:
        pos = _skip(text, pos)
        if pos < len(text) and text[pos] == "]":
            rest = _skip(text, pos + 1)
            if rest != len(text):
                _fail(path, text, rest, "text after the closing bracket of the samples array")
            return
        if index > 0:
            if pos >= len(text) or text[pos] != ",":
                _fail(path, text, pos, "expected ',' or ']' after a sample (a truncated file?)")
            pos = _skip(text, pos + 1)
        try:
            record, end = decoder.raw_decode(text, pos)
        except json.JSONDecodeError as exc:
            raise InputError(
                path, f"not valid JSON: {exc.msg} (column {exc.colno})", line=exc.lineno
            ) from None
        except RecursionError:
            _fail(path, text, pos, "a sample nests too deeply")
        line += text.count("\n", line_pos, pos)
        line_pos = pos
        byte += len(text[byte_pos:pos].encode("utf-8"))
        byte_pos = pos
        raw = text[pos:end].encode("utf-8")
        if not isinstance(record, dict):
            raise InputError(
                path,
                f"expected a JSON object per sample, got {type(record).__name__}",
                line=line,
                record=f"[{index}]",
            )
        yield SampleRecord(line, byte, len(raw), _digest(raw), index, record)
        index += 1
        pos = end


def _skip(text: str, pos: int) -> int:
    while pos < len(text) and text[pos] in _WHITESPACE:
        pos += 1
    return pos


def _fail(path: Path, text: str, pos: int, problem: str) -> None:
    raise InputError(path, problem, line=text.count("\n", 0, pos) + 1)


def metric_names(record: dict[str, Any]) -> list[str]:
    """The metrics a record carries: its `metrics` list where it names keys the record has,
    else every key that is not one of lm-eval's own."""
    listed = record.get("metrics")
    if isinstance(listed, list):
        names = [m for m in listed if isinstance(m, str) and m in record]
        if names:
            return names
    return [key for key in record if key not in RECORD_KEYS]


def document_hash(record: dict[str, Any]) -> str | None:
    """sha256 of the record's `doc` as lm-eval >= 0.4.3 hashes it (`json.dumps(doc, indent=2,
    ensure_ascii=False)`), so a computed hash and a written one name a document alike."""
    if "doc" not in record:
        return None
    try:
        text = json.dumps(record["doc"], indent=2, ensure_ascii=False, default=str)
    except (TypeError, ValueError, RecursionError):
        return None
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def prompt_hash_of(record: dict[str, Any]) -> str | None:
    """sha256 of the first request's first argument (the prompt), as lm-eval >= 0.4.3 hashes
    `arguments.gen_args_0.arg_0`; 0.4.0-0.4.2 wrote the arguments as lists."""
    arguments = record.get("arguments")
    first: Any = None
    if isinstance(arguments, list) and arguments:
        first = arguments[0]
    elif isinstance(arguments, dict) and arguments:
        first = arguments.get("gen_args_0", next(iter(arguments.values())))
    if isinstance(first, list) and first:
        prompt = first[0]
    elif isinstance(first, dict):
        prompt = first.get("arg_0")
    else:
        return None
    if not isinstance(prompt, str):
        return None
    return hashlib.sha256(prompt.encode("utf-8", "surrogatepass")).hexdigest()
