"""List rows made as the list needs them (`ui/row_store.py`): the first screen of a large pair
makes only a window's rows, and every list feature (searches, sorts, filters, the team's
views, tags) gives the rows an eager build of every row gives, over all items."""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

import pytest

from evaltui.core.analysis.pipeline import compare
from evaltui.core.record.session import judge_review, start_review
from evaltui.ui.app import create_app
from evaltui.ui.config import AppConfig
from evaltui.ui.listmodel import UNTAGGED, ListRow, ListView
from evaltui.ui.loading import fill_previews, list_rows, team_assignment
from evaltui.ui.search import SearchIndex, fill
from evaltui.ui.state import Loaded, ReviewState
from evaltui.ui.widgets.item_table import ItemTable
from tests.ui.helpers import settle
from tests.ui.test_review_state import Host


def write_pair(folder: Path, n: int, graded: bool) -> tuple[Path, Path]:
    """`n` items, most of them discordant, in a shuffled file order, with slices on most,
    inputs, outputs and (graded) a score with ties."""
    paths = folder / "baseline.jsonl", folder / "candidate.jsonl"
    order = [(7919 * k) % n for k in range(n)]  # (7919 is prime: a permutation when n is not)
    for arm, path in enumerate(paths):
        lines = []
        for i in order:
            passed = (i % 2 == 0) != (arm == 1 and i % 5 != 4)
            record: dict[str, Any] = {
                "item_id": f"Q{i:05d}",
                "passed": passed,
                "input": f"{'warfarin' if i % 7 == 0 else 'shipping'} question {i % 13}",
                "output": f"{'ALPHA' if (i + arm) % 11 == 0 else 'beta'} answer",
            }
            if graded:
                record["score"] = ((i * (3 + 4 * arm)) % 10) / 10
            if i % 6:
                record["slice"] = f"s{i % 4}"
            lines.append(json.dumps(record))
        path.write_text("\n".join(lines) + "\n")
    return paths


def eager_visible(rows: list[ListRow], view: ListView, texts, notes) -> list[ListRow]:
    """The rows a view shows, as the list model computed them before rows were made lazily:
    every row tested, then sorted by its own values (the code of main 097919c)."""
    needle = view.search.lower().strip()
    out = [
        r
        for r in rows
        if (view.slice_filter is None or r.slice == view.slice_filter)
        and (view.id_filter is None or r.item_id in view.id_filter)
        and (not view.assigned_only or r.assigned)
        and (not view.untriaged_only or not view.is_triaged(r.tag))
        and (
            view.tag_filter is None
            or (r.tag is None if view.tag_filter == UNTAGGED else r.tag == view.tag_filter)
        )
        and (
            not needle
            or needle in r.search_text
            or r.index in texts
            or r.item_id in notes
            or (r.tag is not None and needle in r.tag.lower())
        )
    ]
    if view.sort_key == "file":
        if view.reverse:
            out.reverse()
    else:
        key = {
            "item id": lambda r: (r.item_id, r.index),
            "slice": lambda r: (r.slice, r.index),
            "tag": lambda r: (r.tag is None, r.tag or "", r.index),
            "input": lambda r: (r.preview.lower(), r.index),
            "delta": lambda r: (r.delta if r.delta is not None else 0.0, r.index),
        }[view.sort_key]
        out.sort(key=key, reverse=view.reverse)
    if view.assigned_first and not view.assigned_only:
        out = sorted(out, key=lambda r: not r.assigned)
    return out


def fields(row: ListRow) -> tuple:
    return (
        row.index, row.item_id, row.slice, row.preview, row.search_text, row.tag,
        row.disputed, row.assigned, row.hidden, row.delta, row.rows,
    )  # fmt: skip


def opened(tmp_path: Path, graded: bool, team: bool) -> ReviewState:
    """A pair of 600 items adopted by a review state, with tags (one that leaves an item
    open), a note, and (team) the regressions dealt to three reviewers."""
    choices = {"metric": "score"} if graded else {}
    config = AppConfig.for_pair(*write_pair(tmp_path, 600, graded), state_root=tmp_path, **choices)
    analysis = compare(config.spec)
    session = start_review(analysis, state_root=tmp_path / "state", reviewer="me")
    tags = session.info.tags
    session.set_tags(list(analysis.regressions[3:40:3]), tags[0])
    session.set_tags(list(analysis.regressions[5:60:7]), tags[-1])
    session.set_note(analysis.regressions[8], "look at ALPHA here")
    assignment = team_assignment(("me,bob,carl", 1), analysis) if team else None
    gates, decision = judge_review(analysis, session)
    rows = list_rows(analysis, session)
    state = ReviewState(config, host=Host())
    state.adopt(Loaded(analysis, session, rows, gates, decision, assignment=assignment))
    return state


