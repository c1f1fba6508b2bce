"""What the loading workers compute for the screens, off the UI thread: the list rows, the
input previews, the independent comparison's view, and a failed load told on one line.

Plain functions (no Textual app): the app's workers call them and post the results.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from itertools import repeat, starmap
from typing import Any

import polars as pl

from evaltui.core.analysis.concordant import concordant_split
from evaltui.core.analysis.pair_result import Analysis
from evaltui.core.analysis.pipeline import STEPS as COMPARE_STEPS
from evaltui.core.compare.pairing import BASE_ROW, CAND_ROW
from evaltui.core.designs import Design
from evaltui.core.errors import EvalTuiError
from evaltui.core.read.runs import ITEM_ID, SLICE
from evaltui.core.record.assignment import Assignment, team_of
from evaltui.core.record.journal import ReviewSession, os_error_text
from evaltui.ui.listmodel import ListRow
from evaltui.ui.messages import LoadFailed
from evaltui.ui.state import Independent

PREVIEW_CHARS = 2000  # input text kept per listed item for preview and search
# What opening a pair reports: compare's three steps, then the review session and the previews.
LOAD_STEPS = (*COMPARE_STEPS, "opening the review session", "reading item previews")


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


def list_rows(analysis: Analysis, session: ReviewSession) -> dict[str, list[ListRow]]:
    """Rows for both lists. Input previews are filled in afterwards by `fill_previews`, so the
    first screen never waits for the transcripts of every discordant item."""
    by_id = _rows(analysis, session, [*analysis.regressions, *analysis.improvements])
    return {
        "regressions": [by_id[i] for i in analysis.regressions],
        "improvements": [by_id[i] for i in analysis.improvements],
    }


def concordant_rows(analysis: Analysis, session: ReviewSession) -> dict[str, list[ListRow]]:
    """Rows for the lists of unchanged items (built when the reviewer first opens one: a run
    of a million items has a million of them)."""
    split = concordant_split(analysis)
    by_id = _rows(analysis, session, [i for ids in split.values() for i in ids])
    return {name: [by_id[i] for i in ids] for name, ids in split.items()}


def _rows(analysis: Analysis, session: ReviewSession, wanted: list[str]) -> dict[str, ListRow]:
    """One row per wanted item, keyed by id. At a million items a quarter of a million rows are
    built before the first screen, so the columns come out of polars whole (the lower-cased id
    included) and the rows are made positionally in one pass (`ListRow`'s field order), with
    the session's tags looked up only when it has any."""
    items = analysis.paired.items.with_row_index("_index")
    sub = items.filter(pl.col(ITEM_ID).is_in(pl.Series(wanted, dtype=pl.String).implode()))
    n = sub.height
    ids = sub[ITEM_ID].to_list()
    indices = sub["_index"].to_list()
    slices = sub[SLICE].fill_null("").to_list() if SLICE in sub.columns else repeat("", n)
    searched = sub[ITEM_ID].str.to_lowercase().to_list()
    pairs = zip(sub[BASE_ROW].to_list(), sub[CAND_ROW].to_list(), strict=True)
    reviews = session.items
    if reviews:
        found = [reviews.get(item_id) for item_id in ids]
        tags: Iterable[str | None] = [r.tag if r is not None else None for r in found]
        disputed: Iterable[bool] = [r is not None and r.disputed for r in found]
    else:  # (a first open: nothing tagged yet)
        tags, disputed = repeat(None, n), repeat(False, n)
    if analysis.kind == "graded":
        deltas: Iterable[float | None] = analysis.deltas[sub["_index"].to_numpy()].tolist()
    else:
        deltas = repeat(None, n)
    # (index, item_id, slice, preview, search_text, tag, disputed, assigned, hidden, delta, rows)
    columns = (indices, ids, slices, repeat("", n), searched, tags, disputed)
    made = starmap(
        ListRow,
        zip(*columns, repeat(False, n), repeat(0, n), deltas, pairs, strict=True),
    )
    return dict(zip(ids, made, strict=True))


PREVIEW_CHUNK = 2000  # rows per chunk for a reader without its own batch size; rows between
# two passes through the background gate in the per-row loop


def fill_previews(
    analysis: Analysis,
    rows: list[ListRow],
    done: Callable[[], None],
    pause: Callable[[], None] = lambda: None,
) -> None:
    """Read each row's input (baseline, else candidate) in chunks and make it searchable.

    Runs in a worker thread; `done` is called (from the thread) after every chunk so the list
    can redraw. Assigning a str attribute is atomic, so the UI thread never sees a torn row.
    `pause` is called before every read and every `PREVIEW_CHUNK` rows: it waits while an item
    is opening (`background_gate.py`), so this loop does not take the GIL's turns from it.
    """
    base, cand = analysis.paired.baseline.transcripts, analysis.paired.candidate.transcripts
    step = getattr(base, "batch_size", PREVIEW_CHUNK)
    for start in range(0, len(rows), step):
        chunk = rows[start : start + step]
        pause()
        texts = base.read_field([r.rows[0] for r in chunk], "input")
        if all(t is None for t in texts):
            pause()
            texts = cand.read_field([r.rows[1] for r in chunk], "input")
        for at in range(0, len(chunk), PREVIEW_CHUNK):
            pause()
            part = zip(chunk[at : at + PREVIEW_CHUNK], texts[at : at + PREVIEW_CHUNK], strict=True)
            for row, text in part:
                text = (text or "")[:PREVIEW_CHARS]
                row.preview = " ".join(text.split())[:300]
                row.search_text = f"{row.item_id}\n{text}".lower()
        done()
