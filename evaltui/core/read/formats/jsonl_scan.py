"""One pass over a JSON Lines file for its statistics columns, sha256 and line index.

Reading a multi-gigabyte run three times (hash, newline index, parse) costs three passes, and
handing polars the whole file maps all of it into memory. So a big file is read once, in
blocks that end at a line break: each block is hashed (in a helper thread; hashlib releases the
GIL), its line starts are recorded, and polars parses only the statistics keys of its lines.
Peak memory is a couple of blocks plus the parsed columns, whatever the file size. A file of
up to WHOLE_FILE_MAX bytes is handed to polars whole instead (mapping it costs at most that
much memory, and one call is much cheaper than many), while one pass hashes and indexes it.

polars does not see everything wrong with a line: of a key written twice it takes the first value
(Python and jq the last), it decodes an escaped key (`"p\\u0061ssed"`) as the key, and it reads
any JSON value (`1.5`, `true`, `[1]`) into a text column. So each block's lines also go through a
few regular expressions in polars (Rust, both cores, no Python per line): a line where a
statistics key occurs twice, where a key holds an escape, or where a text key holds something
else than a string (or, for an id, an integer) is a *suspect*, and the caller reads the suspects
again in Python, which names the line, the key and the value (or finds nothing wrong). A line
that is none of these holds each statistics key at most once, spelled as written, so the values
polars read are the ones every JSON reader reads.

A file whose first 64 KiB hold no backslash and one colon per statistics key and line is not
put through those expressions unless it must be: its colons are counted as it is read, and
`jsonl_plain` proves from the count and the parsed columns that no line is a suspect (0.02
against 0.15 s of CPU per million short lines); only if the proof fails are the lines checked.
"""

from __future__ import annotations

import hashlib
import json
import re
from array import array
from collections.abc import Collection, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import polars as pl
from polars.exceptions import PanicException

from evaltui.core.read import meter
from evaltui.core.read.formats.jsonl_plain import PlainCount, looks_plain
from evaltui.core.read.formats.line_index import LineIndex

# Bytes per block; grows when a single line is longer. Kept under glibc's largest mmap threshold
# (32 MiB): bigger blocks are fresh mappings each time, and their page faults made a 2.4 GB file
# take 5.4 s instead of 3.9 s (64 MiB against 16 MiB blocks, bench/scale.py breakdown).
BLOCK = 16 << 20
# Files up to this size are parsed by polars in one call (it maps the file: this much RSS at
# most); above it, block by block. 256 MiB covers ~100,000 records of 2 KB.
WHOLE_FILE_MAX = 256 << 20
WHITESPACE = b" \t\r\n"


@dataclass(frozen=True, eq=False)
class Scan:
    frame: pl.DataFrame  # the statistics columns, one row per non-blank line
    sha256: str
    lines: LineIndex
    hash_checked: bool = True  # False: sha256 is a cache entry's, not yet recomputed
    # 1-based numbers of the lines the caller must read again in Python before trusting the
    # frame (see the module docstring); empty for a file written the usual way
    suspects: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    # A scan cache entry's word (`scan_cache.checked_under`): the read plan under which this
    # frame passed every check when it was kept; None for a fresh parse (nothing checked yet)
    checked: str | None = None


def scan_jsonl(
    path: Path,
    schema: dict[str, pl.DataType],
    block: int = BLOCK,
    whole_file_max: int | None = None,
    *,
    texts: Collection[str] = (),
    ids: Collection[str] = (),
) -> Scan:
    """Parse `schema`'s keys of every non-blank line; raises polars' error on a bad line.

    Up to `whole_file_max` bytes (default WHOLE_FILE_MAX) polars parses the whole file at once
    while one pass over it hashes and indexes the lines; bigger files are parsed block by block
    so that memory stays bounded. The scan's `suspects` are the lines to read again
    (`suspect_lines`): `texts` names the keys whose value must be a string or null (labels),
    `ids` those that may also hold an integer (an item's id).
    """
    limit = WHOLE_FILE_MAX if whole_file_max is None else whole_file_max
    check = _line_check(schema, texts, ids)
    if path.stat().st_size <= limit:
        return _scan_whole(path, schema, block, check)
    return _scan_blocks(path, schema, block, check)


