"""An item opened while the background readers run goes first: the previews' and the search
index's readers wait at the gate while an item screen opens (`ui/background_gate.py`), then go
on where they stopped and finish. Asserted on the gate's counters and the readers' state,
never on time."""

from __future__ import annotations

import asyncio
import threading
from types import SimpleNamespace

import pytest

from evaltui.core.read.runs import Transcript
from evaltui.ui.background_gate import BackgroundGate
from evaltui.ui.listmodel import ListRow
from evaltui.ui.loading import PREVIEW_CHUNK, fill_previews
from evaltui.ui.screens.item import ItemScreen
from evaltui.ui.search import PAUSE_EVERY, SearchIndex, fill
from tests.ui.helpers import BARRIER_TIMEOUT, demo_app, settle, until


def rows_of(n: int) -> list[ListRow]:
    return [ListRow(i, f"item-{i}", "", "", f"item-{i}", rows=(i, i)) for i in range(n)]


class Reader:
    """A transcript reader over made-up records: `read_field` has inputs and targets, no
    outputs (so the search reads each record's last assistant message, one at a time);
    `on_read(n)` is called with the count of records read one at a time so far."""

    batch_size = 3 * PREVIEW_CHUNK

    def __init__(self, on_read=lambda n: None) -> None:
        self.field_calls = 0
        self.reads = 0
        self.on_read = on_read

    def read_field(self, rows, name):
        self.field_calls += 1
        return [None if name == "output" else f"{name} of {r}" for r in rows]

    def read(self, row):
        self.reads += 1
        self.on_read(self.reads)
        return Transcript(output=f"answer {row}")


def analysis_over(reader: Reader) -> SimpleNamespace:
    run = SimpleNamespace(transcripts=reader)
    return SimpleNamespace(paired=SimpleNamespace(baseline=run, candidate=run))


def test_a_free_gate_stops_nothing_and_a_release_counts_once():
    gate = BackgroundGate(limit=None)
    gate.pass_through()  # returns at once: nothing holds it
    release = gate.hold()
    assert gate.held and gate.holds == 1
    release()
    release()  # a screen may release on every way out: the second does nothing
    assert not gate.held and gate.waits == 0
    other = gate.hold()
    assert gate.held  # (the first release did not undo this hold)
    other()


def test_a_hold_never_released_stops_the_readers_once_for_its_limit_then_is_void():
    gate = BackgroundGate(limit=0)  # (the app's is a second: the readers always finish)
    leaked = gate.hold()
    rows = rows_of(2 * Reader.batch_size)  # many passes through the gate
    fill_previews(analysis_over(Reader()), rows, lambda: None, gate.pass_through)
    assert [r.preview for r in rows] == [f"input of {r.index}" for r in rows]
    assert gate.waits == 1 and not gate.held  # waited out once; the hold no longer counts
    later = gate.hold()
    leaked()  # (a void hold's release does not undo a newer one)
    assert gate.held
    later()
    assert not gate.held


def test_the_previews_wait_while_the_gate_is_held_and_then_read_every_row():
    gate = BackgroundGate(limit=None)
    reader = Reader()
    rows = rows_of(2 * Reader.batch_size + 7)
    chunks_done = []
    release = gate.hold()  # an item opening before the previews' first read
    worker = threading.Thread(
        target=fill_previews,
        args=(analysis_over(reader), rows, lambda: chunks_done.append(1), gate.pass_through),
    )
    worker.start()
    assert gate.wait_for_waiters(1, timeout=BARRIER_TIMEOUT)
    assert reader.field_calls == 0 and not chunks_done  # paused before reading anything
    assert all(r.preview == "" for r in rows)
    release()
    worker.join(BARRIER_TIMEOUT)
    assert not worker.is_alive()
    assert [r.preview for r in rows] == [f"input of {r.index}" for r in rows]
    assert rows[9].search_text == "item-9\ninput of 9"
    assert len(chunks_done) == 3 and gate.waits == 1


