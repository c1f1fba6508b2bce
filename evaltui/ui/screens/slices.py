"""`l`: per-slice 2x2 counts, delta, interval and adjusted p, with a forest plot against zero.

Selecting a slice filters the regression list to it.
"""

from __future__ import annotations

from collections.abc import Iterable

from rich.text import Text
from textual.app import ComposeResult, SystemCommand
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Footer, OptionList, Static
from textual.widgets.option_list import Option

from evaltui.core.analysis import format_p, points
from evaltui.core.report import forest_bar
from evaltui.ui.safe import literal_line
from evaltui.ui.screens.bulk import bulk_tag
from evaltui.ui.screens.keys import FooterKeys, Shown
from evaltui.ui.screens.listkeys import LIST_KEYS, ListKeys, MarkedOptionList

# A slice's verdict (after the multiplicity adjustment): the regression or improvement colour,
# and a mark that reads without colour.
VERDICT_MARK = {"regressed": ("bold red", "▼"), "improved": ("bold green", "▲")}


class SlicesScreen(FooterKeys, ListKeys, ModalScreen[None]):
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
        slices = sorted(self.app.loaded.analysis.slices, key=lambda s: not s.is_overall)
        span = max(
            max(abs(s.comparison.delta_ci.lower), abs(s.comparison.delta_ci.upper)) for s in slices
        )
        inner = int(min(120, self.app.size.width * 0.98)) - 10  # dialog minus borders, padding
        bar = max(6, min(40, inner - 60))
        options = []
        for s in slices:
            c, t = s.comparison, s.table
            row = Text(no_wrap=True)
            name = "overall" if s.is_overall else s.name
            row.append_text(literal_line(name, 15, style="bold" if s.is_overall else ""))
            row.pad_right(16 - row.cell_len)
            row.append(f"{s.n:>5} {t.regressions:>3}/{t.improvements:<3} {points(c.delta):>6} ")
            row.append(f"[{points(c.delta_ci.lower, 0)}, {points(c.delta_ci.upper, 0)}]".ljust(12))
            row.append(forest_bar(c.delta_ci.lower, c.delta, c.delta_ci.upper, span or 1.0, bar))
            # Colour follows the direction of a difference core calls real (its verdict, after
            # the adjustment), never significance alone; the mark says it without colour.
            style, mark = VERDICT_MARK.get(s.verdict, ("", " "))
            row.append(f" {format_p(s.p_adjusted):>8} {mark}", style=style)
            options.append(Option(row, id=s.name, disabled=s.is_overall))
        with Vertical(id="slices-box", classes="dialog"):
            adjust = slices[0].adjust if slices else "holm"
            yield Static(
                Text.assemble(
                    ("Slices", "bold"),
                    f"  delta in pts, interval against zero; p adjusted ({adjust})\n",
                    ("▼ worse / ▲ better: the difference holds after the adjustment\n", "dim"),
                    ("slice               n  −/+   delta CI", "dim"),
                )
            )
            yield MarkedOptionList(*options, id="slice-list")
        yield Footer(compact=True, show_command_palette=False)

    def on_mount(self) -> None:
        self.query_one(OptionList).focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        name = event.option.id
        ids = tuple(r.item_id for r in self.app.views["regressions"].rows if r.slice == name)
        self.app.show_items(ids, f"slice {name}", "regressions")

    def action_bulk_tag(self) -> None:
        """Tag every regression of the highlighted slice (asks first, names how many)."""
        options = self.query_one(OptionList)
        if options.highlighted is None:
            return
        name = options.get_option_at_index(options.highlighted).id
        rows = [r for r in self.app.views["regressions"].rows if r.slice == name]
        if not rows:
            self.notify("this slice has no regressions to tag", timeout=3)
            return
        what = f"regressions · slice {name}"
        bulk_tag(self.app, [r.item_id for r in rows], what, sum(1 for r in rows if r.tag))

    def palette_commands(self) -> Iterable[SystemCommand]:
        yield SystemCommand(
            "Tag the slice's regressions", "Bulk tag the highlighted slice (T)",
            self.action_bulk_tag,
        )  # fmt: skip

    def action_close(self) -> None:
        self.dismiss(None)
