"""What the loading workers compute for the screens, off the UI thread: the list rows, the
input previews, the independent comparison's view, and a failed load told on one line.

Plain functions (no Textual app): the app's workers call them and post the results.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from functools import partial
from typing import Any

import numpy as np
import polars as pl

from evaltui.core.analysis.analysis_cache import kept_positions
from evaltui.core.analysis.concordant import concordant_split
from evaltui.core.analysis.pair_result import Analysis
from evaltui.core.analysis.pipeline import STEPS as COMPARE_STEPS
from evaltui.core.compare.pairing import BASE_ROW, CAND_ROW
from evaltui.core.designs import Design
from evaltui.core.errors import EvalTuiError
from evaltui.core.read.field_reads import Refusals, Said, read_field_each
from evaltui.core.read.runs import ITEM_ID, SLICE
from evaltui.core.record.assignment import Assignment, team_of
from evaltui.core.record.journal import ReviewSession, os_error_text
from evaltui.ui.listmodel import ListRow
from evaltui.ui.messages import LoadFailed
from evaltui.ui.row_store import RowStore, as_stores
from evaltui.ui.state import Independent

PREVIEW_CHARS = 2000  # input text kept per listed item for preview and search
# What opening a pair reports: compare's three steps, then the review session and the previews.
LOAD_STEPS = (*COMPARE_STEPS, "opening the review session", "reading item previews")
# Of the loading bar, what the read fills (its step, fractional as it reads): nearly all of a
# load is the read (a 1 GB Inspect pair: 3.4 s of 3.7; the four steps after it, 0.2 s). With
# the five steps equal, the bar stood at 10% with half the samples read, then leapt to the end.
READING_SHARE = 0.8
BAR_STEPS = 100  # the loading bar's total: its position in hundredths


def load_position(step: float) -> float:
    """Where the loading bar stands, 0 to 1, at `step` of `LOAD_STEPS`: the read fills
    `READING_SHARE`, each later step an equal part of the rest."""
    if step <= 1:
        return max(step, 0.0) * READING_SHARE
    rest = (1 - READING_SHARE) / (len(LOAD_STEPS) - 1)
    return min(READING_SHARE + (step - 1) * rest, 1.0)


def independent_view(design: Design, analysis: Any) -> Independent:
    """What the independent screen shows: the design's decision on the comparison and its report
    (the same words and numbers as `evaltui report --design independent`, which asks the same
    design)."""
    decided = design.decide(analysis)
    return Independent(analysis, decided.decision, design.report_dict(decided))


def load_failed(exc: Exception) -> LoadFailed | None:
    """What a failed load tells the reviewer, on one line: a user's mistake or the
    environment exit 2, a bug exit 3; None under EVALTUI_DEBUG=1 (the caller re-raises)."""
    if isinstance(exc, EvalTuiError):
        return LoadFailed(str(exc))
    if isinstance(exc, OSError) and exc.filename is not None:
        # The environment, not a bug (permissions, a full disk): one line, exit 2.
        return LoadFailed(f"{exc.filename}: {os_error_text(exc)}")
    if os.environ.get("EVALTUI_DEBUG"):
        return None
    detail = " ".join(str(exc).split())
    return LoadFailed(
        f"internal error: {type(exc).__name__}: {detail} (EVALTUI_DEBUG=1 shows more)", 3
    )


def team_assignment(team: tuple[str | None, int | None], analysis: Analysis) -> Assignment | None:
    """The team's split of the pair's regressions (`--reviewers`/`--reviews-per-item` over the
    policy's [review]; None without a team), dealt here in the worker: about 0.2 s at 100,000
    regressions, too long for the UI thread."""
    stated = team_of(*team, analysis.policy)
    return stated.deal(analysis.regressions) if stated is not None else None


def team_agreement(analysis: Analysis, session: ReviewSession) -> str | None:
    """The header's agreement line of a shared review (`core/record/team_review.py`); None
    for a review of one's own, without importing the agreement statistics: every open asks,
    few have a team, and their modules (kappa, its tables and report) are 4 ms of start-up."""
    if session.team is None:
        return None
    from evaltui.core.record.team_review import team_agreement_line

    return team_agreement_line(analysis, session)


def list_rows(analysis: Analysis, session: ReviewSession) -> dict[str, RowStore]:
    """Rows for both lists, as stores that make each row when it is first asked for (the first
    screen makes a window's worth). Input previews are filled in afterwards by
    `fill_previews`, so the first screen never waits for the transcripts of every item."""
    return _stores(
        analysis,
        session,
        {"regressions": analysis.regressions, "improvements": analysis.improvements},
        kept_positions(analysis),  # (a reopen: where its entry kept them, checked below)
    )


def concordant_rows(analysis: Analysis, session: ReviewSession) -> dict[str, RowStore]:
    """Rows for the lists of unchanged items (built when the reviewer first opens one: a run
    of a million items has a million of them)."""
    return _stores(analysis, session, concordant_split(analysis))


def _stores(
    analysis: Analysis,
    session: ReviewSession,
    lists: Mapping[str, Sequence[str]],
    known: Sequence[np.ndarray] | None = None,
) -> dict[str, RowStore]:
    """One store per list, its rows in the list's order. The items' positions are found by a
    join (CPU at a million items: 0.09 s for 226,354 listed, 0.22 s for 998,000), or taken
    from `known` (each list's, as the analysis cache kept them) once the ids there are checked
    to be the lists' (0.01 s); the rest are numpy gathers. Slices are read on first use; a
    row's tags come from the session when it is made (`ReviewState` gives its own view of them
    on adoption)."""
    items = analysis.paired.items
    wanted = pl.Series(ITEM_ID, [i for ids in lists.values() for i in ids], dtype=pl.String)
    every = _known_positions(items, wanted, known)
    if every is None:
        every = _joined_positions(items, wanted)
    base, cand = items[BASE_ROW].to_numpy(), items[CAND_ROW].to_numpy()
    graded = analysis.kind == "graded"
    reviews = session.items

    def dress(row: ListRow) -> None:
        found = reviews.get(row.item_id)
        if found is not None:
            row.tag, row.disputed = found.tag, found.disputed

    stores = {}
    start = 0
    for name, ids in lists.items():
        at = every[start : start + len(ids)]
        start += len(ids)
        stores[name] = RowStore(
            ids,
            at,
            (base[at], cand[at]),
            analysis.deltas[at] if graded else None,
            partial(_slices_at, items, at),
            dress,
            reviews.keys,
            partial(_slice_summary, items, at),
        )
    return stores


def _known_positions(
    items: pl.DataFrame, wanted: pl.Series, known: Sequence[np.ndarray] | None
) -> np.ndarray | None:
    """`known` (each list's positions, in order) joined into one array, when the items' ids
    there are exactly `wanted`; None otherwise (the join finds them)."""
    if known is None:
        return None
    every = np.concatenate([np.asarray(at, dtype=np.int64) for at in known]) if known else None
    if every is None or len(every) != len(wanted):
        return None
    if len(every) and (every.min() < 0 or every.max() >= items.height):
        return None
    there = items[ITEM_ID].gather(every)
    return every if bool((there == wanted).all()) else None


def _joined_positions(items: pl.DataFrame, wanted: pl.Series) -> np.ndarray:
    """Where each wanted id is among the items (a join; an id not there is a bug)."""
    found = items.select(ITEM_ID).with_row_index("_index")
    if 3 * len(wanted) < items.height:  # (a few of the items: join only those; at 226,354 of
        # a million 0.085 s against 0.125 s, at 998,000 of a million 0.5 s against 0.22 s)
        found = found.filter(pl.col(ITEM_ID).is_in(wanted.implode()))
    placed = wanted.to_frame().join(found, on=ITEM_ID, how="left", maintain_order="left")
    if placed["_index"].null_count():
        missing = placed.filter(pl.col("_index").is_null())[ITEM_ID][0]
        raise ValueError(f"item {missing!r} of a list is not among the paired items")
    return placed["_index"].to_numpy().astype(np.int64)


def _slice_summary(items: pl.DataFrame, at: np.ndarray) -> tuple[list[str], int]:
    """The slices at these positions, sorted, and the longest ("" for none): in polars."""
    if SLICE not in items.columns or not len(at):
        return [], 0
    named = items[SLICE].gather(at).fill_null("")
    longest = named.str.len_chars().max()
    names = sorted(name for name in named.unique().to_list() if name)
    return names, int(longest) if longest is not None else 0  # type: ignore[arg-type]


def _slices_at(items: pl.DataFrame, at: np.ndarray) -> list[str]:
    """The items' slices at these positions ("" for none), read when a list first needs them."""
    if SLICE not in items.columns:
        return [""] * len(at)
    return items[SLICE].gather(at).fill_null("").to_list()


PREVIEW_CHUNK = 2000  # rows per chunk for a reader without its own batch size; rows between
# two passes through the background gate in the per-row loop


def fill_previews(
    analysis: Analysis,
    rows: RowStore | Sequence[RowStore] | Sequence[ListRow],
    done: Callable[[], object],  # (its result unused: `post_message` gives a bool)
    pause: Callable[[], None] = lambda: None,
    said: Said | None = None,
) -> Refusals:
    """Read each row's input (baseline, else candidate) in chunks and make it searchable.

    Runs in a worker thread; `done` is called (from the thread) after every chunk so the list
    can redraw. The texts go into the stores (`RowStore.write_texts`): rows made later read
    them, rows already made are updated under the store's lock. `rows`: one store, several
    (read in turn), or a list of rows (kept in a store of their own: tests).
    `pause` is called before every read and every `PREVIEW_CHUNK` rows: it waits while an item
    is opening (`background_gate.py`), so this loop does not take the GIL's turns from it.
    Returns the records that could not be read (`field_reads`: each shows no preview, the
    rest do), told with `said`, the pair's record of what was said (shared with its other
    fills: a record is said once); a chunk whose every record is refused raises, the file's
    trouble.
    """
    base, cand = analysis.paired.baseline.transcripts, analysis.paired.candidate.transcripts
    step = getattr(base, "batch_size", PREVIEW_CHUNK)
    refusals = Refusals(said=Said() if said is None else said)
    for store in as_stores(rows):
        for start in range(0, len(store), step):
            end = min(start + step, len(store))
            pause()
            texts = read_field_each(base, store.base_rows[start:end].tolist(), "input", refusals)
            if all(t is None for t in texts):
                pause()
                cand_rows = store.cand_rows[start:end].tolist()
                texts = read_field_each(cand, cand_rows, "input", refusals)
            for at in range(0, len(texts), PREVIEW_CHUNK):
                pause()
                ids = store.ids[start + at : start + at + PREVIEW_CHUNK]
                part = [(text or "")[:PREVIEW_CHARS] for text in texts[at : at + PREVIEW_CHUNK]]
                store.write_texts(
                    start + at,
                    [" ".join(text.split())[:300] for text in part],
                    [f"{item_id}\n{text}".lower() for item_id, text in zip(ids, part, strict=True)],
                )
            done()
    return refusals
