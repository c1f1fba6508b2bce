"""The inputs' sha256 verify checks first, with how far they are said.

verify hashes each input before it rebuilds anything; a record's runs read again from the URLs
it names are whole-object downloads (1.9 GB for a 200,000-sample Inspect pair), minutes over a
slow link, and a local 1 GB pair takes seconds: the terminal said nothing meanwhile. The bytes
the hash reads (`meter.read`, in this thread) are said as "checking the inputs' sha256 (0.4 of
1.9 GB)", at most four times a second.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

from evaltui.core.read import meter
from evaltui.core.read.hash_progress import ByteReports, hashing_words
from evaltui.core.read.runs import sha256_of, size_or_zero

Progress = Callable[[str, float, int], None]  # what, step, steps (`read_both.Progress`)


def sha256s_said(paths: Sequence[str | Path], progress: Progress | None) -> Iterator[str]:
    """Each path's sha256 in turn (lazily: a caller that stops at a mismatch hashes no more),
    the bytes hashed over all of them said to `progress`."""
    if progress is None:
        for path in paths:
            yield sha256_of(Path(path))
        return
    said = progress
    total = sum(size_or_zero(Path(path)) for path in paths)

    def say(done: int, total: int) -> None:
        said(hashing_words(done, total), done / total if total else 0.0, 1)

    add = ByteReports(say, total)
    for path in paths:
        with meter.metering(add):
            digest = sha256_of(Path(path))
        yield digest


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
