"""The inputs' sha256 verify checks first, with how far they are said.

verify hashes each input before it rebuilds anything; a record's runs read again from the URLs
it names are whole-object downloads (1.9 GB for a 200,000-sample Inspect pair), minutes over a
slow link, and a local 1 GB pair takes seconds: the terminal said nothing meanwhile. The inputs
are hashed side by side, and the bytes the hashes read (`meter.read`, in each hashing thread)
are said as "checking the inputs' sha256 (0.4 of 1.9 GB)", at most four times a second.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator, Sequence
from contextlib import nullcontext
from pathlib import Path

from evaltui.core.analysis.run_set import READERS
from evaltui.core.analysis.step_progress import Progress
from evaltui.core.read import meter
from evaltui.core.read.hash_progress import ByteReports, hashing_words
from evaltui.core.read.runs import sha256_of, size_or_zero


def sha256s_said(paths: Sequence[str | Path], progress: Progress | None) -> Iterator[str]:
    """Each path's sha256, in order, the bytes hashed over all of them said to `progress`.
    The paths are hashed side by side, a thread each (hashlib and the stores' reads release
    the GIL: a 1 GB pair's two files 0.73 s against 1.82 s one after the other, a record's
    two URLs downloaded at once). The threads are daemons: a caller that stops at a
    mismatch does not wait for the others (a download ended under one leaves its staging
    file, which the cache sweeps)."""
    add: ByteReports | None = None
    if progress is not None:
        said = progress
        total = sum(size_or_zero(Path(path)) for path in paths)

        def say(done: int, total: int) -> None:
            said(hashing_words(done, total), done / total if total else 0.0, 1)

        add = ByteReports(say, total)
    at_once = threading.BoundedSemaphore(READERS)  # (a run set names up to 12 files)
    hashing = [_Hashing(Path(path), add, at_once) for path in paths]
    for one in hashing:
        yield one.digest()


class _Hashing:
    """One path's sha256, computed by a daemon thread of its own from the moment it is made,
    once `at_once` lets it: as many files are hashed at once as the read side reads
    (`run_set.READERS`); more only compete for the same disk, cores and link."""

    def __init__(
        self, path: Path, add: ByteReports | None, at_once: threading.BoundedSemaphore
    ) -> None:
        self._done = threading.Event()
        self._digest = ""
        self._error: BaseException | None = None
        threading.Thread(
            target=self._run, args=(path, add, at_once), name="evaltui-verify-sha256", daemon=True
        ).start()

    def _run(
        self, path: Path, add: ByteReports | None, at_once: threading.BoundedSemaphore
    ) -> None:
        try:
            with at_once, meter.metering(add) if add is not None else nullcontext():
                self._digest = sha256_of(path)
        except BaseException as exc:  # noqa: BLE001 - raised in the caller's thread
            self._error = exc
        finally:
            self._done.set()

    def digest(self) -> str:
        """The sha256, once computed; what stopped it, raised here."""
        self._done.wait()
        if self._error is not None:
            raise self._error
        return self._digest


PHASES = 2  # the inputs' sha256, then the rebuild (its read, statistics and costs)


def phase(progress: Progress | None, number: int) -> Progress | None:
    """`progress` with each line led by its phase ("verify 1/2 · checking the inputs'
    sha256 ... 91%", then "verify 2/2 · reading the baseline and the candidate ... 0%"): each
    phase counts its own percentage, which restarted at 0% with nothing to say why."""
    if progress is None:
        return None
    said = progress

    def phased(what: str, step: float, steps: int) -> None:
        said(f"verify {number}/{PHASES} · {what}", step, steps)

    return phased
