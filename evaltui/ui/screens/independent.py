"""`evaltui BASE CAND --design independent` (or `auto` on two runs of different items): the
independent (unpaired) comparison, read only.

The same facts in the same words as `evaltui report BASE CAND --design independent`, in the
same order: the decision line first (the words of `decide_independent(...).line`, its status
word in reverse video as the main screen's header draws it, so it reads without colour), then
the label and the reason the paired analysis was impossible, the arms, the difference with its
interval, the test the verdict rests on and the one beside it, the warnings, the inputs. Every
line is made from the report's data (`Independent.report`, `independent_report_dict`); nothing
is computed here.

There are no item pairs, so there is nothing to list, tag or note, and no sign-off record (a
record signs off pairs and their tags): `x` says so and names the report to paste in a PR
instead. Paths come from the command line and warnings may quote a run's metadata, so every
such text is drawn inertly (`safe.literal`): a file called `[bold]x.jsonl` reads as written.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from rich import box
from rich.console import Group
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult, SystemCommand
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import Static

from evaltui.core.analysis.independent import VERDICT_TEXT
from evaltui.core.report.independent import arm_rows, comparison_lines
from evaltui.ui.messages import Independent
from evaltui.ui.safe import literal
from evaltui.ui.screens.given import GivenState
from evaltui.ui.screens.keys import PALETTE, FooterKeys, Shown
from evaltui.ui.styles import style_of
from evaltui.ui.widgets.header_pane import VERDICT_STYLE, decision_text
from evaltui.ui.widgets.key_footer import KeyFooter

NO_PAIRS = "no item pairs to triage: the runs share no items"
REPORT_COMMAND = "evaltui report BASE CAND --design independent --format markdown"
NO_RECORD = (
    "an independent (unpaired) comparison has no sign-off record: a record signs off item "
    "pairs and the reviewer's tags on them, and these runs share no items. For a PR, paste the "
    f"report: {REPORT_COMMAND} (BASE and CAND the two inputs on this screen)"
)


class IndependentScreen(GivenState, FooterKeys, Screen):
    """The independent comparison of two runs of different items; nothing to review."""

    DEFAULT_CSS = """
    #independent-body {
        height: 1fr;
        padding: 0 1;
        scrollbar-size-vertical: 1;
    }
    #independent-body > Static {
        height: auto;
        margin-bottom: 1;
    }
    """
    BINDINGS = [
        Binding(
            "x",
            "explain_signoff",
            "Sign off: why there is no record, and the report for a PR",
            id="independent.signoff",
        ),
        Binding("down,j", "scroll(1)", "Scroll down", show=False, id="independent.down"),
        Binding("up,k", "scroll(-1)", "Scroll up", show=False, id="independent.up"),
        Binding("pagedown", "page(1)", "Page down", show=False, id="independent.pagedown"),
        Binding("pageup", "page(-1)", "Page up", show=False, id="independent.pageup"),
    ]
    FOOTER = (
        Shown("independent.signoff", "Sign-off?"),
        Shown("independent.down", "Scroll", key="j/k"),
        Shown("app.help", "Help"),
        Shown("app.quit", "Quit"),
        Shown(PALETTE, "Commands"),
    )

    @property
    def shown(self) -> Independent:
        independent = self.state.independent
        assert independent is not None  # the screen is pushed once the comparison is made
        return independent

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="independent-body"):
            yield Static(id="independent-decision")
            yield Static(id="independent-design")
            yield Static(id="independent-numbers")
            yield Static(id="independent-inputs")
        yield KeyFooter()

    def on_mount(self) -> None:
        shown = self.shown
        d = shown.report
        self.query_one("#independent-decision", Static).update(decision_block(shown))
        self.query_one("#independent-design", Static).update(design_block(d))
        self.query_one("#independent-numbers", Static).update(numbers_block(d))
        self.query_one("#independent-inputs", Static).update(inputs_block(d))
        self.query_one("#independent-body", VerticalScroll).focus()

    # -- actions ------------------------------------------------------------------------------

    def action_explain_signoff(self) -> None:
        self.notify(NO_RECORD, title="No sign-off record", severity="warning", timeout=20)

    def action_scroll(self, lines: int) -> None:
        self.query_one("#independent-body", VerticalScroll).scroll_relative(
            y=lines, animate=False, immediate=True
        )

    def action_page(self, pages: int) -> None:
        body = self.query_one("#independent-body", VerticalScroll)
        body.scroll_relative(y=pages * max(1, body.size.height - 1), animate=False, immediate=True)

    def palette_commands(self) -> Iterable[SystemCommand]:
        yield SystemCommand(
            "Sign off",
            "Why an unpaired comparison has no sign-off record; the report for a PR (x)",
            self.action_explain_signoff,
        )


# -- the blocks, from the report's data ------------------------------------------------------


def decision_block(shown: Independent) -> Text:
    """The decision line, then its reasons but the first (the label and the design's reason,
    which the next block says on its own lines)."""
    text = decision_text(shown.decision)
    for reason in shown.report["decision"]["reasons"]:
        if reason["kind"] != "independent":
            text.append("\n• ")
            text.append_text(literal(reason["text"], style="bold" if reason["blocking"] else ""))
    return text


def design_block(d: dict[str, Any]) -> Text:
    """The label, why the paired analysis was impossible, and that there is nothing to triage."""
    text = Text()  # (Text("...", style=...) would be the base style of every line after it)
    text.append(d["design_label"], style="bold")
    text.append("\nwhy not paired: ")
    text.append_text(literal(d["design_choice"]["reason"]))
    text.append(f"\n{NO_PAIRS}", style="italic")
    return text


def numbers_block(d: dict[str, Any]) -> Group:
    """The verdict in words, the arms' table and the comparison's lines as the report prints
    them (`arm_rows`, `comparison_lines`), then the flags and warnings in words."""
    verdict = d["verdict"]
    parts: list[Any] = [
        Text.assemble("Verdict: ", (VERDICT_TEXT[verdict], VERDICT_STYLE[verdict])),
    ]
    if d["metric"] != "passed":  # (a score column's name, from the runs)
        parts.append(Text.assemble(("metric: ", "bold"), literal(d["metric"])))
    header, rows = arm_rows(d)
    table = Table(box=box.SIMPLE_HEAD, pad_edge=False, show_edge=False)
    for column in header:
        table.add_column(column, justify="right" if column else "left")
    for row in rows:
        table.add_row(Text(row[0], style="bold"), *row[1:])
    parts.append(table)
    for line in comparison_lines(d, md=False):
        if line:
            parts.append(Text(line.removeprefix("- ")))
    for warning in d["warnings"]:
        said = Text("⚠ ", style=style_of("caution--strong"))
        said.append_text(literal(warning, style=style_of("caution")))
        parts.append(said)
    return Group(*parts)


def inputs_block(d: dict[str, Any]) -> Text:
    """Each input: its path as given (inert), format, items, records and its full sha256."""
    text = Text()
    text.append("inputs", style="bold")
    for arm in ("baseline", "candidate"):
        i = d["inputs"][arm]
        text.append(f"\n{arm}: ", style="bold")
        text.append_text(literal(i["path"]))
        text.append(
            f"\n  {i['format']} · {d['arms'][arm]['items']:,} items · "
            f"{d['arms'][arm]['records']:,} records\n  sha256 {i['sha256']}"
        )
    return text
