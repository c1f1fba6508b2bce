"""The app with a review team (issue 26, item 2): the items assigned to the reviewer at the keys
come first, marked `you` (a word), `w` lists only them, the title counts them, and another
reviewer's tag stays hidden on an item until this reviewer has tagged it (then shown, with
who). Two reviewers' journals are prepared on disk in a shared review folder first."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from evaltui.core.record.assignment import assign
from evaltui.core.record.journal import ReviewSession
from evaltui.ui.widgets.item_table import ItemTable
from tests.conftest import SAMPLE_RUNS
from tests.ui.helpers import demo_app, listed_ids, screen_lines, settle, text_of

SAMPLE = (SAMPLE_RUNS / "baseline.jsonl", SAMPLE_RUNS / "candidate.jsonl")
TEAM = ("ana", "ben", "cy")
# The demo pair's nine regressions, in file order (the report lists them so).
REGRESSIONS = (
    "pharm-0020", "pharm-0063", "pharm-0103", "pharm-0112", "pharm-0113", "pharm-0130",
    "pharm-0156", "pharm-0172", "pharm-0187",
)  # fmt: skip
DEALT = assign(REGRESSIONS, TEAM, 2)


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def prepare_journals(team: Path, tmp_path: Path) -> dict[str, str]:
    """ben and cy tag every item assigned to them (ben: flaky, cy: acceptable), each from a
    state folder of their own; what each tagged."""
    tagged = {}
    for name, tag in (("ben", "flaky"), ("cy", "acceptable")):
        session = ReviewSession.open(
            SAMPLE[0], SAMPLE[1], _sha(SAMPLE[0]), _sha(SAMPLE[1]),
            root=tmp_path / f"state-{name}", review_dir=team, reviewer=name,
        )  # fmt: skip
        for item in DEALT.of(name):
            session.set_tag(item, tag)
            session.set_note(item, f"{name}zq note")  # (hidden with the tag)
            tagged[item] = tagged.get(item, "") + f"{name}:{tag} "
        session.close()
    return tagged


def team_app(tmp_path: Path, monkeypatch, **kwargs):
    team = tmp_path / "team"
    monkeypatch.setenv("EVALTUI_REVIEW_DIR", str(team))
    prepare_journals(team, tmp_path)
    return demo_app(tmp_path / "state", reviewer="ana", team=(",".join(TEAM), 2), **kwargs)


@pytest.mark.slow
async def test_yours_first_marked_you_w_filters_them_and_the_title_counts_them(
    tmp_path, monkeypatch
):
    mine = DEALT.of("ana")
    app = team_app(tmp_path, monkeypatch)
    async with app.run_test(size=(100, 40)) as pilot:
        await settle(app, pilot)
        listed = listed_ids(app)
        assert set(listed[: len(mine)]) == set(mine)  # yours first ...
        assert listed[: len(mine)] == [i for i in REGRESSIONS if i in mine]  # ... in file order
        assert listed[len(mine) :] == [i for i in REGRESSIONS if i not in mine]
        title = text_of(app, "#list-title")
        assert f"assigned to you: {len(mine)} of {len(REGRESSIONS)}" in title
        lines = screen_lines(app)
        assert any(" for " in line and " tag " in line for line in lines)  # the column's name
        for item in REGRESSIONS:  # the word `you` on your rows only, never a colour alone
            row = next(line for line in lines if item in line)
            assert (" you " in row) == (item in mine), row
        await pilot.press("w")
        await settle(app, pilot)
        assert listed_ids(app) == [i for i in REGRESSIONS if i in mine]
        assert f"showing {len(mine)} · assigned to you ·" in text_of(app, "#list-title")
        await pilot.press("w")
        await settle(app, pilot)
        assert len(listed_ids(app)) == len(REGRESSIONS)
        await pilot.press("question_mark")
        await settle(app, pilot)
        assert any("Assigned to you only" in line for line in screen_lines(app))
        await pilot.press("escape")
        await pilot.press("q")


@pytest.mark.slow
async def test_the_others_tags_are_hidden_until_you_tag_the_item_then_shown_with_who(
    tmp_path, monkeypatch
):
    mine = DEALT.of("ana")
    shared = next(i for i in mine if "ben" in DEALT.by_item[i])  # ana's and ben's
    app = team_app(tmp_path, monkeypatch)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        session = app.loaded.session
        assert session.review(shared).tag == "flaky"  # the merged view (the decision) has it
        row = app.state.rows_by_id[shared]
        assert (row.tag, row.hidden) == (None, 1)
        line = next(line for line in screen_lines(app) if shared in line)
        assert "(1 hidden)" in line and "flaky" not in line
        await pilot.press("slash", *"benzq", "enter")  # nor is ben's note found by search
        await settle(app, pilot)
        assert shared not in listed_ids(app)
        await pilot.press("escape")
        await settle(app, pilot)
        table = app.screen.query_one(ItemTable)
        table.cursor = listed_ids(app).index(shared)
        await pilot.press("enter")
        await settle(app, pilot)
        meta = text_of(app, "#item-meta")
        assert "untriaged" in meta and "1 other review(s) hidden until you tag it" in meta
        assert "flaky" not in meta
        await pilot.press("2")  # ana: acceptable (ben said flaky: disputed)
        await settle(app, pilot)
        meta = text_of(app, "#item-meta")
        assert "ana: acceptable · ben: flaky (disputed)" in meta
        assert "benzq note" in meta  # his note too, now, named
        await pilot.press("escape")
        await settle(app, pilot)
        assert app.state.rows_by_id[shared].disputed
        line = next(line for line in screen_lines(app) if shared in line)
        assert "disputed" in line
        await pilot.press("slash", *"benzq", "enter")
        await settle(app, pilot)
        assert listed_ids(app) == [shared]  # the one item ana has tagged of ben's
        await pilot.press("q")


# -- snapshots: the list with an assignment, at 80x24 and larger ----------------------------


async def _loaded(pilot):
    await settle(pilot.app, pilot)


@pytest.mark.slow
@pytest.mark.parametrize(
    "size", [pytest.param((80, 24), id="80x24"), pytest.param((160, 48), id="160x48")]
)
def test_assigned_list_snapshot(snap_compare, tmp_path, monkeypatch, size):
    assert snap_compare(team_app(tmp_path, monkeypatch), terminal_size=size, run_before=_loaded)


@pytest.mark.slow
async def test_the_policys_review_table_assigns_in_the_app_too(tmp_path, monkeypatch):
    policy = tmp_path / "team.toml"
    policy.write_text('[review]\nreviewers = ["ana", "ben", "cy"]\nreviews_per_item = 2\n')
    monkeypatch.setenv("EVALTUI_REVIEW_DIR", str(tmp_path / "team"))
    app = demo_app(tmp_path / "state", reviewer="ana", policy=policy)
    async with app.run_test(size=(100, 40)) as pilot:
        await settle(app, pilot)
        mine = DEALT.of("ana")  # the same split as --reviewers ana,ben,cy --reviews-per-item 2
        assert f"assigned to you: {len(mine)} of 9" in text_of(app, "#list-title")
        assert listed_ids(app)[: len(mine)] == [i for i in REGRESSIONS if i in mine]
        await pilot.press("q")