@pytest.mark.parametrize(
    ("graded", "team"),
    [(False, False), (True, False), pytest.param(False, True, marks=pytest.mark.slow)],
)
def test_every_list_feature_gives_the_rows_an_eager_build_gives(tmp_path, graded, team):
    state = opened(tmp_path, graded, team)
    loaded = state.require_loaded()
    analysis, session = loaded.analysis, loaded.session
    stores = [loaded.rows["regressions"], loaded.rows["improvements"]]
    assert sum(store.made for store in stores) == 0  # adopted, sorted, dressed: none made
    # (the footer's slices and the columns' widths, read before any row is made)
    summaries = {
        name: (s.slice_names(), s.id_and_slice_widths()) for name, s in loaded.rows.items()
    }
    index = SearchIndex()
    paired = analysis.paired
    fill_previews(analysis, stores, lambda: None)
    fill(index, stores, paired.baseline.transcripts, paired.candidate.transcripts, lambda: None)
    assert sum(store.made for store in stores) == 0  # the readers read columns

    def notes(needle: str) -> set[str]:
        return {i for i, r in session.items.items() if r.note and needle in r.note.lower()}

    triaged = state.views["regressions"].is_triaged
    tag = session.info.tags[0]
    some = frozenset(analysis.regressions[::4][:50]) | frozenset(analysis.improvements[:9])
    settings = [
        {"search": needle}
        for needle in ("", "q0001", "WARFARIN", "question 1", "alpha", tag[:4], "look at")
    ]
    settings += [
        {"sort_key": key, "reverse": reverse}
        for key, reverse in itertools.product(
            ("file", "item id", "slice", "tag", "input", "delta"), (False, True)
        )
    ]
    settings += [
        {"slice_filter": "s1"},
        {"slice_filter": "s2", "sort_key": "delta", "reverse": True},
        {"tag_filter": tag},
        {"tag_filter": UNTAGGED, "sort_key": "item id"},
        {"untriaged_only": True},
        {"id_filter": some, "id_filter_label": "a gate's items"},
        {"id_filter": some, "search": "shipping", "sort_key": "input"},
        {"assigned_first": True},
        {"assigned_first": True, "sort_key": "delta"},
        {"assigned_only": True, "reverse": True},
    ]
    for name in ("regressions", "improvements"):
        eager = list(loaded.rows[name])  # (every row made, tags as shown, texts filled)
        for setting in settings:
            fresh = list_rows(analysis, session)[name]  # (no row made yet)
            state._dress_store(fresh)
            fill_previews(analysis, fresh, lambda: None)
            view = ListView(fresh, is_triaged=triaged)
            view.text_hits, view.note_hits = index.matches, notes
            view.assigned_first = state.assignment is not None
            for attribute, value in setting.items():
                setattr(view, attribute, value)
            view.refresh()
            made_by_refresh = fresh.made
            needle = view.search.lower().strip()
            want = eager_visible(
                eager, view, index.matches(needle) if needle else frozenset(), notes(needle)
            )
            assert [fields(r) for r in view.visible] == [fields(r) for r in want], setting
            assert view.visible.item_ids() == [r.item_id for r in want]
            if setting.get("sort_key") not in ("tag", "input"):  # (sorts by the rows' values)
                # (no row made but those of the reviewed items, which may carry a tag)
                assert made_by_refresh <= len(session.items), setting
        assert view.slices() == sorted({r.slice for r in eager if r.slice})
        widths = max(len(r.item_id) for r in eager), max(len(r.slice) for r in eager)
        assert summaries[name] == (view.slices(), widths)
    regression = state.views["regressions"].rows[0]
    assert state.rows_by_id[regression.item_id] is regression  # one row per item
    if team:
        assert any(r.assigned for r in eager_all(loaded)) and state.assigned_to_you > 0


def eager_all(loaded: Loaded) -> list[ListRow]:
    return [row for store in loaded.rows.values() for row in store]


def test_rows_made_later_show_the_tags_given_before(tmp_path):
    """A tag given while its row was not made yet is on the row once it is made; a row made
    before the tag is updated."""
    state = opened(tmp_path, graded=False, team=False)
    store = state.require_loaded().rows["regressions"]
    first, last = store[0], store.ids[-1]
    tag = state.require_loaded().session.info.tags[1]
    state.tag_items([first.item_id, last], tag)
    assert first.tag == tag and store.made == 1  # (the last row: not made by the tag)
    assert store[len(store) - 1].tag == tag and store.made == 2


