"""A clock a test moves by hand (`clock.now += 3`), for code that takes a `clock` callable
(`time.monotonic` in use): what a line says after so many seconds, without waiting them."""

from __future__ import annotations


class FakeClock:
    def __init__(self, now: float = 100.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now
