"""The decision's regressions by tag: built per regression only when something is tagged, with
the same lists and counts either way."""

from __future__ import annotations

from dataclasses import dataclass

from evaltui.core.decide.tag_lists import RegressionTags, ids_tagged_as


@dataclass(frozen=True)
class Reviewed:
    tag: str | None


REGRESSIONS = ("r1", "r2", "r3", "r4")
ASKS = (
    lambda tag: tag is None,
    lambda tag: tag is not None,
    lambda tag: tag == "confirmed",
    lambda tag: True,
    lambda tag: False,
)


def as_dict(items: dict[str, Reviewed]) -> dict[str, str | None]:
    """Each regression's tag the way the decision built it before (every regression)."""
    return {i: (items[i].tag if i in items else None) for i in REGRESSIONS}


def test_a_review_with_nothing_tagged_lists_every_regression_as_untagged() -> None:
    for items in ({}, {"r2": Reviewed(None), "other": Reviewed(None)}):
        tags = RegressionTags(REGRESSIONS, items)
        assert tags.by_id is None
        for ask in ASKS:
            assert tags.ids(ask) == ids_tagged_as(as_dict(items), ask)
            among = tags.ids(ask)
            assert tags.ids_among(among, ask) == ids_tagged_as(
                {i: as_dict(items)[i] for i in among}, ask
            )
        assert tags.counts() == {}


def test_a_review_with_tags_lists_them_in_the_regressions_order() -> None:
    items = {
        "r3": Reviewed("confirmed"),
        "r1": Reviewed("flaky"),
        "r2": Reviewed(None),
        "elsewhere": Reviewed("confirmed"),  # not a regression: never listed or counted
    }
    tags = RegressionTags(REGRESSIONS, items)
    assert tags.ids(lambda tag: tag == "confirmed") == ("r3",)
    assert tags.ids(lambda tag: tag is None) == ("r2", "r4")
    assert tags.ids_among(("r2", "r3"), lambda tag: tag is not None) == ("r3",)
    assert tags.counts() == {"flaky": 1, "confirmed": 1}  # in the order first seen
    assert list(tags.counts()) == ["flaky", "confirmed"]


def test_no_regressions_list_nothing_whatever_is_asked() -> None:
    tags = RegressionTags((), {"a": Reviewed("confirmed")})
    assert tags.ids(lambda tag: True) == ()
    assert RegressionTags((), {}).ids(lambda tag: True) == ()
    assert tags.counts() == {}
