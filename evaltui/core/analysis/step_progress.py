"""The one shape of a long computation's progress callback, named once.

Reading, pairing, the statistics, the cost comparison, verify's hashes: each reports what it
does now, how far (a step, fractional while a read moves on within it) and of how many steps.
The app's header, the headless commands' progress line and the early read's hand-off all take
this one callback; it was written out again in each module that reports, seven copies of one
concept that could drift apart.
"""

from __future__ import annotations

from collections.abc import Callable

Progress = Callable[[str, float, int], None]  # what, step (fractional while reading), steps