def _scan_whole(path: Path, schema: dict[str, pl.DataType], block: int, check: LineCheck) -> Scan:
    """polars maps and parses the file in its own threads; meanwhile this thread reads it once
    more in blocks (from the page cache) for the sha256 and the line index, while polars reads
    the lines once more, streaming, for the suspects (`LineCheck.file`). Half the CPU of the
    block-by-block parse at 240 MB (polars' per-call overhead and the copies it needs)."""
    with path.open("rb") as handle:
        sample = handle.read(_SAMPLE_BYTES)
    # A file that looks plain is counted as it is read, and its lines are checked only if the
    # count and the columns cannot vouch for them (`jsonl_plain`); any other file is checked
    # beside the parse.
    plain = None
    if check.flagged is not None and looks_plain(sample, len(schema), check.typed):
        plain = PlainCount()
    with ThreadPoolExecutor(max_workers=2) as parser:
        parsed = parser.submit(pl.read_ndjson, _without_bom(path), schema=schema)
        checked = None if plain is not None else parser.submit(check.file, path)
        index = _LineIndexer()
        with ThreadPoolExecutor(max_workers=1) as hasher:
            digest = hashlib.sha256()
            for buf, cut in _complete_lines(path, block):
                with memoryview(buf) as view, view[:cut] as lines:
                    hashed = hasher.submit(digest.update, lines)
                    index.add(buf, cut)
                    if plain is not None:
                        plain.add(buf, cut)
                    hashed.result()
                meter.read(cut)
        frame = parsed.result()
        if checked is not None:
            found = checked.result()
        elif plain is not None and plain.vouches(frame, check.typed):
            found = np.zeros(0, np.int64)
        else:
            found = check.file(path)
    consistent = found is not None and (found.size == 0 or found[-1] < index.next_line)
    if found is not None and consistent:
        suspects = found
    else:  # every line (8 MB at a million lines: built only when it is the answer)
        suspects = np.arange(1, index.next_line, dtype=np.int64)
    return Scan(frame=frame, sha256=digest.hexdigest(), lines=index.done(), suspects=suspects)


def _scan_blocks(path: Path, schema: dict[str, pl.DataType], block: int, check: LineCheck) -> Scan:
    """Hash, index and parse each block of whole lines; polars gets a copy of each block (it
    takes bytes), at most two in flight, so peak memory is a few blocks plus the columns."""
    digest = hashlib.sha256()
    frames: list[pl.DataFrame] = []
    suspects: list[np.ndarray] = []
    index = _LineIndexer()
    in_flight: list = []
    with (
        ThreadPoolExecutor(max_workers=1) as hasher,
        ThreadPoolExecutor(max_workers=2) as parser,
    ):
        for buf, cut in _complete_lines(path, block):
            with memoryview(buf) as view:
                chunk = bytes(view[:cut])  # polars takes bytes; the hash reads the same copy
            hashed = hasher.submit(digest.update, chunk)
            first_line = index.next_line
            text = chunk.removeprefix(UTF8_BOM) if first_line == 1 else chunk
            parsed = parser.submit(pl.read_ndjson, text, schema=schema)
            if index.add(chunk, cut):
                in_flight.append(parsed)
            suspects.append(check.block(chunk, first_line, index.next_line - first_line))
            # Keep at most two chunks in flight: memory stays bounded, both cores stay busy.
            while len(in_flight) > 1:
                frames.append(in_flight.pop(0).result())
            hashed.result()
            meter.read(cut)
            del chunk
        frames.extend(f.result() for f in in_flight)
    frame = pl.concat(frames) if frames else pl.DataFrame(schema=schema)
    return Scan(
        frame=frame, sha256=digest.hexdigest(), lines=index.done(), suspects=_joined(suspects)
    )


UTF8_BOM = b"\xef\xbb\xbf"


def _without_bom(path: Path) -> str | bytes:
    """What polars parses: the file, or its bytes after a UTF-8 BOM (polars refuses one; the
    hash and the line index still read the file as it is)."""
    with path.open("rb") as handle:
        if handle.read(len(UTF8_BOM)) != UTF8_BOM:
            return _glob_literal(path)
        return handle.read()


