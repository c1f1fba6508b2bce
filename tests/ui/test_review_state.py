"""The review state the screens are given: its tag, bulk tag, undo, note and show methods write
to the journal first, update the list rows, and tell the app once per change (no Textual)."""

from __future__ import annotations

from typing import Any

import pytest

from evaltui.core.analysis.pipeline import compare
from evaltui.core.record.session import judge_review, start_review
from evaltui.ui.config import AppConfig
from evaltui.ui.loading import list_rows
from evaltui.ui.state import Loaded, ReviewState
from tests.ui.helpers import SAMPLE


class Host:
    """What the app does for the state, recorded."""

    def __init__(self) -> None:
        self.toasts: list[str] = []
        self.changes: list[tuple[tuple[str, ...], bool]] = []
        self.lists: list[str] = []

    def notify(self, message: str, **kwargs: Any) -> None:
        self.toasts.append(message)

    def reviews_changed(self, item_ids: tuple[str, ...], many: bool) -> None:
        self.changes.append((item_ids, many))

    def show_list(self, list_name: str) -> None:
        self.lists.append(list_name)

    def open_run_set_pair(self, row: int, col: int) -> None: ...

    def sign_off_run_set(self) -> None: ...

    def action_matrix(self) -> None: ...


@pytest.fixture
def state(tmp_path):
    config = AppConfig.for_pair(*SAMPLE, state_root=tmp_path)
    analysis = compare(config.spec)
    session = start_review(analysis, state_root=tmp_path)
    gates, decision = judge_review(analysis, session)
    review = ReviewState(config, host=Host())
    review.adopt(Loaded(analysis, session, list_rows(analysis, session), gates, decision))
    yield review
    session.close()


def test_a_tag_is_journalled_shown_on_its_row_and_told_once(state):
    first = state.views["regressions"].rows[0]
    tag = state.require_loaded().session.info.tags[0]
    state.tag_key(first.item_id, 1)
    assert state.require_loaded().session.review(first.item_id).tag == tag
    assert first.tag == tag
    assert state.host.changes == [((first.item_id,), False)]
    assert state.host.toasts == [f"saved: {first.item_id} → {tag}"]


def test_undo_restores_a_bulk_tag_in_one_step(state):
    ids = [row.item_id for row in state.views["regressions"].rows[:3]]
    assert state.tag_items(ids, "confirmed regression")
    assert state.triaged() == 3
    assert state.undo() == tuple(ids)
    assert state.triaged() == 0
    assert all(row.tag is None for row in state.views["regressions"].rows[:3])
    assert state.host.changes == [(tuple(ids), True), (tuple(ids), True)]
    assert state.undo() == ()  # nothing left to undo: said, not raised
    assert state.host.toasts[-1].startswith("nothing to undo")


def test_show_items_filters_the_list_and_asks_the_app_to_show_it(state):
    wanted = (state.views["regressions"].rows[1].item_id,)
    state.show_items(wanted, "gate: x", "regressions")
    assert [row.item_id for row in state.views["regressions"].visible] == list(wanted)
    assert state.host.lists == ["regressions"]


def test_a_tag_key_with_no_tag_behind_it_says_so_and_writes_nothing(state):
    item_id = state.views["regressions"].rows[0].item_id
    state.tag_key(item_id, 9)
    assert state.require_loaded().session.review(item_id).tag is None
    assert state.host.changes == []
    assert state.host.toasts[-1].startswith("no tag on key 9")
