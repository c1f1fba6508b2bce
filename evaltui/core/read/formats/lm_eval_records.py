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

A key written twice. The strict reader (`jsontext.loads`) refuses it anywhere in a record,
because JSON readers disagree on which value counts (I-JSON, RFC 7493): a file another tool
reads as a fail could be read here as a pass. What the load reads from a record is its top
level: `filter`, and on the chosen filter's lines `doc_id`, the metric, `doc_hash` and
`prompt_hash` (every top-level key on the line the default metric is chosen from); the
document only where it has no `doc_hash` (it is hashed whole), the requests only where there
is no `prompt_hash`. A key written twice anywhere else (inside a document whose hash is
written, in the requests, the responses, a key such as `target`) changes no statistic and no
pairing check, and the item's transcript, which does read all of it, refuses the record when
it is opened, in the same words (`read_one`). So the load refuses a record for a key written
twice only where it reads a value (`refuse_repeated`), with the strict reader's refusal
unchanged; anywhere else the record is read (`SampleRecord.repeated` says where) and the
refusal comes with the item. That is also what the fast read (`lm_eval_scan`) can vouch for
at the speed of its scan: it checks the five keys it reads on every line (a key anywhere in a
line would need every line's whole tree built, ~1.3 s of CPU per 188 MB file for msgspec's
generic decode against 0.15 s for the five keys), so both readers take and refuse the same
files, in the same words (a differential test holds them to it).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Collection, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from evaltui.core.errors import InputError
from evaltui.core.read.formats.jsontext import (
    UTF8_BOM,
    DuplicateKey,
    duplicate_problem,
    loads,
    locate_duplicate,
    numbered_lines,
    parse_json_object_line,
    repeated_keys,
)

JSONL = "jsonl"
DOC_HASH = "doc_hash"
PROMPT_HASH = "prompt_hash"  # sha256 of the prompt lm-eval sent (>= 0.4.3)
DEFAULT_FILTER = "none"  # what lm-eval calls the absence of a filter
PREFERRED_METRICS = ("acc", "exact_match", "acc_norm", "pass@1", "f1", "bleu", "mcc")
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
    # Where a key is written twice in the record (`("acc",)` at its top, `("doc", "premise")`
    # inside its document), the values there the last written, and the strict reader's
    # refusal of the record: raised only when the load reads a value there (`refuse_repeated`)
    repeated: frozenset[tuple[str | int, ...]] = field(default=frozenset())
    refusal: InputError | None = None


def _refuse_if_read(
    sample: SampleRecord, keys: Collection[str] | None, trees: Collection[str]
) -> None:
    """Raise the strict reader's refusal of `sample` when a key written twice in it is one the
    load reads: a top-level key of `keys` (None: every top-level key), or any key inside the
    value of a top-level key of `trees` (read whole, as the document is hashed). See the
    module docstring for why the others are left to the item's transcript."""
    for path in sample.repeated:
        top = len(path) == 1 and (keys is None or path[0] in keys or path[0] in trees)
        if top or (len(path) > 1 and path[0] in trees):
            assert sample.refusal is not None
            raise sample.refusal


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


def refuse_repeated(sample: SampleRecord, chosen_filter: str | None, metric: str | None) -> None:
    """The strict reader's refusal of a record with a key written twice where this load reads
    a value (the module docstring says which and why): `filter`; on the chosen filter's
    lines `doc_id`, the metric, the hashes (every top-level key on the line the metric is
    chosen from), the document or the requests when their hash is computed here. A record
    whose filter is no text is refused for any key written twice, as before."""
    if not sample.repeated:
        return
    name = sample.record.get("filter", DEFAULT_FILTER)
    if not isinstance(name, str):
        assert sample.refusal is not None
        raise sample.refusal
    if chosen_filter is not None and name != chosen_filter:
        _refuse_if_read(sample, ["filter"], [])
        return
    keys = None if metric is None else ["filter", "doc_id", metric, DOC_HASH, PROMPT_HASH]
    hashed = [("doc", DOC_HASH), ("arguments", PROMPT_HASH)]
    _refuse_if_read(
        sample, keys, [t for t, h in hashed if not isinstance(sample.record.get(h), str)]
    )


def _line_records(path: Path) -> Iterator[SampleRecord]:
    with path.open("rb") as handle:
        for number, start, raw in numbered_lines(handle):
            try:
                record = parse_json_object_line(path, raw, number)
            except InputError as refusal:  # perhaps only a key written twice: `_repeated`
                text = raw.removeprefix(UTF8_BOM) if number == 1 else raw
                record, repeated = _repeated(text, refusal)
                yield SampleRecord(
                    number, start, len(raw), _digest(raw), None, record, repeated, refusal
                )
                continue
            yield SampleRecord(number, start, len(raw), _digest(raw), None, record)


def _repeated(
    raw: bytes, refusal: InputError
) -> tuple[dict[str, Any], frozenset[tuple[str | int, ...]]]:
    """A record the strict reader refused (`refusal`) as the last written of each repeated key
    wins, and where its keys are written twice; `refusal` raised again when the record is not
    one JSON object of UTF-8 text or no key is written twice (the refusal was for another
    reason)."""
    try:
        record = json.loads(raw.decode("utf-8"))  # (strict UTF-8: the strict reader's test)
    except (ValueError, RecursionError):
        raise refusal from None
    repeated = _repeated_paths(raw)
    if not isinstance(record, dict) or not repeated:
        raise refusal
    return record, repeated


def _repeated_paths(raw: bytes) -> frozenset[tuple[str | int, ...]]:
    """Where a JSON text writes a key twice in one object: the key's path from the outermost
    value (`jsontext.repeated_keys`: every repeat, not only the first)."""
    return frozenset(path for path, _ in repeated_keys(raw))


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
        repeated, refusal = _array_repeated(path, raw, line, index)
        yield SampleRecord(line, byte, len(raw), _digest(raw), index, record, repeated, refusal)
        index += 1
        pos = end


def _array_repeated(
    path: Path, raw: bytes, line: int, index: int
) -> tuple[frozenset[tuple[str | int, ...]], InputError | None]:
    """Where an element of the array layout writes a key twice, and the refusal of it in the
    strict reader's words (its field and line); nothing for an element without one (the
    array's decoder keeps the last of two keys, as `_repeated` does for a line)."""
    try:
        loads(raw)
    except DuplicateKey as exc:  # (the array's decoder read everything else already)
        found = locate_duplicate(raw)
        field_name, at = found if found is not None else (exc.key, 1)
        refusal = InputError(
            path, duplicate_problem(exc), line=line + at - 1, record=f"[{index}]", field=field_name
        )
        return _repeated_paths(raw), refusal
    return frozenset(), None


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


def default_metric(path: Path, record: dict[str, Any], number: int) -> str:
    """The first preferred metric with a per-item value, else any such metric; a corpus-level
    metric (a list per record) only when there is nothing else, so its error explains it."""
    names = metric_names(record)
    per_item = [n for n in names if not isinstance(record[n], list)]
    for name in PREFERRED_METRICS:
        if name in record and not isinstance(record[name], list):
            return name
    if per_item:
        return per_item[0]
    if not names:
        raise InputError(
            path,
            "no metric value on the line; expected a key such as "
            + ", ".join(PREFERRED_METRICS[:3])
            + " next to doc_id",
            line=number,
        )
    return names[0]


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
