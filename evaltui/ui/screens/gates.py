"""`g`: every release gate with its status; Enter shows the items behind one in the list."""

from __future__ import annotations

from rich.console import Group
from rich.padding import Padding
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from evaltui.core.words import forest_bar, plural
from evaltui.ui.safe import literal, literal_line
from evaltui.ui.screens.given import GivenState
from evaltui.ui.screens.keys import FooterKeys, Shown
from evaltui.ui.screens.listkeys import LIST_KEYS, ListKeys, MarkedOptionList
from evaltui.ui.widgets.header_pane import GATE_ICON, GATE_STYLE
from evaltui.ui.widgets.key_footer import KeyFooter

DETAIL_INDENT = 10  # a gate's detail lines, wrapped ones too, start under its name


class GatesScreen(GivenState, FooterKeys, ListKeys, ModalScreen[None]):
    BINDINGS = [
        Binding("escape,g", "close", "Close", id="gates.close"),
        *LIST_KEYS,
    ]
    FOOTER = (
        Shown("gates.close", "Close"),
        Shown("action:select", "Show its items"),
        Shown("list.option.down", "Move", key="j/k"),
    )

    def compose(self) -> ComposeResult:
        loaded = self.state.loaded
        assert loaded is not None  # (the app opens this screen on a loaded pair)
        policy = loaded.analysis.policy
        options = []
        for index, gate in enumerate(loaded.gates):
            label = Text()
            label.append(
                f"{GATE_ICON[gate.status]} {gate.status.upper():8}", GATE_STYLE[gate.status]
            )
            label.append_text(literal_line(gate.name, 60, style="bold"))
            lines: list = [label, Padding(literal(gate.detail), (0, 0, 0, DETAIL_INDENT))]
            if getattr(gate, "margin", None) is not None:
                bar = Text(margin_bar(gate.margin), style="dim" if gate.margin.shown else "")
                lines.append(Padding(bar, (0, 0, 0, DETAIL_INDENT)))
            if gate.item_ids:
                hint = Text(f"Enter: show its {plural(len(gate.item_ids), 'item')}", style="dim")
                lines.append(Padding(hint, (0, 0, 0, DETAIL_INDENT)))
            options.append(Option(Group(*lines), id=str(index)))
        with Vertical(id="gates-box", classes="dialog"):
            title = Text("Release gates", style="bold")
            if policy is not None:
                title.append(f"  policy {policy.hash[:12]} · ", style="dim")
                title.append_text(literal_line(policy.source_path, 50, style="dim"))
            yield Static(title)
            yield MarkedOptionList(*options, id="gate-list")
        yield KeyFooter()

    def on_mount(self) -> None:
        self.query_one(OptionList).focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        assert event.option.id is not None  # (every option is made with its gate's index)
        gate = self.state.require_loaded().gates[int(event.option.id)]
        if not gate.item_ids:
            self.notify("this gate names no items", timeout=3)
            return
        regressions = set(self.state.require_loaded().analysis.regressions)
        in_list = "regressions" if set(gate.item_ids) & regressions else "improvements"
        self.state.show_items(tuple(gate.item_ids), f"gate: {gate.name}", in_list)

    def action_close(self) -> None:
        self.dismiss(None)


MARGIN_BAR_WIDTH = 41


def margin_bar(margin, width: int = MARGIN_BAR_WIDTH) -> str:
    """The margin's interval against its bounds, in text: ``┃`` the margin (-m, and +m for
    an equivalence band or a loss), ``─`` the 1 - 2 alpha interval, ``●`` the estimate, ``┆``
    zero. Read without colour: the bar says whether the interval clears the line."""
    lo, hi = margin.interval
    m = margin.margin
    values = [abs(v) for v in (lo, hi) if v == v] + [m]
    span = max(values) * 1.15
    low = lo if lo == lo else -span  # NaN (undecided): the bar spans the scale
    high = hi if hi == hi else span
    cells = list(forest_bar(low, margin.estimate, high, span, width))
    one_side = (m,) if margin.lower_is_better else (-m,)
    bounds = (-m, m) if margin.kind == "equivalence" else one_side
    for x in bounds:
        cells[round((x + span) / (2 * span) * (width - 1))] = "┃"
    return "".join(cells) + f"  {margin.interval_method}"