def _glob_literal(path: Path) -> str:
    """The path as polars' read_ndjson (which always expands globs, with no way to say not to)
    reads it literally: each of [ * ? in a bracket class, so "[bold]x.jsonl" is that file."""
    return re.sub(r"([\[*?])", r"[\1]", str(path))


def _joined(parts: list[np.ndarray]) -> np.ndarray:
    return np.concatenate(parts).astype(np.int64) if parts else np.zeros(0, np.int64)


# ---------------------------------------------------------------------------------------------
# Suspect lines

_REGEX_META = set("\\.+*?()|[]{}^$#&-~")


def _rust_literal(text: str) -> str:
    """`text` as a literal in a polars (Rust) regular expression."""
    return "".join("\\" + ch if ch in _REGEX_META else ch for ch in text)


def suspect_lines(
    data: bytes | memoryview,
    schema: dict[str, pl.DataType],
    texts: Collection[str] = (),
    ids: Collection[str] = (),
    first_line: int = 1,
) -> np.ndarray:
    """The 1-based numbers of the lines of `data` that polars may have read differently from
    Python: a key of `schema` written twice, a key holding an escape, a key of `texts` whose
    value is not a string or null, or a key of `ids` whose value is not a string, null or an
    integer of at most 19 digits. False alarms are allowed (Python finds nothing wrong
    with the line), misses are not."""
    lines = bytes(data)
    count = lines.count(b"\n") + (0 if lines.endswith(b"\n") or not lines else 1)
    return _line_check(schema, texts, ids).block(lines, first_line, count)


# Mean line length (bytes) from which `LineCheck` counts each key's tokens instead of walking
# the rest of the line for a repeat. Per file, `LineCheck.file` alone (process_time, best of
# three): a million 56-byte id/pass/score lines 0.14 s walking against 0.25 s counting; the
# lm-eval samples file of 200,000 lines of 940 bytes 0.42 s against 0.25 s. A linear fit of
# the two puts the break-even near 155 bytes; above 256 counting is clearly the cheaper.
LONG_LINE = 256
_SAMPLE_BYTES = 1 << 16


@dataclass(frozen=True)
class LineCheck:
    """The check `suspect_lines` describes, its expression built once per scan; `None` for a
    schema whose keys it cannot spell reliably (a quote, a backslash or a control character
    in a key name): then every line is a suspect. `flagged` walks each line from its first
    statistics key to its end (`key.*key`); `flagged_long` flags the same lines or more
    (`_line_check` says why) by counting each key's tokens, which costs a fixed price per
    line and key but never walks the line: the cheaper of the two for long lines."""

    flagged: pl.Expr | None
    flagged_long: pl.Expr | None = None
    # the keys whose values must be strings (the texts and ids): what `jsonl_plain` tests
    typed: tuple[str, ...] = ()

    def expression(self, mean_line_bytes: float) -> pl.Expr | None:
        """The check to run on lines of this mean length."""
        if mean_line_bytes >= LONG_LINE and self.flagged_long is not None:
            return self.flagged_long
        return self.flagged

    def block(self, data: bytes | memoryview, first_line: int, count: int) -> np.ndarray:
        """The suspects of a block of `count` lines starting at line `first_line`."""
        every = np.arange(first_line, first_line + count, dtype=np.int64)
        flagged = self.expression(len(data) / count) if count else None
        if flagged is None:
            return every
        try:
            frame = pl.read_lines(bytes(data)).with_row_index("n")
            rows = frame.filter(flagged).get_column("n").to_numpy()
        except (Exception, PanicException):  # noqa: BLE001 - not UTF-8 (the parse refuses it too)
            return every
        if frame.height != count:  # lines counted otherwise than by "\n": read them all
            return every
        return rows.astype(np.int64) + first_line

    def file(self, path: Path) -> np.ndarray | None:
        """The suspects of a whole file, streamed by polars (bounded memory, every core); None
        when polars cannot tell (then every line is one). polars splits lines at "\\n" only,
        as the line index does, so its row numbers are line numbers. The mean line length is
        taken from the file's first 64 KiB."""
        with path.open("rb") as handle:
            sample = handle.read(_SAMPLE_BYTES)
        flagged = self.expression(len(sample) / max(sample.count(b"\n"), 1))
        if flagged is None:
            return None
        try:
            found = (
                pl.scan_lines(path, glob=False)  # a name holding [ ] * ? is a name
                .with_row_index("n")
                .filter(flagged)
                .select("n")
                .collect(engine="streaming")
            )
        except (Exception, PanicException):  # noqa: BLE001 - not UTF-8 (the parse refuses it too)
            return None
        return found["n"].to_numpy().astype(np.int64) + 1