@pytest.mark.slow
async def test_the_first_screen_of_a_large_pair_makes_a_windows_rows(tmp_path):
    """20,000 and more discordant items: the first screen, the previews and the search index
    make only the rows drawn; the last page makes a window more; a search (whose first letter
    matches every item) makes only its own window's, and clearing it none."""
    base, cand = write_pair(tmp_path, 30_000, graded=False)
    app = create_app(AppConfig.for_pair(base, cand, state_root=tmp_path / "state"))
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(app, pilot)
        stores = app.loaded.rows
        total = sum(len(store) for store in stores.values())
        assert len(stores["regressions"]) > 10_000 and total > 20_000
        table = app.screen.query_one(ItemTable)
        window = table.size.height
        assert 0 < stores["regressions"].made <= window
        assert stores["improvements"].made == 0
        assert app.main_screen.search_index.complete  # (the readers are done)
        await pilot.press("G")
        await settle(app, pilot)
        assert stores["regressions"].made <= 2 * window + 1
        await pilot.press("slash", *"warfarin")  # ("w" matches every output: "answer")
        await settle(app, pilot)
        assert stores["regressions"].made <= 3 * window + 1  # (the filtered list's window)
        assert all("warfarin" in r.search_text for r in table.rows)
        await pilot.press("escape")
        await settle(app, pilot)
        assert len(table.rows) == len(stores["regressions"])


@pytest.mark.parametrize("few", [False, True])
def test_a_stores_rows_are_its_items_in_the_lists_order_whichever_way_they_are_found(tmp_path, few):
    """A list of most items (joined over every item) or of a few (joined over those found
    by `is_in`): each row at its item's file position, record rows and delta."""
    from evaltui.core.compare.pairing import BASE_ROW, CAND_ROW
    from evaltui.core.read.runs import ITEM_ID
    from evaltui.ui.loading import _stores

    state = opened(tmp_path, graded=True, team=False)
    loaded = state.require_loaded()
    analysis = loaded.analysis
    ids = list(analysis.regressions) + list(analysis.improvements)
    wanted = ids[::25][:12] if few else ids
    listed = list(reversed(wanted))  # (not in file order)
    stores = _stores(analysis, loaded.session, {"a": listed[:5], "b": listed[5:]})
    if few:  # (the path that joins only the items `is_in` found)
        assert 3 * len(wanted) < analysis.paired.items.height
    positions = {item_id: at for at, item_id in enumerate(analysis.paired.items[ITEM_ID])}
    rows = [*stores["a"], *stores["b"]]
    assert [r.item_id for r in rows] == listed
    for row in rows:
        record = analysis.paired.items.row(positions[row.item_id], named=True)
        assert row.index == positions[row.item_id]
        assert row.rows == (record[BASE_ROW], record[CAND_ROW])
        assert row.delta == float(analysis.deltas[row.index])


@pytest.mark.parametrize("hint", ["right", "swapped", "shifted", "outside", "short"])
def test_kept_positions_are_taken_only_when_their_ids_are_the_lists(tmp_path, hint):
    """Positions the analysis cache kept (`kept_positions`) place the rows only when the ids
    there are the lists'; any other hint is ignored and the join places them, the same rows."""
    import numpy as np

    from evaltui.core.read.runs import ITEM_ID
    from evaltui.ui.loading import _stores

    state = opened(tmp_path, graded=True, team=False)
    loaded = state.require_loaded()
    analysis = loaded.analysis
    ids = analysis.paired.items[ITEM_ID].to_list()
    lists = {"regressions": analysis.regressions, "improvements": analysis.improvements}
    right = tuple(
        np.array([ids.index(i) for i in listed], dtype=np.int64) for listed in lists.values()
    )
    known = {
        "right": right,
        "swapped": right[::-1],
        "shifted": tuple((at + 1) % len(ids) for at in right),
        "outside": tuple(at + len(ids) for at in right),
        "short": (right[0][:-1], right[1]),
    }[hint]
    taken = _stores(analysis, loaded.session, lists, known)
    joined = _stores(analysis, loaded.session, lists)
    for name in lists:
        assert [repr(r) for r in taken[name]] == [repr(r) for r in joined[name]]
        assert [r.item_id for r in taken[name]] == list(lists[name])
