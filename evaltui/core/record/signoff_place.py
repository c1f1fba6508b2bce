"""Where a sign-off record goes when no `--output` is given: the review's own folder.

A record written to the current directory landed, for a newcomer, in the git checkout (ten
untracked `signoff-*` files after an afternoon) and was named by time only. The default is the
folder that already holds the review: the pair's session folder beside its journal
(`STATE/sessions/KEY/signoffs/`), or for three or more runs a folder keyed the same way by every
run (`STATE/run-sets/KEY/signoffs/`); STATE is the journals' folder (`journal.state_dir`). The
name says which runs and when: `signoff-BASE-vs-CAND-YYYYmmdd-HHMMSS` (file stems, reduced to
safe characters), with `-2`, `-3`... when a record of that second is already there.
"""

from __future__ import annotations

import hashlib
import re
import time
from collections.abc import Sequence
from pathlib import Path

from evaltui.core.record.journal import session_key, state_dir

MAX_STEM = 40  # characters of a run's file stem kept in the name
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def _stem(path: str | Path) -> str:
    """A run's file stem as a file-name part: letters, digits, `._-`, at most MAX_STEM."""
    name = Path(path).name
    for suffix in (".gz", ".zst", ".jsonl", ".json", ".eval", ".csv", ".parquet"):
        name = name.removesuffix(suffix)
    return (_UNSAFE.sub("_", name).strip("._-") or "run")[:MAX_STEM]


def review_folder(runs: Sequence[str | Path], root: Path | None = None) -> Path:
    """The folder the review of these runs keeps its records in (not created here)."""
    base = root or state_dir()
    if len(runs) == 2:
        return base / "sessions" / session_key(runs[0], runs[1]) / "signoffs"
    joined = "\n".join(str(Path(p).resolve()) for p in runs)
    key = hashlib.sha256(joined.encode("utf-8")).hexdigest()[:16]
    return base / "run-sets" / key / "signoffs"


def default_prefix(
    runs: Sequence[str | Path], root: Path | None = None, now: float | None = None
) -> Path:
    """PREFIX (without .json/.md/.csv) for a new record of these runs, in `review_folder`,
    named by the runs and the time (the folder is made by `make_review_folder` on writing)."""
    folder = review_folder(runs, root)
    names = f"{_stem(runs[0])}-vs-{_stem(runs[1])}"
    if len(runs) > 2:
        names += f"-and-{len(runs) - 2}-more"
    stamp = time.strftime("%Y%m%d-%H%M%S", time.localtime(now))
    prefix = folder / f"signoff-{names}-{stamp}"
    taken = 1
    while any(prefix.with_name(prefix.name + ext).exists() for ext in (".json", ".md", ".csv")):
        taken += 1
        prefix = folder / f"signoff-{names}-{stamp}-{taken}"
    return prefix


def make_review_folder(prefix: Path, runs: Sequence[str | Path], root: Path | None = None) -> None:
    """Make the review folder when PREFIX is in it (a folder the reviewer named must exist:
    a typo there is refused, not created)."""
    folder = review_folder(runs, root)
    if Path(prefix).parent == folder:
        folder.mkdir(parents=True, exist_ok=True)