def _escaped_key(keys: Collection[str]) -> str:
    """A key spelled with an escape that stands for a character of one of `keys` (`"p\\u0061ssed":`
    is `passed` to every JSON reader, polars included, but not to the literal patterns): the
    escape (`\\uXXXX` of such a character, or `\\/`), then the rest of the key and its colon.
    Only those escapes, not any: text escapes its newlines and quotes everywhere, and an
    escape-anything pattern would walk every such string."""
    codes = set()
    for char in set("".join(keys)):
        for unit in char.encode("utf-16-be").hex(" ", 2).split():  # an astral char: two units
            codes.add("".join(f"[{h}{h.upper()}]" if h.isalpha() else h for h in unit))
    escapes = [rf"u{code}" for code in sorted(codes)] + (["/"] if "/" in "".join(keys) else [])
    return r"\\(?:" + "|".join(escapes) + r')[^"\\]*"[ \t\r]*:'


def _line_check(
    schema: dict[str, pl.DataType], texts: Collection[str], ids: Collection[str]
) -> LineCheck:
    """Build the `LineCheck` of a schema (see the module docstring)."""
    if any(set(key) & {'"', "\\"} or not key.isprintable() for key in schema):
        return LineCheck(None)
    # One regular expression, one pass per line: a key written twice is `key.*key` (the token
    # ends with its colon, so two matches never overlap: the same lines as counting matches),
    # beside the escaped keys and the typed values. Counting each key separately walked every
    # line four times: 0.40 s CPU against 0.19 s for a million id/pass/score lines.
    typed = [_escaped_key(list(schema))]
    tokens = []
    for key in schema:
        token = _rust_literal(json.dumps(key, ensure_ascii=False)) + r"[ \t\r]*:"
        tokens.append(token)
        value = token + r"[ \t\r]*"
        if key in ids:  # "...", null, or an integer that fits in 64 bits
            typed += [value + r'[^"n0-9 \t\r-]', value + r"-?[0-9]+[.eE]",
                      value + r"-?[0-9]{19}"]  # fmt: skip
        elif key in texts:  # "..." or null
            typed.append(value + r'[^"n \t\r]')
    line = pl.col("line")
    twice = [token + ".*" + token for token in tokens]
    flagged = line.str.contains("|".join(typed + twice))
    typed_keys = tuple(key for key in schema if key in ids or key in texts)
    if any(set(key) & set(" \t\r:") for key in schema):
        return LineCheck(flagged, typed=typed_keys)
    # For long lines: the typed patterns alone (a regex without `.*`, which polars' engine
    # finds by its literal prefixes, never walking the line), and per key a count of its
    # tokens. A key without a space or colon makes any two tokens of it disjoint (a token is
    # the quoted key, blanks, a colon: a second one cannot start inside the first), so two
    # or more tokens are exactly the lines where `key.*key` matches.
    repeated = [line.str.count_matches(token) > 1 for token in tokens]
    return LineCheck(
        flagged,
        pl.any_horizontal(line.str.contains("|".join(typed)), *repeated),
        typed=typed_keys,
    )


def _complete_lines(path: Path, block: int) -> Iterator[tuple[bytearray, int]]:
    """The file as (buffer, cut): buffer[:cut] holds the next whole lines (the last may lack
    its newline at the end of the file). One buffer is reused: use it before the next step."""
    buf = bytearray(min(block, path.stat().st_size + 1))  # a small file needs no big buffer
    have = 0  # bytes of an unfinished line carried at the front of buf
    with path.open("rb", buffering=0) as handle:
        while True:
            with memoryview(buf) as view:
                n = handle.readinto(view[have:])
            end = have + n
            if end == 0:
                return
            cut = buf.rfind(b"\n", 0, end) + 1 if n else end
            if cut == 0:  # one line fills the block: grow it and read on
                buf.extend(bytearray(len(buf)))
                have = end
                continue
            yield buf, cut
            rest = end - cut
            buf[:rest] = buf[cut:end]  # same length: no resize
            have = rest
            if n == 0:
                return


