"""`evaltui DIR`: the runs of a log directory; the reviewer picks the baseline and the candidate.

The listing is core's (`logdir.list_runs`, header reads only) and runs in a worker, with a
progress line, so a folder of hundreds of Inspect logs shows its count as it goes. The two most
recent runs of one task are marked at first (`logdir.default_pair`); `b` and `c` mark the run
under the cursor as the baseline or the candidate, Enter opens the pair. Every text in the
table comes from the logs and is shown inertly.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.message import Message
from textual.screen import Screen
from textual.widgets import DataTable, Static

from evaltui.core.errors import EvalTuiError
from evaltui.core.read.logdir import Listing, RunEntry, default_pair, list_runs
from evaltui.core.read.remote.urls import as_typed
from evaltui.core.textsafe import one_line
from evaltui.core.words import plural
from evaltui.ui.safe import literal_line
from evaltui.ui.screens.keys import FooterKeys, Shown
from evaltui.ui.styles import style_of
from evaltui.ui.widgets.key_footer import KeyFooter

COLUMNS = ("#", "role", "task", "model", "date", "items", "scorer", "status", "file")
WIDTHS = {"task": 28, "model": 30, "scorer": 16, "status": 10, "file": 60}
RUN_LINE_CHARS = 400  # the run under the cursor, said whole (wrapped), up to this many


class ListingProgress(Message):
    def __init__(self, done: int, total: int) -> None:
        super().__init__()
        self.done, self.total = done, total

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, ListingProgress)


class ListingReady(Message):
    def __init__(self, listing: Listing | None, error: str | None = None) -> None:
        super().__init__()
        self.listing, self.error = listing, error


class PickerScreen(FooterKeys, Screen):
    """The runs of `directory`; `chosen(baseline, candidate)` is called with the pair picked.

    The table takes the room left by the lines around it, which stay on screen: at 80x24 a
    directory of 19 runs pushed the marked pair's line off the screen, and the file column
    past the right edge, so rows of one task, model and day could not be told apart. The run
    under the cursor is said whole on its own line (`#picker-run`)."""

    DEFAULT_CSS = """
    #picker-table {
        height: 1fr;
    }
    #picker-run, #picker-pair {
        height: auto;
    }
    """

    BINDINGS = [
        Binding("b", "mark('baseline')", "Baseline", id="picker.baseline"),
        Binding("c", "mark('candidate')", "Candidate", id="picker.candidate"),
        Binding("enter", "open", "Open pair", priority=True, id="picker.open"),
        Binding("j", "cursor_down", "Down", show=False, id="picker.down"),
        Binding("k", "cursor_up", "Up", show=False, id="picker.up"),
    ]
    FOOTER = (
        Shown("picker.baseline", "Baseline"),
        Shown("picker.candidate", "Candidate"),
        Shown("picker.open", "Open pair"),
        Shown("app.help", "Help"),
        Shown("app.quit", "Quit"),
        Shown("picker.down", "Move", key="j/k"),
    )

    def __init__(self, directory: Path, chosen: Callable[[Path, Path], None]) -> None:
        super().__init__()
        self.directory = directory
        self.chosen = chosen
        self.listing: Listing | None = None
        self.picked: dict[str, RunEntry | None] = {"baseline": None, "candidate": None}

    def compose(self) -> ComposeResult:
        title = Text("Runs in ", style="bold")
        title.append_text(literal_line(as_typed(self.directory), 100, style="bold"))
        yield Static(title, id="picker-title")
        yield Static("listing the runs…", id="picker-status")
        yield DataTable(id="picker-table", cursor_type="row", zebra_stripes=True)
        yield Static("", id="picker-run")
        yield Static("", id="picker-pair")
        yield KeyFooter()

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        for name in COLUMNS:
            table.add_column(name, key=name)
        table.focus()
        self.list_directory()

    @work(thread=True, exclusive=True, group="listing")
    def list_directory(self) -> None:
        try:
            listing = list_runs(
                self.directory, lambda done, total: self.post_message(ListingProgress(done, total))
            )
        except EvalTuiError as exc:
            self.post_message(ListingReady(None, str(exc)))
            return
        self.post_message(ListingReady(listing))

    def on_listing_progress(self, message: ListingProgress) -> None:
        self.query_one("#picker-status", Static).update(
            Text(f"reading run headers: {message.done:,} of {message.total:,}")
        )

    def on_listing_ready(self, message: ListingReady) -> None:
        status = self.query_one("#picker-status", Static)
        if message.listing is None:
            status.update(
                literal_line(
                    message.error or "cannot list the directory", style=style_of("failure")
                )
            )
            return
        self.listing = message.listing
        pair = default_pair(self.listing)
        if pair is not None:
            self.picked = {"baseline": pair[0], "candidate": pair[1]}
        runs = self.listing.runs
        other = self.listing.other_files
        others = f"; {plural(other, 'other file')} {'is' if other == 1 else 'are'} not harness logs"
        status.update(
            Text(f"{plural(len(runs), 'run')}, sorted by task then date")
            + (others if other else "")
            + " · b baseline · c candidate · Enter open"
        )
        self._fill()
        if pair is not None:
            self.query_one(DataTable).move_cursor(row=runs.index(pair[1]))

    def _fill(self) -> None:
        table = self.query_one(DataTable)
        table.clear()
        assert self.listing is not None
        for number, entry in enumerate(self.listing.runs, start=1):
            role = next((r for r, e in self.picked.items() if e is entry), "")
            cells = (
                str(number),
                Text(role.upper(), style="bold" if role else ""),
                literal_line(entry.task, WIDTHS["task"]),
                literal_line(entry.model, WIDTHS["model"]),
                literal_line(entry.date.replace("T", " "), 19),
                "?" if entry.items is None else f"{entry.items:,}",
                literal_line(entry.scorer, WIDTHS["scorer"]),
                literal_line(entry.status, WIDTHS["status"]),
                literal_line(entry.name, WIDTHS["file"]),
            )
            table.add_row(*cells, key=str(number))
        self._show_pair()

    def on_data_table_row_highlighted(self, message: DataTable.RowHighlighted) -> None:
        self._show_run()

    def _show_run(self) -> None:
        """The run under the cursor, every field whole (the table cuts them at 80 columns)."""
        entry = self._under_cursor()
        line = Text()
        if entry is not None:
            number = self.query_one(DataTable).cursor_row + 1
            line.append(f"▶ {number} ", style="bold")
            fields = [entry.name, entry.task, entry.model, entry.date.replace("T", " ")]
            fields.append("? items" if entry.items is None else plural(entry.items, "item"))
            fields += [entry.scorer, entry.status, entry.problem]
            line.append(one_line(" · ".join(f for f in fields if f), RUN_LINE_CHARS))  # wraps
        self.query_one("#picker-run", Static).update(line)

    def _show_pair(self) -> None:
        line = Text()
        for role in ("baseline", "candidate"):
            entry = self.picked[role]
            line.append(f"{role}: ", style="bold")
            line.append_text(literal_line(entry.name if entry else "(none: press the key)", 60))
            line.append("   ")
        self.query_one("#picker-pair", Static).update(line)

    def _under_cursor(self) -> RunEntry | None:
        if self.listing is None or not self.listing.runs:
            return None
        row = self.query_one(DataTable).cursor_row
        return self.listing.runs[row] if 0 <= row < len(self.listing.runs) else None

    def action_mark(self, role: str) -> None:
        entry = self._under_cursor()
        if entry is None:
            return
        if entry.status == "unreadable":
            self.notify(f"cannot be read: {entry.problem}", severity="warning", markup=False)
            return
        self.picked[role] = entry
        row = self.query_one(DataTable).cursor_row
        self._fill()
        self.query_one(DataTable).move_cursor(row=row)

    def action_open(self) -> None:
        base, cand = self.picked["baseline"], self.picked["candidate"]
        if base is None or cand is None:
            self.notify("mark a baseline (b) and a candidate (c) first", severity="warning")
            return
        if base is cand:
            self.notify("the baseline and the candidate are the same run", severity="warning")
            return
        self.chosen(base.path, cand.path)

    def action_cursor_down(self) -> None:
        self.query_one(DataTable).action_cursor_down()

    def action_cursor_up(self) -> None:
        self.query_one(DataTable).action_cursor_up()
