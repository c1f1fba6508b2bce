"""Making untrusted text (ids, model output) inert wherever it lands.

Eval runs carry model output, which can hold ANSI and OSC escapes, control characters, bidi
overrides, Markdown and HTML. On a terminal those can restyle the screen, set the clipboard or
reorder what the reviewer reads; in a PR comment they can break a table or inject markup.
"""

from __future__ import annotations

import re

# C0 controls except tab and newline, DEL, C1 controls, and the Unicode bidi controls.
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c]")
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
    """Replace every control and bidi character with a visible stand-in; keep tab and newline."""
    return _CONTROL.sub(lambda m: visible(m.group()), text)


def one_line(text: str, width: int | None = None) -> str:
    """A single-line preview: whitespace runs collapsed, controls made visible, cut to width."""
    flat = inert(" ".join(text.split()))
    if width is not None and len(flat) > width:
        return flat[: max(width - 1, 0)] + "…"
    return flat


def md_cell(text: str, code: bool = False) -> str:
    """Escape text for a Markdown table cell or inline code; never lets it open HTML or a table."""
    flat = inert(" ".join(str(text).split()))
    if code:
        return flat.replace("`", "ˋ").replace("|", "\\|")
    return _MD_SPECIAL.sub(r"\\\1", flat)


_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def csv_cell(value: object) -> str:
    """A spreadsheet-safe cell: text that a spreadsheet would run as a formula is prefixed
    with an apostrophe (OWASP's advice against CSV injection)."""
    text = "" if value is None else str(value)
    return "'" + text if text.startswith(_FORMULA_START) else text
