"""The reading step's progress: bytes against the files' sizes when they are read whole; for an
`.eval` log, read by its parts (its directory and summaries only), its samples as they are
summarised and, remote, the bytes read by range, so a pair never says "0.0 of 1.9 GB" or stands
at 0 % for the whole of its read."""

from __future__ import annotations

import hashlib
import re
import threading
from pathlib import Path
from typing import Any

import pytest

from evaltui.core.analysis import read_both
from evaltui.core.analysis.pipeline import compare_files
from evaltui.core.read.formats import LoadOptions, load_run
from evaltui.core.read.remote import download
from tests.core.read.remote.conftest import BASE, CAND, padded

Said = list[tuple[str, float, int]]


def _progress(monkeypatch: pytest.MonkeyPatch, paths: tuple[str, ...]) -> tuple[Any, Said]:
    said: Said = []
    monkeypatch.setattr(read_both._ReadingProgress, "INTERVAL", 0.0)
    return read_both._ReadingProgress(lambda *report: said.append(report), paths), said


def test_files_read_whole_count_against_their_sizes(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    base, cand = tmp_path / "base.jsonl", tmp_path / "cand.jsonl"
    base.write_bytes(b"x" * 300_000)
    cand.write_bytes(b"x" * 100_000)
    counter, said = _progress(monkeypatch, (str(base), str(cand)))
    counter.add(100_000)
    assert said == [("reading the baseline and the candidate (0.1 of 0.4 MB)", 0.25, 3)]


@pytest.fixture
def no_size_lookup(monkeypatch: pytest.MonkeyPatch) -> None:
    """An `.eval` log is read by its parts: its size is never looked up for the progress."""

    def no_lookup(path: Path) -> int:
        raise AssertionError(f"{path}: an .eval log's size looked up")

    monkeypatch.setattr(read_both, "size_or_zero", no_lookup)


def test_a_remote_eval_pair_says_the_bytes_it_read_without_looking_up_its_size(
    monkeypatch: pytest.MonkeyPatch, no_size_lookup: None
) -> None:
    urls = ("s3://logs/a/baseline.eval", "https://example.invalid/candidate.eval")
    counter, said = _progress(monkeypatch, urls)
    counter.add(18_000_000)
    assert said == [("reading the baseline and the candidate (18 MB read by range)", 0.0, 3)]


def test_an_eval_read_by_ranges_beside_a_file_read_whole(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    local = tmp_path / "base.jsonl"
    local.write_bytes(b"x" * 200_000)
    counter, said = _progress(monkeypatch, (str(local), "s3://logs/candidate.eval"))
    counter.add(50_000)
    assert said == [("reading the baseline and the candidate (0 MB read by range)", 0.25, 3)]


def test_a_remote_pair_read_for_real_reports_its_ranged_bytes(
    http_root: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    server, root = http_root
    (root / "big.eval").write_bytes(padded(CAND, 4 << 20))  # ranges, not one request
    monkeypatch.setenv("EVALTUI_NO_CACHE", "1")
    monkeypatch.setattr(read_both._ReadingProgress, "INTERVAL", 0.0)
    said: Said = []
    options = LoadOptions(defer_hash_check=True)
    read_both.load_both(
        f"{server.url}/{BASE.name}",
        f"{server.url}/big.eval",
        None,
        options,
        options,
        lambda *report: said.append(report),
        prefetch=False,
    )
    # the samples of both logs counted as they are read, the bytes as read by range
    shape = re.compile(r"^reading the baseline and the candidate \((?:([\d,]+) of ([\d,]+) "
                       r"samples|[\d,]+ samples read); \d+ MB read by range\)$")  # fmt: skip
    bytes_only = re.compile(r"^reading the baseline and the candidate \(\d+ MB read by range\)$")
    # (bytes are read before a log has found its samples)
    counts = [shape.match(what) for what, _, _ in said if not bytes_only.match(what)]
    assert counts and None not in counts, said
    fractions = [fraction for _, fraction, _ in said]
    assert fractions == sorted(fractions) and fractions[-1] == 1.0  # never back; all read
    both = len(load_run(BASE).table) + len(load_run(CAND).table)
    assert counts[-1] is not None and counts[-1].groups() == (f"{both:,}", f"{both:,}")


def test_an_eval_pairs_samples_move_the_bar_and_it_never_goes_back(
    monkeypatch: pytest.MonkeyPatch, no_size_lookup: None
) -> None:
    counter, said = _progress(monkeypatch, ("/logs/baseline.eval", "/logs/candidate.eval"))
    counter.samples(0, 200_000)  # the baseline found its samples
    counter.samples(50_000, 0)
    counter.samples(0, 300_000)  # the candidate's second process found its own: more
    counter.samples(10_000, 0)
    counter.samples(440_000, 0)
    step = "reading the baseline and the candidate"
    assert said == [
        (f"{step} (0 samples read)", 0.0, 3),
        # the candidate not sized yet: taken for as large as the baseline
        (f"{step} (50,000 samples read)", 0.125, 3),
        (f"{step} (50,000 of 500,000 samples)", 0.125, 3),  # (0.1: the bar stays)
        (f"{step} (60,000 of 500,000 samples)", 0.125, 3),
        (f"{step} (500,000 of 500,000 samples)", 1.0, 3),
    ]


def test_a_second_process_that_gave_no_run_has_its_samples_taken_back(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    counter, said = _progress(monkeypatch, ("/logs/baseline.eval", "/logs/candidate.eval"))
    counter.samples(0, 100)
    counter.samples(0, 100)  # the child
    counter.samples(60, 0)  # (of which the child's 40)
    counter.samples(-40, -100)  # the child gave no run: the log is read here instead
    counter.samples(0, 100)
    counter.samples(140, 0)
    step = "reading the baseline and the candidate"
    assert [what for what, _, _ in said] == [
        f"{step} (0 samples read)",
        f"{step} (0 of 200 samples)",
        f"{step} (60 of 200 samples)",
        f"{step} (20 samples read)",
        f"{step} (20 of 200 samples)",
        f"{step} (160 of 200 samples)",
    ]
    fractions = [fraction for _, fraction, _ in said]
    assert fractions == [0.0, 0.0, 0.3, 0.3, 0.3, 0.8]


def test_a_local_pair_counts_the_samples_the_second_process_reads(
    monkeypatch: pytest.MonkeyPatch, asked: list[Any]
) -> None:
    from evaltui.core.read.formats import inspect_elsewhere

    monkeypatch.setattr(inspect_elsewhere, "ENTRIES", 1)  # the candidate read elsewhere
    monkeypatch.setattr(read_both._ReadingProgress, "INTERVAL", 0.0)
    said: Said = []
    options = LoadOptions(defer_hash_check=True)
    read_both.load_both(
        BASE, CAND, None, options, options, lambda *r: said.append(r), prefetch=False
    )
    assert len(asked) == 1 and asked[0] is not None  # the child's run
    both = len(load_run(BASE).table) + len(load_run(CAND).table)
    assert said[-1] == (f"reading the baseline and the candidate ({both:,} of {both:,} samples)",
                        1.0, 3)  # fmt: skip


def test_the_last_samples_are_always_said_however_soon_after_the_last_report(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    counter, said = _progress(monkeypatch, ("/logs/baseline.eval", "/logs/candidate.eval"))
    counter.samples(0, 100)  # said (no interval yet)
    monkeypatch.setattr(read_both._ReadingProgress, "INTERVAL", 3600.0)  # then one an hour
    counter.samples(0, 100)
    counter.samples(150, 0)
    counter.samples(50, 0)  # the last: said at once
    step = "reading the baseline and the candidate"
    assert said == [(f"{step} (0 samples read)", 0.0, 3), (f"{step} (200 of 200 samples)", 1.0, 3)]


def test_an_eval_name_read_as_another_format_counts_its_bytes(tmp_path: Path) -> None:
    said: Said = []
    paths = (tmp_path / "baseline.eval", tmp_path / "candidate.eval")
    for path in paths:
        path.write_bytes(b"x" * 100_000)  # (read whole as JSONL, say: `--format jsonl`)
    counter = read_both._ReadingProgress(lambda *report: said.append(report), paths, "jsonl")
    counter.add(50_000)
    assert said == [("reading the baseline and the candidate (0.1 of 0.2 MB)", 0.25, 3)]


def test_a_remote_pairs_sha256_read_is_said_until_it_is_done(
    http_root: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The whole objects read for their sha256 after the statistics are done (`report` of a
    remote pair: 18 MB of a 959 MB log for the numbers, all of it for the hash) say how far
    they are, where the line stood on the last sample before."""
    server, root = http_root
    sizes = 0
    for name, log in (("hashed-base.eval", BASE), ("hashed-cand.eval", CAND)):
        data = padded(log, 3 << 20)
        (root / name).write_bytes(data)
        sizes += len(data)
    monkeypatch.setenv("EVALTUI_NO_CACHE", "1")
    statistics_done = threading.Event()
    real = download.sha256_of_remote

    def once_the_statistics_are_done(blob: Any) -> str:
        assert statistics_done.wait(30)  # (each hash still to read when they are)
        return real(blob)

    monkeypatch.setattr(download, "sha256_of_remote", once_the_statistics_are_done)
    said: Said = []

    def progress(what: str, step: float, steps: int) -> None:
        said.append((what, step, steps))
        if what.startswith("checking the inputs' sha256"):
            statistics_done.set()

    analysis = compare_files(
        f"{server.url}/hashed-base.eval", f"{server.url}/hashed-cand.eval", progress=progress
    )
    hashing = [(what, step) for what, step, _ in said if what.startswith("checking")]
    assert hashing[0] == (f"checking the inputs' sha256 (0.0 of {sizes / 1e6:.1f} MB)", 2.0)
    steps = [step for _, step in hashing]
    assert steps == sorted(steps) and 2.0 <= steps[-1] < 3.0
    assert said.index((*hashing[0], 3)) > max(
        i for i, (what, _, _) in enumerate(said) if what == "computing statistics"
    )
    for run, name in ((analysis.paired.baseline, "hashed-base.eval"),
                      (analysis.paired.candidate, "hashed-cand.eval")):  # fmt: skip
        assert run.source.sha256 == hashlib.sha256((root / name).read_bytes()).hexdigest()


def test_a_remote_file_read_whole_counts_its_download_once(
    http_root: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A remote JSONL run is downloaded (the read's count), then its local copy parsed and
    hashed: those read the same bytes again and are not counted."""
    server, root = http_root
    monkeypatch.setenv("EVALTUI_NO_CACHE", "1")
    heard: list[int] = []
    add = read_both._ReadingProgress.add
    monkeypatch.setattr(
        read_both._ReadingProgress, "add", lambda self, n: (heard.append(n), add(self, n))
    )
    options = LoadOptions()
    runs = read_both.load_both(
        f"{server.url}/baseline.jsonl", f"{server.url}/candidate.jsonl", None, options, options,
        lambda *report: None, prefetch=False,
    )  # fmt: skip
    for run in runs:
        run.resolved()
    sizes = (root / "baseline.jsonl").stat().st_size + (root / "candidate.jsonl").stat().st_size
    assert sum(heard) == sizes


def test_the_first_report_is_said_on_a_machine_booted_less_than_an_interval_ago(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # `time.monotonic` counts from boot on Linux: a last report "at 0.0" held the first one back
    # for the machine's first `INTERVAL` seconds
    monkeypatch.setattr(read_both.time, "monotonic", lambda: 5.0)  # up for 5 s
    base, cand = tmp_path / "base.jsonl", tmp_path / "cand.jsonl"
    base.write_bytes(b"x" * 300_000)
    cand.write_bytes(b"x" * 100_000)
    said: Said = []
    monkeypatch.setattr(read_both._ReadingProgress, "INTERVAL", 60.0)
    counter = read_both._ReadingProgress(lambda *report: said.append(report), (base, cand))
    counter.add(100_000)
    counter.add(100_000)  # (within the interval: not said)
    assert said == [("reading the baseline and the candidate (0.1 of 0.4 MB)", 0.25, 3)]
