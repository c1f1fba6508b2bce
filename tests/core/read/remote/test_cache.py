"""The remote cache's folder: kept under its bound, least recently used first, and cleared of
the staging files downloads that were killed left behind; the temporary downloads killed
processes left in the system's temporary folder swept too."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time

from evaltui.core.read.remote import cache
from evaltui.core.read.remote.blob import Stamp


def _entry(folder, url, size, used):
    staged = folder / f".incoming-{url[-1]}"
    staged.write_bytes(b"x" * size)
    data = cache.keep(url, Stamp(size=size, etag=f"e-{url}"), staged, "0" * 64)
    meta = data.with_suffix(".json")
    os.utime(meta, (used, used))
    return data


def test_the_least_recently_used_entries_go_first_to_stay_under_the_bound(tmp_path, monkeypatch):
    monkeypatch.setenv("EVALTUI_REMOTE_CACHE_BYTES", "250")
    now = time.time()
    old = _entry(tmp_path, "s3://b/a", 100, now - 300)
    used = _entry(tmp_path, "s3://b/b", 100, now - 10)
    newest = _entry(tmp_path, "s3://b/c", 100, now)  # (its keep prunes: 300 > 250)
    assert not old.exists() and used.exists() and newest.exists()
    assert json.loads(used.with_suffix(".json").read_text())["url"] == "s3://b/b"


def test_a_killed_downloads_staging_file_is_swept_once_it_has_stood_an_hour(tmp_path):
    """A download removes its staging file when it fails, not when its process is killed:
    those were never removed, outside the bound. A live one (written recently) stays."""
    dead = tmp_path / ".incoming-dead"
    dead.write_bytes(b"x" * 1000)
    long_ago = time.time() - cache.STALE_STAGING - 60
    os.utime(dead, (long_ago, long_ago))
    live = tmp_path / ".incoming-live"
    live.write_bytes(b"y" * 1000)
    _entry(tmp_path, "s3://b/z", 10, time.time())  # a download kept: the folder is pruned
    assert not dead.exists()
    assert live.exists()


def _gone_pid() -> int:
    """The id of a process that has ended (reaped: no process has it now)."""
    ended = subprocess.Popen([sys.executable, "-c", "pass"])
    ended.wait()
    return ended.pid


def _temporary(folder, owner, *, age: float, tail: str = "abc"):
    left = folder / f"{cache.TEMPORARY_PREFIX}{owner}-{tail}"
    left.write_bytes(b"x" * 1000)
    stamp = time.time() - age
    os.utime(left, (stamp, stamp))
    return left


def test_a_killed_processs_temporary_download_is_swept_once_gone_and_an_hour_unwritten(tmp_path):
    """An object over the cache's bound (or any with the cache off) is downloaded to a
    temporary file removed at exit, not when the process is killed: a whole object left in
    the temporary folder each time. Only a file whose process is gone and which has stood an
    hour unwritten is removed; this process's, a live one's, a recent one and other names
    stay."""
    stale = cache.STALE_STAGING + 60
    gone = _gone_pid()
    dead = _temporary(tmp_path, gone, age=stale)
    recent = _temporary(tmp_path, gone, age=60, tail="recent")
    ours = _temporary(tmp_path, os.getpid(), age=stale)
    alive = _temporary(tmp_path, os.getppid(), age=stale)
    unnamed = _temporary(tmp_path, "x", age=stale)
    group = _temporary(tmp_path, 0, age=stale)
    cache.sweep_temporary(tmp_path)
    assert not dead.exists()
    assert recent.exists() and ours.exists() and alive.exists()
    assert unnamed.exists() and group.exists()


def test_a_temporary_download_carries_its_process_and_sweeps_the_dead_ones(tmp_path, monkeypatch):
    monkeypatch.setenv(cache.NO_CACHE_ENV, "1")
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    dead = _temporary(tmp_path, _gone_pid(), age=cache.STALE_STAGING + 60)
    staged, keepable = cache.staging("s3://b/big.jsonl", 10)
    assert not keepable and staged.parent == tmp_path
    assert staged.name.startswith(f"{cache.TEMPORARY_PREFIX}{os.getpid()}-")
    assert not dead.exists()
