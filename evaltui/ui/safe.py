"""Untrusted text as inert Rich `Text`: never parsed as markup, controls made visible.

Model output can hold `[bold red]`, ANSI/OSC escapes and bidi overrides. Building `Text` directly
(never `Text.from_markup`, never a plain `str` handed to a widget that parses markup) and
replacing control characters with visible stand-ins keeps it from styling or moving the terminal.
"""

from __future__ import annotations

from rich.style import Style
from rich.text import Text

from evaltui.core.textsafe import inert, one_line


def literal(text: str | None, style: str | Style = "") -> Text:
    """Multi-line untrusted text, shown exactly as written (controls made visible)."""
    return Text(inert(text or ""), style=style, no_wrap=False)


def literal_line(text: str | None, width: int | None = None, style: str | Style = "") -> Text:
    """A one-line preview of untrusted text."""
    return Text(one_line(text or "", width), style=style, no_wrap=True, overflow="ellipsis")
