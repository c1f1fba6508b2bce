"""One exception family for everything a user can get wrong.

Every message names the file at fault and, where it is known, the line or record, the field and
what was expected, so the CLI can print it on one line and exit non-zero without a traceback.
"""

from __future__ import annotations

import os


class EvalTuiError(Exception):
    """Base of all errors meant for the user, never for a traceback."""


class UsageError(EvalTuiError):
    """Bad arguments or options: the command line itself is wrong."""


class InputError(EvalTuiError):
    """A file that cannot be read as a run, with the place and the reason."""

    def __init__(
        self,
        path: str | os.PathLike[str],
        problem: str,
        *,
        line: int | None = None,
        record: str | None = None,
        field: str | None = None,
    ) -> None:
        self.path = path if isinstance(path, str) else os.fspath(path)
        self.line = line
        self.record = record
        self.field = field
        self.problem = problem
        where = self.path
        if line is not None:
            where += f":{line}"
        if record is not None:
            where += f" (record {record})"
        if field is not None:
            where += f": field '{field}'"
        super().__init__(f"{where}: {_one_line(problem)}")


class PairingError(EvalTuiError):
    """The two runs cannot be paired as they are (missing items, mismatched items)."""


def _one_line(text: str) -> str:
    """Keep messages on one line: a newline in an error would break the one-line contract."""
    return " ".join(text.split())
