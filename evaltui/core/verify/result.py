"""What verify answers, and how it quotes what it read.

Every check gives one :class:`Verification`: verified or not, and one line saying why. Text a
reason quotes comes from a record or a file, so it passes through :func:`shown` (inert, short).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from evaltui.core.textsafe import one_line

__all__ = ["Verification", "shown", "shown_path", "what_broke"]


@dataclass(frozen=True)
class Verification:
    ok: bool
    reason: str


def shown(value: Any, width: int = 160) -> str:
    """Text from a record or a file, inert and short, for a one-line reason."""
    return one_line(str(value), width)


def shown_path(path: Any) -> str:
    """A run's path for a one-line reason: a URL whole (a `Path` folds `s3://b/k` into
    `s3:/b/k`, and argparse gives one), else the path as given."""
    from evaltui.core.read.remote.urls import url_of

    return shown(url_of(path) or path)


def what_broke(exc: BaseException) -> str:
    if isinstance(exc, KeyError):
        return f"a key it must have is missing ({shown(exc.args[0] if exc.args else exc)})"
    return shown(f"{type(exc).__name__}: {exc}")
