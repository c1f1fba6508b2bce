"""The review is open in another evaltui that is still alive: open it read-only, or take it over.

Shown before the main screen when the pair's lock is held by a live process (one whose process
or terminal is gone is taken over without asking, `core/record/lock.py`). Like vim's swap-file
prompt and `tmux attach -d`: `r` opens the review read-only (browse, search, read transcripts;
every key that writes says why it does not), `t` tells the other evaltui to end (it ends as q
does, its drafts already on disk) and opens the review once it has let go, `q` quits (from the
run-set matrix: back to the matrix, the pair left unopened).
"""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Static

from evaltui.ui.safe import literal_line

READ_ONLY = "read-only"
TAKE_OVER = "take over"
QUIT = "quit"
QUIT_LABEL = "quit, leaving the other evaltui as it is"  # (a pair; the run-set matrix stays)


class LockPromptScreen(ModalScreen[str]):
    """Dismisses with READ_ONLY, TAKE_OVER or QUIT."""

    BINDINGS = [
        Binding("r", "choose('read-only')", "Open read-only", id="lock.read_only"),
        Binding("t", "choose('take over')", "Take over: end the other evaltui", id="lock.take"),
        Binding("q", "choose('quit')", "Quit", id="lock.quit"),
        Binding("escape", "choose('quit')", "Quit", id="lock.escape", show=False),
    ]

    def __init__(
        self, holder: str, pid: int | None, problem: str = "", quit_label: str = QUIT_LABEL
    ) -> None:
        super().__init__()
        self.quit_label = quit_label  # what q does: quit the app, or back to the matrix
        self.holder = holder  # "pid N on HOST, since T, terminal /dev/pts/3"
        self.pid = pid  # None: the holder's text is unreadable (it cannot be ended from here)
        self.problem = problem  # why the last take-over failed, if it did

    def compose(self) -> ComposeResult:
        with Vertical(id="lock-box", classes="dialog"):
            yield Static(Text("This review is open in another evaltui", style="bold"))
            yield Static(literal_line(self.holder, 90))
            if self.problem:
                yield Static(literal_line(self.problem, 200, style="bold"), id="lock-problem")
            choices = Text()
            choices.append("r", style="bold reverse")
            choices.append(
                " open read-only: browse, search, read transcripts; nothing is written\n"
            )
            if self.pid is not None:
                choices.append("t", style="bold reverse")
                choices.append(
                    f" take over: tell pid {self.pid} to end (its tags are on disk, its typing "
                    "kept as a draft), then open the review here\n"
                )
            choices.append("q", style="bold reverse")
            choices.append(f" {self.quit_label}")
            yield Static(choices, id="lock-choices")

    def action_choose(self, choice: str) -> None:
        if choice == TAKE_OVER and self.pid is None:
            return
        self.dismiss(choice)
