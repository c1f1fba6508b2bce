"""The Rich styles of the one style map (`ui/styles.tcss`), by class name.

The screens build Rich text (a header line, a transcript, a diff); its colours come from the
same stylesheet the app loads, read here once with Textual's own CSS parser, so a colour is
changed in one place and never written in Python. The styles are the terminal's own colours,
equal to the Rich styles they replace ("bold red"): 16-colour terminals and NO_COLOR draw
them as before.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

from rich.color import ANSI_COLOR_NAMES, Color
from rich.style import Style
from textual.css.styles import RulesMap, Styles
from textual.css.stylesheet import Stylesheet

STYLE_SHEET = Path(__file__).with_name("styles.tcss")
# Rich's names of the terminal's 16 colours, by number ("red" for 1): a style reads as written.
_ANSI_NAMES = {number: name for name, number in reversed(ANSI_COLOR_NAMES.items()) if number < 16}


def style_of(name: str) -> Style:
    """The style of class `name` in the style map (`status--blocked`...); KeyError if none."""
    return _styles()[name]


@cache
def _styles() -> dict[str, Style]:
    sheet = Stylesheet()
    sheet.read(STYLE_SHEET)
    sheet.parse()
    found: dict[str, Style] = {}
    for rule in sheet.rules:
        rich = _rich_style(rule.styles)
        for selector in rule.selector_set:
            found[selector.css.removeprefix(".")] = rich
    return found


def _rich_style(styles: Styles | RulesMap) -> Style:
    assert isinstance(styles, Styles)
    color = None
    if styles.has_rule("color"):
        ansi = styles.color.ansi
        if ansi is not None and ansi in _ANSI_NAMES:
            color = Color.parse(_ANSI_NAMES[ansi])
        else:
            color = styles.color.rich_color
    text_style = Style.parse(str(styles.text_style)) if styles.has_rule("text_style") else Style()
    return text_style + Style(color=color)