class _LineIndexer:
    """Collects the start offset and line number of every non-blank line, block by block."""

    def __init__(self) -> None:
        self._starts: list[np.ndarray] = []
        self._numbers: list[np.ndarray] = []
        self._offset = 0  # file offset of the next block
        self._line_no = 1  # 1-based number of its first line

    @property
    def next_line(self) -> int:
        """The 1-based number of the next block's first line."""
        return self._line_no

    def add(self, data: bytes | bytearray, cut: int) -> bool:
        """Index data[:cut]; True if it holds a non-blank line."""
        line_starts, keep = _lines(data, cut)
        self._starts.append(line_starts[keep] + self._offset)
        self._numbers.append(np.arange(self._line_no, self._line_no + len(line_starts))[keep])
        self._line_no += len(line_starts)
        self._offset += cut
        return bool(keep.any())

    def done(self) -> LineIndex:
        def joined(parts: list[np.ndarray]) -> np.ndarray:
            return np.concatenate(parts).astype(np.int64) if parts else np.zeros(0, np.int64)

        return LineIndex(joined(self._starts), joined(self._numbers))


# Lines shorter than this on average are found by one vectorised compare over the block; longer
# ones by memchr from line to line. Measured per 16 MiB block: 50-byte lines 45 ms against
# 400 ms for the Python loop (a 1M-item id/pass/score file spent 1.2 s there), 300-byte lines
# 25 against 72 ms, 2 KB lines 21 against 15 ms.
_SHORT_LINES = 1000
_SAMPLE_LINES = 32
_COMPARE_SLICE = 1 << 18  # bytes compared at once: the temporary stays in cache and is reused


def _line_starts(data: bytes | bytearray, end: int) -> np.ndarray:
    """Offsets of the starts of the lines in data[:end] (0 first; a trailing end offset when
    data[:end] ends with a newline, which the caller drops)."""
    found = array("q", [0])
    find = data.find
    pos = find(b"\n", 0, end)
    while pos != -1 and len(found) <= _SAMPLE_LINES:
        found.append(pos + 1)
        pos = find(b"\n", pos + 1, end)
    if pos != -1 and pos < _SHORT_LINES * _SAMPLE_LINES:  # short lines: compare the rest at once
        rest = np.frombuffer(data, np.uint8, count=end - pos, offset=pos)
        parts = [np.frombuffer(found, np.int64)]
        # In slices: one 16 MiB boolean array per block was a fresh mapping each time, its
        # pages faulted in (zeroed) by the kernel: ~3% of a 1M-item report's CPU (perf).
        for at in range(0, rest.size, _COMPARE_SLICE):
            hits = np.flatnonzero(rest[at : at + _COMPARE_SLICE] == 0x0A)
            parts.append(hits.astype(np.int64) + (pos + 1 + at))
        return np.concatenate(parts)
    while pos != -1:  # long lines: memchr under the hood beats the vectorised compare
        found.append(pos + 1)
        pos = find(b"\n", pos + 1, end)
    return np.frombuffer(found, np.int64)


def _lines(data: bytes | bytearray, end: int) -> tuple[np.ndarray, np.ndarray]:
    """Start offsets of the lines in data[:end], and which are not blank (polars skips blank
    ones: empty, or only whitespace, which is checked among the short lines only)."""
    line_starts = _line_starts(data, end)
    if line_starts[-1] >= end:
        line_starts = line_starts[:-1]
    ends = np.concatenate((line_starts[1:], [end]))
    lengths = ends - line_starts
    keep = lengths > 0
    for i in np.flatnonzero(lengths <= 16):
        if not bytes(data[line_starts[i] : ends[i]]).strip(WHITESPACE):
            keep[i] = False
    return line_starts, keep
