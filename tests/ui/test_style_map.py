"""One style map: every colour the UI draws comes from `ui/styles.tcss` (or a widget's own
component classes), never from a colour written in the UI's Python."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from rich.errors import StyleSyntaxError
from rich.style import Style

from evaltui.ui.styles import STYLE_SHEET, _styles, style_of

UI = Path(__file__).resolve().parents[2] / "evaltui" / "ui"


def _coloured_literals(path: Path) -> list[str]:
    """String constants in `path` that Rich would read as a style with a colour."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not (isinstance(node, ast.Constant) and isinstance(node.value, str)):
            continue
        if not node.value.strip() or len(node.value) > 60:
            continue
        try:
            parsed = Style.parse(node.value)
        except StyleSyntaxError:
            continue
        if parsed.color is not None or parsed.bgcolor is not None:
            found.append(f"{path.relative_to(UI)}:{node.lineno}: {node.value!r}")
    return found


def test_no_colour_is_written_in_the_ui_python():
    found = [hit for path in sorted(UI.rglob("*.py")) for hit in _coloured_literals(path)]
    assert found == []


def test_the_style_map_is_the_terminals_own_colours_so_16_colours_and_no_color_read_it():
    styles = _styles()
    assert styles, STYLE_SHEET
    for name, style in styles.items():
        assert style.color is not None and style.color.number is not None, name
        assert style.color.number < 16, name  # an ANSI colour, never a truecolor one


def test_the_map_draws_what_the_literals_it_replaced_drew():
    assert style_of("status--blocked") == Style.parse("bold reverse red")
    assert style_of("verdict--improved") == Style.parse("bold green")
    assert style_of("gate--pending") == Style.parse("yellow")
    assert style_of("diff--added-word") == Style(color="green", bold=True, reverse=True)
    with pytest.raises(KeyError):
        style_of("status--unknown")
