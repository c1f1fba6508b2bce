"""The review state: what the app has open and what the reviewer did, given to every screen.

The app owns one `ReviewState` and hands it to each screen it opens (a constructor argument);
the messages that tell screens something changed carry it too (`AnalysisChanged`,
`ReviewChanged`, `ReviewsChanged`, `RunSetChanged`). Screens read it, and change it only
through its methods (`tag`, `tag_items`, `undo`, `show_items`...), which write to core's
journal first and then tell the app (its `ReviewHost` side) what changed, so the gates, the
decision and every screen follow. It holds no statistics: numbers come from core.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import KW_ONLY, dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from evaltui.core.analysis.concordant import BOTH_FAIL, BOTH_PASS, UNCHANGED
from evaltui.core.analysis.pair import item_values
from evaltui.core.decide.pair import tag_meanings
from evaltui.core.decide.vocabulary import FirstLine
from evaltui.core.designs import PAIR, Design
from evaltui.core.errors import EvalTuiError
from evaltui.core.read.field_reads import Said
from evaltui.core.read.hash_progress import size_done
from evaltui.core.record.assignment import Assignment
from evaltui.core.record.review_item import ItemReview
from evaltui.core.record.session import untriaged_regressions
from evaltui.core.record.team_view import shown_review
from evaltui.ui.background_gate import BackgroundGate
from evaltui.ui.config import AppConfig
from evaltui.ui.listmodel import ListRow, ListView
from evaltui.ui.row_store import RowsById, RowStore
from evaltui.ui.triage import Triage, tag_name

if TYPE_CHECKING:
    from evaltui.core.analysis.pair_result import Analysis
    from evaltui.core.analysis.run_set import RunSetAnalysis
    from evaltui.core.decide.pair import Decision
    from evaltui.core.decide.run_set import RunSetDecision
    from evaltui.core.record.journal import ReviewSession


RUN_SET_DECIDING = "each pair with the tags just made"  # what the set's deciding line waits for


@dataclass(frozen=True, repr=False)
class Loaded:
    """The open pair as the UI shows it: replaced, never mutated, when a worker finishes.

    `rows` are the lists' row stores; a row's `tag` and `preview` fields are updated in place
    as the reviewer tags and the previews arrive (the rows are the lists' own, shared by the
    views), and a row made later reads them then.
    """

    analysis: Analysis
    session: ReviewSession
    rows: dict[str, RowStore]  # (`loading.list_rows`: each row made when first asked for)
    gates: tuple[Any, ...] = ()
    decision: Any = None  # core.decision.Decision: what the header's first line says
    # By name only: handed over by position, a team's assignment once became the agreement
    # line (a run set's pair crashed in its header).
    _: KW_ONLY
    agreement: str | None = None  # a shared review: the reviewers' agreement line (core's words)
    assignment: Assignment | None = None  # a team's split of the regressions (`--reviewers`)

    def __repr__(self) -> str:  # workers describe their arguments: never repr 100k rows
        sizes = ", ".join(f"{name} {len(rows)}" for name, rows in self.rows.items())
        return f"Loaded({sizes})"


@dataclass(frozen=True, repr=False)
class Independent:
    """Two runs of different items as the app shows them (`IndependentScreen`): the analysis,
    its decision and the report made from both, so the screen reads the report's words and
    numbers and computes nothing. There is no session: nothing to tag, nothing journalled."""

    analysis: Any  # core.unpaired.IndependentAnalysis
    decision: Decision
    report: dict[str, Any]  # unpaired_report.independent_report_dict(analysis, decision)

    def __repr__(self) -> str:
        return f"Independent({self.decision.line[:60]!r})"


class ReviewHost(Protocol):
    """What the state asks of the app that owns it: toasts, the refresh after a tag (gates and
    decision re-evaluated, the screens told) and the moves between screens. A protocol, so the
    state never imports the app."""

    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: Any = "information",
        timeout: float | None = None,
        markup: bool = True,
    ) -> None: ...

    def reviews_changed(self, item_ids: tuple[str, ...], many: bool) -> None: ...

    def show_list(self, list_name: str) -> None: ...

    def open_run_set_pair(self, row: int, col: int) -> None: ...

    def sign_off_run_set(self) -> None: ...

    def action_matrix(self) -> None: ...


@dataclass(eq=False, repr=False)
class ReviewState:
    """Everything a screen reads about the review: the open pair (`loaded`), its list views,
    the triage history, the run set and its cursor, the independent comparison."""

    config: AppConfig
    host: ReviewHost
    # The design of what is open (`core.designs`): its mode (`ui/modes.py`) says which keys apply.
    design: Design = PAIR
    loaded: Loaded | None = None
    views: dict[str, ListView] = field(default_factory=dict)
    triage: Triage = field(default_factory=Triage)  # what z undoes, newest last
    closing: bool = False  # set on quit, so keys typed after q open nothing new
    previews_ready: bool = False  # input texts still being read: search sees ids only
    # The records the pair's background readers (previews, search, unchanged items) could not
    # read and said so: each is said once, by the first to meet it (`core/read/field_reads`).
    said_refused: Said = field(default_factory=Said)
    # Held while an item opens: the previews' and the search index's readers wait meanwhile.
    background: BackgroundGate = field(default_factory=BackgroundGate)
    last_signoff: tuple[Any, ...] | None = None  # the paths the last sign-off wrote
    # Inputs whose sha256 came from the scan cache are re-hashed after the first screen;
    # the sign-off waits for that (see `check_inputs_confirmed`).
    confirmed_paths: set[str] = field(default_factory=set)
    # A remote run's sha256 is computed only then (docs/remote.md): its confirmed source.
    confirmed_sources: dict[str, Any] = field(default_factory=dict)
    inputs_problem: str | None = None
    # The bytes of the inputs hashed so far and to hash, while `confirm_inputs` runs and has
    # taken longer than a moment (`input_hashing.py`); None otherwise.
    inputs_hashed: tuple[int, int] | None = None
    # Three or more runs (`config.run_set`): the matrix, and the pair reviewed from it.
    run_set: RunSetAnalysis | None = None
    run_set_decision: RunSetDecision | None = None
    # The set is being decided anew (back on the matrix after a pair's review, whose tags
    # may change it): its last decision is not shown as if it were the answer.
    run_set_deciding: bool = False
    open_pair: tuple[int, int] | None = None  # the pair under review (None: the matrix)
    opening_pair: tuple[int, int] | None = None  # its review being opened in a worker
    matrix_cursor: tuple[int, int] = (1, 0)  # (row, column): candidate vs baseline
    reviewed_pairs: set[tuple[int, int]] = field(default_factory=set)  # `--fresh`: once each
    # Two runs of different items (`--design independent|auto`): shown, never reviewed.
    independent: Independent | None = None
    # While the analysis that decides runs (`complete_pair`): what it computes now, its step
    # and the steps, for the deciding line ("DECIDING… (clusters, step 1 of 3)").
    deciding_progress: tuple[str, int, int] | None = None
    # The reviewer chose the metric shown (m), or the app already opened on the one that
    # blocks (`ReviewActions.open_on_blocking_metric`): never switched for them again.
    metric_chosen: bool = False
    rows_by_id: RowsById = field(default_factory=lambda: RowsById([]))
    # Opened read-only at the lock prompt: what every key that would write says instead.
    read_only_reason: str = ""
    # A team's review (`--reviewers` or the policy's [review]): who reviews which regression.
    assignment: Assignment | None = None
    assigned_to_you: int = 0  # (counted once per pair: the title asks on every keystroke)
    _mine: frozenset[str] = frozenset()  # the regressions assigned to the reviewer

    def __repr__(self) -> str:  # (messages carry it: never repr the app or 100k rows)
        return f"ReviewState({self.loaded!r}, open_pair={self.open_pair})"

    # -- what is loaded ----------------------------------------------------------------------

    def adopt(self, loaded: Loaded) -> None:
        """A pair to show: its lists (graded: worst drops first, biggest gains first)."""
        self.loaded = loaded
        self.deciding_progress = None  # (a new pair: its own analysis reports its own)
        self.said_refused = Said()  # (its readers are new: its refusals are said anew)
        triaged = tag_meanings(loaded.analysis).triaged
        self.views = {
            name: ListView(rows, is_triaged=triaged) for name, rows in loaded.rows.items()
        }
        self.rows_by_id = RowsById(list(loaded.rows.values()))
        self._deal(loaded)
        if loaded.analysis.kind == "graded":
            self.views["regressions"].sort_key = "delta"
            self.views["improvements"].sort_key = "delta"
            self.views["improvements"].reverse = True
            for view in self.views.values():
                view.refresh()

    def _deal(self, loaded: Loaded) -> None:
        """The team's split of this pair's regressions (dealt by the loading worker:
        `loading.team_assignment`), marked on the rows; the reviewer's own first in every list."""
        self.assignment = loaded.assignment
        mine = set(self.assignment.of(self.you)) if self.assignment is not None else set()
        self._mine = frozenset(mine)
        self.assigned_to_you = len(mine)
        for store in loaded.rows.values():  # (rows made later get the same when made)
            self._dress_store(store)
        for view in self.views.values():
            view.assigned_first = self.assignment is not None
            view.refresh()

    def _dress_store(self, store: RowStore) -> None:
        """The store's rows show the reviewer's view of the tags and assignment, now and
        when they are made (`dress_row`)."""
        loaded = self.require_loaded()
        store.redress(self.dress_row, loaded.session.items.keys, self._mine)

    def dress_row(self, row: ListRow) -> None:
        """A row's assignment and its tag as this reviewer may see it."""
        row.assigned = row.item_id in self._mine
        self.show_review(row)

    @property
    def you(self) -> str:
        """Who is at the keys (the name every tag is journalled with)."""
        return self.loaded.session.reviewer if self.loaded is not None else ""

    def shown(self, item_id: str) -> tuple[ItemReview, int]:
        """The item's review as this reviewer may see it, and how many other reviews are
        hidden from them: with an assignment, the others' stay hidden until they tag it
        themselves (`team_view.shown_review`: the second judgment stays independent)."""
        review = self.require_loaded().session.review(item_id)
        if self.assignment is None:
            return review, 0
        return shown_review(review, self.you)

    def show_review(self, row: ListRow) -> None:
        """The row's tag as this reviewer may see it (`shown`)."""
        if self.assignment is None:  # nothing hidden: the session's own (a million rows at 1M)
            found = self.require_loaded().session.items.get(row.item_id)
            row.tag = found.tag if found is not None else None
            row.disputed, row.hidden = found is not None and found.disputed, 0
            return
        review, hidden = self.shown(row.item_id)
        row.tag, row.disputed, row.hidden = review.tag, review.disputed, hidden

    def assigned_counts(self) -> tuple[int, int] | None:
        """(assigned to you, regressions), or None without an assignment."""
        if self.assignment is None:
            return None
        return self.assigned_to_you, len(self.assignment.by_item)

    def concordant_names(self) -> tuple[str, ...]:
        """The lists of unchanged items this pair has ("both pass", "both fail"; "unchanged"
        for runs without verdicts), built or not."""
        if self.loaded is None:
            return ()
        verdicts = self.loaded.analysis.paired.has_verdicts
        return (BOTH_PASS, BOTH_FAIL) if verdicts else (UNCHANGED,)

    def adopt_concordant(self, built: dict[str, RowStore]) -> list[RowStore]:
        """The lists of unchanged items (`loading.concordant_rows`, built on first use: a big
        run has many); their stores, for their previews and search to be read."""
        loaded = self.require_loaded()
        for name, listed in built.items():
            self._dress_store(listed)
            view = ListView(listed, is_triaged=tag_meanings(loaded.analysis).triaged)
            if loaded.analysis.kind == "graded":
                view.sort_key = "delta"
                view.refresh()
            self.views[name] = view
        self.rows_by_id = RowsById([*self.rows_by_id.stores, *built.values()])
        return list(built.values())

    def replace_loaded(self, basis: Loaded, *, same_analysis: bool = False, **changes: Any) -> bool:
        """Take a worker's result for the pair `basis` showed; drop it (False) if the pair was
        re-analysed meanwhile (a metric switch), so an old result never overwrites a new one.
        `same_analysis`: the result only needs the analysis `basis` had (the completed
        analysis), so a decision re-evaluated after a tag meanwhile does not drop it (the
        pair would then say "deciding" for good); the caller re-evaluates the decision."""
        current = self.loaded
        if current is None:
            return False
        if current is not basis and not (same_analysis and current.analysis is basis.analysis):
            return False
        self.loaded = replace(current, **changes)
        return True

    def draft_folder(self) -> Path | None:
        """Where the open pair's drafts and place are kept (its journal's folder); None when
        no pair is open or its review is read-only."""
        loaded = self.loaded
        if loaded is None or loaded.session.read_only:
            return None
        return loaded.session.local_folder

    def require_loaded(self) -> Loaded:
        """The open pair, for a screen that is only ever opened on one (its item, gates,
        slices, sign-off); an AssertionError, reported as a bug, if there is none."""
        assert self.loaded is not None, "no pair is open"
        return self.loaded

    def can_act(self) -> bool:
        return self.loaded is not None and not self.closing

    def refuse_write(self) -> bool:
        """True (and said on screen) when the review is open read-only: another evaltui holds
        it, so a tag, a note, an undo or a sign-off would write nothing."""
        if not self.read_only_reason:
            return False
        self.host.notify(self.read_only_reason, severity="warning", timeout=4, markup=False)
        return True

    def triaged(self) -> int:
        """Regressions closed by a tag (a tag that leaves an item open does not count)."""
        if self.loaded is None:
            return 0
        analysis = self.loaded.analysis
        return len(analysis.regressions) - len(untriaged_regressions(analysis, self.loaded.session))

    def with_confirmed_hashes(self, loaded: Loaded) -> Loaded:
        """`loaded` with the sha256 of inputs hashed only after the first screen (a remote
        run's) filled in from their confirmation, for the record."""
        from dataclasses import replace

        paired = loaded.analysis.paired
        runs = {}
        for arm in ("baseline", "candidate"):
            run = getattr(paired, arm)
            found = self.confirmed_sources.get(run.source.path)
            if not run.source.sha256 and found is not None:
                runs[arm] = replace(run, source=found)
        if not runs:
            return loaded
        analysis = replace(loaded.analysis, paired=replace(paired, **runs))
        return replace(loaded, analysis=analysis)

    def check_inputs_confirmed(self, loaded: Loaded) -> None:
        """Raise unless every input's sha256 is known to be its bytes' own: the sign-off
        records them. Never hashes here (seconds for big files, on the UI thread)."""
        if self.inputs_problem is not None:
            raise EvalTuiError(self.inputs_problem)
        paired = loaded.analysis.paired
        for source in (paired.baseline.source, paired.candidate.source):
            if not source.hash_checked and source.path not in self.confirmed_paths:
                how_far = (
                    "a few seconds for big files"
                    if self.inputs_hashed is None
                    else f"{size_done(*self.inputs_hashed)} read"
                )
                raise EvalTuiError(
                    f"still checking the sha256 of {source.path} against what is shown "
                    f"({how_far}); try again shortly"
                )

    # -- triage ------------------------------------------------------------------------------

    def tag_key(self, item_id: str | None, number: int) -> None:
        """Tag key `number` (1-9) on `item_id`: the session's tag of that number."""
        if self.loaded is None or self.closing:
            return
        tags = self.loaded.session.info.tags
        if not 1 <= number <= len(tags):
            self.host.notify(f"no tag on key {number} (tags: 1-{len(tags)})", severity="warning")
            return
        self.tag(item_id, tags[number - 1])

    def tag(self, item_id: str | None, tag: str | None) -> None:
        """Tag one item (None clears it): journalled and fsynced before the toast says saved;
        remembered for undo."""
        loaded = self.loaded
        if loaded is None or self.closing or item_id is None or self.refuse_write():
            return
        previous = loaded.session.own_review(item_id)  # (a shared review: this reviewer's)
        seen = item_values(loaded.analysis, [item_id]).get(item_id)
        shown = tag_name(tag)
        try:
            loaded.session.set_tag(item_id, tag, seen=seen)  # returns after fsync
        except EvalTuiError as exc:  # a full disk: the tag is not kept, and the screen says so
            self.not_saved(f"{item_id} → {shown}", exc)
            return
        self.triage.remember(f"{item_id} → {shown}", [previous])
        self._changed((item_id,), many=False)
        self.host.notify(f"saved: {item_id} → {shown}", timeout=3, markup=False)

    def tag_items(self, item_ids: Sequence[str], tag: str | None) -> bool:
        """Tag every one of `item_ids` (None clears them), journalled and fsynced before the
        screen says saved; remembered for undo. False when nothing was written."""
        loaded = self.loaded
        if loaded is None or not item_ids or self.refuse_write():
            return False
        session = loaded.session
        ids = list(dict.fromkeys(item_ids))
        previous = [session.own_review(item_id) for item_id in ids]
        seen = item_values(loaded.analysis, ids)
        label = f"{len(ids):,} items → {tag_name(tag)}"
        try:
            session.set_tags(ids, tag, seen=seen)
        except EvalTuiError as exc:  # a full disk: nothing was kept, and the screen says so
            self.host.notify(
                f"not saved: {label}: {exc}", severity="error", timeout=10, markup=False
            )
            return False
        self.triage.remember(label, previous)
        self._changed(tuple(ids), many=True)
        self.host.notify(f"saved: {label} (z undoes)", timeout=4, markup=False)
        return True

    def undo(self) -> tuple[str, ...]:
        """Undo the last tag or bulk tag of this session (journalled: an undo appends, never
        rewrites); the ids it restored."""
        loaded = self.loaded
        step = self.triage.last()
        if loaded is None or self.refuse_write():
            return ()
        if step is None:
            self.host.notify("nothing to undo: no tag was changed in this session", timeout=3)
            return ()
        try:
            restored = loaded.session.restore_tags(step.previous)
        except EvalTuiError as exc:
            self.host.notify(f"not undone: {exc}", severity="error", timeout=10, markup=False)
            return ()
        self.triage.steps.pop()
        ids = tuple(review.item_id for review in restored)
        self._changed(ids, many=True)
        self.host.notify(f"undone: {step.label}", timeout=4, markup=False)
        return ids

    def save_note(self, item_id: str, note: str) -> bool:
        """Write the item's note (fsynced); False, said on screen, when the disk refused it."""
        if self.loaded is None or self.refuse_write():
            return False
        try:
            self.loaded.session.set_note(item_id, note)
        except EvalTuiError as exc:
            self.not_saved(f"note on {item_id}", exc)
            return False
        self._changed((item_id,), many=False)
        self.host.notify(f"saved: note on {item_id}", timeout=3, markup=False)
        return True

    def not_saved(self, what: str, exc: EvalTuiError) -> None:
        """Say on screen that a tag or note was not written (the review stays open; the next
        try writes again once the disk takes it)."""
        self.host.notify(
            f"NOT saved: {what}: {exc}",
            title="Not saved (the review stays open; try again once the disk takes it)",
            severity="error",
            timeout=30,
            markup=False,
        )

    def others_changed(self, item_ids: tuple[str, ...]) -> None:
        """Other reviewers of a shared review tagged these items (already merged into the
        session): the rows, the gates and the decision follow, as after a tag here."""
        self._changed(item_ids, many=True)

    def _changed(self, item_ids: tuple[str, ...], many: bool) -> None:
        """The rows show the new tags, then the app's after-a-tag step runs once (gates and
        decision re-evaluated in a worker, the screens told), not once per item."""
        loaded = self.loaded
        if loaded is None or not item_ids:
            return
        for item_id in item_ids:
            row = self.rows_by_id.made(item_id)
            if row is not None:  # the lists re-filter when shown (MainScreen.on_review_changed)
                self.show_review(row)  # (a row not made yet reads the session when it is)
        self.host.reviews_changed(item_ids, many)

    # -- the views ---------------------------------------------------------------------------

    def show_items(self, item_ids: tuple[str, ...], label: str, list_name: str) -> None:
        """Filter a list to these items (a failed gate's, a slice's) and show it."""
        view = self.views.get(list_name)
        if view is None:
            return
        view.id_filter = frozenset(item_ids)
        view.id_filter_label = label
        view.refresh()
        self.host.show_list(list_name)

    # -- the run set -------------------------------------------------------------------------

    def run_set_line(self) -> FirstLine | None:
        """The set's first line as the matrix and its sign-off show it now: "DECIDING…"
        while the set is decided anew with the tags just made."""
        if self.run_set_deciding:
            return FirstLine.deciding(RUN_SET_DECIDING)
        decided = self.run_set_decision
        return None if decided is None else decided.first_line

    def open_pair_review(self, row: int, col: int) -> None:
        """Review the pair of runs `row` and `col` (Enter on the matrix)."""
        self.host.open_run_set_pair(row, col)

    def sign_off_run_set(self) -> None:
        """The whole set's sign-off dialog (x on the matrix)."""
        self.host.sign_off_run_set()

    def back_to_matrix(self) -> None:
        """From a pair's review back to the matrix of every pair."""
        self.host.action_matrix()
