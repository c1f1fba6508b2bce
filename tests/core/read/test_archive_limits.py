"""Hostile `.eval` archives end in one line naming the log, the member and the limit (exit 2),
in bounded memory and time: a member inflating far past its compressed size (zstd), entries
sharing compressed bytes, a member listed twice, a member inflating past its declared size, and
more than a log's worth of inflated bytes. The bombs are built on the fly (zip_bombs.py)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
import zipfile
import zlib

import pytest

from evaltui.cli.main import main
from evaltui.core.errors import InputError
from evaltui.core.read.archive_limits import (
    DEFLATED,
    ZSTANDARD,
    Budget,
    Inflater,
    LimitExceeded,
    ZipLimits,
    check_layout,
    inflate,
)
from evaltui.core.read.formats import inspect_eval, load_run
from tests.conftest import ROOT
from tests.core.read import zip_bombs
from tests.core.read.zip_bombs import TEMPLATE, MiB

OTHER = TEMPLATE.parent / "2025-09-15T15-04-34-04-00_popularity_CuCFPdqnwXupUkxp69nJ2a.eval"


def test_a_zstd_member_inflating_hundreds_of_times_its_size_is_refused_while_inflating(tmp_path):
    bomb = zip_bombs.summaries_bomb(tmp_path / "bomb.eval", 40 * MiB)  # under the member limit
    with zipfile.ZipFile(bomb) as archive:
        assert archive.getinfo("summaries.json").compress_size < 10_000
    with pytest.raises(InputError) as caught:
        load_run(bomb)
    message = str(caught.value)
    assert message.startswith(f"{bomb} (record summaries.json): ")
    assert "more than 200 times its compressed size" in message


def test_a_member_inflating_past_its_declared_size_is_refused(tmp_path):
    path = zip_bombs.understated_size(tmp_path / "under.eval", declared=1000)
    with pytest.raises(InputError, match=r"\(record summaries.json\): .*past the 1000 bytes"):
        load_run(path)


def test_overlapping_entries_are_refused_before_a_byte_is_inflated(tmp_path, monkeypatch):
    path = zip_bombs.overlap_bomb(tmp_path / "overlap.eval", entries=3000, kernel=8 * MiB)
    inflated: list[str] = []
    original = Inflater.feed
    monkeypatch.setattr(Inflater, "feed", lambda s, d: inflated.append(s.member) or original(s, d))
    started = time.perf_counter()
    with pytest.raises(InputError, match=r"\(record samples/0_epoch_1.json\): .*overlaps"):
        load_run(path)
    assert inflated == [] and time.perf_counter() - started < 2.0


def test_a_member_listed_twice_is_refused(tmp_path):
    with pytest.raises(InputError, match=r"\(record header.json\): .*lists this member twice"):
        load_run(zip_bombs.duplicate_name(tmp_path / "dup.eval"))


def test_a_logs_members_together_are_bounded(monkeypatch):
    small = ZipLimits(log_bytes=20_000)
    monkeypatch.setattr(inspect_eval, "DEFAULT_LIMITS", small)
    with pytest.raises(InputError, match=r"together, the limit for one log"):
        load_run(TEMPLATE)


def test_report_on_a_bomb_is_one_line_exit_2(tmp_path, capsys):
    bomb = zip_bombs.summaries_bomb(tmp_path / "bomb.eval", 40 * MiB)
    assert main(["report", str(bomb), str(OTHER)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and str(bomb) in err[0] and "summaries.json" in err[0]
    assert "200 times" in err[0] and "Traceback" not in err[0]


# --- the limits themselves, as a remote reader would use them (bytes in pieces) ------------


def _zstd(data: bytes) -> bytes:
    from evaltui.core.read.archive_limits import zstd

    return zstd.ZstdCompressor().compress(data, zstd.ZstdCompressor.FLUSH_FRAME)


def test_pieces_of_any_size_inflate_to_the_member_and_its_crc_is_checked():
    data = os.urandom(50_000) + b"x" * 200_000
    for method, packed in ((ZSTANDARD, _zstd(data)), (DEFLATED, _deflate(data))):
        pieces = [packed[i : i + 777] for i in range(0, len(packed), 777)]
        assert inflate(pieces, "m", method, len(data), zlib.crc32(data)) == data
        with pytest.raises(ValueError, match="CRC-32"):
            inflate(pieces, "m", method, len(data), zlib.crc32(data) ^ 1)


def _deflate(data: bytes) -> bytes:
    packer = zlib.compressobj(6, zlib.DEFLATED, -15)
    return packer.compress(data) + packer.flush()


def test_the_member_limit_stops_output_not_the_declaration():
    data = b" " * (3 * MiB)
    limits = ZipLimits(member_bytes=MiB, ratio=10**9)
    for method, packed in ((ZSTANDARD, _zstd(data)), (DEFLATED, _deflate(data))):
        inflater = Inflater("m", method, len(data), limits)
        with pytest.raises(LimitExceeded, match=f"{MiB}-byte limit"):
            inflater.feed(packed)
        assert inflater.size == sum(map(len, inflater.chunks)) <= MiB


def test_the_budget_spans_members():
    budget = Budget(ZipLimits(log_bytes=150_000))
    data = b"y" * 100_000
    inflate([_zstd(data)], "a", ZSTANDARD, len(data), zlib.crc32(data), budget=budget)
    with pytest.raises(LimitExceeded, match="together") as caught:
        inflate([_zstd(data)], "b", ZSTANDARD, len(data), zlib.crc32(data), budget=budget)
    assert caught.value.member == "b"


class _Entry:
    def __init__(self, name: str, offset: int, size: int) -> None:
        self.filename, self.header_offset, self.compress_size = name, offset, size


def test_layouts_sharing_bytes_or_reaching_the_directory_are_refused():
    check_layout([_Entry("a", 0, 10), _Entry("b", 41, 5)], 100)  # a ends at 41: fine
    with pytest.raises(LimitExceeded, match="overlaps"):
        check_layout([_Entry("a", 0, 10), _Entry("b", 40, 5)], 100)
    with pytest.raises(LimitExceeded, match="central directory"):
        check_layout([_Entry("a", 0, 80)], 100)


# --- the bombs, full size, under a 3 GiB address space ------------------------------

LIMITED = """
import resource, sys
resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))
from evaltui.cli.main import main
sys.exit(main(["report", sys.argv[1], sys.argv[2]]))
"""


def _report_limited(bomb) -> tuple[subprocess.CompletedProcess, float]:
    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-c", LIMITED, str(bomb), str(OTHER)],
        cwd=ROOT, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    return done, time.monotonic() - started


@pytest.mark.slow
@pytest.mark.parametrize("declared", ["honestly", "as 200 MiB"])
def test_a_511_mib_zstd_summaries_bomb_ends_in_one_line_under_3_gib(tmp_path, declared):
    bomb = zip_bombs.summaries_bomb(tmp_path / "bomb.eval", 511 * MiB)
    assert bomb.stat().st_size < 300_000
    if declared != "honestly":  # under the member limit: refused while inflating
        data = bytearray(bomb.read_bytes())
        for width in (8, 4):  # the local header's zip64 extra, the central directory's field
            size = (511 * MiB).to_bytes(width, "little")
            assert size in data
            data = data.replace(size, (200 * MiB).to_bytes(width, "little"))
        bomb.write_bytes(bytes(data))
    done, seconds = _report_limited(bomb)
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 2, done.stderr[-2000:]
    assert len(lines) == 1 and str(bomb) in lines[0] and "(record summaries.json)" in lines[0]
    expected = "200 times its compressed size" if declared != "honestly" else "byte limit"
    assert expected in lines[0] and seconds < 30


@pytest.mark.slow
def test_3000_overlapping_8_mib_zstd_entries_end_in_one_line_under_3_gib(tmp_path):
    bomb = zip_bombs.overlap_bomb(tmp_path / "overlap.eval", entries=3000, kernel=8 * MiB)
    done, seconds = _report_limited(bomb)
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 2, done.stderr[-2000:]
    assert len(lines) == 1 and str(bomb) in lines[0] and "overlaps" in lines[0]
    assert seconds < 30
