"""How far the inputs' sha256 are, said while the sign-off waits for them.

The app hashes its inputs after the first screen (`App.confirm_inputs`: a deferred hash, a
remote run's, one the scan cache supplied), and the sign-off waits for them. A remote pair's
hash reads both whole objects (1.9 GB for a 200,000-sample Inspect pair), minutes over a slow
link, during which the header said nothing and `x` said only "still checking". The hashing's
bytes (the loaders' `meter.read`, heard in the worker's thread) are said (`InputsHashing`)
at most four times a second and only once it has taken longer than a moment, so a small
pair's quick hash never flashes a line.
"""

from __future__ import annotations

from collections.abc import Callable

from evaltui.core.read.hash_progress import ByteReports, size_done

DELAY = 0.5  # seconds before the first report: a quick hash says nothing
INTERVAL = 0.25  # seconds between reports (the reading step's pace)


def hashing_reports(say: Callable[[int, int], object], total: int) -> ByteReports:
    """The `meter.metering` callback of the app's hashing, saying `say(done, total)` (which
    posts a message: safe from a thread) at this module's pace."""
    return ByteReports(say, total, delay=DELAY, interval=INTERVAL)


def hashing_line(hashed: tuple[int, int]) -> str:
    """The words the header and the sign-off's refusal say while the inputs are hashed."""
    return f"sign-off waits for the inputs' sha256 ({size_done(*hashed)} read)"
