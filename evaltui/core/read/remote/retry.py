"""Retries with exponential backoff and jitter, bounded, for the transient failures only.

The store libraries' own retry loops are turned down to one try (`stores.py`), so that how
often and how long evaltui waits is decided here, once, and every failure ends in one line
(`failures.remote_error`) that says how many tries were made. `EVALTUI_REMOTE_TRIES` changes the
bound (default 4 tries: waits of about 0.2, 0.4 and 0.8 s).
"""

from __future__ import annotations

import os
import random
import time
from collections.abc import Callable
from typing import TypeVar

from evaltui.core.read.remote.failures import classify, remote_error

T = TypeVar("T")
DEFAULT_TRIES = 4
BASE_DELAY = 0.2
MAX_DELAY = 5.0


def tries() -> int:
    try:
        return max(1, int(os.environ.get("EVALTUI_REMOTE_TRIES", DEFAULT_TRIES)))
    except ValueError:
        return DEFAULT_TRIES


def delay(attempt: int) -> float:
    """The wait before try `attempt + 1` (attempt counts from 1): doubling, with full jitter
    in its upper half so that parallel readers do not retry in step."""
    ceiling = min(MAX_DELAY, BASE_DELAY * 2 ** (attempt - 1))
    return ceiling / 2 + random.random() * ceiling / 2


def with_retries(
    url: str, action: Callable[[], T], *, sleep: Callable[[float], None] = time.sleep
) -> T:
    """`action()`, tried again after a transient failure up to `tries()` times in all; any
    failure left is a RemoteError naming `url`."""
    limit = tries()
    attempt = 1
    while True:
        try:
            return action()
        except Exception as exc:  # noqa: BLE001 - every store error is classified
            if getattr(exc, "kind", None) is not None and hasattr(exc, "problem"):
                raise  # already ours
            if not classify(exc).transient or attempt >= limit:
                raise remote_error(url, exc, attempt) from None
            sleep(delay(attempt))
            attempt += 1
