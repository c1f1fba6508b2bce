"""Making untrusted text (ids, model output) inert wherever it lands.

Eval runs carry model output, which can hold ANSI and OSC escapes, control characters, bidi
overrides, Markdown and HTML. On a terminal those can restyle the screen, set the clipboard or
reorder what the reviewer reads; in a PR comment they can break a table or inject markup.
"""

from __future__ import annotations

import json
import re
import secrets
from json.encoder import encode_basestring
from typing import Any

# C0 controls except tab and newline, DEL, C1 controls, the Unicode bidi controls, the invisible
# characters that make two ids look alike or hide text (zero-width space, non-joiner and joiner,
# word joiner, the BOM), the line and paragraph separators (a line break to some terminals and
# editors, none to others), and lone surrogates (not characters: no file or terminal holds one).
_CONTROL = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c"
    "\u200b-\u200d\u2060\ufeff\u2028\u2029\ud800-\udfff]"
)
_MD_SPECIAL = re.compile(r"([\\`*_\[\]<>|~&])")


def visible(ch: str) -> str:
    """A printable stand-in for one control character: ESC -> '␛', others -> '\\xNN'/'<U+…>'."""
    code = ord(ch)
    if code == 0x1B:
        return "␛"
    if code < 0x20:
        return chr(0x2400 + code)  # the Control Pictures block: ␀ … ␟
    if code == 0x7F:
        return "␡"
    if code <= 0x9F:
        return f"\\x{code:02x}"
    return f"<U+{code:04X}>"


def inert(text: str) -> str:
    """Replace every control, bidi and invisible character with a visible stand-in (`␛`,
    `<U+202E>`, `<U+200B>`); keep tab and newline."""
    return _CONTROL.sub(lambda m: visible(m.group()), text)


def one_line(text: str, width: int | None = None) -> str:
    """A single-line preview: whitespace runs collapsed, controls made visible, cut to width."""
    flat = " ".join(inert(text).split())  # inert first: U+2028 is whitespace to split()
    if width is not None and len(flat) > width:
        return flat[: max(width - 1, 0)] + "…"
    return flat


def md_cell(text: str, code: bool = False) -> str:
    """Escape text for a Markdown table cell or inline code; never lets it open HTML or a table."""
    flat = " ".join(inert(str(text)).split())
    if code:
        return flat.replace("`", "ˋ").replace("|", "\\|")
    return _MD_SPECIAL.sub(r"\\\1", flat)


_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
_FORMULA_AFTER_BREAK = re.compile(r"\n(?=[=+\-@])")


def csv_cell(value: object) -> str:
    """A spreadsheet-safe cell: text that a spreadsheet would run as a formula is prefixed
    with an apostrophe (OWASP's advice against CSV injection), at the start of the cell and
    after every line break in it (a spreadsheet that splits a cell's lines, or a reader that
    takes a line break for a new row, sees each line start a cell). Line breaks are LF only (a
    CR, alone or before LF, becomes LF: a bare CR left unquoted starts a new row in some
    readers) and every other control character is shown as a visible stand-in, so the file
    holds no raw control characters; the writer must quote a cell that holds a line break
    (`csv.writer` does, for LF, with `lineterminator="\n"`)."""
    text = "" if value is None else str(value)
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    text = inert(text).replace("\t", visible("\t"))
    text = _FORMULA_AFTER_BREAK.sub("\n'", text)
    return "'" + text if text.startswith(_FORMULA_START) else text


def inert_json(document: Any, indent: int | None = 2) -> str:
    """`document` as JSON text that is safe to `cat` and paste: UTF-8 kept as is, but every
    control, bidi and invisible character (what `inert` makes visible) written as a \\uXXXX
    escape. A JSON reader gets the same strings back, so a record's content hash still holds,
    while a terminal showing the file is never restyled or reordered by text from a run. json
    escapes C0 controls itself; only inside strings can the others occur, so escaping them in
    the text is exact. A lone surrogate, which no UTF-8 file can hold, is escaped too."""
    if isinstance(indent, int):
        text = _indented_json(document, indent)
    else:
        text = json.dumps(document, indent=indent, ensure_ascii=False)
    return _CONTROL.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


_LONG_LIST = 64
"""Lists of at least this many strings are written by `_indented_json`'s fast path."""


def _indented_json(document: Any, indent: int) -> str:
    """``json.dumps(document, indent=indent, ensure_ascii=False)``, the same text, faster.

    Python's indenting encoder is pure Python (only the compact one is C): a report listing a
    million ids spent most of its writing there, one call per id. Long lists of strings (the
    ids) are swapped for placeholders, the rest is dumped as before, and each placeholder is
    replaced by its list written the way the encoder writes it: one element a line, each
    string encoded by json's own (C) string encoder. A placeholder holds a random nonce, so no
    string of the document can be mistaken for one."""
    lists: list[list[str]] = []
    token = f"\x00evaltui-list-{secrets.token_hex(8)}-"
    skeleton = _swap_long_lists(document, lists, token)
    text = json.dumps(skeleton, indent=indent, ensure_ascii=False)
    if not lists:
        return text
    quoted = encode_basestring(token)[:-1]  # '"\u0000evaltui-list-<nonce>-' (no closing quote)
    parts: list[str] = []
    done = 0
    for k, items in enumerate(lists):
        marker = f'{quoted}{k}"'
        at = text.index(marker, done)
        line = text[text.rfind("\n", 0, at) + 1 : at]  # the key before it, or nothing
        level = len(line) - len(line.lstrip(" "))
        inner = "\n" + " " * (level + indent)
        parts += [text[done:at], "[", inner, ("," + inner).join(map(encode_basestring, items))]
        parts += ["\n", " " * level, "]"]
        done = at + len(marker)
    parts.append(text[done:])
    return "".join(parts)


def _swap_long_lists(value: Any, lists: list[list[str]], token: str) -> Any:
    """`value` with each long list (or tuple) of strings replaced by ``token + its number``,
    the lists collected in `lists` in the order json.dumps writes them (a copy: the document
    is left alone)."""
    if isinstance(value, dict):
        return {key: _swap_long_lists(item, lists, token) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        if len(value) >= _LONG_LIST and set(map(type, value)) == {str}:  # (in C: 10 ms per 1M)
            lists.append(list(value))
            return f"{token}{len(lists) - 1}"
        if any(isinstance(item, (dict, list, tuple)) for item in value):
            return [_swap_long_lists(item, lists, token) for item in value]
    return value
