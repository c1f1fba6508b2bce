"""The headless commands show a self-erasing progress line at a terminal, and nothing elsewhere."""

from __future__ import annotations

import io

from evaltui.cli.progress_line import ERASE, terminal_progress


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_a_terminal_gets_one_line_redrawn_in_place_and_erased_at_the_end():
    screen = Terminal()
    with terminal_progress(screen, delay=0) as progress:
        progress("reading the baseline and the candidate (1.2 of 4.8 GB)", 0.25, 3)
        progress("pairing items", 1, 3)
    written = screen.getvalue()
    assert written.count(ERASE) == 3 and "\n" not in written
    assert "evaltui: reading the baseline and the candidate (1.2 of 4.8 GB)… 8%" in written
    assert "evaltui: pairing items… 33%" in written
    assert written.endswith(ERASE)  # nothing left on the line for what is printed next


def test_the_line_is_erased_when_the_work_fails():
    screen = Terminal()
    try:
        with terminal_progress(screen, delay=0) as progress:
            progress("pairing items", 1, 3)
            raise RuntimeError("bad input")
    except RuntimeError:
        pass
    assert screen.getvalue().endswith(ERASE)


def test_quick_work_draws_nothing():
    screen = Terminal()
    with terminal_progress(screen, delay=60) as progress:
        progress("pairing items", 1, 3)
    assert screen.getvalue() == ""


def test_a_pipe_or_file_gets_no_progress_at_all():
    with terminal_progress(io.StringIO()) as progress:
        assert progress is None


def test_a_reader_still_running_after_the_line_is_erased_draws_nothing_more():
    """The candidate's reader thread goes on after the baseline is refused: the one-line error,
    printed after the erase, stays the last thing on stderr."""
    screen = Terminal()
    try:
        with terminal_progress(screen, delay=0) as progress:
            progress("reading the baseline and the candidate (0.1 of 0.4 GB)", 0.25, 3)
            raise RuntimeError("the baseline refused")
    except RuntimeError:
        pass
    erased = screen.getvalue()
    progress("reading the baseline and the candidate (0.2 of 0.4 GB)", 0.5, 3)
    assert screen.getvalue() == erased


def test_a_step_without_a_total_is_said_without_a_percentage():
    screen = Terminal()
    with terminal_progress(screen, delay=0) as progress:
        progress("comparing the runs' costs (paired bootstrap over 200,000 items)", 0, 0)
    assert screen.getvalue() == (
        f"{ERASE}evaltui: comparing the runs' costs (paired bootstrap over 200,000 items)…{ERASE}"
    )


def test_a_step_said_in_the_first_moment_is_drawn_once_the_moment_has_passed():
    """A reader that meters nothing (a CSV pair's polars parse) says "reading" only at its
    start: drawn when the delay runs out, not swallowed until the next step."""
    screen = Terminal()
    with terminal_progress(screen, delay=0.05) as progress:
        progress("pairing items", 1, 3)  # (replaced by the later one, still early)
        progress("reading the baseline and the candidate", 0, 3)
        assert screen.getvalue() == ""  # not yet: quick work stays quiet
        progress._timer.join(10)  # (the barrier: the delay's timer has run)
        assert screen.getvalue() == f"{ERASE}evaltui: reading the baseline and the candidate… 0%"
    assert screen.getvalue().endswith(ERASE)
