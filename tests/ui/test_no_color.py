"""NO_COLOR: every screen reads without colour. What colour shows (bad news, the cursor, the
chosen option, removed diff lines, a tag's meaning) is also a word, a mark, bold or reverse
video, and no meaningful text is drawn in a grey too dark to read on the dark background.

The screen is read as the terminal gets it: the compositor's strips after Textual's filters
(with NO_COLOR and native ANSI colours, its NoColor filter; without them its Monochrome filter
turned red on the dark background into grey 237 on grey 233)."""

from __future__ import annotations

import pytest
from rich.color import Color
from rich.style import Style

from evaltui.ui.app import AppConfig, create_app
from evaltui.ui.screens.gates import GatesScreen
from evaltui.ui.screens.item import ItemScreen
from evaltui.ui.screens.signoff import SignoffScreen
from evaltui.ui.screens.slices import SlicesScreen
from tests.ui.helpers import SAMPLE, settle

POLICY = SAMPLE[0].parent / "policy.toml"
# The terminal's own colours, as a dark terminal has them (what "default" means on screen).
TERMINAL_FG, TERMINAL_BG = (224, 224, 224), (18, 18, 18)
MIN_CONTRAST = 4.5  # WCAG AA for normal text


def _luminance(rgb: tuple[int, int, int]) -> float:
    def channel(c: int) -> float:
        c = c / 255
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (channel(c) for c in rgb)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def _rgb(color: Color | None, default: tuple[int, int, int]) -> tuple[int, int, int]:
    if color is None or color.is_default:
        return default
    triplet = color.get_truecolor()
    return (triplet.red, triplet.green, triplet.blue)


