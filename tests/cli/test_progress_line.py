"""The headless commands show a self-erasing progress line at a terminal, and nothing elsewhere."""

from __future__ import annotations

import io
import threading

from evaltui.cli.progress_line import ERASE, ProgressLine, terminal_progress
from evaltui.core.words import STILL_SECONDS as STILL
from tests.fake_clock import FakeClock


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


def test_a_line_that_stands_still_says_how_long_it_has():
    """A step without a count (the costs' bootstraps, 8 s on a large pair) must not look like
    a hung command: after `STILL` seconds unchanged the line says its seconds, each tick."""
    screen, clock = Terminal(), FakeClock()
    line = ProgressLine(screen, 0, tick=0, clock=clock)  # (ticked by hand below)
    line("comparing the runs' costs (paired bootstrap over 200,000 items)", 0, 0)
    said = "evaltui: comparing the runs' costs (paired bootstrap over 200,000 items)…"
    clock.now += STILL - 0.5
    line.tick()
    assert screen.getvalue() == f"{ERASE}{said}"  # (not still long enough: not redrawn)
    clock.now += 0.5
    line.tick()
    clock.now += 4.2
    line.tick()
    assert screen.getvalue().endswith(f"{ERASE}{said} · 2 s{ERASE}{said} · 6 s")
    line("pairing items", 1, 3)  # a new line starts its own count
    clock.now += 1
    line.tick()
    assert screen.getvalue().endswith(f"{ERASE}evaltui: pairing items… 33%")
    line.erase()
    clock.now += 10
    line.tick()
    assert screen.getvalue().endswith(ERASE)  # nothing after the erase


def test_the_same_words_said_again_keep_their_seconds():
    """A reader repeating its last words (a count that waits on one long call) is still."""
    screen, clock = Terminal(), FakeClock()
    line = ProgressLine(screen, 0, tick=0, clock=clock)
    line("reading the baseline and the candidate (1.1 of 1.1 GB)", 0.9, 3)
    clock.now += 3
    line("reading the baseline and the candidate (1.1 of 1.1 GB)", 0.9, 3)
    assert screen.getvalue().endswith("(1.1 of 1.1 GB)… 30% · 3 s")
    line.erase()


class Watched(Terminal):
    """A terminal that tells when `marker` has been written (the barrier for a timer)."""

    def __init__(self, marker: str) -> None:
        super().__init__()
        self.marker, self.seen = marker, threading.Event()

    def write(self, text: str) -> int:
        written = super().write(text)
        if self.marker in text:
            self.seen.set()
        return written


def test_the_ticks_run_by_themselves_and_stop_at_the_erase():
    screen, clock = Watched("· 5 s"), FakeClock()
    line = ProgressLine(screen, 0, tick=0.01, clock=clock)
    line("comparing the runs' costs", 0, 0)
    clock.now += 5  # (the clock moves only when told)
    assert screen.seen.wait(30)  # a tick of the line's own timer drew it
    assert screen.getvalue().endswith("evaltui: comparing the runs' costs… · 5 s")
    line.erase()
    erased = screen.getvalue()
    clock.now += 5
    if line._ticker is not None:
        line._ticker.join(30)  # (a tick under way when erased: it draws nothing)
    assert screen.getvalue() == erased


def test_a_line_longer_than_the_terminal_is_cut_to_fit_keeping_its_numbers():
    """A line that wraps is erased only on its last row: at 80 columns every redraw (each
    second, saying the seconds) left a row behind. The words are cut; the ellipsis, the
    percentage and the seconds stay whole, one cell short of the edge, and so does a count in
    parentheses at the end while the words keep half the room."""
    screen, clock = Terminal(), FakeClock()
    line = ProgressLine(screen, 0, tick=0, clock=clock, columns=lambda: 80)
    url = "s3://eval-logs/" + "nightly/" * 12 + "candidate.eval"
    line(f"reading {url} (0.4 of 1.9 GB)", 0.6, 3)
    clock.now += 11
    line.tick()
    line("reading the baseline and the candidate (127,500 of 400,000 samples)", 0.3, 3)
    line("comparing the runs' costs (paired bootstrap over 200,000 items)", 0, 0)
    clock.now += 11
    line.tick()
    drawn = [d for d in screen.getvalue().split(ERASE) if d]
    words = "evaltui: reading " + url
    assert drawn == [
        words[:57] + "… (0.4 of 1.9 GB)… 20%",
        words[:50] + "… (0.4 of 1.9 GB)… 20% · 11 s",
        "evaltui: reading the baseline and the candid… (127,500 of 400,000 samples)… 10%",
        "evaltui: comparing the runs' costs (paired bootstrap over 200,000 items)…",
        "evaltui: comparing the runs' costs (paired bootstrap over 200,000 items… · 11 s",
    ]
    assert {len(d) for d in drawn} == {79, 73}  # (the costs' line fits whole until its seconds)
    wide = ProgressLine(Terminal(), 0, columns=lambda: 30)
    wide("reading 評価ログ評価ログ評価ログ評価ログ", 1, 2)
    shown = wide._stream.getvalue().removeprefix(ERASE)
    # cells, not characters: 29, a wide character that would straddle the edge left out
    assert shown == "evaltui: reading 評価ロ … 50%"


def test_a_terminal_that_tells_no_width_gets_the_whole_line():
    screen = Terminal()  # (no file descriptor: no size to ask for)
    line = ProgressLine(screen, 0)
    line("x" * 200, 1, 2)
    assert screen.getvalue() == f"{ERASE}evaltui: {'x' * 200}… 50%"
