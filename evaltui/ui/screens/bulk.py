"""`T`: tag every item of the current filter or slice at once, after a confirmation that names
how many items it touches and shows a few of their ids.

A digit (or Enter on a tag) chooses the tag; `y` or Enter then writes it; Esc steps back. The
tags are written by core in one fsynced append (`ReviewSession.set_tags`), and `z` undoes them.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen, Screen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from evaltui.ui.safe import literal_line
from evaltui.ui.screens.given import GivenState
from evaltui.ui.screens.keys import TAGS, FooterKeys, Shown
from evaltui.ui.screens.listkeys import LIST_KEYS, ListKeys, MarkedOptionList
from evaltui.ui.state import ReviewState
from evaltui.ui.triage import describe_ids, tag_name
from evaltui.ui.widgets.key_footer import KeyFooter

CLEAR = "\0clear"  # the option that clears the tags (no tag name can hold a NUL)


class BulkTagScreen(GivenState, FooterKeys, ListKeys, ModalScreen[str | None | bool]):
    """Dismisses with the chosen tag (None: clear the tags), or False when cancelled."""

    BINDINGS = [
        Binding("escape", "back", "Back / cancel", id="bulk.back"),
        Binding("y", "confirm", "Yes, tag them all", id="bulk.yes"),
        *[
            Binding(str(n), f"choose({n})", "Choose the tag (0 clears)", id=f"bulk.tag{n}")
            for n in range(10)
        ],
        *LIST_KEYS,
    ]
    FOOTER = (
        Shown(TAGS, "Choose the tag"),
        Shown("bulk.tag0", "Clear them"),
        Shown("bulk.yes", "Yes, tag them"),
        Shown("bulk.back", "Back"),
        Shown("list.option.down", "Move", key="j/k"),
    )

    def __init__(
        self,
        state: ReviewState,
        item_ids: Sequence[str],
        what: str,
        tags: Sequence[str],
        tagged: int,
    ) -> None:
        super().__init__(state)
        self.item_ids = list(item_ids)
        self.what = what  # e.g. "regressions · slice=dosage"
        self.tags = list(tags)
        self.tagged = tagged  # how many of them already carry a tag
        self.chosen: str | None | bool = False  # False: nothing chosen yet

    def compose(self) -> ComposeResult:
        n = len(self.item_ids)
        with Vertical(id="bulk-box", classes="dialog"):
            title = Text(f"Tag {n:,} item{'s' if n != 1 else ''} at once", style="bold")
            yield Static(title)
            summary = Text()
            summary.append("the list as shown: ", style="dim")
            summary.append_text(literal_line(self.what, 70))
            summary.append("\n")
            summary.append_text(literal_line(describe_ids(self.item_ids), 200))
            if self.tagged:
                summary.append(
                    f"\n{self.tagged:,} of them already have a tag: it is replaced "
                    "(z undoes the whole bulk tag)",
                    style="bold",
                )
            yield Static(summary, id="bulk-summary")
            options = [
                Option(Text(f"{i}  {tag}"), id=tag) for i, tag in enumerate(self.tags, start=1)
            ]
            options.append(Option(Text("0  clear their tags"), id=CLEAR))
            yield MarkedOptionList(*options, id="bulk-tags")
            yield Static(
                "a digit or Enter chooses the tag · Esc cancels", id="bulk-hint", classes="hint"
            )
        yield KeyFooter()

    def on_mount(self) -> None:
        self.query_one(OptionList).focus()

    def action_choose(self, number: int) -> None:
        if number == 0:
            self._chose(None)
        elif number <= len(self.tags):
            self._chose(self.tags[number - 1])
        else:
            self.notify(f"no tag on key {number} (tags: 1-{len(self.tags)})", severity="warning")

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        if self.chosen is not False:  # Enter again: the confirmation
            self.action_confirm()
            return
        self._chose(None if event.option.id == CLEAR else event.option.id)

    def _chose(self, tag: str | None) -> None:
        self.chosen = tag
        n = len(self.item_ids)
        verb = f"as “{tag_name(tag)}”" if tag is not None else "with no tag (cleared)"
        ask = Text(f"Tag all {n:,} {verb}? ", style="bold")
        ask.append("y or Enter: yes · Esc: choose again", style="")
        hint = self.query_one("#bulk-hint", Static)
        hint.update(ask)
        hint.add_class("warning")

    def action_confirm(self) -> None:
        if self.chosen is not False:
            self.dismiss(self.chosen)

    def action_back(self) -> None:
        if self.chosen is not False:
            self.chosen = False
            hint = self.query_one("#bulk-hint", Static)
            hint.update("a digit or Enter chooses the tag · Esc cancels")
            hint.remove_class("warning")
            return
        self.dismiss(False)


def bulk_tag(
    screen: Screen, state: ReviewState, item_ids: Sequence[str], what: str, tagged: int
) -> None:
    """Ask (a dialog over `screen`), then tag `item_ids` with the chosen tag (journalled,
    fsynced, undoable) through the review state."""
    ids = list(item_ids)
    if state.refuse_write():  # read-only: say so before asking anything
        return

    def done(choice: str | None | bool) -> None:
        if choice is not False and not isinstance(choice, bool):
            state.tag_items(ids, choice)

    tags = state.loaded.session.info.tags if state.loaded is not None else ()
    screen.app.push_screen(BulkTagScreen(state, ids, what, tags, tagged), done)
