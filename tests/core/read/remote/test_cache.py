"""The remote cache's folder: kept under its bound, least recently used first, and cleared of
the staging files downloads that were killed left behind."""

from __future__ import annotations

import json
import os
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