def contrast(style: Style) -> float:
    """The contrast ratio of a cell's text against its background, as a dark terminal draws
    it: default colours are the terminal's, reverse swaps them, dim blends halfway."""
    fg, bg = _rgb(style.color, TERMINAL_FG), _rgb(style.bgcolor, TERMINAL_BG)
    if style.reverse:
        fg, bg = bg, fg
    if style.dim:
        fg = tuple((a + b) // 2 for a, b in zip(fg, bg, strict=True))
    hi, lo = sorted((_luminance(fg), _luminance(bg)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def cells(app) -> list[list[tuple[str, Style]]]:
    """Every line of the screen as (character, style) pairs, after Textual's filters."""
    update = app.screen._compositor.render_full_update()
    lines = []
    for line in update.strips:
        row = []
        for strip in line:
            for segment in strip:
                if segment.control:
                    continue
                row.extend((char, segment.style or Style()) for char in segment.text)
        lines.append(row)
    return lines


def find(app, text: str) -> list[list[tuple[str, Style]]]:
    """The cells of every place `text` is on screen (one list per occurrence)."""
    found = []
    for row in cells(app):
        line = "".join(char for char, _ in row)
        start = line.find(text)
        while start >= 0:
            found.append(row[start : start + len(text)])
            start = line.find(text, start + 1)
    return found


def assert_readable(app, *texts: str) -> None:
    """Each text is on screen, and every visible character of it reads on the background."""
    for text in texts:
        places = find(app, text)
        assert places, f"{text!r} is not on screen"
        for place in places:
            for char, style in place:
                if not char.isspace():
                    assert contrast(style) >= MIN_CONTRAST, (
                        f"{text!r}: {char!r} drawn as {style} (contrast {contrast(style):.1f})"
                    )


def assert_no_colour(app) -> None:
    """NO_COLOR means none: every cell is in the terminal's own colours."""
    for row in cells(app):
        for char, style in row:
            for color in (style.color, style.bgcolor):
                assert color is None or color.is_default, f"{char!r} coloured: {style}"


def line_with(app, text: str) -> list[tuple[str, Style]]:
    rows = [row for row in cells(app) if text in "".join(char for char, _ in row)]
    assert rows, f"no line holds {text!r}"
    return rows[0]


def marked(app, marker: str) -> list[list[tuple[str, Style]]]:
    """The diff's lines marked `marker` ("- " or "+ " first), from the marker on."""
    out = []
    for row in cells(app):
        line = "".join(char for char, _ in row)
        start = len(line) - len(line.lstrip())
        if line[start : start + 2] == f"{marker} ":
            out.append(row[start:])
    return out


@pytest.fixture
def no_color(monkeypatch):
    monkeypatch.setenv("NO_COLOR", "1")  # before the app exists: Textual reads it at start


def policy_app(tmp_path):
    config = AppConfig.for_pair(SAMPLE[0], SAMPLE[1], state_root=tmp_path / "state", policy=POLICY)
    return create_app(config)


def test_the_readability_check_flags_the_old_no_color_greys():
    """The greys Textual's Monochrome filter made of red on the dark background, and dim
    text, fail the check; the terminal's own colours and reverse video pass it."""
    assert contrast(Style.parse("color(237) on color(233)")) < MIN_CONTRAST
    assert contrast(Style.parse("default on default")) >= MIN_CONTRAST
    assert contrast(Style.parse("reverse default on default")) >= MIN_CONTRAST


@pytest.mark.slow
async def test_main_screen_bad_news_and_cursor_read_without_colour(tmp_path, no_color):
    app = policy_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        assert app.no_color and app.native_ansi_color  # Textual's NoColor filter, not greys
        await pilot.press("1")  # the first regression: confirmed regression
        await settle(app, pilot)
        assert_no_colour(app)
        # The cursor row is marked by a character and drawn in reverse video.
        row = line_with(app, "▶ pharm-0020")
        assert all(style.reverse for char, style in row if char.strip())
        assert_readable(app, "BLOCKED", "confirmed regression")
        await pilot.press("j")
        assert "▶ pharm-0063" in "".join(char for char, _ in line_with(app, "pharm-0063"))
        # Off the cursor row the confirmed tag is bold: its meaning is more than a colour.
        tag = find(app, "confirmed regression")[-1]
        assert all(style.bold for _, style in tag)
        assert_readable(app, "pharm-0020", "confirmed regression")
        await pilot.press("h")  # the full header (it folds by itself at 80x24)
        await settle(app, pilot)
        assert_no_colour(app)
        assert_readable(
            app, "BLOCKED", "regressions 9", "✗ 3 failed", "no regressions in drug_interactions"
        )


@pytest.mark.slow
async def test_item_screen_and_diff_read_without_colour(tmp_path, no_color):
    app = policy_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        await pilot.press("enter")
        await settle(app, pilot)
        assert isinstance(app.screen, ItemScreen)
        assert_no_colour(app)
        assert_readable(app, "baseline PASS", "candidate FAIL", "untriaged", "BASELINE")
        await pilot.press("d")
        await pilot.pause()
        assert_no_colour(app)
        assert_readable(app, "--- baseline output", "+++ candidate output")
        removed, added = marked(app, "-"), marked(app, "+")
        assert removed and added  # every line of either side is marked, not only coloured
        for row in removed + added:
            assert_readable(app, "".join(char for char, _ in row)[:40])
        # The changed words inside changed lines are in reverse video.
        assert any(style.reverse for row in removed for _, style in row[2:])


@pytest.mark.slow
async def test_gates_and_slices_read_without_colour(tmp_path, no_color):
    app = policy_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        await pilot.press("g")
        await settle(app, pilot)
        assert isinstance(app.screen, GatesScreen)
        assert_no_colour(app)
        assert_readable(app, "✗ FAILED", "✓ PASSED", "… PENDING", "overall gain worth shipping")
        # The highlighted gate: a mark, and reverse video.
        (highlighted,) = find(app, "▶ ✗ FAILED  no regressions in drug_interactions")
        assert all(style.reverse for char, style in highlighted if char.strip())
        await pilot.press("escape", "l")
        await settle(app, pilot)
        assert isinstance(app.screen, SlicesScreen)
        assert_no_colour(app)
        assert_readable(app, "overall", "drug_interacti", "shipping")
        assert "▶ account" in "".join(char for char, _ in line_with(app, "account"))
        # A difference core calls real is marked by direction, not by colour alone; the overall
        # row reads as the header does (the cluster-aware interval: no significant difference).
        shipping = "".join(char for char, _ in line_with(app, "0/8"))
        assert shipping.rstrip(" ▎█…").endswith("▲")
        overall = "".join(char for char, _ in line_with(app, "9/21"))
        assert not overall.rstrip(" ▎█…").endswith(("▲", "▼"))


@pytest.mark.slow
async def test_signoff_dialog_reads_without_colour(tmp_path, no_color):
    app = policy_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        await pilot.press("x")
        await settle(app, pilot)
        assert isinstance(app.screen, SignoffScreen)
        assert_no_colour(app)
        assert_readable(app, "Sign off this comparison", "BLOCKED", "approve", "block")
        # The decision under the keyboard cursor is underlined; the chosen one is ●.
        assert all(style.underline for _, style in find(app, "approve")[0])
        await pilot.press("down", "enter")
        await pilot.pause()
        assert_readable(app, "●▌ block")
        assert find(app, "○▌ approve") and find(app, "○▌ needs-more-data")
