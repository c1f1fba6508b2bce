"""Where things are in a policy file's text: ``tomllib`` reports no positions, so errors are
placed by finding them in the text.

:class:`Layout` finds the line of a top-level key (``alpha = ...``, or a ``[key]`` table header)
and the line of each gate (its ``[[gates]]`` header, or the line its ``{...}`` opens on when the
gates are written inline as ``gates = [{...}, ...]``). A line it cannot single out is left out
rather than guessed.
"""

from __future__ import annotations

import math
import re
from bisect import bisect_right
from dataclasses import dataclass

__all__ = ["Layout"]


@dataclass(frozen=True)
class Layout:
    """Lines of a valid TOML text, for pointing errors at a place tomllib does not report.

    ``masked`` holds the lines with the insides of strings and comments blanked, so a
    ``[[gates]]`` inside a multi-line string or a comment is never taken for a header.
    ``statements`` are the (1-based) lines that start a statement: outside any string or bracket.
    """

    lines: tuple[str, ...]
    masked: tuple[str, ...]
    statements: tuple[int, ...]

    @classmethod
    def of(cls, text: str) -> Layout:
        masked, strings = _mask(text)
        masked_lines = masked.split("\n")
        statements = []
        depth = offset = 0
        for number, line in enumerate(masked_lines, start=1):
            if depth == 0 and not _within(strings, offset):
                statements.append(number)
            depth += line.count("[") + line.count("{") - line.count("]") - line.count("}")
            offset += len(line) + 1
        return cls(tuple(text.split("\n")), tuple(masked_lines), tuple(statements))

    def _is_header(self, number: int) -> bool:
        return self.masked[number - 1].lstrip().startswith("[")

    def top_key_line(self, key: str) -> int | None:
        """The line defining top-level ``key``: ``key = ...`` (or a dotted ``key.x = ...``)
        before the first table header, else a ``[key]``, ``[key.x]`` or ``[[key]]`` header."""
        name = _key_pattern(key)
        assignment = re.compile(rf"\s*{name}\s*[=.]")
        header = re.compile(rf"\s*\[\[?\s*{name}\s*[\].]")
        root = True
        for number in self.statements:
            if self._is_header(number):
                root = False
                if header.match(self.lines[number - 1]):
                    return number
            elif root and assignment.match(self.lines[number - 1]):
                return number
        return None

    def gate_lines(self, count: int) -> tuple[int | None, ...]:
        """The line of each of the ``count`` gates, None where the text does not single one
        out: a line holding several inline gates, or a layout that does not add up to count."""
        header = re.compile(rf"\s*\[\[\s*{_key_pattern('gates')}\s*\]\]")
        headers = [n for n in self.statements if header.match(self.lines[n - 1])]
        if len(headers) == count:
            return tuple(headers)
        opened = self._inline_gate_lines()
        if len(opened) != count:
            return (None,) * count
        return tuple(n if opened.count(n) == 1 else None for n in opened)

    def gate_key_line(self, gate_line: int | None, key: str) -> int | None:
        """The line of ``key = ...`` in the ``[[gates]]`` table whose header is ``gate_line``.

        A gate of several keys is fixed at the key at fault, so an error names that key's line.
        None when the gate is written inline (its keys share the line its ``{`` opens on) or the
        key is not written in the table (a missing key is placed at the header).
        """
        if gate_line is None or not self._is_header(gate_line):
            return None
        assignment = re.compile(rf"\s*{_key_pattern(key)}\s*[=.]")
        for number in self.statements:
            if number <= gate_line:
                continue
            if self._is_header(number):
                return None
            if assignment.match(self.lines[number - 1]):
                return number
        return None

    def _inline_gate_lines(self) -> list[int]:
        """The line each table of ``gates = [{...}, ...]`` opens on, in order."""
        assignment = re.compile(rf"\s*{_key_pattern('gates')}\s*=")
        for number in self.statements:
            if self._is_header(number):
                return []  # past the root table, where gates = [...] would have to be
            match = assignment.match(self.lines[number - 1])
            if match:
                return self._tables_in_array(number, match.end())
        return []

    def _tables_in_array(self, number: int, column: int) -> list[int]:
        """Lines of the ``{`` directly inside the array value that starts at (number, column)."""
        opened: list[int] = []
        depth = 0
        for line in range(number, len(self.masked) + 1):
            for ch in self.masked[line - 1][column if line == number else 0 :]:
                if ch in "[{":
                    depth += 1
                    if ch == "{" and depth == 2:
                        opened.append(line)
                elif ch in "]}":
                    depth -= 1
                    if depth == 0:
                        return opened
                elif depth == 0 and not ch.isspace():
                    return []  # the value is no array
        return opened


def _key_pattern(key: str) -> str:
    """A TOML key as written: bare, "double-quoted" or 'single-quoted'."""
    bare = re.escape(key)
    return rf"""(?:{bare}|"{bare}"|'{bare}')"""


def _within(spans: list[tuple[int, int]], offset: int) -> bool:
    """Whether ``offset`` lies strictly inside one of the sorted, disjoint ``spans``."""
    at = bisect_right(spans, (offset, math.inf)) - 1
    return at >= 0 and spans[at][0] < offset < spans[at][1]


def _mask(text: str) -> tuple[str, list[tuple[int, int]]]:
    """``text`` with string contents and comments blanked, and the (start, end) of each string.

    Only ever run on text tomllib has accepted, so strings are known to be terminated.
    """
    out = list(text)
    spans: list[tuple[int, int]] = []
    i, n = 0, len(text)

    def blank(start: int, end: int) -> None:
        for j in range(start, end):
            if out[j] != "\n":
                out[j] = " "

    while i < n:
        ch = text[i]
        if ch == "#":
            end = text.find("\n", i)
            end = n if end < 0 else end
            blank(i, end)
            i = end
            continue
        if ch not in "\"'":
            i += 1
            continue
        quote = ch * 3 if text.startswith(ch * 3, i) else ch
        j = i + len(quote)
        while j < n and not text.startswith(quote, j):
            j += 2 if ch == '"' and text[j] == "\\" else 1
        end = min(n, j + len(quote))
        while len(quote) == 3 and end < n and text[end] == ch and end - j < 5:
            end += 1  # up to two quotes may end a multi-line string: """a""""
        blank(i + len(quote), end - len(quote))
        spans.append((i, end))
        i = end
    return "".join(out), spans
