"""A Google Cloud Storage bucket (gcp-storage-emulator on the loopback, reached by gcsfs as
Google's own libraries reach an emulator): a missing object or bucket, or a stopped server, is
one line with exit 2. The flows every store passes (the report, signoff and verify from the
URLs, an item, a listing) are test_store_flows.py's."""

from __future__ import annotations

import pytest

from evaltui.core.read.remote import stores
from tests.core.read.remote.conftest import BASE, CAND, one_line_exit_2, one_line_with
from tests.core.read.remote.servers import closed_port

# gcsfs imports Google's storage client and gRPC (a second of CPU and more): with -m slow, as
# the S3 tests are (the default run covers the remote path with the Range HTTP server)
pytestmark = pytest.mark.slow

B = f"gs://logs/inspect/{BASE.name}"
C = f"gs://logs/inspect/{CAND.name}"


def test_a_missing_object_is_one_line(gcs, capsys):
    line = one_line_exit_2(["report", "gs://logs/inspect/nope.eval", C], capsys)
    assert line.startswith("evaltui: ") and "gs://logs/inspect/nope.eval" in line
    assert "no such object" in line


def test_a_missing_bucket_is_one_line(gcs, capsys):
    line = one_line_exit_2(["report", "gs://no-such-bucket/a.eval", C], capsys)
    assert "gs://no-such-bucket/a.eval" in line


def test_a_stopped_server_is_one_line(gcs, capsys, monkeypatch):
    """gcsfs's own 6 tries (waits up to 16 s) under ours kept this waiting 2 min 16 s, its
    logged traceback printed above the line."""
    env = {"STORAGE_EMULATOR_HOST": f"http://127.0.0.1:{closed_port()}"}
    line = one_line_with(env, ["report", B, C, "--no-cache"], capsys, monkeypatch)
    assert line.startswith(f"evaltui: error: {B}: cannot reach the store")
    assert line.endswith("or STORAGE_EMULATOR_HOST) (after 3 tries)")


def test_gcsfs_requests_are_made_without_its_retry_loop(gcs):
    fs, _ = stores.filesystem(B)
    assert fs._request.func is type(fs)._request.__wrapped__  # (one try: retry.py retries)
