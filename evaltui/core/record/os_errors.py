"""What the system said when review state could not be read or written, in plain words.

The journal, its lock and the sign-off records share these, so a full disk reads the same
wherever it is met: one line naming the path, never a traceback.
"""

from __future__ import annotations

import errno
from pathlib import Path

from evaltui.core.errors import EvalTuiError


class StateWriteError(EvalTuiError):
    """A journal, lock or record that could not be written (a full disk, a read-only or
    unwritable folder): one line naming the path and what the system said, never a traceback."""


_WHY = {
    errno.ENOSPC: "the disk is full",
    errno.EDQUOT: "the disk quota is used up",
    errno.EROFS: "the file system is read-only",
    errno.EACCES: "permission denied",
    errno.EPERM: "not permitted",
}


def os_error_text(exc: OSError) -> str:
    """What went wrong in plain words, with the system's own text: `the disk is full (No space
    left on device)`."""
    said = exc.strerror or str(exc) or type(exc).__name__
    why = _WHY.get(exc.errno or 0)
    return f"{why} ({said})" if why else said


def write_failure(what: str, path: str | Path, exc: OSError) -> StateWriteError:
    """The one-line error for a failed write of `what` (e.g. "the review journal") at `path`."""
    return StateWriteError(f"cannot write {what} {path}: {os_error_text(exc)}")
