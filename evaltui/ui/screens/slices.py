"""`l`: per-slice 2x2 counts, delta, interval and adjusted p, with a forest plot against zero.

Selecting a slice filters the regression list to it.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from rich.text import Text
from textual.app import ComposeResult, SystemCommand
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from evaltui.core.decide.effect import OverallRow
from evaltui.core.words import forest_bar, format_p, interval_digits, points
from evaltui.ui.safe import literal_line
from evaltui.ui.screens.bulk import bulk_tag
from evaltui.ui.screens.given import GivenState
from evaltui.ui.screens.keys import FooterKeys, Shown
from evaltui.ui.screens.listkeys import LIST_KEYS, ListKeys, MarkedOptionList
from evaltui.ui.styles import style_of
from evaltui.ui.widgets.key_footer import KeyFooter

# A slice's verdict (after the multiplicity adjustment): the regression or improvement colour,
# and a mark that reads without colour.
VERDICT_MARK = {
    "regressed": (style_of("verdict--regressed"), "▼"),
    "improved": (style_of("verdict--improved"), "▲"),
}


NAME_MAX, NAME_MIN = 16, 8  # the slice name's column: cut (…) before the numbers ever are
BAR_MIN, BAR_MAX = 5, 40  # the forest plot's columns; narrower than that, it folds below
LIST_INSET = 4  # the list's border, padding and ▶ gutter: the header line starts after them


def slice_rows(
    slices: list, width: int, overall: OverallRow | None = None
) -> tuple[str, list[Option]]:
    """The column header and one option per slice, at `width` columns: every number in full
    (counts with thousands separators, the interval to the decimals its width needs, the
    adjusted p as `format_p` writes it). Only the name is cut; when the forest plot would
    get fewer than BAR_MIN columns it goes on a line of its own below the numbers. The overall
    row reads `overall` when given (the header's interval and verdict)."""

    def interval(s: Any) -> tuple[float, float]:
        if s.is_overall and overall is not None:
            return overall.ci
        return s.comparison.delta_ci.lower, s.comparison.delta_ci.upper

    span = max((max(abs(v) for v in interval(s)) for s in slices), default=1.0)
    cells = []
    for s in slices:
        c, t = s.comparison, s.table
        lo, hi = interval(s)
        digits = interval_digits(lo, hi, True)
        name = s.name
        p = s.p_adjusted
        if s.is_overall:
            name = overall.label if overall is not None else "overall"
            p = overall.p if overall is not None else p
        cells.append(
            (
                name,
                f"{s.n:,}",
                f"{t.regressions:,}/{t.improvements:,}",
                points(c.delta),
                f"[{points(lo, digits)}, {points(hi, digits)}]",
                format_p(p),
            )
        )
    heads = ("slice", "n", "−/+", "Δ", "interval", "p")
    widths = [max(len(h), *(len(row[i]) for row in cells)) for i, h in enumerate(heads)]
    numbers = sum(widths[1:]) + 1 + 6  # the numbers, the verdict mark, the gaps between
    name = min(NAME_MAX, widths[0])
    bar = width - numbers - name - 1
    if bar < BAR_MIN:  # the name gives way first
        name = max(NAME_MIN, min(name, width - numbers - 1 - BAR_MIN))
        bar = width - numbers - name - 1
    fold = bar < BAR_MIN
    bar = min(BAR_MAX, width - 2) if fold else min(BAR_MAX, bar)
    widths[0] = name

    def line(values: tuple[str, ...], plot: str | None) -> list[str]:
        out = [values[0][:name].ljust(name)]
        out += [v.rjust(w) for v, w in zip(values[1:5], widths[1:5], strict=True)]
        if plot is not None and not fold:
            out.append(plot)
        out.append(values[5].rjust(widths[5]))
        return out

    header = " " * LIST_INSET + " ".join(line(heads, " " * bar))
    options = []
    for s, values in zip(slices, cells, strict=True):
        c = s.comparison
        lo, hi = interval(s)
        plot = forest_bar(lo, c.delta, hi, span or 1.0, bar)
        parts = line(values, plot)
        row = Text(no_wrap=True)
        name_cell = literal_line(values[0], name, style="bold" if s.is_overall else "")
        row.append_text(name_cell)
        row.pad_right(name - name_cell.cell_len)
        row.append(" " + " ".join(parts[1:-1]) + " ")
        # Colour follows the direction of a difference core calls real (its verdict, after
        # the adjustment), never significance alone; the mark says it without colour.
        verdict = overall.verdict if s.is_overall and overall is not None else s.verdict
        style, mark = VERDICT_MARK.get(verdict, ("", " "))
        row.append(f"{parts[-1]} {mark}", style=style)
        if fold:
            row.append(f"\n  {plot}")
        options.append(Option(row, id=s.name, disabled=s.is_overall))
    return header, options


class SlicesScreen(GivenState, FooterKeys, ListKeys, ModalScreen[None]):
    BINDINGS = [
        Binding("escape,l", "close", "Close", id="slices.close"),
        Binding("T", "bulk_tag", "Tag the slice's regressions", id="slices.bulktag"),
        *LIST_KEYS,
    ]
    FOOTER = (
        Shown("slices.close", "Close"),
        Shown("action:select", "Show its regressions"),
        Shown("slices.bulktag", "Tag them all"),
        Shown("list.option.down", "Move", key="j/k"),
    )

    def compose(self) -> ComposeResult:
        slices = self._slices()
        overall = OverallRow.of(self.state.require_loaded().analysis)
        header, options = slice_rows(slices, self._row_width(), overall)
        with Vertical(id="slices-box", classes="dialog"):
            adjust = slices[0].adjust if slices else "holm"
            level = f"{slices[0].comparison.confidence * 100:g}%" if slices else ""
            yield Static(
                Text.assemble(
                    ("Slices", "bold"),
                    f"  Δ and {level} interval in pts, against zero; p adjusted ({adjust})\n",
                    ("▼ worse / ▲ better: the difference holds after the adjustment\n", "dim"),
                    f"overall: the header's interval and test ({overall.note})\n",
                    (header, "dim"),
                ),
                id="slices-title",
            )
            yield MarkedOptionList(*options, id="slice-list")
        yield KeyFooter()

    def _slices(self) -> list:
        return sorted(self.state.require_loaded().analysis.slices, key=lambda s: not s.is_overall)

    def _row_width(self) -> int:
        """The width of an option's text: the dialog (98%, at most 120 columns) less its
        border and padding, the list's border and padding, the ▶ gutter and a scrollbar."""
        return int(min(120, self.app.size.width * 0.98)) - 12

    def on_mount(self) -> None:
        self.query_one(OptionList).focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        name = event.option.id
        store = self.state.views["regressions"].rows  # (the ids only: no row made)
        ids = tuple(store.ids[at] for at in store.positions_in_slice(name))
        self.state.show_items(ids, f"slice {name}", "regressions")

    def action_bulk_tag(self) -> None:
        """Tag every regression of the highlighted slice (asks first, names how many)."""
        options = self.query_one(OptionList)
        if options.highlighted is None:
            return
        name = options.get_option_at_index(options.highlighted).id
        store = self.state.views["regressions"].rows  # (the slice's rows: made now)
        rows = [store.row(at) for at in store.positions_in_slice(name)]
        if not rows:
            self.notify("this slice has no regressions to tag", timeout=3)
            return
        what = f"regressions · slice {name}"
        bulk_tag(self, self.state, [r.item_id for r in rows], what, sum(1 for r in rows if r.tag))

    def palette_commands(self) -> Iterable[SystemCommand]:
        yield SystemCommand(
            "Tag the slice's regressions", "Bulk tag the highlighted slice (T)",
            self.action_bulk_tag,
        )  # fmt: skip

    def action_close(self) -> None:
        self.dismiss(None)
