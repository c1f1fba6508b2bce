"""Hostile `.eval` archives read by byte ranges (a log in a shared bucket) meet the same limits
as local ones (core/read/archive_limits.py, through zip_members.read_member): a zstd member
inflating hundreds of times its size, entries sharing compressed bytes, a sample member that is
a bomb (inflated only when its item is opened). Each ends in one line naming the URL, the member
and the limit, exit 2. The bombs are built on the fly (tests/core/read/zip_bombs.py); the
full-size ones run under a 3 GiB address space (slow)."""

from __future__ import annotations

import subprocess
import sys
import time

import pytest

from evaltui.cli.main import main
from evaltui.core.errors import InputError
from evaltui.core.read.archive_limits import Inflater
from evaltui.core.read.formats import load_run
from evaltui.core.read.runs import ITEM_ID
from tests.conftest import ROOT
from tests.core.read import zip_bombs
from tests.core.read.remote.conftest import BASE
from tests.core.read.zip_bombs import MiB


def _one_line(capsys) -> str:
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1, err
    assert "Traceback" not in err[0]
    return err[0]


def test_a_remote_zstd_summaries_bomb_is_refused_while_inflating(http_root, capsys):
    server, root = http_root
    zip_bombs.summaries_bomb(root / "bomb.eval", 12 * MiB)  # under the member limit
    url = f"{server.url}/bomb.eval"
    assert main(["report", url, str(BASE)]) == 2
    line = _one_line(capsys)
    assert f"{url} (record summaries.json): " in line
    assert "more than 200 times its compressed size" in line


def test_remote_overlapping_entries_are_refused_before_a_byte_is_inflated(
    http_root, capsys, monkeypatch
):
    server, root = http_root
    zip_bombs.overlap_bomb(root / "overlap.eval", entries=300, kernel=1 * MiB)
    url = f"{server.url}/overlap.eval"
    # The spy first, on this log alone: `report` below also loads BASE (a local .eval) in a
    # thread that may still be inflating its header and summaries after the refusal returns,
    # and a spy set after it counted those (seen once in CI, under load).
    inflated: list[str] = []
    original = Inflater.feed
    monkeypatch.setattr(Inflater, "feed", lambda s, d: inflated.append(s.member) or original(s, d))
    with pytest.raises(InputError, match="overlaps"):
        load_run(url, wait_for_hash=False)
    assert inflated == []
    monkeypatch.setattr(Inflater, "feed", original)  # (the spy off; the fixtures' patches stay)
    assert main(["report", url, str(BASE)]) == 2
    line = _one_line(capsys)
    assert f"{url} (record samples/0_epoch_1.json): " in line and "overlaps" in line


def test_a_remote_sample_bomb_is_refused_when_its_item_is_opened(http_root):
    server, root = http_root
    member = "samples/3_epoch_1.json"
    zip_bombs.summaries_bomb(root / "sample_bomb.eval", 12 * MiB, member_name=member)
    url = f"{server.url}/sample_bomb.eval"
    run = load_run(url, wait_for_hash=False)  # the header and summaries are honest
    rows = run.table.to_dicts()
    row = next(i for i, r in enumerate(rows) if str(r[ITEM_ID]) == "3")
    with pytest.raises(InputError) as caught:
        run.transcripts.read(row)
    assert str(caught.value).startswith(f"{url} (record {member}): ")
    assert "200 times its compressed size" in str(caught.value)
    run.transcripts.close()


# --- the bombs, full size, over HTTP, under a 3 GiB address space -------------------

LIMITED = """
import resource, sys
resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))
from evaltui.cli.main import main
sys.exit(main(["report", sys.argv[1], sys.argv[2]]))
"""


def _report_limited(url: str) -> tuple[subprocess.CompletedProcess, float]:
    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-c", LIMITED, url, str(BASE)],
        cwd=ROOT, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    return done, time.monotonic() - started


@pytest.mark.slow
def test_a_remote_511_mib_zstd_summaries_bomb_ends_in_one_line_under_3_gib(http_root):
    server, root = http_root
    bomb = zip_bombs.summaries_bomb(root / "big_bomb.eval", 511 * MiB)
    assert bomb.stat().st_size < 300_000
    url = f"{server.url}/big_bomb.eval"
    done, seconds = _report_limited(url)
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 2, done.stderr[-2000:]
    assert len(lines) == 1 and f"{url} (record summaries.json)" in lines[0]
    assert "byte limit" in lines[0] and seconds < 30


@pytest.mark.slow
def test_remote_3000_overlapping_8_mib_zstd_entries_end_in_one_line_under_3_gib(http_root):
    server, root = http_root
    zip_bombs.overlap_bomb(root / "big_overlap.eval", entries=3000, kernel=8 * MiB)
    url = f"{server.url}/big_overlap.eval"
    done, seconds = _report_limited(url)
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 2, done.stderr[-2000:]
    assert len(lines) == 1 and url in lines[0] and "overlaps" in lines[0]
    assert seconds < 30
