"""The reviewer's keys on the app (tag, note, undo, gates, slices, sign-off, help, the next
metric) and the command palette's entries for them.

A mixin of the app (`EvalTuiApp`); the writes themselves are the review state's (`ui/state.py`).
"""

from __future__ import annotations

from collections.abc import Iterable

from textual import work
from textual.app import SystemCommand
from textual.screen import Screen

from evaltui.core.decide.deciding import waiting_for
from evaltui.core.decide.other_metrics import metric_that_blocks
from evaltui.core.errors import EvalTuiError
from evaltui.core.record.adjudication import who_may_settle
from evaltui.core.record.drafts import clear_draft
from evaltui.core.record.session import adjudicate, adjudicators_of
from evaltui.core.record.session import judge_review as judge
from evaltui.ui.loading import list_rows, team_agreement, team_assignment
from evaltui.ui.messages import PairLoaded, WorkerProblem
from evaltui.ui.run_set_mode import RunSetMode
from evaltui.ui.state import Loaded


class ReviewActions(RunSetMode):
    """The app's reviewer actions (see the module's docstring)."""

    async def action_quit(self) -> None:
        self.state.closing = True
        self.exit(0)

    def current_item(self) -> str | None:
        """The item the reviewer is looking at, on whichever screen is on top."""
        getter = getattr(self.screen, "current_item_id", None)
        return getter() if getter else None

    def action_tag(self, number: int) -> None:
        if self.state.can_act():
            self.state.tag_key(self.current_item(), number)

    def action_clear_tag(self) -> None:
        self.state.tag(self.current_item(), None)

    def action_undo(self) -> None:
        """Undo the last tag or bulk tag (journalled: an undo appends, never rewrites)."""
        if self.state.can_act():
            self.state.undo()

    def action_adjudicate(self) -> None:
        """C on a disputed item: its adjudicator's dialog (every reviewer's tag and note, the
        settled tag and a reason); anyone else is told in one line who may settle it."""
        loaded, item_id = self.state.loaded, self.current_item()
        if loaded is None or self.state.closing or item_id is None or self.state.refuse_write():
            return
        session = loaded.session
        review = session.review(item_id)
        if session.team is None or not (review.disputed or review.adjudication is not None):
            self.notify(f"{item_id} is not disputed: nothing to settle", timeout=4, markup=False)
            return
        adjudicators = adjudicators_of(loaded.analysis)
        if session.reviewer not in adjudicators:
            self.notify(
                f"{session.reviewer or 'you'} cannot settle {item_id}: "
                + who_may_settle(adjudicators),
                severity="warning",
                timeout=8,
                markup=False,
            )
            return

        def settle(settled: tuple[str, str] | None) -> None:
            current = self.state.loaded
            if settled is None or current is None or current.session is not session:
                return
            tag, reason = settled
            try:
                adjudicate(current.analysis, session, item_id, tag, reason)  # after fsync
            except EvalTuiError as exc:
                self.state.not_saved(f"settling {item_id}", exc)
                return
            self.state.others_changed((item_id,))  # (rows, gates and decision follow)
            self.notify(f"settled: {item_id} → {tag}", timeout=4, markup=False)

        from evaltui.ui.screens.adjudicate import AdjudicateScreen  # (see `action_help`)

        self.push_screen(AdjudicateScreen(review, session.info.tags), settle)

    def action_note(self) -> None:
        item_id = self.current_item()
        if self.state.loaded is None or self.state.closing or item_id is None:
            return
        if not self.state.refuse_write():
            self.edit_note(item_id)

    def edit_note(self, item_id: str, draft: str | None = None) -> None:
        """The note editor on `item_id` (opened with `draft`: text recovered from a session
        that ended before it was saved); the draft is dropped once the note is journalled."""
        if self.state.loaded is None:
            return
        from evaltui.ui.screens.note import NoteScreen  # (see `action_help`)

        current = self.state.loaded.session.own_review(item_id).note
        folder = self.state.draft_folder()

        def save(note: str | None) -> None:
            if note is None or self.state.loaded is None:
                return
            if self.state.save_note(item_id, note):
                if folder is not None:
                    clear_draft(folder)
            elif not self.state.closing:
                # not written: reopen the editor with the typed text
                self.push_screen(NoteScreen(item_id, current, folder, note), save)

        self.push_screen(NoteScreen(item_id, current, folder, draft), save)

    def action_next_metric(self) -> None:
        """Compare the pair on the next metric it carries (re-analysed off the UI thread)."""
        loaded = self.state.loaded
        if loaded is None or self.state.closing:
            return
        run_set = self.state.run_set
        if run_set is not None:  # (the palette's Next metric; the key is the matrix's)
            self.notify(f"every pair of the run set compares {run_set.metric}", timeout=4)
            return
        names = [row.metric for row in loaded.analysis.metrics]
        if not names:
            self.notify("still computing the other metrics…", timeout=3)
            return
        if len(names) < 2:
            only = loaded.analysis.metrics[0].name
            self.notify(f"these runs carry a single metric ({only})", timeout=3, markup=False)
            return
        self.state.metric_chosen = True
        current = loaded.analysis.metric
        nxt = names[(names.index(current) + 1) % len(names)] if current in names else names[0]
        self.notify(f"switching to {nxt}…", timeout=2, markup=False)
        self.switch_metric(nxt)

    def open_on_blocking_metric(self) -> None:
        """Once the decision is made: when another scorer than the compared one blocks (and
        the compared one did not regress), show that scorer's regressions, so the first list
        a reviewer reads holds the items that block. Once per pair, and never after the
        reviewer chose a metric (m) or left the list (an item, a dialog)."""
        loaded = self.state.loaded
        if (
            loaded is None
            or self.state.metric_chosen
            or self.state.closing
            or self.state.run_set is not None
            or waiting_for(loaded.analysis)
            or not loaded.analysis.metrics
        ):
            return
        self.state.metric_chosen = True
        target = metric_that_blocks(loaded.analysis)
        if target is None or self.screen is not self.main_screen:
            return
        name = next(r.name for r in loaded.analysis.metrics if r.metric == target)
        self.notify(
            f"showing {name}: the scorer that blocks (m: the next metric)",
            timeout=6,
            markup=False,
        )
        self.switch_metric(target)

    @work(thread=True, exclusive=True, group="load")
    def switch_metric(self, metric: str) -> None:
        from evaltui.core.analysis.pipeline import reanalyse

        loaded = self.state.loaded
        if loaded is None:
            return
        try:
            analysis = reanalyse(loaded.analysis, metric)
            rows = list_rows(analysis, loaded.session)
            gates, decision = judge(analysis, loaded.session)
            dealt = team_assignment(self.config.team, analysis)
        except EvalTuiError as exc:
            self.post_message(WorkerProblem(str(exc)))
            return
        agreement = team_agreement(analysis, loaded.session)
        changed = Loaded(
            analysis, loaded.session, rows, gates, decision, agreement=agreement, assignment=dealt
        )
        self.post_message(PairLoaded(changed))

    def action_gates(self) -> None:
        from evaltui.ui.screens.gates import GatesScreen  # (see `action_help`)

        loaded = self.state.loaded
        if loaded is None or self.state.closing:
            return
        pending = waiting_for(loaded.analysis)
        if loaded.gates and pending:  # (a gate's status may change when they arrive)
            self.notify(
                f"the gates are evaluated once the decision is made (computing the "
                f"{' and '.join(pending)}…)",
                timeout=4,
            )
        elif loaded.gates and not isinstance(self.screen, GatesScreen):
            self.push_screen(GatesScreen(self.state))
        elif not loaded.gates:
            self.notify("no release policy: open the pair with --policy FILE", timeout=4)

    def action_slices(self) -> None:
        from evaltui.ui.screens.slices import SlicesScreen  # (see `action_help`)

        loaded = self.state.loaded
        if loaded is None or self.state.closing:
            return
        if loaded.analysis.slices:
            if not isinstance(self.screen, SlicesScreen):
                self.push_screen(SlicesScreen(self.state))
        elif not loaded.analysis.metrics:
            self.notify("still computing the slices…", timeout=3)
        else:
            self.notify("no slices to show (needs a slice column and pass/fail verdicts)")

    def action_export(self) -> None:
        if self.state.run_set is not None and self.state.loaded is None:  # (the palette's: matrix)
            self.sign_off_run_set()
            return
        if self.state.can_act() and self.state.run_set is not None:
            # A record of one pair would not verify: its p-values are adjusted over every pair.
            self.notify(
                "three or more runs are signed off together, each pair with its own tags: go "
                "back to the matrix (m) and press x there, or run `evaltui signoff BASE CAND "
                "CAND2 ... --decision D --rationale R --output PREFIX` (tags made here are in "
                "each pair's journal, where both read them)",
                title="Sign off the whole set",
                severity="warning",
                timeout=20,
            )
            return
        writable = self.state.can_act() and not self.state.refuse_write()
        # (imported here: the sign-off screen's module is not needed before the first screen)
        from evaltui.ui.screens.signoff import SignoffScreen

        if writable and not isinstance(self.screen, SignoffScreen):
            self.push_screen(SignoffScreen(self.state))

    def action_help(self) -> None:
        # The screens these keys open (help, gates, slices, the note editor, the adjudication
        # dialog, as the sign-off's above) are imported when one first opens, not before every
        # pair's first screen: with what only they use (the text area, radio buttons, the
        # option lists' keys) and the picker, ~25 ms of the UI thread's start-up
        # (`tests/ui/test_start_up_imports.py`).
        from evaltui.ui.screens.help import HelpScreen

        if not self.state.closing and not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen(self.state))

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)
        yield SystemCommand("Help", "Show every key (?)", self.action_help)
        commands = getattr(screen, "palette_commands", None)
        if not self.state.design.signs_off:  # (no pairs: nothing to tag, note, gate or sign)
            yield from commands() if commands else ()
            return
        yield SystemCommand("Sign off", "Write the sign-off record (x)", self.action_export)
        # The same action under the words a reviewer looks for it by.
        yield SystemCommand(
            "Export the sign-off (save JSON, Markdown for a PR, CSV)",
            "PREFIX.json, PREFIX.md and PREFIX.csv (x)",
            self.action_export,
        )
        yield SystemCommand("Edit note", "Write a note on the current item (e)", self.action_note)
        yield SystemCommand("Clear tag", "Remove the current item's tag (0)", self.action_clear_tag)
        yield SystemCommand("Undo tag", "Undo the last tag or bulk tag (z)", self.action_undo)
        yield SystemCommand("Release gates", "Each gate's status and items (g)", self.action_gates)
        yield SystemCommand("Slices", "Per-slice table and forest plot (l)", self.action_slices)
        if self.state.run_set is not None:
            yield SystemCommand(
                "Matrix", "Back to the matrix of every pair (m)", self.action_matrix
            )
        else:
            yield SystemCommand(
                "Next metric", "Compare on the next metric (m)", self.action_next_metric
            )
        if self.state.loaded is not None:
            for n, tag in enumerate(self.state.loaded.session.info.tags, start=1):
                yield SystemCommand(
                    f"Tag: {tag}", f"Tag the current item ({n})", lambda n=n: self.action_tag(n)
                )
        if commands:
            yield from commands()