def test_the_search_index_stops_inside_a_record_by_record_read_and_goes_on_where_it_stopped():
    gate = BackgroundGate(limit=None)
    held: list = []

    def open_an_item_at(n: int) -> None:  # an Enter lands in the middle of the chunk
        if n == PAUSE_EVERY // 2:
            held.append(gate.hold())

    reader = Reader(open_an_item_at)
    rows = rows_of(3 * PAUSE_EVERY)
    index = SearchIndex()
    worker = threading.Thread(
        target=fill,
        args=(index, rows, reader, reader, lambda: None),
        kwargs={"pause": gate.pass_through},
    )
    worker.start()
    assert gate.wait_for_waiters(1, timeout=BARRIER_TIMEOUT)
    assert reader.reads == PAUSE_EVERY  # stopped at the next pass, not at the chunk's end
    assert index.covered == 0
    held[0]()
    worker.join(BARRIER_TIMEOUT)
    assert not worker.is_alive()
    assert index.complete and index.covered == len(rows)
    assert reader.reads == 2 * len(rows)  # both outputs of every row, each read once
    assert index.matches("answer 1234") == frozenset({1234})
    assert index.where(7, "target of 7") == ("target", "target of 7")
    assert gate.waits == 1


@pytest.mark.slow
async def test_an_item_opened_while_the_previews_wait_is_shown_then_the_previews_and_search_finish(
    tmp_path,
):
    app = demo_app(tmp_path / "state")
    gate = app.state.background
    gate.limit = None  # (held until released, however slow the machine)
    release = gate.hold()  # the previews' reader finds the gate held at its first read
    try:
        async with app.run_test(size=(120, 40)) as pilot:
            await until(pilot, lambda: app.loaded is not None, "the pair on screen")
            assert await asyncio.to_thread(gate.wait_for_waiters, 1, BARRIER_TIMEOUT)
            await settle(app, pilot, ignore=["previews"])
            assert not app.state.previews_ready
            rows = app.loaded.rows["regressions"]
            assert rows and all(r.preview == "" for r in rows)  # none read yet
            before = gate.holds
            await pilot.press("enter")
            await settle(app, pilot, ignore=["previews"])
            screen = app.screen
            assert isinstance(screen, ItemScreen) and screen.row.item_id == rows[0].item_id
            assert screen.transcripts is not None  # the item is drawn while the previews wait
            assert gate.holds == before + 2  # the key's, from its post, and the item screen's
            assert not app.state.previews_ready
            release()
            await settle(app, pilot)
            assert not gate.held  # the item screen, still open, let go once it was drawn
            assert app.screen is screen
            assert app.state.previews_ready
            assert all(r.preview for r in rows)
            index = app.main_screen.search_index
            assert index.complete and index.covered == index.total
            assert gate.waits >= 1
    finally:
        release()  # (a failed assertion must not leave the app's readers waiting)


def test_a_lists_slices_are_those_of_its_rows_store():
    from evaltui.ui.listmodel import ListView
    from evaltui.ui.row_store import RowStore

    rows = [ListRow(i, f"item-{i}", s, "", f"item-{i}") for i, s in enumerate("bab")]
    view = ListView(rows)
    assert view.slices() == ["a", "b"]
    view.slices().append("z")  # (a copy: the kept answer is not changed by its caller)
    assert view.slices() == ["a", "b"]
    view.rows = RowStore.of_rows([ListRow(0, "item-0", "d", "", "item-0")])
    assert view.slices() == ["d"]  # (another list's store: its own slices)


async def test_the_background_readers_wait_for_the_frame_that_shows_the_pair(tmp_path):
    """`adopt` holds the gate before the previews' and re-hash workers start, and lets go
    once the frame after it is drawn: their first chunk never shares the GIL with it."""
    app = demo_app(tmp_path / "state")
    gate = app.state.background
    held_at_adoption: list[bool] = []
    adopt = app.adopt

    def adopt_and_look(loaded):
        adopt(loaded)
        held_at_adoption.append(gate.held)  # (the frame is not drawn yet: same UI turn)

    app.adopt = adopt_and_look  # type: ignore[method-assign]
    async with app.run_test(size=(120, 40)) as pilot:
        await until(pilot, lambda: app.loaded is not None, "the pair on screen")
        await settle(app, pilot)
        assert held_at_adoption == [True]
        assert not gate.held  # let go after the frame
        assert app.state.previews_ready  # and the readers went on
