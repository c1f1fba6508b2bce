"""Drill-down into a Parquet pair: the flat fields show at once, the messages when decoded."""

from __future__ import annotations

import time

import polars as pl
import pytest

from evaltui.core.compare.pairing import BASE_ROW, CAND_ROW
from evaltui.core.read.formats.parquet import ParquetTranscripts
from evaltui.ui.app import AppConfig, create_app
from evaltui.ui.screens.item import ItemScreen
from tests.ui.helpers import SAMPLE, settle


def parquet_pair(tmp_path):
    paths = []
    for source in SAMPLE:
        path = tmp_path / source.with_suffix(".parquet").name
        pl.read_ndjson(source).write_parquet(path)
        paths.append(path)
    return paths


async def open_first_item(app, pilot):
    await settle(app, pilot)
    await pilot.press("enter")
    await settle(app, pilot)
    assert isinstance(app.screen, ItemScreen)


@pytest.mark.slow
async def test_an_item_shows_its_answer_before_its_slow_messages_arrive(tmp_path, monkeypatch):
    read = ParquetTranscripts.read

    def slow_read(self, row):  # as a 100,000-row group's nested column takes to decode
        time.sleep(0.4)
        return read(self, row)

    monkeypatch.setattr(ParquetTranscripts, "read", slow_read)
    shown = []
    show = ItemScreen._show_transcripts

    def spy(self, item_id, base, cand, alignment=None):
        show(self, item_id, base, cand, alignment)
        pane = self.side_plain(1)
        shown.append((base.complete, cand.complete, len(cand.messages), pane))

    monkeypatch.setattr(ItemScreen, "_show_transcripts", spy)
    app = create_app(AppConfig.for_pair(*parquet_pair(tmp_path), state_root=tmp_path / "state"))
    async with app.run_test(size=(120, 40)) as pilot:
        await open_first_item(app, pilot)
        final = app.screen.transcripts
    assert [s[:2] for s in shown] == [(False, False), (True, True)]
    quick_pane, full_pane = shown[0][3], shown[1][3]
    assert "(reading the messages…)" in quick_pane and "output" in quick_pane
    assert shown[0][2] == 0 and shown[1][2] == len(final[1].messages) > 0
    assert "(reading the messages…)" not in full_pane
    assert final[1].output[:30] in quick_pane  # the answer was readable before the messages


@pytest.mark.slow
async def test_next_shows_the_item_read_ahead_without_reading_it_again(tmp_path, monkeypatch):
    reads = []
    read = ParquetTranscripts.read

    def counted(self, row):
        reads.append((self._path.name, row))
        return read(self, row)

    monkeypatch.setattr(ParquetTranscripts, "read", counted)
    app = create_app(AppConfig.for_pair(*parquet_pair(tmp_path), state_root=tmp_path / "state"))
    async with app.run_test(size=(120, 40)) as pilot:
        await open_first_item(app, pilot)
        screen = app.screen
        paired = app.loaded.analysis.paired

        def rows_of(position):
            record = paired.items.row(screen.rows[position].index, named=True)
            return [("baseline.parquet", record[BASE_ROW]), ("candidate.parquet", record[CAND_ROW])]

        assert screen.read_ahead is not None and screen.read_ahead[0] == screen.rows[1].item_id
        before = len(reads)
        await pilot.press("n")
        await settle(app, pilot)
        assert screen.row.item_id == screen.rows[1].item_id
        # The item shown came from the read-ahead; only the one after it was read now.
        assert sorted(reads[before:]) == sorted(rows_of(2))
        assert screen.transcripts == (
            read(paired.baseline.transcripts, rows_of(1)[0][1]),
            read(paired.candidate.transcripts, rows_of(1)[1][1]),
        )


@pytest.mark.slow
async def test_a_parquet_side_against_a_side_without_messages_still_opens(tmp_path):
    base, _ = parquet_pair(tmp_path)
    flat = tmp_path / "candidate-flat.parquet"
    pl.read_ndjson(SAMPLE[1]).drop("messages").write_parquet(flat)
    app = create_app(AppConfig.for_pair(base, flat, state_root=tmp_path / "state"))
    async with app.run_test(size=(120, 40)) as pilot:
        await open_first_item(app, pilot)
        base_t, cand_t = app.screen.transcripts
        assert base_t.complete and base_t.messages
        assert cand_t.complete and not cand_t.messages and cand_t.output
