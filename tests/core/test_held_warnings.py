"""The caches' warnings are held while nobody can read stderr (the review app runs), shown in
order once someone can, and printed on stderr when the holding ends unshown: none is lost."""

from __future__ import annotations

import logging

from evaltui.core.held_warnings import LOGGER, hold, holding

LOG = logging.getLogger(LOGGER)


def test_warnings_said_before_they_can_be_shown_are_shown_first_in_order():
    held = hold()
    try:
        LOG.warning("first")
        LOG.warning("second")
        shown: list[str] = []
        held.show_with(shown.append)
        assert shown == ["first", "second"]
        LOG.warning("third")
        assert shown == ["first", "second", "third"]
    finally:
        held.stop_holding()


def test_warnings_never_shown_go_to_stderr_when_the_holding_ends(capsys):
    held = hold()
    assert holding() is held
    LOG.warning("evaltui: warning: the kept analysis of a and b was damaged: computed afresh")
    assert capsys.readouterr().err == ""  # held, not printed while the app would own stderr
    held.stop_holding()
    assert capsys.readouterr().err == (
        "evaltui: warning: the kept analysis of a and b was damaged: computed afresh\n"
    )
    assert holding() is None


def test_after_the_holding_ends_warnings_are_not_sent_to_the_closed_screen():
    held = hold()
    shown: list[str] = []
    held.show_with(shown.append)
    held.stop_holding()
    LOG.warning("after")
    assert shown == []
