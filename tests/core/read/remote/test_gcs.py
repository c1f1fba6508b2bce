"""Runs and log directories in a Google Cloud Storage bucket (gcp-storage-emulator on the
loopback, reached by gcsfs as Google's own libraries reach an emulator): the report is the
local report, the sign-off verifies from the URLs, a directory lists from headers, an item
opens by range, and a missing object or bucket is one line with exit 2."""

from __future__ import annotations

import json

import pytest

from evaltui.cli.main import main
from evaltui.core.read.formats import LoadOptions, load_run
from evaltui.core.read.logdir import list_runs
from tests.core.read.remote.conftest import BASE, CAND, one_line_exit_2, padded

# gcsfs imports Google's storage client and gRPC (a second of CPU and more): with -m slow, as
# the S3 tests are (the default run covers the remote path with the Range HTTP server)
pytestmark = pytest.mark.slow

B = f"gs://logs/inspect/{BASE.name}"
C = f"gs://logs/inspect/{CAND.name}"


def test_the_report_of_a_bucket_pair_is_the_local_report(gcs, capsys):
    assert main(["report", B, C, "--format", "json", "--no-cache"]) == 4  # (ten items)
    remote = json.loads(capsys.readouterr().out)
    main(["report", str(BASE), str(CAND), "--format", "json"])
    local = json.loads(capsys.readouterr().out)
    for arm, url in (("baseline", B), ("candidate", C)):
        assert remote["inputs"][arm]["path"] == url
        assert remote["inputs"][arm]["sha256"] == local["inputs"][arm]["sha256"]
    assert remote["analysis"] == local["analysis"]


def test_jsonl_runs_in_the_bucket_are_read(gcs, capsys):
    urls = ["gs://logs/demo/baseline.jsonl", "gs://logs/demo/candidate.jsonl"]
    code = main(["report", *urls, "--format", "json"])
    remote = json.loads(capsys.readouterr().out)
    from tests.core.read.remote.conftest import SAMPLE_RUNS

    local_code = main(["report", *(str(SAMPLE_RUNS / u.rsplit("/", 1)[1]) for u in urls),
                       "--format", "json"])  # fmt: skip
    local = json.loads(capsys.readouterr().out)
    assert code == local_code and remote["analysis"] == local["analysis"]


def test_signoff_records_the_urls_and_verify_rereads_them(gcs, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("EVALTUI_STATE_DIR", str(tmp_path / "state"))
    code = main(["signoff", B, C, "--decision", "block", "--rationale", "bucket pair",
                 "--reviewer", "r", "--output", str(tmp_path / "signoff")])  # fmt: skip
    assert code == 0, capsys.readouterr().err
    record = json.loads((tmp_path / "signoff.json").read_text())
    assert [record["inputs"][arm]["path"] for arm in ("baseline", "candidate")] == [B, C]
    capsys.readouterr()
    before = gcs.counts()
    assert main(["verify", str(tmp_path / "signoff.json"), "--no-cache"]) == 0
    assert gcs.counts()[0] > before[0]  # read again from the bucket
    assert "read again from the URLs the record names" in capsys.readouterr().out
    assert main(["verify", str(tmp_path / "signoff.json"), str(BASE), str(CAND)]) == 0


def test_an_item_opens_by_reading_its_sample_member_only(gcs, tmp_path):
    import gcsfs

    big = padded(BASE, 8 << 20)  # (a log past one request: read by ranges)
    fs = gcsfs.GCSFileSystem(token="anon", endpoint_url=gcs.direct)
    fs.pipe_file("logs/big/run.eval", big)
    before = gcs.counts()
    # (its sha256 deferred, as the app defers it: the hash reads the whole object)
    run = load_run("gs://logs/big/run.eval", None, LoadOptions(defer_hash_check=True))
    opened = gcs.counts()
    transcript = run.transcripts.read(0)
    after = gcs.counts()
    assert transcript.input
    # the open: a look, the tail with the directory, header and summaries (at least 2 MiB
    # taken with it), never the 8 MiB in front; the item: its member's block
    assert opened[1] - before[1] < 3 << 20
    assert after[0] - opened[0] <= 1 and after[1] - opened[1] < 2 << 20


def test_a_log_directory_is_listed_from_headers_alone(gcs):
    import gcsfs

    fs = gcsfs.GCSFileSystem(token="anon", endpoint_url=gcs.direct)
    big = padded(BASE, 4 << 20)
    for k in range(3):
        fs.pipe_file(f"logs/listed/run{k}.eval", big)
    fs.pipe_file("logs/listed/notes.txt", b"not a log")
    before = gcs.counts()
    listing = list_runs("gs://logs/listed/")  # type: ignore[arg-type]
    received = gcs.counts()[1] - before[1]
    assert [e.items for e in listing.runs] == [10, 10, 10]
    assert {e.status for e in listing.runs} == {"success"}
    assert listing.other_files == 1
    assert received < 3 * (2 << 20) < 3 * len(big)  # never the padding in front


def test_a_missing_object_is_one_line(gcs, capsys):
    line = one_line_exit_2(["report", "gs://logs/inspect/nope.eval", C], capsys)
    assert line.startswith("evaltui: ") and "gs://logs/inspect/nope.eval" in line
    assert "no such object" in line


def test_a_missing_bucket_is_one_line(gcs, capsys):
    line = one_line_exit_2(["report", "gs://no-such-bucket/a.eval", C], capsys)
    assert "gs://no-such-bucket/a.eval" in line
