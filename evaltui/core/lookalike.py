"""Names that look alike: TR39 skeletons, case and invisible characters.

A preference file in which one system is written `phаrmbot-v2` (a Cyrillic `а`) made a second
system beside `pharmbot-v2`, with 8 judgments and no verdict, without a word. Two names are
*look-alikes* when they differ, yet have the same key: invisible characters (default-ignorable
code points: zero-width spaces and joiners, bidi marks, variation selectors) removed, case
folded, and mapped to their TR39 skeleton (Unicode's confusables, UTS #39 section 4: NFD, each
character replaced by its prototype, NFD again), case folded once more.

Only groups in which a name has a character outside ASCII, or whose names differ only in case,
are reported: within ASCII the confusables table also equates `rn` with `m`, `1` with `l` and
`0` with `O`, which would flag ordinary ids (`item-10`, `item-IO`) that nobody mistakes in a
fixed-width terminal font.

The table is Unicode's confusables.txt (version in `core/data/README.md`), read once.
"""

from __future__ import annotations

import functools
import gzip
import re
import unicodedata
from collections.abc import Iterable
from pathlib import Path

DATA = Path(__file__).resolve().parent / "data" / "confusables.txt.gz"

# Default_Ignorable_Code_Point (DerivedCoreProperties.txt) beyond the format characters (Cf):
# combining grapheme joiner, Hangul fillers, Mongolian variation selectors, variation selectors.
_IGNORABLE_RANGES = (
    (0x034F, 0x034F), (0x115F, 0x1160), (0x17B4, 0x17B5), (0x180B, 0x180F), (0x3164, 0x3164),
    (0xFE00, 0xFE0F), (0xFFA0, 0xFFA0), (0xE0000, 0xE0FFF),
)  # fmt: skip


def _ignorable(code: int) -> bool:
    if any(lo <= code <= hi for lo, hi in _IGNORABLE_RANGES):
        return True
    return unicodedata.category(chr(code)) == "Cf" and code not in (0x0600, 0x06DD, 0x110BD)


@functools.cache
def _prototypes() -> dict[int, str]:
    """Character -> prototype (a str.translate table), from Unicode's confusables.txt."""
    prototypes: dict[int, str] = {}
    text = gzip.decompress(DATA.read_bytes()).decode("utf-8-sig")
    for line in text.splitlines():
        data = line.split("#", 1)[0].strip()
        if not data:
            continue
        source, target, *_ = (part.strip() for part in data.split(";"))
        if " " in source:  # every source is one code point in the published file
            continue
        prototypes[int(source, 16)] = "".join(chr(int(c, 16)) for c in target.split())
    return prototypes


@functools.cache
def _invisible() -> re.Pattern[str]:
    """The default-ignorable characters, as one character class (format characters exist
    only below U+30000 and in plane 14, which the ranges cover)."""
    codes = [c for c in range(0x30000) if _ignorable(c)] + list(range(0xE0000, 0xE1000))
    ranges: list[list[int]] = []
    for code in codes:  # consecutive code points as one range: a short class is a quick one
        if ranges and ranges[-1][1] == code - 1:
            ranges[-1][1] = code
        else:
            ranges.append([code, code])
    parts = (re.escape(chr(a)) + ("-" + re.escape(chr(b)) if b > a else "") for a, b in ranges)
    return re.compile("[" + "".join(parts) + "]")


def skeleton(text: str) -> str:
    """TR39's skeleton(X): NFD, every character mapped to its prototype, NFD again."""
    first = unicodedata.normalize("NFD", text)
    return unicodedata.normalize("NFD", first.translate(_prototypes()))


def key(text: str) -> str:
    """What look-alikes share: invisible characters removed, case folded, the skeleton taken,
    case folded again (a prototype may be a capital: `0` -> `O`)."""
    visible = text if text.isascii() else _invisible().sub("", text)
    return skeleton(visible.casefold()).casefold()


def _reported(names: tuple[str, ...]) -> bool:
    return any(not n.isascii() for n in names) or len({n.casefold() for n in names}) == 1


def lookalike_groups(names: Iterable[str]) -> list[tuple[str, ...]]:
    """Groups of two or more different names that look alike (see the module docstring), each
    sorted, in the order of their first name."""
    distinct = [n for n in dict.fromkeys(names) if isinstance(n, str)]
    # All ASCII (most runs' ids): only case can make two look alike (see the module docstring),
    # and casefold is far cheaper than a skeleton over 300k ids.
    fold = str.casefold if all(n.isascii() for n in distinct) else key
    by_key: dict[str, list[str]] = {}
    for name in distinct:
        by_key.setdefault(fold(name), []).append(name)
    groups = [tuple(sorted(g)) for g in by_key.values() if len(g) > 1]
    return sorted((g for g in groups if _reported(g)), key=lambda g: g[0])


def shown(name: str) -> str:
    """A name with every character outside printable ASCII written as <U+XXXX NAME>, so two
    look-alikes are told apart on any screen."""
    out = []
    for ch in name:
        if " " <= ch <= "~":
            out.append(ch)
        else:
            label = unicodedata.name(ch, "")
            out.append(f"<U+{ord(ch):04X}{' ' + label if label else ''}>")
    return "".join(out)


def describe(groups: list[tuple[str, ...]], what: str, limit: int = 3) -> str:
    """One line: `look-alike item ids: 'ph<U+0430 ...>rmbot' and 'pharmbot'; ...`."""
    parts = [" and ".join(f"'{shown(n)}'" for n in g) for g in groups[:limit]]
    more = f"; and {len(groups) - limit} more group(s)" if len(groups) > limit else ""
    return (
        f"look-alike {what} (they differ only in case, invisible characters or characters "
        f"that look the same): {'; '.join(parts)}{more}"
    )
